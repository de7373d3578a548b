"""Choosing the language of player-facing text (INTERFACES.md: ``--lang``, ``LAIZI_LANG``, locale).

Every text a player sees exists in Chinese (``zh``) and English (``en``).  Modules keep their own
pairs of strings; this module only decides which one to show.
"""

from __future__ import annotations

import locale
import os
from typing import Literal

Lang = Literal["zh", "en"]
LANGS: tuple[Lang, ...] = ("zh", "en")


def resolve_lang(explicit: str | None = None) -> Lang:
    """``explicit`` (from ``--lang``) if given, else ``LAIZI_LANG``, else the locale's language.

    >>> resolve_lang("en")
    'en'
    """
    for candidate in (explicit, os.environ.get("LAIZI_LANG")):
        if candidate:
            value = candidate.strip().lower()
            if value.startswith("zh"):
                return "zh"
            if value.startswith("en"):
                return "en"
            raise ValueError(f"unknown language {candidate!r}: use zh or en")
    return "zh" if _locale_is_chinese() else "en"


def _locale_is_chinese() -> bool:
    for variable in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(variable)
        if value:
            return value.lower().startswith("zh")
    try:
        current = locale.getlocale(locale.LC_MESSAGES)[0] or ""
    except (AttributeError, ValueError):  # LC_MESSAGES is missing on some platforms
        current = ""
    return current.lower().startswith("zh")


def pick(lang: Lang, zh: str, en: str) -> str:
    """The text in ``lang``: ``pick(lang, "和牌", "complete")``."""
    return zh if lang == "zh" else en
