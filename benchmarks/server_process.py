"""What the server benchmarks share: a free port and a ``laizi serve`` process to measure."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

SRC = str(Path(__file__).resolve().parents[1] / "src")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(db: Path, port: int, *flags: str) -> subprocess.Popen[bytes]:
    """``laizi serve`` on 127.0.0.1:``port`` with an SQLite database at ``db``, once it answers."""
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", f"sqlite:///{db}", *flags]
    proc = subprocess.Popen(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args, "--log-level", "error"],
        env=env,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return proc
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise SystemExit("the server did not start")
