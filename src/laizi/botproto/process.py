"""A bot as a subprocess speaking the bot protocol over stdin/stdout, kept on a leash.

Everything the host does with the process is bounded: a line longer than
:data:`~laizi.botproto.protocol.MAX_LINE_BYTES` is skipped without being held in memory, at most
:data:`QUEUED_LINES` lines wait to be read (more are dropped, and a bot that writes more than
:data:`FLOOD_LINES` lines nobody asked for is stopped), a bot that does not read its input is
stopped once :data:`QUEUED_WRITES` lines wait for it, its standard error keeps only its last
:data:`STDERR_TAIL` bytes, and every wait has a deadline.  Reading and writing happen in threads,
so a bot that sleeps, floods, crashes or blocks can never block the caller.

No process a bot starts outlives its host's hold on the bot.  The bot runs in a process group of
its own with a mark in its environment (:data:`MARK_VARIABLE`, inherited by what it starts); on
Linux it is SIGKILLed when the process that started it ends (``PR_SET_PDEATHSIG``) and that
process is a child subreaper (``PR_SET_CHILD_SUBREAPER``), so the bot's orphaned descendants are
reparented to it rather than to init.  Whenever the bot is let go — a clean ``bye``, a crash, a
stop for a timeout or a flood, an exception or ``KeyboardInterrupt`` in the host (``atexit``),
the end of a multiprocessing worker (its finalizers), a SIGTERM to the host —
:meth:`BotProcess.stop` kills, until none is left, the bot's process group, its descendants
(found through ``/proc``) and every process carrying its mark, then reaps those that became the
host's children (docs/bot-protocol.md, "What is guaranteed about a bot's processes").
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import json
import logging
import multiprocessing.util
import os
import queue
import secrets
import shlex
import signal
import subprocess
import sys
import threading
import time
from types import FrameType
from typing import IO, Any, Final

from laizi.botproto.protocol import MAX_LINE_BYTES

__all__ = [
    "EOF",
    "FLOOD_LINES",
    "MARK_VARIABLE",
    "TIMEOUT",
    "TOO_LONG",
    "BotProcess",
    "BotStartError",
    "stop_all",
]

log = logging.getLogger("laizi.botproto")

QUEUED_LINES = 256
"""Lines read from the bot and not yet looked at; more are dropped."""
FLOOD_LINES = 2000
"""Lines the bot wrote that nobody asked for (dropped or unsolicited): beyond this it is
stopped (``flood``)."""
QUEUED_WRITES = 4096
"""Lines waiting for the bot to read them: beyond this it is stopped (``not_reading``)."""
STDERR_TAIL = 4096


class _Mark:
    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return self.name


EOF: Final = _Mark("EOF")
"""The bot's output ended (it exited or was stopped)."""
TIMEOUT: Final = _Mark("TIMEOUT")
TOO_LONG: Final = _Mark("TOO_LONG")
"""A line longer than MAX_LINE_BYTES (skipped)."""

Line = bytes | _Mark


LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MARK_VARIABLE = "LAIZI_BOT_MARK"
"""The environment variable holding a bot's mark (a random token of its own): every process
that inherited it belongs to that bot and is killed with it."""
KILL_ROUNDS = 50
"""Rounds of finding and killing a bot's processes (a bot that forks as fast as it can is
caught within a few)."""


def _find_prctl() -> Any:
    """libc's ``prctl`` as a ctypes function, or None (not Linux, or no such symbol)."""
    if not LINUX:
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL: Final = _find_prctl()
"""Looked up once, here.  The child between ``fork`` and ``exec`` must not look it up: that is
a ``dlopen``, and the bot's host has threads (each bot's readers and writer), so a lock the
loader needs may have been held by another thread at the fork; the child would wait for it
forever — holding the pipes of its parent, the arena's output among them.  (``preexec_fn`` is
documented as unsafe with threads for this reason; what runs there is kept to one C call.)"""


def _prctl(option: int, value: int) -> None:
    if _PRCTL is not None:
        _PRCTL(option, value, 0, 0, 0)


def _die_with_parent() -> None:
    """In the child before it runs the bot (Linux): SIGKILL it when the process that started it
    ends, so a worker process that is terminated leaves no bot behind.  Only an already
    resolved C call runs here (see :data:`_PRCTL`)."""
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


_host: int | None = None
"""The process that set itself up as a host of bots (subreaper, SIGTERM handler)."""
_running: set[BotProcess] = set()
"""The bots this process started and has not stopped yet."""


def _become_host() -> None:
    """Once per process that starts bots: become a child subreaper (the bots' orphans come back
    here to be found and reaped) and, where SIGTERM would kill this process outright, stop the
    bots first (a terminated arena worker leaves nothing behind)."""
    global _host
    if _host == os.getpid():
        return
    _host = os.getpid()
    _running.clear()  # a forked child: the parent's bots are the parent's
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    # A multiprocessing worker ends with os._exit (no atexit) but runs its finalizers first.
    multiprocessing.util.Finalize(None, stop_all, exitpriority=100)
    if threading.current_thread() is threading.main_thread():
        with contextlib.suppress(ValueError, OSError):
            if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                signal.signal(signal.SIGTERM, _on_sigterm)


