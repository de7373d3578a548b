"""The bot interface: a seat's view and its legal actions in, one action out.

A bot sees exactly what a remote player at that seat would see — :func:`laizi.engine.view` of its
seat (its own concealed hand and everything public) — plus the room's rules, which are public.
It never receives the engine's state, so it can't look at the wall or another seat's hand.  Given
the same seed, the same views and the same legal actions, it makes the same decisions.

>>> from laizi.engine import make_ruleset, new_hand, view, legal_actions
>>> state, _ = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), 0, seed=bytes(32))
>>> bot = make_bot("random", state.ruleset.settings, seed=7)
>>> bot.act(view(state, 0), legal_actions(state, 0)) in legal_actions(state, 0)
True
"""

from __future__ import annotations

import importlib
import inspect
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

from laizi.engine.actions import Action

__all__ = ["BOTS", "Bot", "BotError", "make_bot", "register"]


class BotError(ValueError):
    """An unknown bot name, or an outside bot that can't be loaded."""


class Bot(ABC):
    """One player.  Subclasses implement :meth:`act`.

    ``rules`` is the room's settings object (public), ``seed`` makes the bot's own randomness
    reproducible: two bots made with the same name, rules and seed decide alike.
    """

    name = "bot"

    def __init__(self, rules: Any, seed: int = 0) -> None:
        self.rules = rules
        self.seed = seed
        self.rng = random.Random(seed)

    @abstractmethod
    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        """Choose one of ``legal`` (never empty) given this seat's ``view``."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed})"


BotFactory = Callable[[Any, int], Bot]
BOTS: dict[str, BotFactory] = {}
"""The built-in bots by name (``random``, ``greedy``, ``strong``)."""


def register(name: str) -> Callable[[type[Bot]], type[Bot]]:
    """Class decorator: make a bot available under ``name``."""

    def decorate(cls: type[Bot]) -> type[Bot]:
        cls.name = name
        BOTS[name] = cls
        return cls

    return decorate


def bot_factory(name: str) -> BotFactory:
    """The class (or factory) for a bot name: a built-in one, or ``module:Class``.

    Raises :class:`BotError` naming what is wrong.
    """
    import laizi.bots  # noqa: F401  (registers the built-in bots)

    if name in BOTS:
        return BOTS[name]
    if name.startswith("cmd:"):  # a process speaking the bot protocol (docs/bot-protocol.md)
        from laizi.bots.external import factory as external_factory

        if not name[4:].strip():
            raise BotError("cmd: needs a command, e.g. cmd:python mybot.py")
        made: BotFactory = external_factory(name[4:])
        return made
    if "@" in name and name.partition("@")[0] in BOTS:
        return _budgeted(name)
    if ":" not in name:
        raise BotError(
            f"unknown bot {name!r}; built in: {', '.join(sorted(BOTS))}, "
            "module:Class for an outside bot, or cmd:COMMAND for a bot-protocol process"
        )
    module_name, _, attribute = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise BotError(f"bot {name!r}: can't import module {module_name!r} ({error})") from None
    factory = getattr(module, attribute, None)
    if factory is None or not callable(factory):
        raise BotError(f"bot {name!r}: module {module_name!r} has no class {attribute!r}")
    return factory


def _budgeted(name: str) -> BotFactory:
    """``expert@200``: a built-in bot that takes a time budget, with ``budget_ms=200``."""
    base, _, text = name.partition("@")
    try:
        budget = float(text)
    except ValueError:
        budget = float("nan")
    if not budget > 0 or budget == float("inf"):
        raise BotError(f"bot {name!r}: the budget after '@' must be a positive number of ms")
    cls = BOTS[base]
    if "budget_ms" not in inspect.signature(cls).parameters:
        raise BotError(f"bot {name!r}: {base} takes no time budget")
    return lambda rules, seed: cls(rules, seed, budget_ms=budget)  # type: ignore[call-arg]


def make_bot(name: str, rules: Any, seed: int = 0) -> Bot:
    """A bot by name (``random``, ``greedy``, ``strong`` or ``module:Class``) for a room."""
    bot = bot_factory(name)(rules, seed)
    if not callable(getattr(bot, "act", None)):
        raise BotError(f"bot {name!r} has no act(view, legal) method")
    return bot
