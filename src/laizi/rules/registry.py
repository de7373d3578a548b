"""The one registry of games: every "which game?" question asks it.

A game is a folder — a package whose ``GAME`` is its :class:`Game` entry (its ruleset, settings
and bots by dotted path, and what the bots and hand analysis ask about it) — and one line here
naming that package.  The folder is imported on first use, so ``laizi.rules`` never imports the
bots or the environments, and nothing outside this module compares a game name.

A game kept outside the source tree is added by the same line in the ``LAIZI_GAMES`` environment
variable — ``id=package``, several separated by commas — read each time the registry is asked
(``LAIZI_GAMES=mygame=mypackage.mygame``: the package's ``GAME`` has id ``mygame``).

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
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from laizi.rules.ruleset import Ruleset
    from laizi.rules.settings import Settings

__all__ = [
    "GAMES",
    "LINES",
    "Game",
    "find_game",
    "game_ids",
    "game_lines",
    "make_ruleset",
    "register",
    "ruleset_class",
]

LINES: dict[str, str] = {
    "wuhan": "laizi.rules.wuhan",
    "baishan": "laizi.rules.baishan",
}
"""Every game of the source tree: its id and its folder (a package whose ``GAME`` is its entry)."""
ENV_VAR = "LAIZI_GAMES"
"""More games, ``id=package[,id=package…]``: the same line for a game kept elsewhere."""


@dataclass(frozen=True)
class Game:
    """One game: its id and where its parts live (declared in its folder's ``GAME``).

    - ``ruleset``: ``"module:Class"`` of its :class:`~laizi.rules.ruleset.Ruleset` subclass;
    - ``settings``: ``"module:Class"`` of its :class:`~laizi.rules.settings.Settings` subclass
      (its fields, presets, names and limits);
    - ``default_preset``: the preset a room of this game starts from;
    - ``strategy``: ``"module:Class"`` of its bots' ``laizi.bots.strategy.Strategy`` (``None``:
      the plain one);
    - ``env``: its PettingZoo module (the observation's game-specific rows — special tiles,
      multipliers, 报听 — come from the ruleset's answers).

    What a game is like (wild tiles, special shapes, doubling multipliers) is not a flag here:
    the ruleset answers it (``has_wild_tiles``, ``wins_special_shapes``, ``loss_estimate`` …).
    """

    id: str
    ruleset: str
    default_preset: str
    settings: str
    strategy: str | None = None
    env: str | None = None

    def ruleset_class(self) -> type[Ruleset]:
        cls: type[Ruleset] = _load(self.ruleset)
        return cls

    def settings_class(self) -> type[Settings]:
        cls: type[Settings] = _load(self.settings)
        return cls

    def strategy_class(self) -> Any:
        """The bots' strategy class, or ``None`` for the plain one."""
        return None if self.strategy is None else _load(self.strategy)

    def presets(self) -> tuple[str, ...]:
        """The names of this game's presets."""
        return tuple(self.settings_class().presets())


_REGISTERED: dict[str, Game] = {}


def register(game: Game) -> Game:
    """Add a game entry directly (a folder named by a line is found without it); returns it."""
    _REGISTERED[game.id] = game
    return game


def game_lines() -> tuple[tuple[str, str], ...]:
    """Every game's line, ``(id, package)``: the source tree's, then ``LAIZI_GAMES``'s, then
    those :func:`register` added (package ``""``)."""
    return _lines(os.environ.get(ENV_VAR, ""), tuple(_REGISTERED))


@cache
def _lines(extra: str, registered: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    found = dict(LINES)
    for item in extra.replace(";", ",").split(","):
        if not item.strip():
            continue
        game, sep, package = (part.strip() for part in item.partition("="))
        if not sep or not game or not package:
            raise ValueError(f"{ENV_VAR}: {item.strip()!r} is not id=package")
        found[game] = package
    found.update((game, "") for game in registered)
    return tuple(found.items())


class _Games(Mapping[str, Game]):
    """Every game by id, in the order of :func:`game_lines`; an entry is loaded when read."""

    def __getitem__(self, game: str) -> Game:
        for known, package in game_lines():
            if known == game:
                return _REGISTERED[game] if not package else _entry(game, package)
        raise KeyError(game)

    def __contains__(self, game: object) -> bool:
        return any(known == game for known, _ in game_lines())

    def __iter__(self) -> Iterator[str]:
        return iter([game for game, _ in game_lines()])

    def __len__(self) -> int:
        return len(game_lines())

    def __repr__(self) -> str:
        return f"GAMES({', '.join(self)})"


GAMES: Mapping[str, Game] = _Games()
"""Every game by id, in the order registered."""


@cache
def _entry(game: str, package: str) -> Game:
    entry = getattr(importlib.import_module(package), "GAME", None)
    if not isinstance(entry, Game) or entry.id != game:
        raise ValueError(f"{package}.GAME is not the entry of game {game!r}")
    return entry


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