def _on_sigterm(signum: int, frame: FrameType | None) -> None:
    """SIGKILL every bot this process holds (with everything they started), then end as SIGTERM
    would.  No lock is taken: the signal may have interrupted this very thread while it held one
    (a worker's finalizer stopping the same bots, inside a queue's ``put``), and waiting for it
    here would wait forever; the process ends right after, so nothing else needs doing."""
    if _host == os.getpid():
        for process in list(_running):
            if process.proc.returncode is None:  # not reaped: its pid is still its own
                process._kill_all()
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


@atexit.register
def stop_all() -> None:
    """Stop every bot this process started and still holds (with everything they started)."""
    if _host != os.getpid():
        return
    for process in list(_running):
        process.stop("stopped")


def _processes() -> dict[int, tuple[int, str]]:
    """Every process: ``pid -> (parent pid, state)`` (``/proc``)."""
    table: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        table[int(name)] = (int(fields[1]), fields[0].decode())
    return table


def _carries(pid: int, mark: bytes) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as environ:
            return mark in environ.read().split(b"\0")
    except OSError:
        return False


HOST_SIGNALS: Final = frozenset({signal.SIGINT, signal.SIGTERM})
"""Signals that stop a bot's host: its helper threads block them, so the kernel hands them to
the main thread — the only one that runs Python handlers, and the one that may be waiting in a
call only a signal to it interrupts (an idle pool worker waiting for the task queue's lock)."""


def _quiet_thread(target: Any, *args: Any) -> threading.Thread:
    """A daemon thread that never takes :data:`HOST_SIGNALS`."""

    def run() -> None:
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, HOST_SIGNALS)
        target(*args)

    return threading.Thread(target=run, name=f"bot-{target.__name__}", daemon=True)


class BotStartError(ValueError):
    """The command can't be run (empty, unreadable quoting, no such program)."""


