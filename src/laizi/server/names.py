"""Player names that are what they look like: one rule for account names and guests' names.

A name is taken in Unicode NFKC form (full-width ``Ａｎｎ`` is ``Ann``, a no-break space is a
space) and trimmed; it then has 1–32 characters, each a letter, an ASCII digit, a combining
mark after a letter (two at most), a space (never two in a row), ``_``, ``-`` or ``.``.
Refused, so that no name can pass for another:

* control characters (NUL among them: PostgreSQL can't even store it), format characters (the
  zero-width space and joiners, bidirectional overrides, soft hyphens), invisible letters (the
  Hangul fillers), private-use and unassigned code points;
* letters of two scripts that are not CJK: ``Аnn`` with a Cyrillic ``А`` looks like ``Ann`` and is
  refused; ``雀神 Ann`` (Han and Latin) and ``ゆき Yuki`` are fine — Han, Hiragana, Katakana,
  Hangul and Bopomofo go with each other and with one other script.

Every refusal is :class:`NameRefused` with the stable code ``bad_name`` and a text in Chinese and
English.

>>> normalize_name("  Ａｎｎ ")
'Ann'
>>> normalize_name("雀神 Ann")
'雀神 Ann'
>>> for bad in ["A\\u200bnn", "\\u0410nn", "Ann\\x00", "", "a  b"]:
...     try:
...         normalize_name(bad)
...     except NameRefused as error:
...         print(error.code, "|", error.en)
bad_name | a name can't hold invisible, control or format characters
bad_name | a name can't mix the letters of two scripts (CYRILLIC and LATIN)
bad_name | a name can't hold invisible, control or format characters
bad_name | a name has 1–32 characters: letters, digits, spaces, '_', '-' or '.'
bad_name | a name has no double spaces
"""

from __future__ import annotations

import unicodedata
from typing import Any

__all__ = ["MAX_MARKS", "MAX_NAME", "NameRefused", "has_hidden", "normalize_name", "script_of"]

MAX_NAME = 32
"""Characters in a name, at most."""

MAX_MARKS = 2
"""Combining marks on one letter, at most (a tower of accents covers the names around it)."""

_CJK = frozenset(
    {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"}
)
_INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0")
"""Hangul fillers: letters by category, blank on screen."""
_PUNCTUATION = frozenset(" _-.")


class NameRefused(ValueError):
    """A name the server won't use; ``code`` is ``bad_name``, ``zh``/``en`` say why."""

    code = "bad_name"

    def __init__(self, zh: str, en: str) -> None:
        self.zh = zh
        self.en = en
        super().__init__(en)


_LENGTH = NameRefused(
    f"名字为 1–{MAX_NAME} 个字符：字母、数字、空格、'_'、'-' 或 '.'",
    f"a name has 1–{MAX_NAME} characters: letters, digits, spaces, '_', '-' or '.'",
)


def script_of(ch: str) -> str | None:
    """The script of a letter as the first word of its Unicode name (``LATIN``, ``CJK``…)."""
    try:
        word = unicodedata.name(ch).split(" ")[0]
    except ValueError:
        return None
    return "CJK" if word in _CJK else word


def normalize_name(raw: Any) -> str:
    """The name in the form the server keeps, or :class:`NameRefused`."""
    if not isinstance(raw, str):
        raise _LENGTH
    if len(raw) > 4 * MAX_NAME:
        raise _LENGTH
    name = unicodedata.normalize("NFKC", raw)
    if any(_hidden(ch) for ch in name):
        raise NameRefused(
            "名字不能含有不可见字符、控制字符或格式字符",
            "a name can't hold invisible, control or format characters",
        )
    name = name.strip(" ")
    if not 1 <= len(name) <= MAX_NAME:
        raise _LENGTH
    if "  " in name:
        raise NameRefused("名字不能有连续的空格", "a name has no double spaces")
    scripts: set[str] = set()
    previous = ""
    marks = 0
    for ch in name:
        marks = marks + 1 if _is_mark(ch) else 0
        if marks > MAX_MARKS:
            raise NameRefused(
                f"一个字母上最多 {MAX_MARKS} 个附加符号", f"at most {MAX_MARKS} marks on one letter"
            )
        category = unicodedata.category(ch)
        if ch in _PUNCTUATION or ("0" <= ch <= "9"):
            pass
        elif category.startswith("L"):
            script = script_of(ch)
            if script is None:
                raise _LENGTH
            scripts.add(script)
        elif category in ("Mn", "Mc") and (previous.isalpha() or _is_mark(previous)):
            pass
        else:
            raise _LENGTH
        previous = ch
    others = sorted(scripts - {"CJK"})
    if len(others) > 1:
        raise NameRefused(
            f"名字不能混用两种文字的字母（{others[0]} 和 {others[1]}）",
            f"a name can't mix the letters of two scripts ({others[0]} and {others[1]})",
        )
    return name


def _is_mark(ch: str) -> bool:
    return bool(ch) and unicodedata.category(ch) in ("Mn", "Mc")


def has_hidden(text: str) -> bool:
    """Does ``text`` hold a control, format, surrogate or other invisible character?"""
    return any(_hidden(ch) for ch in unicodedata.normalize("NFKC", text))


def _hidden(ch: str) -> bool:
    category = unicodedata.category(ch)
    if category in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"):
        return True
    if category == "Zs" and ch != " ":
        return True  # NFKC made the visible spaces " "; what is left is not a plain space
    return ch in _INVISIBLE_LETTERS
