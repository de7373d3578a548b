"""Helpers the command-line tests share: run ``laizi`` as a real process (or at a
pseudo-terminal), read JSON lines, and write a recorded hand back as a replay script."""

from __future__ import annotations

import codecs
import fcntl
import json
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

from laizi.engine.record import action_of

ROOT = Path(__file__).resolve().parent.parent
ANSI = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")
"""A terminal control sequence (colours, cursor moves), to strip from a pty's output."""


def run(
    *args: str, stdin: str | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess:
    """``laizi ARGS`` in a clean environment (English, these sources), plus ``env``."""
    env = {
        "LAIZI_LANG": "en",
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PYTHONPATH": str(ROOT / "src"),
        **(env or {}),
    }
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )


def spawn_in_pty(
    *args: str, term: str = "xterm", columns: int = 200, set_size: bool = True
) -> tuple[subprocess.Popen, int]:
    """``laizi ARGS`` with a pseudo-terminal as its stdin, stdout and stderr: the process and
    the terminal's other end, to read what it shows and type to it.  ``set_size`` gives the
    terminal 50 rows of ``columns`` (no wrapping)."""
    main, child = pty.openpty()
    if set_size:
        fcntl.ioctl(child, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "COLUMNS": str(columns), "TERM": term}
    process = subprocess.Popen(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        stdin=child,
        stdout=child,
        stderr=child,
        env=env,
        cwd=ROOT,
    )
    os.close(child)
    return process, main


def read_until(fd: int, markers: tuple[str, ...], timeout: float = 60) -> str:
    """What the terminal ``fd`` shows until one of ``markers`` appears, the program closes it, or
    ``timeout`` seconds pass."""
    text = ""
    decoder = codecs.getincrementaldecoder("utf-8")("replace")  # a character may span reads
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if not ready:
            continue
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        text += decoder.decode(data)
        if any(marker in text for marker in markers):
            return text
    return text


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
