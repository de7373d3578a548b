"""The laizi rules of RULES.md A3, each with exact points.

Indicator 西 3z makes 北 4z the laizi (an honor); indicator 4s makes 5s the laizi (a 2/5/8).
Seat 0 deals; seat 1 discards to seat 3 unless said otherwise.
"""

from __future__ import annotations

from tests.score_helpers import chow, no_min, player, pung, settle

LOSERS = [player(), player(), player()]


def win(hand: str, *melds, tile: str, indicator: str = "3z", rules=None, **kw):
    return settle(
        [*LOSERS, player(hand, *melds)],
        rules=rules or no_min(),
        indicator=indicator,
        tile=tile,
        **({"src": 1} | kw),
    )


def test_laizi_as_a_fifth_copy() -> None:
    # 5555p + a self-drawn 北 standing for a fifth 5p: soft, M = opened 2 · self 2 = 4
    s = win("123m789m5555p", chow("789p", 2), tile="4z", win="self_draw", src=None)
    assert s.wins == ("small",) and s.hard is False
    assert s.payments == (-8, -4, -4, 16)


def test_laizi_pairs_a_258() -> None:
    s = win("123m789m123p4z", chow("789p", 2), tile="5p")
    assert s.hard is False and s.payments == (-4, -4, -2, 10)


def test_laizi_as_itself_is_hard() -> None:
    s = win("123m456s123p5p", chow("789p", 2), indicator="4s", tile="5p")
    assert s.hard is True and s.payments == (-8, -8, -4, 20)


def test_two_laizi_only_big() -> None:
    refused = win("123m456m123p4z", chow("789p", 2), tile="4z", win="self_draw", src=None)
    assert refused.reason == "two_laizi" and refused.payments == (0, 0, 0, 0)
    big = win("111m333m999m4z", pung("777m", 2), tile="4z", win="self_draw", src=None)
    assert big.allowed and big.payments == (-60, -60, -60, 180)


def test_laizi_never_stands_for_a_must_gang_tile() -> None:
    # qipi_silai, indicator 4s: pi 4s and 3s, laizi 5s.  1s2s + laizi would need a 3s.
    hand = "12s5s123m789m8p"
    qipi = win(hand, chow("789p", 2), indicator="4s", tile="8p", rules=no_min("wuhan-qipi-kaikou"))
    assert qipi.reason == "not_complete"
    classic = win(hand, chow("789p", 2), indicator="4s", tile="8p")
    assert classic.allowed and classic.hard is False and classic.payments == (-4, -4, -2, 10)


def test_fengyise_honor_laizi_counts_as_itself() -> None:
    s = win("1z1z2z2z3z3z4z5z5z5z", pung("666z", 2), tile="1z")  # 北 is the laizi, read as 北
    assert s.wins == ("fengyise",) and s.hard is True
    assert s.payments == (-40, -60, -40, 140)


def test_fengyise_suit_laizi_stands_for_an_honor() -> None:
    s = win("1z1z2z2z3z3z4z5s5z5z", pung("666z", 2), indicator="4s", tile="1z")
    assert s.wins == ("fengyise",) and s.hard is False
    assert s.payments == (-20, -30, -20, 70)


def test_jiangyise_258_laizi_counts_as_itself() -> None:
    s = win("2m5m8m2p5p8p2s5s8s2s", pung("222m", 2), indicator="4s", tile="8s")
    assert s.wins == ("jiangyise",) and s.hard is True
    assert s.payments == (-40, -60, -40, 140)


def test_jiangyise_other_laizi_stands_for_a_258() -> None:
    s = win("2m5m8m2p5p8p2s4z8s2s", pung("222m", 2), tile="8s")
    assert s.wins == ("jiangyise",) and s.hard is False
    assert s.payments == (-20, -30, -20, 70)


def test_seven_pairs_is_no_wuhan_hand() -> None:
    s = win("1122m3344p5566s8s", tile="8s")
    assert s.reason == "not_opened"  # it can't have opened, and it is no shape either
