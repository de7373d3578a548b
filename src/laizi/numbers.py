"""Exact numbers as people read them."""

from __future__ import annotations

from fractions import Fraction

__all__ = ["number_text"]


def number_text(value: Fraction | int) -> str:
    """Exact text of a number: ``112``, ``37.5``, or ``1/3`` if no finite decimal exists."""
    value = Fraction(value)
    if value.denominator == 1:
        return str(value.numerator)
    d = value.denominator
    twos = fives = 0
    while d % 2 == 0:
        d //= 2
        twos += 1
    while d % 5 == 0:
        d //= 5
        fives += 1
    if d != 1:
        return f"{value.numerator}/{value.denominator}"
    places = max(twos, fives)
    scaled = abs(value) * 10**places
    sign = "-" if value < 0 else ""
    digits = str(scaled.numerator).rjust(places + 1, "0")
    return f"{sign}{digits[:-places]}.{digits[-places:]}".rstrip("0").rstrip(".")
