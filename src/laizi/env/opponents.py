"""The seats the single-agent environment plays for you: a small interface and a random one.

An opponent is any object with ``choose(view, legal) -> Action``: ``view`` is the seat's view
(``laizi.engine.view``; ``None`` when the opponent says ``needs_view = False``, which saves
building it) and ``legal`` the seat's legal engine actions.  Issue 6's bots (``laizi.bots``) are
used through :func:`make_opponent` once they exist; until then ``"random"`` is the only name.

>>> from laizi.engine import Action
>>> bot = RandomOpponent(seed=3)
>>> bot.choose(None, [Action(1, "pass"), Action(1, "pung")])
Action('1 pass')
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from laizi.engine.actions import Action

__all__ = ["Opponent", "RandomOpponent", "make_opponent"]


class Opponent(Protocol):
    """What the single-agent environment needs of the other seats."""

    needs_view: bool

    def choose(self, view: Mapping[str, Any] | None, legal: Sequence[Action]) -> Action: ...


class RandomOpponent:
    """Uniformly random among the legal actions, from its own seeded generator."""

    needs_view = False

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def __repr__(self) -> str:
        return "RandomOpponent()"

    def choose(self, view: Mapping[str, Any] | None, legal: Sequence[Action]) -> Action:
        return legal[self.rng.randrange(len(legal))]


def make_opponent(name: str, seed: int | None = None) -> Opponent:
    """An opponent by name: ``"random"``, a bot of ``laizi.bots`` (issue 6), or an outside
    class ``"module:Class"`` (called with ``seed=``)."""
    if name == "random":
        return RandomOpponent(seed)
    if ":" in name:
        module_name, _, class_name = name.partition(":")
        try:
            cls = getattr(importlib.import_module(module_name), class_name)
        except (ImportError, AttributeError) as error:
            raise ValueError(f"opponent {name!r}: {error}") from None
        return _adapt(cls(seed=seed))
    try:
        bots = importlib.import_module("laizi.bots")
    except ImportError:
        raise ValueError(
            f"unknown opponent {name!r}: only 'random' or 'module:Class' until laizi.bots exists"
        ) from None
    factory = getattr(bots, "make_bot", None) or getattr(bots, "get_bot", None)
    if factory is None:
        raise ValueError(f"unknown opponent {name!r}: laizi.bots has no bot factory")
    return _adapt(factory(name, seed=seed))


def _adapt(bot: Any) -> Opponent:
    if not hasattr(bot, "choose"):
        raise ValueError(f"{bot!r} has no choose(view, legal) method")
    if not hasattr(bot, "needs_view"):
        bot.needs_view = True
    return bot  # type: ignore[no-any-return]
