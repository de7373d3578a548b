"""The recorded outputs of ``laizi score``, ``replay``, ``verify`` and ``analyze`` on every file
in ``examples/``: the cases, how to run one, and how to record them all again.

Each case is one command line; its recorded output (exit code, stdout, stderr) is one file under
``tests/golden/``.  ``tests/test_golden.py`` re-runs every case and compares byte for byte.
After a change that is meant to alter an output, record them again and review the diff::

    PYTHONPATH=src python tests/golden_corpus.py
    git diff tests/golden/
"""

from __future__ import annotations

import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
GOLDEN = Path(__file__).resolve().parent / "golden"


@dataclass(frozen=True)
class Case:
    """One command: ``args`` after ``laizi`` (``{record}`` stands for a replayed record), and
    the example file the verify cases replay first."""

    name: str
    args: tuple[str, ...]
    record_of: str | None = None
    stdin: str | None = None

    @property
    def path(self) -> Path:
        return GOLDEN / f"{self.name}.txt"


def cases() -> list[Case]:
    found: list[Case] = []
    for f in sorted((EXAMPLES / "score").glob("*.json")):
        rel = str(f.relative_to(ROOT))
        found.append(Case(f"score/{f.stem}.en", ("score", rel, "--lang", "en")))
        found.append(Case(f"score/{f.stem}.zh", ("score", rel, "--lang", "zh")))
        found.append(Case(f"score/{f.stem}.json", ("score", rel, "--json")))
    for f in sorted((EXAMPLES / "replay").glob("*.json")):
        rel = str(f.relative_to(ROOT))
        found.append(Case(f"replay/{f.stem}.en", ("replay", rel, "--lang", "en")))
        found.append(Case(f"replay/{f.stem}.zh", ("replay", rel, "--lang", "zh")))
        # A replayed script lists its wall (no commitment): unverifiable, exit 4 unless
        # --allow-uncommitted (the words, with it; the JSON verdict, without it).
        for lang in ("en", "zh"):
            args = ("verify", "{record}", "--allow-uncommitted", "--lang", lang)
            found.append(Case(f"verify/{f.stem}.{lang}", args, rel))
        found.append(Case(f"verify/{f.stem}.json", ("verify", "{record}", "--json"), rel))
    hands = EXAMPLES / "analyze" / "hands.jsonl"
    found.append(Case("analyze/hands.jsonl", ("analyze",), stdin=hands.read_text("utf-8")))
    for line in ("1112345678999m", "234m456p789s2255s7z --laizi 7z"):
        args = tuple(line.split())
        tag = line.replace(" ", "_")
        found.append(Case(f"analyze/{tag}.en", ("analyze", *args, "--lang", "en")))
        found.append(Case(f"analyze/{tag}.zh", ("analyze", *args, "--lang", "zh")))
        found.append(Case(f"analyze/{tag}.json", ("analyze", *args, "--json")))
    qidui = ("analyze", "1133557799m1122p", "--game", "baishan", "--json")
    found.append(Case("analyze/qidui.baishan", qidui))
    return found


def _invoke(args: list[str], stdin: str | None) -> tuple[int, str, str]:
    from laizi.cli import app

    result = CliRunner().invoke(
        app, args, input=stdin, env={"LAIZI_LANG": "en", "COLUMNS": "100"}, catch_exceptions=False
    )
    return result.exit_code, result.stdout, result.stderr


def run(case: Case) -> str:
    """The case's output as recorded: exit code, then stdout, then stderr."""
    cwd = os.getcwd()
    os.chdir(ROOT)  # the example paths are relative, so the outputs name them the same way
    try:
        args = list(case.args)
        if case.record_of is not None:
            code, record, err = _invoke(["replay", case.record_of], None)
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "record.jsonl"
                path.write_text(record, "utf-8")
                code, out, err = _invoke(
                    [str(path) if a == "{record}" else a for a in args], case.stdin
                )
                out, err = out.replace(str(path), "{record}"), err.replace(str(path), "{record}")
        else:
            code, out, err = _invoke(args, case.stdin)
    finally:
        os.chdir(cwd)
    return f"$ laizi {' '.join(case.args)}\nexit {code}\n--- stdout\n{out}--- stderr\n{err}"


def record_all() -> None:
    for case in cases():
        case.path.parent.mkdir(parents=True, exist_ok=True)
        case.path.write_text(run(case), "utf-8")


if __name__ == "__main__":
    record_all()
    print(f"recorded {len(cases())} outputs under {GOLDEN}", file=sys.stderr)
