"""Issue 24, item 6: nothing a ``cmd:`` bot starts outlives the command that runs it.

A real bot process (tests/outside/forking_bot.py) leaves a sleeping child behind — in its own
process group, in a session of its own, or as a double-forked daemon — under ``laizi
bot-check`` and ``laizi arena`` (one process, and worker processes that are terminated), and
when the arena is interrupted (Ctrl-C) or terminated (SIGTERM).  Once the command has exited,
none of those children is alive.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from laizi.bots import make_bot
from laizi.engine import make_ruleset
from laizi.sim import play_hand, wall_seed
from tests.cli_helpers import ROOT, run

FORKING = ROOT / "tests/outside/forking_bot.py"
MODES = ["group", "setsid", "daemon"]


def alive(pids: list[int], token: str) -> list[int]:
    """The pids still running (not zombies) one of the forking bot's processes."""
    running = []
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_bytes()
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        state = stat.rsplit(b")", 1)[1].split()[0]
        if state not in (b"Z", b"X") and token.encode() in command:
            running.append(pid)
    return running


class Children:
    """The forking bot's command, and the pids of the children it left (from its pid file)."""

    def __init__(self, mode: str, where: Path, then: str = "play") -> None:
        self.token = f"token-{uuid.uuid4().hex}"
        self.pidfile = where / f"pids-{mode}"
        self.bot = f"cmd:{sys.executable} {FORKING} {mode} {self.pidfile} {self.token} {then}"

    @property
    def pids(self) -> list[int]:
        if not self.pidfile.exists():
            return []
        return [int(word) for word in self.pidfile.read_text().split()]

    def left(self, within: float = 10.0) -> list[int]:
        """The children still alive once ``within`` seconds have passed (or none is)."""
        deadline = time.monotonic() + within
        while (running := alive(self.pids, self.token)) and time.monotonic() < deadline:
            time.sleep(0.1)
        return running

    def clean_up(self) -> None:
        for pid in alive(self.pids, self.token):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def children(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Children]:
    params = request.node.callspec.params
    made = Children(params["mode"], tmp_path, params.get("then", "play"))
    yield made
    made.clean_up()  # a failing run leaves nothing behind either


@pytest.mark.parametrize("mode", MODES)
def test_bot_check_leaves_no_child_of_the_bot(mode: str, children: Children) -> None:
    done = run("bot-check", children.bot, "--hands", "1", "--json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert children.pids  # the bot did leave a child
    assert children.left() == []


@pytest.mark.parametrize("workers", ["1", "2"])
@pytest.mark.parametrize("mode", MODES)
def test_arena_leaves_no_child_of_the_bot(mode: str, workers: str, children: Children) -> None:
    args = ("--rules", "baishan", "--hands", "2", "--seed", "4", "--workers", workers, "--json")
    done = run("arena", children.bot, "random", *args)
    assert done.returncode == 0, done.stderr
    assert children.pids  # the bot did leave a child
    assert children.left() == []


@pytest.mark.parametrize("then", ["crash", "sleep"])
@pytest.mark.parametrize("mode", ["group", "daemon"])
def test_a_bot_that_crashed_or_was_stopped_leaves_no_child(
    mode: str,
    then: str,
    children: Children,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """In-process: the bot exits at its first prompt (its children are killed when the hand
    gives it back), or never answers (stopped as ``unresponsive`` after 3 timeouts)."""
    monkeypatch.setenv("LAIZI_BOT_TIMEOUT", "0.2")
    ruleset = make_ruleset("baishan")
    bot = make_bot(children.bot, ruleset.settings, 3)
    others = [make_bot("random", ruleset.settings, s) for s in (1, 2, 3)]
    play_hand(ruleset, [bot, *others], 0, wall_seed(1, 0))
    assert children.pids
    why = "exited" if then == "crash" else "unresponsive"
    assert any(f": {why}" in record.getMessage() for record in caplog.records)
    assert children.left() == []


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
@pytest.mark.parametrize("mode", ["group", "daemon"])
def test_an_interrupted_arena_leaves_no_child_of_the_bot(
    mode: str, how: signal.Signals, children: Children
) -> None:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT / "src")}
    laizi = [sys.executable, "-c", "from laizi.cli import main; main()"]
    arena = subprocess.Popen(
        [*laizi, "arena", children.bot, "random", "--hands", "500", "--seed", "4", "--json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not children.pids and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children.pids, "the bot never started"
        arena.send_signal(how)
        arena.wait(timeout=60)
    finally:
        if arena.poll() is None:
            arena.kill()
            arena.wait()
    assert children.left() == []


TERMINATED_HOLDING_A_LOCK = """
import os, signal, sys, time
from laizi.botproto.process import BotProcess

bot = BotProcess(sys.argv[1])
bot.send({"type": "hello", "protocol": "laizi-bot", "version": 1})
print(bot.proc.pid, bot.next_line(time.monotonic() + 30), flush=True)
with bot.writes.mutex:  # as a worker's finalizer holds it, stopping the bot (Queue.put_nowait)
    os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, in this thread
    time.sleep(60)
"""


@pytest.mark.parametrize("mode", ["setsid", "daemon"])
def test_sigterm_while_the_host_holds_a_bot_queue_lock_ends_it(
    mode: str, children: Children
) -> None:
    """An arena worker's pool sent SIGTERM while the worker's finalizer was stopping its bot,
    inside the bot's write queue (1 run in about 12 of the two-worker arena hung for good: the
    handler waited for the lock its own thread held).  Replayed exactly: the host holds that
    lock when SIGTERM comes; it ends by SIGTERM at once and leaves nothing behind."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT / "src")}
    command = children.bot.removeprefix("cmd:")
    host = subprocess.Popen(
        [sys.executable, "-c", TERMINATED_HOLDING_A_LOCK, command],
        env=env,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        out, _ = host.communicate(timeout=30)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
    assert host.returncode == -signal.SIGTERM
    bot_pid = int(out.split()[0])
    assert children.pids and children.left() == []
    assert alive([bot_pid], children.token) == []
