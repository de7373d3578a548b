"""Strict JSON from untrusted text: bounded nesting, bounded numbers, valid UTF-8.

Every place that parses JSON a user or a client wrote (the CLI's input files, record lines, the
HTTP bodies, ``--rules`` objects) goes through :func:`loads`, so a hostile input gets one
:class:`JSONInputError` with a plain message instead of a ``RecursionError`` from deep nesting,
an ``OverflowError`` or a slow ``Fraction`` from a 4000-digit number, ``inf`` from ``1e999``, or
a ``UnicodeDecodeError`` from bytes that are not UTF-8.

>>> loads('{"a": [1, 2.5, "x"]}')
{'a': [1, 2.5, 'x']}
>>> for text in ['[' * 100 + ']' * 100, '1e999', '1' * 80, 'NaN', b'"\\xff"']:
...     try:
...         loads(text)
...     except JSONInputError as error:
...         print(error)
nested more than 64 levels deep
a number is out of range: 1e999
a number has more than 40 digits
NaN is not strict JSON
not UTF-8 text
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, NoReturn

__all__ = ["MAX_DEPTH", "MAX_DIGITS", "JSONInputError", "depth", "loads"]

MAX_DEPTH = 64
"""Arrays and objects nested deeper than this are refused (no input of laizi needs 10)."""
MAX_DIGITS = 40
"""Integers longer than this (sign aside) are refused: 10^40 is far beyond any count or id."""


class JSONInputError(ValueError):
    """Text that is not acceptable JSON; ``line`` and ``column`` when a syntax error has them."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        self.message = message
        self.line = line
        self.column = column
        where = f" at line {line} column {column}" if line is not None else ""
        super().__init__(message + where)


_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]")


def _reject_constant(name: str) -> NoReturn:
    raise JSONInputError(f"{name} is not strict JSON")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise JSONInputError(f"a number has more than {MAX_DIGITS} digits")
    return int(text)


def _parse_float(text: str) -> float:
    if len(text) > 2 * MAX_DIGITS:
        raise JSONInputError(f"a number has more than {MAX_DIGITS} digits")
    value = float(text)
    if not math.isfinite(value):
        raise JSONInputError(f"a number is out of range: {text}")
    return value


def depth(value: Any) -> int:
    """How deeply ``value``'s arrays and objects nest (0 for a scalar), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        level += 1
        deepest = max(deepest, level)
        if level > MAX_DEPTH:
            return level
        stack.extend((child, level) for child in item)
    return deepest


def _quick_depth_bound(text: str) -> int:
    """An upper bound of the nesting: every bracket that opens (strings included)."""
    return text.count("[") + text.count("{")


def loads(text: str | bytes, max_depth: int = MAX_DEPTH) -> Any:
    """Parse strict JSON (no NaN/Infinity, finite numbers, at most ``max_depth`` levels).

    ``bytes`` must be UTF-8.  Raises :class:`JSONInputError` for anything else."""
    if isinstance(text, bytes | bytearray):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise JSONInputError("not UTF-8 text") from None
    try:
        value = json.loads(
            text,
            parse_constant=_reject_constant,
            parse_int=_parse_int,
            parse_float=_parse_float,
        )
    except JSONInputError:
        raise
    except json.JSONDecodeError as error:
        raise JSONInputError(error.msg, error.lineno, error.colno) from None
    except RecursionError:
        raise JSONInputError(f"nested more than {max_depth} levels deep") from None
    except ValueError as error:  # e.g. Python's own limit on integer digits
        raise JSONInputError(str(error)) from None
    if _quick_depth_bound(text) > max_depth and depth(value) > max_depth:
        raise JSONInputError(f"nested more than {max_depth} levels deep")
    if _SURROGATE.search(text):
        try:  # a lone surrogate escape ("\\ud800") is no character: it can't be stored or sent
            json.dumps(value, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise JSONInputError("a string holds a lone surrogate (\\ud800–\\udfff)") from None
    return value
