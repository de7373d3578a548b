"""Databases for the persistence tests: every such test runs on SQLite and on PostgreSQL.

PostgreSQL comes from ``LAIZI_TEST_POSTGRES_URL`` (``scripts/test.sh`` starts a throw-away server
and sets it); without it the tests start one themselves with ``scripts/postgres.sh`` when the
server binaries are installed — one server for the whole run, shared by every pytest-xdist worker
(the first worker that needs it starts it; the run's main process stops it at the end).  If none
can be had, the PostgreSQL cases fail under CI (``CI=true``) and are skipped elsewhere, with the
reason.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server_helpers import Servers

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_ENV = "LAIZI_TEST_POSTGRES_URL"
DATABASES = ["sqlite", "postgresql"]


# Where the run's own PostgreSQL server lives (when LAIZI_TEST_POSTGRES_URL names none): a directory
# the main process makes before any xdist worker starts, so every worker inherits its name.
_SHARED_ENV = "LAIZI_TEST_POSTGRES_SHARED_DIR"
_POSTGRES_SH = str(ROOT / "scripts" / "postgres.sh")


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """pytest-xdist, on the controller: tell each worker the run groups tests (see below; a
    worker re-reads the command line, where ``--dist`` is still ``load``)."""
    node.workerinput["laizi_loadgroup"] = node.config.getvalue("dist") == "loadgroup"


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "dist", "no") == "load":
        # pytest-xdist's default, with the `xdist_group` marks honoured: the Ray tests share one
        # local cluster, so they go to one worker (one start per run, not one per worker).
        config.option.dist = "loadgroup"
    if getattr(config, "workerinput", {}).get("laizi_loadgroup"):
        config.option.loadgroup = True  # a worker: name the groups in the test ids, as asked
    if hasattr(config, "workerinput") or os.environ.get(POSTGRES_ENV):
        return  # an xdist worker (it inherited the directory), or a server given from outside
    shared = tempfile.mkdtemp(prefix="laizi-test-pg.")
    os.chmod(shared, 0o755)  # as root the server runs as another user, inside this directory
    os.environ[_SHARED_ENV] = shared


def pytest_unconfigure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return
    shared = os.environ.pop(_SHARED_ENV, None)
    if shared:
        subprocess.run(
            ["bash", _POSTGRES_SH, "stop", os.path.join(shared, "server")],
            capture_output=True,
            check=False,
        )
        shutil.rmtree(shared, ignore_errors=True)


def _shared_server(shared: Path) -> str:
    """The URL of the run's server, started by the first process to ask; raises if it can't be."""
    with open(shared / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # the other workers wait here while it starts
        url, failed = shared / "url", shared / "failed"
        if url.exists():
            return url.read_text()
        if failed.exists():
            raise RuntimeError(failed.read_text())
        started = subprocess.run(
            ["bash", _POSTGRES_SH, "start", str(shared / "server")],
            capture_output=True,
            text=True,
            check=False,
        )
        if started.returncode != 0:
            reason = f"PostgreSQL could not be started: {started.stderr.strip()[-500:]}"
            failed.write_text(reason)
            raise RuntimeError(reason)
        url.write_text(started.stdout.strip().splitlines()[-1])
        return url.read_text()


@pytest.fixture(scope="session")
def postgres_server() -> str:
    """The URL of a PostgreSQL server the tests may create databases on."""
    url = os.environ.get(POSTGRES_ENV)
    if url:
        return url
    try:
        return _shared_server(Path(os.environ[_SHARED_ENV]))
    except RuntimeError as error:
        if os.environ.get("CI") == "true":
            pytest.fail(str(error))
        pytest.skip(f"{error} (set {POSTGRES_ENV} or run scripts/test.sh)")


def _admin(url: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute(sql)


class Databases:
    """Fresh, empty databases of one kind; all dropped at the end."""

    def __init__(self, kind: str, tmp: Path, server: str | None) -> None:
        self.kind = kind
        self.tmp = tmp
        self.server = server
        self.made: list[str] = []

    def new(self) -> str:
        if self.kind == "sqlite":
            return f"sqlite:///{self.tmp / (secrets.token_hex(4) + '.sqlite3')}"
        assert self.server is not None
        name = "laizi_test_" + secrets.token_hex(6)
        _admin(self.server, f"CREATE DATABASE {name}")
        self.made.append(name)
        return self.server.rsplit("/", 1)[0] + "/" + name

    def drop(self) -> None:
        assert self.server is not None or not self.made
        for name in self.made:
            _admin(str(self.server), f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        self.made.clear()


def _databases(request: pytest.FixtureRequest, tmp: Path) -> Databases:
    kind = request.param
    server = request.getfixturevalue("postgres_server") if kind == "postgresql" else None
    return Databases(kind, tmp, server)


@pytest.fixture(params=DATABASES)
def databases(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Databases]:
    """Make fresh databases of the parametrised kind (SQLite, PostgreSQL)."""
    made = _databases(request, tmp_path)
    yield made
    made.drop()


@pytest.fixture(params=DATABASES)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """One fresh, empty database URL, on SQLite and on PostgreSQL."""
    made = _databases(request, tmp_path)
    yield made.new()
    made.drop()


@pytest.fixture(scope="module", params=DATABASES)
def module_db_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """As :func:`db_url`, shared by a module's tests."""
    made = _databases(request, tmp_path_factory.mktemp("db"))
    yield made.new()
    made.drop()


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Servers]:
    """``serve(*flags)``: a real ``laizi serve`` with these flags (``Servers``), stopped at the
    end of the test."""
    servers = Servers(tmp_path)
    yield servers
    servers.stop()
