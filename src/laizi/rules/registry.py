"""The one registry of games: every "which game?" question asks it.

Each entry names, by dotted path (loaded on first use, so ``laizi.rules`` never imports the bots
or the environments), the game's ruleset class and its bot strategy, and gives the settings
defaults: the default preset and the settings the game has no use for.  Nothing outside this
module compares a game name.

>>> find_game("baishan").default_preset
'baishan'
>>> make_ruleset("wuhan-qipi-koukou")
WuhanRuleset(Settings.preset('wuhan-qipi-koukou'))
>>> find_game("chess")
Traceback (most recent call last):
ValueError: unknown game 'chess': one of wuhan, baishan
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from laizi.rules.ruleset import Ruleset
    from laizi.rules.settings import Settings

__all__ = ["GAMES", "Game", "find_game", "game_ids", "make_ruleset", "register", "ruleset_class"]

WUHAN_ONLY = frozenset(
    {
        "variant",
        "mode",
        "laizi_gang_factor",
        "big_self_draw_factor",
        "big_discard_factor",
        "pass_win_locked",
        "haidi_reserve",
        "golden_cap",
        "sunshine_cap",
        "three_suns_cap",
        "min_points",
    }
)
"""Settings that mean nothing in Baishan (Part B): a Baishan room can't override them."""


@dataclass(frozen=True)
class Game:
    """One game: its id and where its parts live.

    - ``ruleset``: ``"module:Class"`` of its :class:`~laizi.rules.ruleset.Ruleset` subclass;
    - ``default_preset``: the preset a room of this game starts from;
    - ``strategy``: ``"module:Class"`` of its bots' ``laizi.bots.strategy.Strategy`` (``None``:
      the plain one);
    - ``env``: its PettingZoo module (the observation's game-specific rows — special tiles,
      multipliers, 报听 — come from the ruleset's answers);
    - ``unused_settings``: settings the game never reads (a room can't override them, and its
      ``"none"`` variant and mode say so);
    - ``wild_tiles``: whether a hand may hold a laizi; ``special_shapes``: whether seven pairs
      and thirteen orphans win (hand analysis);
    - ``doubling``: whether openings, kongs and laid-out tiles double a seat's multiplier, for
      what it wins and what it pays (Wuhan's 开口翻/口口翻) — what the bots weigh a claim by.
    """

    id: str
    ruleset: str
    default_preset: str
    strategy: str | None = None
    env: str | None = None
    unused_settings: frozenset[str] = frozenset()
    wild_tiles: bool = False
    special_shapes: bool = False
    doubling: bool = False

    def ruleset_class(self) -> type[Ruleset]:
        cls: type[Ruleset] = _load(self.ruleset)
        return cls

    def strategy_class(self) -> Any:
        """The bots' strategy class, or ``None`` for the plain one."""
        return None if self.strategy is None else _load(self.strategy)

    def presets(self) -> tuple[str, ...]:
        """The names of this game's presets."""
        from laizi.rules.settings import PRESETS

        return tuple(name for name, s in PRESETS.items() if s.game == self.id)


GAMES: dict[str, Game] = {}
"""Every game by id, in the order registered."""


def register(game: Game) -> Game:
    """Add a game (a test's toy game, a new folder under ``laizi.rules``); returns it."""
    GAMES[game.id] = game
    return game


register(
    Game(
        "wuhan",
        "laizi.rules.wuhan:WuhanRuleset",
        "wuhan-hongzhong-kaikou",
        strategy="laizi.bots.wuhan:WuhanStrategy",
        env="laizi.env.wuhan_v0",
        wild_tiles=True,
        doubling=True,
    )
)
register(
    Game(
        "baishan",
        "laizi.rules.baishan:BaishanRuleset",
        "baishan",
        strategy="laizi.bots.baishan:BaishanStrategy",
        env="laizi.env.baishan_v0",
        unused_settings=WUHAN_ONLY,
        special_shapes=True,
    )
)


def game_ids() -> tuple[str, ...]:
    """The ids of every registered game: ``('wuhan', 'baishan')``."""
    return tuple(GAMES)


def find_game(game: str) -> Game:
    """The registered game ``game``, or ``ValueError`` naming the known ones."""
    try:
        return GAMES[game]
    except (KeyError, TypeError):
        raise ValueError(f"unknown game {game!r}: one of {', '.join(GAMES)}") from None


def ruleset_class(game: str) -> type[Ruleset]:
    """The ruleset class of game ``game``."""
    return find_game(game).ruleset_class()


def make_ruleset(rules: Settings | str | dict[str, Any]) -> Ruleset:
    """The ruleset for a preset name, a settings object or ``{"preset": name, key: value…}``.

    Raises ``laizi.rules.SettingsError`` (naming the key) for unknown presets or settings.
    """
    from laizi.rules.settings import Settings

    settings = rules if isinstance(rules, Settings) else Settings.from_json(rules)
    return ruleset_class(settings.game)(settings)


@cache
def _load(path: str) -> Any:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)
