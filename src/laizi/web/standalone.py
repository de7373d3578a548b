"""One self-contained HTML page of a replay (``laizi replay FILE --html OUT``).

The page is the record viewer (``static/replayfile.js``) with everything inlined: the client's
ES modules that ``static/replaystandalone.js`` imports, joined into one module script by
:func:`bundle` (no build step: each module becomes an async function returning its exports, run
in import order); the style sheets; the games' words (the schema the lobby fetches, given by the
caller); and the replay's data — the frames the engine made (:func:`laizi.web.replay.frames`),
or an events log's text for the page to fold.  It fetches nothing and opens from ``file://``.

>>> page = replay_page({"name": "x.jsonl", "kind": "record", "hands": []}, {"words": {}})
>>> page.startswith("<!doctype html>"), "<script src" in page, page.count('<script type="module">')
(True, False, 1)
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

from laizi.web.routes import STATIC

__all__ = ["ENTRY", "BundleError", "bundle", "module_order", "replay_page"]

ENTRY = "replaystandalone.js"
"""The page's entry module (in ``static/``)."""

STYLES = ("style.css", "feedback.css")

_SPEC = r"\{([^}]*)\}"
_FROM = r'\s*from\s*"\./([\w.-]+\.js)";?[ \t]*$'
_IMPORT = re.compile(rf"^import\s*{_SPEC}{_FROM}", re.MULTILINE)
_EXPORT_FROM = re.compile(rf"^export\s*{_SPEC}{_FROM}", re.MULTILINE)
_EXPORT_DECL = re.compile(
    r"^export\s+((?:async\s+)?function\*?|const|class)\s+([A-Za-z_$][\w$]*)", re.MULTILINE
)
_LEFT = re.compile(r"^(import|export)\b.*$", re.MULTILINE)


class BundleError(ValueError):
    """A module the bundler cannot inline (an import or export form it does not know)."""


def _names(spec: str) -> list[tuple[str, str]]:
    """``"a, b as c"`` → ``[("a", "a"), ("b", "c")]``."""
    out = []
    for part in spec.split(","):
        words = part.split()
        if not words:
            continue
        if len(words) == 3 and words[1] == "as":
            out.append((words[0], words[2]))
        elif len(words) == 1:
            out.append((words[0], words[0]))
        else:
            raise BundleError(f"cannot read the names {{{spec}}}")
    return out


def _imports(source: str) -> list[str]:
    return [m.group(2) for m in (*_IMPORT.finditer(source), *_EXPORT_FROM.finditer(source))]


def module_order(entry: str = ENTRY, static: Path = STATIC) -> list[str]:
    """The modules ``entry`` needs, each after the modules it imports (the entry last).

    >>> order = module_order()
    >>> order[-1], order.index("i18n.js") < order.index("replayfile.js")
    ('replaystandalone.js', True)
    """
    order: list[str] = []
    visiting: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        if name in visiting:
            raise BundleError(f"{name}: imported in a cycle ({' → '.join([*visiting, name])})")
        visiting.append(name)
        for used in _imports((static / name).read_text(encoding="utf-8")):
            visit(used)
        visiting.pop()
        order.append(name)

    visit(entry)
    return order


def _binding(names: list[tuple[str, str]], module: str) -> str:
    inner = ", ".join(name if name == alias else f"{name}: {alias}" for name, alias in names)
    return f'const {{ {inner} }} = __laizi["{module}"];'


def _module(name: str, source: str) -> str:
    """One module as ``__laizi[name] = await (async () => { …; return {exports}; })();``."""
    exported: list[str] = []

    def reexport(m: re.Match[str]) -> str:
        names = _names(m.group(1))
        exported.extend(alias for _, alias in names)
        return _binding(names, m.group(2))

    def declare(m: re.Match[str]) -> str:
        exported.append(m.group(2))
        return f"{m.group(1)} {m.group(2)}"

    body = _IMPORT.sub(lambda m: _binding(_names(m.group(1)), m.group(2)), source)
    body = _EXPORT_FROM.sub(reexport, body)
    body = _EXPORT_DECL.sub(declare, body)
    left = _LEFT.search(body)
    if left:
        raise BundleError(f"{name}: cannot inline `{left.group(0).strip()}`")
    names = ", ".join(exported)
    return f'__laizi["{name}"] = await (async () => {{\n{body}\nreturn {{ {names} }};\n}})();'


def bundle(entry: str = ENTRY, static: Path = STATIC) -> str:
    """The modules ``entry`` needs as the text of one module script."""
    parts = ["const __laizi = {};"]
    for name in module_order(entry, static):
        parts.append(_module(name, (static / name).read_text(encoding="utf-8")))
    code = "\n".join(parts)
    if re.search(r"</script|<!--", code, re.IGNORECASE):
        raise BundleError("a module holds </script or <!--, which would end the page's script")
    return code


def _json_script(element_id: str, data: Any) -> str:
    # "<" only ever occurs inside JSON strings, where \u003c is the same character
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _icon() -> str:
    found = re.search(r'<link rel="icon" href="data:[^"]*">', (STATIC / "index.html").read_text())
    return found.group(0) if found else ""


def replay_page(data: dict[str, Any], schema: dict[str, Any]) -> str:
    """The whole page.  ``data``: ``{"name", "kind", "hands": [{"number", "game", "frames"}]}``
    (frames the engine made) or ``{"name", "kind": "log", "log": text}``; ``schema``: what
    ``GET /api/settings/schema`` serves (its ``words`` name the wins, factors and fans)."""
    styles = "\n".join((STATIC / name).read_text(encoding="utf-8") for name in STYLES)
    if "</style" in styles.lower():
        raise BundleError("a style sheet holds </style")
    title = html.escape(f"laizi 癞子麻将 — {data.get('name', '')}")
    return (
        '<!doctype html>\n<html lang="zh-Hans">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n{_icon()}\n<style>\n{styles}\n</style>\n"
        f"{_json_script('laizi-schema', schema)}\n{_json_script('laizi-replay', data)}\n"
        f'<script type="module">\n{bundle()}\n</script>\n</head>\n<body>\n'
        '<header id="top"></header>\n<main id="app"></main>\n</body>\n</html>\n'
    )
