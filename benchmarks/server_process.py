"""What the server benchmarks share: a `laizi serve` to measure, a room on it, the report."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

SRC = str(Path(__file__).resolve().parents[1] / "src")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_server(
    db: Path | str, port: int, *flags: str, prelude: str = ""
) -> subprocess.Popen[bytes]:
    """``laizi serve`` on 127.0.0.1:``port`` with an SQLite database at ``db`` (or the database
    of the URL ``db``), once it answers.  ``prelude``: Python run in the server process before
    it starts (a benchmark's setting)."""
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}
    url = db if isinstance(db, str) else f"sqlite:///{db}"
    args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--db", url, *flags]
    code = f"{prelude}\nfrom laizi.cli import main; main()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args, "--log-level", "error"],
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


@contextlib.contextmanager
def throwaway_server(
    *flags: str, db: str | None = None
) -> Iterator[tuple[int, subprocess.Popen[bytes]]]:
    """A ``laizi serve`` on a free port with a fresh SQLite file in a temporary directory (or
    the database of the URL ``db``): ``(port, process)``; stopped (SIGTERM, then SIGKILL after
    15 s) and removed at the end."""
    if db is None:
        with throwaway_database_server(*flags) as (port, server, _):
            yield port, server
        return
    port = free_port()
    with stopped_at_end(start_server(db, port, *flags)) as server:
        yield port, server


@contextlib.contextmanager
def throwaway_database_server(
    *flags: str, prelude: str = ""
) -> Iterator[tuple[int, subprocess.Popen[bytes], Path]]:
    """:func:`throwaway_server` on SQLite, also giving its file (``(port, process, path)``) and
    running ``prelude`` in the server process first."""
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        db = Path(tmp) / "bench.sqlite3"
        with stopped_at_end(start_server(db, port, *flags, prelude=prelude)) as server:
            yield port, server, db


@contextlib.contextmanager
def stopped_at_end(server: subprocess.Popen[bytes]) -> Iterator[subprocess.Popen[bytes]]:
    """``server``, sent SIGTERM at the end (SIGKILL after 15 s)."""
    try:
        yield server
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()


@contextlib.contextmanager
def fresh_postgres(url: str) -> Iterator[str]:
    """A new, empty database on the PostgreSQL server of ``url`` (dropped at the end)."""
    import secrets

    import psycopg

    name = "laizi_bench_" + secrets.token_hex(6)
    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"CREATE DATABASE {name}")
    try:
        yield url.rsplit("/", 1)[0] + "/" + name
    finally:
        with psycopg.connect(url, autocommit=True) as c:
            c.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def create_room(port: int, table: dict[str, Any]) -> str:
    """A Wuhan 红中 开口翻 room with these table settings on the server at ``port``: its code."""
    body = {"rules": "wuhan-hongzhong-kaikou", "table": table}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/api/rooms",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        return str(json.loads(r.read())["code"])


def report(result: dict[str, Any], as_json: bool) -> None:
    """The figures: one JSON line (``--json``, INTERFACES.md), else one ``key: value`` a line."""
    if as_json:
        print(json.dumps(result))
        return
    width = max(map(len, result), default=0)
    for key, value in result.items():
        print(f"{key:>{width}}: {value}")
