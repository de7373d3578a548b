"""One bot process through its life: the handshake, hands, events, prompts and 托管.

:meth:`BotSession.ask` never fails and never waits past its deadline: when the bot times out,
has exited, or writes something that is not a legal answer to the pending prompt, the decision
is played by 托管 (:func:`laizi.bots.safe.safe_default`), the bot is told (``notice``) and the
incident is kept in :attr:`BotSession.incidents` and logged.  A bot that times out
:data:`STRIKES` times in a row is stopped (``unresponsive``): it can't slow every decision of a
hand by its whole time allowance.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from laizi.botproto.process import EOF, TIMEOUT, TOO_LONG, BotProcess
from laizi.botproto.protocol import (
    hand_message,
    hello,
    notice,
    prompt_message,
    read_answer,
    read_hello,
)
from laizi.bots.safe import safe_default
from laizi.engine import Action

__all__ = [
    "DEFAULT_HELLO_TIMEOUT",
    "DEFAULT_TIMEOUT",
    "STRIKES",
    "BotSession",
    "Incident",
    "decision_timeout",
    "hello_timeout",
]

log = logging.getLogger("laizi.botproto")

DEFAULT_TIMEOUT = 5.0
"""Seconds per decision (``LAIZI_BOT_TIMEOUT`` overrides it)."""
DEFAULT_HELLO_TIMEOUT = 10.0
"""Seconds for the bot to start and answer ``hello`` (``LAIZI_BOT_HELLO_TIMEOUT``)."""
STRIKES = 3
"""Timeouts in a row after which the bot is stopped."""
LOGGED_PER_CODE = 100
"""Incidents of one kind logged one by one per bot process; the rest are counted."""
KEPT_INCIDENTS = 1000
"""Incidents kept in full per session (a long arena with a broken bot stays small)."""


def _seconds(name: str, default: float) -> float:
    text = os.environ.get(name)
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name}: must be a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise ValueError(f"{name}: must be more than 0 and at most 3600 seconds")
    return value


def decision_timeout() -> float:
    return _seconds("LAIZI_BOT_TIMEOUT", DEFAULT_TIMEOUT)


def hello_timeout() -> float:
    return _seconds("LAIZI_BOT_HELLO_TIMEOUT", DEFAULT_HELLO_TIMEOUT)


@dataclass(frozen=True, slots=True)
class Incident:
    """A decision 托管 played instead of the bot, and why."""

    code: str
    prompt: int | None
    detail: str
    played: str | None
    ms: float

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "prompt": self.prompt,
            "detail": self.detail,
            "played": self.played,
            "ms": round(self.ms, 1),
        }


class BotSession:
    """A bot process after its handshake (made lazily by the first call that needs it)."""

    def __init__(
        self, command: str, timeout: float | None = None, hello_seconds: float | None = None
    ) -> None:
        self.command = command
        self.timeout = decision_timeout() if timeout is None else timeout
        self.hello_seconds = hello_timeout() if hello_seconds is None else hello_seconds
        self.process: BotProcess | None = None
        self.gone: str | None = None
        """Why the bot no longer decides (set once): ``exited``, ``bad_hello``, ``flood`` …"""
        self.name = ""
        self.incidents: list[Incident] = []
        """The first :data:`KEPT_INCIDENTS` incidents (``counts`` has them all by code)."""
        self.counts: dict[str, int] = {}
        self.decisions = 0
        self.answered = 0
        self.slowest_ms = 0.0
        self.strikes = 0

    # -- life ----------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the process and shake hands (at most ``hello_seconds``)."""
        if self.process is not None:
            return
        self.process = BotProcess(self.command)
        self.process.send(hello())
        line = self.process.next_line(time.monotonic() + self.hello_seconds)
        if line is TIMEOUT:
            self._gone("bad_hello", "no hello within the time allowed")
        elif line is EOF:
            self._gone("exited", "the bot exited before its hello")
        elif line is TOO_LONG:
            self._gone("bad_hello", "the hello line is too long")
        else:
            assert isinstance(line, bytes)
            self.name, problem = read_hello(line)
            if problem is not None:
                self._gone("bad_hello", problem)

    def _gone(self, code: str, detail: str) -> None:
        if self.gone is None:
            self.gone = code
            log.warning("bot cmd:%s: %s (%s); 托管 plays for it", self.command, code, detail)
            self.counts[code] = self.counts.get(code, 0) + 1
            if len(self.incidents) < KEPT_INCIDENTS:
                self.incidents.append(Incident(code, None, detail, None, 0.0))
        if self.process is not None and self.process.dead is None:
            self.process.stop(code)

    @property
    def alive(self) -> bool:
        if self.process is not None and self.process.dead is not None and self.gone is None:
            self.gone = self.process.dead
        return self.gone is None

    def close(self) -> None:
        if self.process is not None:
            self.process.close()

    # -- play ----------------------------------------------------------------------------------
    def begin_hand(self, seat: int, seed: int, game: str) -> None:
        self.start()
        self.strikes = 0
        self.send(hand_message(seat, seed, game))

    def send(self, message: dict[str, Any]) -> None:
        if self.process is not None and self.alive:
            self.process.send(message)

    def send_events(self, events: Sequence[dict[str, Any]]) -> None:
        for event in events:
            self.send(event)

    def ask(
        self, view: dict[str, Any], legal: Sequence[Action], seconds: float | None = None
    ) -> Action:
        """The bot's decision on ``legal`` (never empty) — or 托管's, see the module."""
        self.start()
        self.decisions += 1
        seat = view["seat"]
        allowed = self.timeout if seconds is None else seconds
        started = time.monotonic()
        if not self.alive or self.process is None:
            return self._replace(view, legal, self.gone or "exited", None, "", started)
        process = self.process
        process.drain()
        pid = process.next_id
        process.next_id += 1
        process.send(prompt_message(pid, view["phase"], legal, allowed, view))
        deadline = started + allowed
        while True:
            line = process.next_line(deadline)
            if line is TIMEOUT:
                self.strikes += 1
                action = self._replace(view, legal, "timeout", pid, "", started)
                if self.strikes >= STRIKES:
                    self._gone("unresponsive", f"{STRIKES} timeouts in a row")
                return action
            if line is EOF:
                self.alive  # noqa: B018  (records why the process is gone)
                return self._replace(view, legal, self.gone or "exited", pid, "", started)
            if line is TOO_LONG:
                return self._replace(view, legal, "too_long", pid, "", started)
            assert isinstance(line, bytes)
            answer = read_answer(line, pid, seat, legal)
            if answer.code == "stale":
                continue
            if answer.action is None:
                code = answer.code or "bad_message"
                return self._replace(view, legal, code, pid, answer.detail, started)
            self.strikes = 0
            self.answered += 1
            self.slowest_ms = max(self.slowest_ms, (time.monotonic() - started) * 1000)
            return answer.action

    def _replace(
        self,
        view: dict[str, Any],
        legal: Sequence[Action],
        code: str,
        pid: int | None,
        detail: str,
        started: float,
    ) -> Action:
        action = safe_default(view, legal)
        ms = (time.monotonic() - started) * 1000
        self.counts[code] = self.counts.get(code, 0) + 1
        if len(self.incidents) < KEPT_INCIDENTS:
            self.incidents.append(Incident(code, pid, detail, action.notation(), ms))
        n = self.counts[code]
        if n <= LOGGED_PER_CODE:
            log.warning(
                "bot cmd:%s: prompt %s: %s %s; 托管 played %s",
                self.command,
                pid,
                code,
                detail,
                action.notation(),
            )
        elif n == LOGGED_PER_CODE + 1:
            log.warning(
                "bot cmd:%s: more %s incidents: counted, no longer logged one by one",
                self.command,
                code,
            )
        self.send(notice(code, pid, action, detail))
        return action
