"""``cmd:COMMAND``: a bot in any language, run as a process speaking the bot protocol.

The bot is given exactly its seat's events (``laizi.engine.seat_event``) and, at each decision,
a prompt with its seat's view and legal actions (docs/bot-protocol.md).  A host that plays hands
with :func:`laizi.sim.play_hand` calls :meth:`ExternalBot.observe` with each seat's events; any
other host only calls :meth:`ExternalBot.act` (the prompt's view then says everything).

One process plays many hands: a process is taken from a per-command pool when a hand starts and
given back at its end, so an arena does not start a process per hand (three copies of the bot at
one table are three processes).  A process that failed is never given back.
"""

from __future__ import annotations

import atexit
import os
from collections.abc import Sequence
from typing import Any

from laizi.botproto.session import BotSession
from laizi.bots.base import Bot
from laizi.engine import Action

__all__ = ["PREFIX", "ExternalBot", "close_all"]

PREFIX = "cmd:"

_idle: dict[str, list[BotSession]] = {}
_every: list[BotSession] = []
_owner = os.getpid()


def _pool(command: str) -> list[BotSession]:
    global _owner
    if os.getpid() != _owner:  # a forked worker: the parent's processes are not its own
        _idle.clear()
        _every.clear()
        _owner = os.getpid()
    return _idle.setdefault(command, [])


def _take(command: str) -> BotSession:
    idle = _pool(command)
    while idle:
        session = idle.pop()
        if session.alive:
            return session
    session = BotSession(command)
    _every.append(session)
    return session


def _give_back(session: BotSession) -> None:
    if session.alive:
        _pool(session.command).append(session)
    else:
        session.close()


@atexit.register
def close_all() -> None:
    """Say ``bye`` to every bot process this process started and stop them."""
    if os.getpid() != _owner:
        return
    for session in _every:
        session.close()
    _every.clear()
    _idle.clear()


class ExternalBot(Bot):
    """A ``cmd:`` bot for one seat of one hand (``make_bot("cmd:python bot.py", rules, seed)``)."""

    name = "cmd"

    def __init__(self, command: str, rules: Any, seed: int = 0) -> None:
        super().__init__(rules, seed)
        self.command = command
        self.session: BotSession | None = None

    def __repr__(self) -> str:
        return f"ExternalBot({PREFIX}{self.command!r}, seed={self.seed})"

    def _session(self, seat: int) -> BotSession:
        if self.session is None:
            self.session = _take(self.command)
            game = getattr(self.rules, "game", "")
            self.session.begin_hand(seat, self.seed, str(game))
        return self.session

    def observe(self, seat: int, events: Sequence[dict[str, Any]]) -> None:
        """The hand's events as ``seat`` may see them (already filtered by the host)."""
        session = self._session(seat)
        session.send_events(events)
        if any(e.get("type") == "end" for e in events):
            self.session = None
            _give_back(session)

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return self._session(view["seat"]).ask(view, legal)

    @property
    def incidents(self) -> list[Any]:
        return [] if self.session is None else list(self.session.incidents)


def factory(command: str) -> Any:
    """The ``(rules, seed) -> ExternalBot`` factory of ``cmd:COMMAND``."""

    def make(rules: Any, seed: int = 0) -> ExternalBot:
        return ExternalBot(command, rules, seed)

    return make