class BotProcess:
    """One running bot.  :meth:`send` never blocks; :meth:`next_line` waits until a deadline."""

    def __init__(self, command: str, cwd: str | None = None) -> None:
        try:
            argv = shlex.split(command)
        except ValueError as error:
            raise BotStartError(f"cmd:{command}: {error}") from None
        if not argv:
            raise BotStartError("cmd: needs a command, e.g. cmd:python mybot.py")
        self.command = command
        _become_host()
        self.mark = secrets.token_hex(16)
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
                env={**os.environ, MARK_VARIABLE: self.mark},
                start_new_session=True,  # its own process group: stopped with its children
                preexec_fn=_die_with_parent,
            )
        except OSError as error:
            raise BotStartError(f"cmd:{command}: can't start: {error.strerror or error}") from None
        self.lines: queue.Queue[Line] = queue.Queue(QUEUED_LINES)
        self.writes: queue.Queue[bytes | None] = queue.Queue(QUEUED_WRITES)
        self.unsolicited = 0
        self.dead: str | None = None
        """Why the bot is gone (``exited``, ``flood``, ``not_reading``, ``stopped`` …) or None."""
        self.stderr_tail = b""
        self.next_id = 1
        """Prompt ids: increasing over the process's life, so a late answer is never current."""
        self.name = ""
        self.greeted = False
        self._threads = [
            _quiet_thread(self._read, self.proc.stdout),
            _quiet_thread(self._read_stderr, self.proc.stderr),
            _quiet_thread(self._write, self.proc.stdin),
        ]
        for thread in self._threads:
            thread.start()
        _running.add(self)

    # -- threads -------------------------------------------------------------------------------
    def _read(self, out: IO[bytes] | None) -> None:
        assert out is not None
        try:
            while True:
                line = out.readline(MAX_LINE_BYTES + 2)
                if not line:
                    break
                item: Line
                if not line.endswith(b"\n") and len(line) > MAX_LINE_BYTES:
                    while True:  # skip the rest of the line, a piece at a time
                        chunk = out.readline(65_536)
                        if not chunk or chunk.endswith(b"\n"):
                            break
                    item = TOO_LONG
                else:
                    item = line.rstrip(b"\r\n")
                    if not item.strip():
                        continue
                try:
                    self.lines.put_nowait(item)
                except queue.Full:
                    self._unsolicited(1)
        except (OSError, ValueError):
            pass
        finally:
            self._died("exited")
            with contextlib.suppress(queue.Full):
                self.lines.put_nowait(EOF)

    def _read_stderr(self, err: IO[bytes] | None) -> None:
        assert err is not None
        with contextlib.suppress(OSError, ValueError):
            while chunk := os.read(err.fileno(), 4096):
                self.stderr_tail = (self.stderr_tail + chunk)[-STDERR_TAIL:]

    def _write(self, stdin: IO[bytes] | None) -> None:
        assert stdin is not None
        try:
            while True:
                data = self.writes.get()
                if data is None:
                    break
                stdin.write(data)
                stdin.flush()
        except (OSError, ValueError):
            self._died("exited")
        finally:
            with contextlib.suppress(OSError, ValueError):
                stdin.close()

    # -- the caller's side ---------------------------------------------------------------------
    def _died(self, reason: str) -> None:
        if self.dead is None:
            self.dead = reason

    def _unsolicited(self, n: int) -> None:
        self.unsolicited += n
        if self.unsolicited > FLOOD_LINES and self.dead is None:
            self.stop("flood")

    def send(self, message: dict[str, Any]) -> None:
        """Queue one line for the bot (never blocks)."""
        if self.dead is not None:
            return
        data = (json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n").encode()
        try:
            self.writes.put_nowait(data)
        except queue.Full:
            self.stop("not_reading")

    def drain(self) -> int:
        """Drop what the bot wrote without being asked (before a prompt); how many lines."""
        n = 0
        while True:
            try:
                item = self.lines.get_nowait()
            except queue.Empty:
                break
            if item is EOF:
                self.lines.put_nowait(EOF)  # keep the end visible to the next reader
                break
            n += 1
        if n:
            self._unsolicited(n)
        return n

    def next_line(self, deadline: float) -> Line:
        """The bot's next line, ``TOO_LONG``, ``EOF`` once it is gone, or ``TIMEOUT`` at
        ``deadline`` (``time.monotonic()``)."""
        if self.dead is not None and self.lines.empty():
            return EOF
        left = deadline - time.monotonic()
        try:
            item = self.lines.get(timeout=max(left, 0.0)) if left > 0 else self.lines.get_nowait()
        except queue.Empty:
            return EOF if self.dead is not None else TIMEOUT
        if item is EOF:
            with contextlib.suppress(queue.Full):
                self.lines.put_nowait(EOF)
        return item

    def stop(self, reason: str = "stopped") -> None:
        """Stop the bot now: it, its process group and every process it started."""
        self._died(reason)
        with contextlib.suppress(queue.Full):
            self.writes.put_nowait(None)
        if self.proc.returncode is None:  # not reaped: its pid is still its own
            self._kill_all()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        _running.discard(self)

    def _kill_all(self) -> None:
        """SIGKILL the bot's process group, descendants and marked processes until none is
        left; reap those that became this process's children.  The bot itself is not reaped
        here, so its pid (and process group id) can't have been reused meanwhile."""
        with contextlib.suppress(OSError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        if not LINUX:
            return
        mark = f"{MARK_VARIABLE}={self.mark}".encode()
        me = os.getpid()
        killed: set[int] = set()
        for _ in range(KILL_ROUNDS):
            table = _processes()
            ours = {self.proc.pid}
            grew = True
            while grew:  # descendants through the parent links
                more = {pid for pid, (ppid, _) in table.items() if ppid in ours} - ours
                ours |= more
                grew = bool(more)
            ours |= {pid for pid in table if pid not in ours and _carries(pid, mark)}
            ours.discard(me)
            living = {pid for pid in ours if table.get(pid, (0, "Z"))[1] not in "ZX"}
            for pid in living:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            killed |= ours
            if not living:
                break
            time.sleep(0.005)
        killed.discard(self.proc.pid)
        deadline = time.monotonic() + 2
        for pid in killed:  # orphans that came back here (subreaper): reap them
            with contextlib.suppress(ChildProcessError, OSError):
                while os.waitpid(pid, os.WNOHANG)[0] == 0 and time.monotonic() < deadline:
                    time.sleep(0.005)

    def _exited(self, within: float) -> bool:
        """Whether the bot has ended within ``within`` seconds (without reaping it)."""
        deadline = time.monotonic() + within
        while True:
            try:
                done = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return True
            if done is not None:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)

    def close(self, grace: float = 1.0) -> None:
        """Say ``bye``, close its input, give it ``grace`` seconds to exit, then stop it."""
        if self.dead is None:
            self.send({"type": "bye"})
        with contextlib.suppress(queue.Full):
            self.writes.put_nowait(None)
        self._exited(grace)
        self.stop("closed")
        for thread in self._threads:
            thread.join(timeout=1)
        readers = zip((self.proc.stdout, self.proc.stderr), self._threads, strict=False)
        for stream, reader in readers:
            if stream is None:
                continue
            if reader.is_alive():
                # Still in a read: something outside holds the pipe open.  Closing a buffered
                # stream waits for the read to end, which may be never; it is left to the
                # reader, which ends with the pipe.
                log.warning("bot %r: its output is still open after it was stopped", self.name)
                continue
            with contextlib.suppress(OSError, ValueError):
                stream.close()

    def exited_by_itself(self, within: float) -> bool:
        """Whether the process ends on its own within ``within`` seconds."""
        return self._exited(within)
