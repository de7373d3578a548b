"""A page's visible text checked for the other language and for raw ids (issue 27): the scan a
browser test runs on every page a player meets — add a page by calling :func:`scan` on it.

The text scanned is what a reader sees, every folded disclosure opened (a ``<details>`` holds
text too); tile faces (SVG), ``<code>`` (commands, hashes), links' addresses, the brand and the
language switch are not prose and are left out, as are the names a test gives in ``allow``
(player names are proper names in any language).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from playwright.sync_api import Page

CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
"""Chinese characters: none on an English page outside what is left out."""
LATIN_WORD = re.compile(r"\b[A-Za-z]*[a-z][A-Za-z]*\b")
"""A word in Latin letters with a lower-case letter (a room code such as K7QX2M is not one)."""
ZH_ALLOWED = frozenset({"SHA"})
"""Latin words a Chinese page may say: SHA-256 (the hash's name)."""
RAW_IDS = (
    re.compile(r"\b[a-z]+(?:_[a-z0-9]+)+\b"),  # snake_case keys: escape_penalty, self_draw
    re.compile(r"\b[a-z]+(?:-[a-z0-9]+){2,}\b"),  # preset ids: wuhan-hongzhong-kaikou
    re.compile(r"\b[Pp]layer \d\b"),  # the server's fallback name
)
URL = re.compile(r"https?://\S+")

VISIBLE_TEXT = """
(skip) => {
  const folded = [...document.querySelectorAll('details:not([open])')];
  folded.forEach((d) => { d.open = true; });
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el || !node.textContent.trim() || el.closest(skip)) continue;
    if (el.closest('script, style, template')) continue;
    if (!el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    out.push(node.textContent.trim());
  }
  document.querySelectorAll('select').forEach((s) => {
    if (!s.closest(skip)) [...s.options].forEach((o) => out.push(o.textContent.trim()));
  });
  folded.forEach((d) => { d.open = false; });
  return out;
}
"""
SKIP = "svg, code, .brand, #lang, input"
"""Left out of the text scanned: tile faces, commands and hashes, the brand, the switch to the
other language, what a person typed."""


def visible_text(page: Page, skip: str = SKIP) -> list[str]:
    """Every piece of text the reader sees (select options and folded text too), in order."""
    return page.evaluate(VISIBLE_TEXT, skip)  # type: ignore[no-any-return]


def findings(texts: Iterable[str], lang: str, allow: Iterable[str] = ()) -> list[str]:
    """What in ``texts`` is in the other language than ``lang`` or a raw id (empty: clean)."""
    found = []
    for text in texts:
        for name in sorted(allow, key=len, reverse=True):
            text = text.replace(name, " ")
        text = URL.sub(" ", text)
        for pattern in RAW_IDS:
            found += [f"raw id {m!r} in {text!r}" for m in pattern.findall(text)]
        if lang == "en":
            found += [f"Chinese {m!r} in {text!r}" for m in CJK.findall(text)]
        else:
            words = [w for w in LATIN_WORD.findall(text) if w not in ZH_ALLOWED]
            found += [f"English {w!r} in {text!r}" for w in words]
    return found


def scan(page: Page, lang: str, where: str, allow: Iterable[str] = ()) -> None:
    """Assert the page shows no text in the other language and no raw id; ``where`` names it."""
    found = findings(visible_text(page), lang, allow)
    assert not found, (where, found)
