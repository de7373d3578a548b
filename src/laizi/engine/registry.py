"""From room settings to the ruleset object that plays them.

Baishan (issue 5) is one more entry of :data:`RULESETS`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from laizi.engine.ruleset import Ruleset
from laizi.rules import Settings

__all__ = ["RULESETS", "make_ruleset"]


def _wuhan(settings: Settings) -> Ruleset:
    from laizi.engine.wuhan import WuhanRuleset

    return WuhanRuleset(settings)


def _baishan(settings: Settings) -> Ruleset:
    from laizi.engine.baishan import BaishanRuleset

    return BaishanRuleset(settings)


RULESETS: dict[str, Callable[[Settings], Ruleset]] = {"wuhan": _wuhan, "baishan": _baishan}
"""The ruleset class of each game id (``Settings.game``)."""


def make_ruleset(rules: Settings | str | dict[str, Any]) -> Ruleset:
    """The ruleset for a preset name, a settings object or ``{"preset": name, key: value…}``.

    Raises ``laizi.rules.SettingsError`` (naming the key) for unknown presets or settings.
    """
    settings = rules if isinstance(rules, Settings) else Settings.from_json(rules)
    try:
        factory = RULESETS[settings.game]
    except KeyError:
        raise ValueError(f"no engine ruleset for game {settings.game!r}") from None
    return factory(settings)
