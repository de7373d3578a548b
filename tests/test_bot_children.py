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
import threading
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


def test_the_child_runs_no_loader_lookup_before_it_becomes_the_bot(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Between ``fork`` and ``exec`` the child only makes the one C call it was handed: it never
    looks ``prctl`` up (a ``dlopen``).  In a process with threads the loader's lock may have
    been held at the fork, and a child that waits for it never execs — holding the pipes it
    inherited, the arena's output among them.  Here any
    lookup in the child raises, which fails the start."""
    import ctypes

    from laizi.botproto import process

    def no_lookup(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a dlopen between fork and exec")

    monkeypatch.setattr(ctypes, "CDLL", no_lookup)
    bot = process.BotProcess(f"{sys.executable} -c 'import sys; sys.stdin.read()'")
    try:
        assert bot.dead is None and bot.proc.poll() is None
        assert process._PRCTL is not None  # the death signal is still asked for (Linux)
        status = Path(f"/proc/{bot.proc.pid}/status").read_text()
        assert bot.proc.pid > 0 and "State:" in status
    finally:
        bot.close(grace=0.1)
    assert bot.proc.returncode is not None


def blocked_signals(tid: int) -> int:
    """The signal mask of one thread of this process (``SigBlk`` in /proc)."""
    status = Path(f"/proc/self/task/{tid}/status").read_text()
    return int(
        next(line for line in status.splitlines() if line.startswith("SigBlk:")).split()[1], 16
    )


def test_a_bots_threads_leave_the_stop_signals_to_the_main_thread() -> None:
    """A signal goes to any thread that does not block it, and only the main thread runs Python
    handlers: a SIGTERM taken by a bot's reader left an idle arena worker waiting for the pool's
    lock for good.  The bot's threads block SIGTERM and SIGINT; the main thread does not."""
    from laizi.botproto.process import BotProcess

    bot = BotProcess(f"{sys.executable} -c 'import sys; sys.stdin.read()'")
    try:
        both = (1 << (signal.SIGTERM - 1)) | (1 << (signal.SIGINT - 1))
        deadline = time.monotonic() + 10
        while any(t.native_id is None for t in bot._threads) and time.monotonic() < deadline:
            time.sleep(0.01)
        masks = {t.name: blocked_signals(t.native_id or 0) for t in bot._threads}
        assert len(masks) == 3
        assert all(mask & both == both for mask in masks.values()), masks
        assert blocked_signals(threading.main_thread().native_id or 0) & both == 0
    finally:
        bot.close(grace=0.1)


def double(job: int) -> int:
    return job * 2


def test_workers_that_finished_every_job_are_closed_not_terminated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``Pool.terminate`` takes the task queue's lock and then relies on a SIGTERM reaching each
    worker's main thread; a worker waiting for that lock behind it, whose signal a bot's thread
    took, never ended (a two-worker arena hung in CI; about 1 run in 80 under load).  Once every
    job is done the pool is closed and the workers end by themselves; only a run cut short
    (an error, Ctrl-C, a caller that stops reading) terminates them."""
    import multiprocessing.pool

    from laizi.sim.run import run_jobs

    terminated: list[int] = []
    original = multiprocessing.pool.Pool.terminate

    def spy(self: multiprocessing.pool.Pool) -> None:
        terminated.append(len(self._pool))  # type: ignore[attr-defined]
        original(self)

    monkeypatch.setattr(multiprocessing.pool.Pool, "terminate", spy)
    assert list(run_jobs(double, list(range(8)), workers=2)) == [2 * n for n in range(8)]
    assert terminated == []
    cut_short = run_jobs(double, list(range(8)), workers=2)
    assert next(cut_short) == 0
    cut_short.close()
    assert terminated == [2]


def sigterm_is_default(job: int) -> bool:
    return signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


def test_a_worker_starts_with_the_default_sigterm_whatever_its_parent_had() -> None:
    """A forked worker does not keep its parent's Python SIGTERM handler (a process that hosted
    bots has one): such a handler runs only at the worker's next check for signals, and a
    SIGTERM just before the worker blocks on the pool's queue lock was never acted on (a CI run
    hung in the test above)."""
    from laizi.sim.run import run_jobs

    previous = signal.signal(signal.SIGTERM, lambda signum, frame: None)
    try:
        assert list(run_jobs(sigterm_is_default, [0, 1, 2, 3], workers=2)) == [True] * 4
    finally:
        signal.signal(signal.SIGTERM, previous)


LOSES_ONE_SIGTERM = """
import os, signal, sys, time
from laizi.sim.run import run_jobs

heard = []

def second_sigterm_ends(signum, frame):
    heard.append(signum)  # the first is lost, as one that came just before a blocking wait is
    if len(heard) >= 2:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGTERM)

def work(job):
    if signal.getsignal(signal.SIGTERM) is not second_sigterm_ends:
        signal.signal(signal.SIGTERM, second_sigterm_ends)  # a worker hosting bots does this
    time.sleep(0.05)
    return job * 2

started = time.monotonic()
cut_short = run_jobs(work, list(range(40)), workers=2)
assert next(cut_short) == 0
cut_short.close()
print(round(time.monotonic() - started, 1))
"""


def test_a_run_cut_short_ends_even_if_a_worker_missed_its_sigterm() -> None:
    """A worker whose Python SIGTERM handler missed the pool's SIGTERM is sent another: the run
    cut short ends (here each worker acts on its second SIGTERM only)."""
    script = subprocess.Popen(
        [sys.executable, "-c", LOSES_ONE_SIGTERM],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT)])},
        start_new_session=True,
    )
    try:
        out, err = script.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(script.pid, signal.SIGKILL)  # the script and its stuck workers
        script.communicate()
        pytest.fail("the run cut short never ended: a worker's lost SIGTERM was not sent again")
    assert script.returncode == 0, err
    assert float(out) < 10
