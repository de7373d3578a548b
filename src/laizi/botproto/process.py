"""A bot as a subprocess speaking the bot protocol over stdin/stdout, kept on a leash.

Everything the host does with the process is bounded: a line longer than
:data:`~laizi.botproto.protocol.MAX_LINE_BYTES` is skipped without being held in memory, at most
:data:`QUEUED_LINES` lines wait to be read (more are dropped, and a bot that writes more than
:data:`FLOOD_LINES` lines nobody asked for is stopped), a bot that does not read its input is
stopped once :data:`QUEUED_WRITES` lines wait for it, its standard error keeps only its last
:data:`STDERR_TAIL` bytes, and every wait has a deadline.  Reading and writing happen in threads,
so a bot that sleeps, floods, crashes or blocks can never block the caller.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import logging
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time
from typing import IO, Any, Final

from laizi.botproto.protocol import MAX_LINE_BYTES

__all__ = ["EOF", "FLOOD_LINES", "TIMEOUT", "TOO_LONG", "BotProcess", "BotStartError"]

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


def _die_with_parent() -> None:
    """In the child before it runs the bot (Linux): SIGKILL it when the process that started it
    ends, so a worker process that is terminated leaves no bot behind."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


PR_SET_PDEATHSIG = 1


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
        try:
            self.proc = subprocess.Popen(
                argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=cwd,
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
            threading.Thread(target=self._read, args=(self.proc.stdout,), daemon=True),
            threading.Thread(target=self._read_stderr, args=(self.proc.stderr,), daemon=True),
            threading.Thread(target=self._write, args=(self.proc.stdin,), daemon=True),
        ]
        for thread in self._threads:
            thread.start()

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
        """Stop the bot now (its whole process group)."""
        self._died(reason)
        with contextlib.suppress(queue.Full):
            self.writes.put_nowait(None)
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)

    def close(self, grace: float = 1.0) -> None:
        """Say ``bye``, close its input, give it ``grace`` seconds to exit, then stop it."""
        if self.dead is None:
            self.send({"type": "bye"})
        with contextlib.suppress(queue.Full):
            self.writes.put_nowait(None)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=grace)
        self.stop("closed")
        for thread in self._threads:
            thread.join(timeout=1)
        for stream in (self.proc.stdout, self.proc.stderr):
            with contextlib.suppress(OSError, ValueError):
                if stream is not None:
                    stream.close()

    def exited_by_itself(self, within: float) -> bool:
        """Whether the process ends on its own within ``within`` seconds."""
        try:
            self.proc.wait(timeout=within)
        except subprocess.TimeoutExpired:
            return False
        return True
