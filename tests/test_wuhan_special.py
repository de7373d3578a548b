"""The indicator, the laizi, the pi and the must-gang tiles (RULES.md A1, A2, A4)."""

from __future__ import annotations

import pytest

from laizi.rules.wuhan import special_tiles
from laizi.tiles import format_tile, parse_tile


def laizi_of(variant: str, indicator: str) -> str:
    return format_tile(special_tiles(variant, parse_tile(indicator)).laizi)


@pytest.mark.parametrize("variant", ["hongzhong", "hongzhong_facai", "qipi_silai"])
@pytest.mark.parametrize(
    ("indicator", "laizi"),
    [
        ("5m", "6m"),
        ("8p", "9p"),
        ("9m", "1m"),
        ("9p", "1p"),
        ("9s", "1s"),
        ("1s", "2s"),
        ("1z", "2z"),
        ("2z", "3z"),
        ("3z", "4z"),
        ("5z", "1z"),
    ],
)
def test_laizi_is_the_tile_after_the_indicator(variant: str, indicator: str, laizi: str) -> None:
    assert laizi_of(variant, indicator) == laizi


@pytest.mark.parametrize(("indicator", "laizi"), [("4z", "6z"), ("7z", "6z"), ("6z", "5z")])
def test_classic_honor_cycle_skips_only_hongzhong(indicator: str, laizi: str) -> None:
    # A2: 北→发, 中→发, 发→白, 白→东
    assert laizi_of("hongzhong", indicator) == laizi


@pytest.mark.parametrize("variant", ["hongzhong_facai", "qipi_silai"])
@pytest.mark.parametrize(("indicator", "laizi"), [("4z", "5z"), ("7z", "5z"), ("6z", "5z")])
def test_facai_and_qipi_skip_both_dragons(variant: str, indicator: str, laizi: str) -> None:
    # A2: 北→白, 中→白, 发→白, 白→东
    assert laizi_of(variant, indicator) == laizi


def test_must_gang_tiles_by_variant() -> None:
    five_m = parse_tile("5m")
    assert special_tiles("hongzhong", five_m).must_gang == {parse_tile("7z")}
    assert special_tiles("hongzhong", five_m).pi == ()
    assert special_tiles("hongzhong_facai", five_m).must_gang == {
        parse_tile("7z"),
        parse_tile("6z"),
    }
    qipi = special_tiles("qipi_silai", five_m)
    assert qipi.must_gang == {parse_tile("7z"), parse_tile("5m"), parse_tile("4m")}


@pytest.mark.parametrize(
    ("indicator", "pi", "laizi"),
    [
        ("5m", "5m4m", "6m"),  # A4's own example
        ("5z", "5z6z", "1z"),  # A4: indicator 白 → pi 白 and 发, laizi 东
        ("1m", "1m9m", "2m"),  # suits wrap 1←9
        ("9s", "9s8s", "1s"),
        ("1z", "1z5z", "2z"),  # honors wrap 东←白 in the full order
        ("7z", "7z4z", "5z"),  # 中: the tile before it is 北
        ("6z", "6z7z", "5z"),  # 发: the tile before it is 中
    ],
)
def test_qipi_pi_are_the_indicator_and_the_tile_before(indicator: str, pi: str, laizi: str) -> None:
    sp = special_tiles("qipi_silai", parse_tile(indicator))
    assert "".join(format_tile(t) for t in sp.pi) == pi
    assert format_tile(sp.laizi) == laizi
    assert set(sp.pi) <= sp.must_gang and parse_tile("7z") in sp.must_gang


def test_seven_pi_and_four_laizi() -> None:
    # 七皮四赖: with the indicator out of play, 3 + 4 pi tiles remain, and 4 laizi.
    sp = special_tiles("qipi_silai", parse_tile("5m"))
    assert len(sp.pi) == 2 and sp.laizi not in sp.pi


@pytest.mark.parametrize("variant", ["hongzhong", "hongzhong_facai", "qipi_silai"])
def test_the_laizi_is_never_a_must_gang_tile(variant: str) -> None:
    for indicator in range(34):
        sp = special_tiles(variant, indicator)
        assert sp.laizi not in sp.must_gang


def test_unknown_variant_is_an_error() -> None:
    with pytest.raises(ValueError, match="variant"):
        special_tiles("sichuan", 0)
