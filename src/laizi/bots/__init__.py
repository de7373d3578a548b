"""Bots: players that see only their seat's view.

>>> from laizi.rules import preset
>>> sorted(BOTS)
['expert', 'expert-blind', 'greedy', 'learned', 'random', 'strong']
>>> make_bot("greedy", preset("wuhan-hongzhong-kaikou"), seed=1)
GreedyBot(seed=1)

``make_bot(name, rules, seed)`` takes ``random``, ``greedy``, ``strong``, ``expert``,
``learned`` (a trained policy, numpy needed: :mod:`laizi.bots.learned`) or ``module:Class`` for a
bot written outside the project (any class taking ``(rules, seed)`` with an ``act(view, legal)``
method).  ``docs/bots.md`` describes each bot and how to write one.
"""

from laizi.bots.base import BOTS, Bot, BotError, bot_factory, make_bot, register
from laizi.bots.expert import ExpertBot
from laizi.bots.greedy import GreedyBot
from laizi.bots.random_bot import RandomBot
from laizi.bots.strategy import Strategy, strategy_for
from laizi.bots.strong import StrongBot
from laizi.bots.table import SeatTable


def _learned(rules: object, seed: int) -> Bot:
    """``learned``, imported on first use: it needs numpy, which a plain install lacks."""
    try:
        from laizi.bots.learned import LearnedBot
    except ImportError as error:
        raise BotError(f"learned needs numpy: pip install 'laizi[env]' ({error})") from None
    return LearnedBot(rules, seed)


BOTS["learned"] = _learned

__all__ = [
    "BOTS",
    "Bot",
    "BotError",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "SeatTable",
    "Strategy",
    "StrongBot",
    "bot_factory",
    "make_bot",
    "register",
    "strategy_for",
]
