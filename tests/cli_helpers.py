"""Helpers the replay and verify tests share: run ``laizi`` as a real process, read JSON lines,
and write a recorded hand back as a replay script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from laizi.engine.record import action_of

ROOT = Path(__file__).resolve().parent.parent


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {
        "LAIZI_LANG": "en",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT / "src"),
    }
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def lines(stdout: str) -> list[dict]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def script_of(record: list[dict], rules) -> dict:
    """The replay script of a recorded hand: its deal, its draws and its decisions."""
    start, deal = record[0], record[1]
    draws = [e["tile"] for e in record if e["type"] == "draw" and e["from"] == "front"]
    backs = [e["tile"] for e in record if e["type"] == "draw" and e["from"] == "back"]
    actions = [a.to_json() for a in map(action_of, record) if a is not None]
    return {
        "rules": rules,
        "dealer": start["dealer"],
        "hands": deal["hands"],
        "indicator": deal["indicator"],
        "draws": draws,
        "replacements": backs,
        "actions": actions,
    }
