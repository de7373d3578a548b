"""Each big win alone with exact points (RULES.md A6, A8), and the minimum per preset (A10).

Seat 3 wins with one opening, hard: M = 4 (discard) or 6 (self-drawn: 2 · 1.5 · 2).  Losers
have no factors; in a big win the dealer has none either.  So a discard from seat 1 pays
40 / 60 / 40 (the discarder ×1.5) = 140, and a self-draw 60 each = 180.
"""

from __future__ import annotations

from tests.score_helpers import chow, concealed, no_min, player, pung, settle

LOSERS = [player(), player(), player()]


def discard(winner, tile: str, indicator: str = "9s", **kw):
    return settle([*LOSERS, winner], rules=no_min(), indicator=indicator, src=1, tile=tile, **kw)


def self_draw(winner, tile: str, **kw):
    return settle(
        [*LOSERS, winner], rules=no_min(), indicator="9s", win="self_draw", tile=tile, **kw
    )


def test_pengpenghu() -> None:
    s = discard(player("111m999m333p4p", pung("777p", 2)), "4p")
    assert s.wins == ("pengpenghu",) and s.payments == (-40, -60, -40, 140)


def test_qingyise() -> None:
    s = discard(player("123m456m789m1m", chow("234m", 2)), "1m")
    assert s.wins == ("qingyise",) and s.payments == (-40, -60, -40, 140)


def test_fengyise_any_shape() -> None:
    s = discard(player("1z1z2z2z3z3z4z4z6z6z", pung("555z", 2)), "1z")
    assert s.wins == ("fengyise",) and s.hard
    assert s.payments == (-40, -60, -40, 140)


def test_jiangyise_any_shape() -> None:
    s = discard(player("2m5m8m2p5p8p2s5s8s2s", pung("222m", 2)), "8s")
    assert s.wins == ("jiangyise",) and s.payments == (-40, -60, -40, 140)


def test_quanqiuren_with_a_ready_discarder() -> None:
    w = player("5s", chow("123m", 2), chow("456p", 2), pung("999m", 1), chow("789p", 2))
    s = settle(
        [player(), player(ready=True), player(), w],
        rules=no_min(),
        indicator="9s",
        src=1,
        tile="5s",
    )
    assert s.wins == ("quanqiuren",) and s.contract is None
    assert s.payments == (-40, -60, -40, 140)


def test_haidilao() -> None:
    s = self_draw(player("123m456m123p5p", chow("789p", 2)), "5p", haidi=True)
    assert s.wins == ("haidilao",) and s.payments == (-60, -60, -60, 180)


def test_gangshanghua() -> None:
    # The replacement draw needs a kong: a concealed one (×4) makes M 6 · 4 = 24, 240 each.
    s = self_draw(player("123m456m5p", chow("789p", 2), concealed("3333s")), "5p", after_kong=True)
    assert s.wins == ("gangshanghua",) and s.payments == (-240, -240, -240, 720)


def test_gangshanghua_after_a_laid_out_red_dragon() -> None:
    # 杠上花 counts after any kong, a must-gang tile laid out included: ×2 for the 红中 too.
    w = player("123m456m123p5p", chow("789p", 2), laid_out="7z")
    s = self_draw(w, "5p", after_kong=True)
    assert s.wins == ("gangshanghua",) and s.payments == (-120, -120, -120, 360)


def test_qiangganghu_points() -> None:
    robber = player("123m456m55p78s", chow("789p", 2))
    robbed = player(None, pung("999s", 0))
    s = settle(
        [player(), robbed, player(), robber],
        rules=no_min(),
        indicator="1z",
        win="rob_kong",
        src=1,
        tile="9s",
    )
    assert s.wins == ("qiangganghu",)
    assert s.after_caps == (40, 120, 40, None) and s.payments == (0, -200, 0, 200)


def test_two_big_wins_base_twenty() -> None:
    s = discard(player("111m333m999m4m", pung("777m", 2)), "4m")
    assert s.wins == ("pengpenghu", "qingyise") and s.base == 20
    assert s.payments == (-80, -120, -80, 280)


def test_three_big_wins_base_thirty() -> None:
    s = self_draw(player("111m333m999m4m", pung("777m", 2)), "4m", haidi=True)
    assert s.wins == ("pengpenghu", "qingyise", "haidilao") and s.base == 30
    assert s.payments == (-180, -180, -180, 540)


# -- A10: the minimum differs by preset ----------------------------------------------------------
DEALER_SELF_DRAW = player("123m456m123p5p", chow("789p", 2))  # M = 2 · 2 · 2 · dealer 2 = 16


def self_drawn_by_dealer(rules: str):
    return settle([*LOSERS, DEALER_SELF_DRAW], rules=rules, dealer=3, win="self_draw", tile="5p")


def test_minimum_16_in_hongzhong_and_facai_kaikou() -> None:
    for rules in ("wuhan-hongzhong-kaikou", "wuhan-facai-kaikou"):
        s = self_drawn_by_dealer(rules)
        assert s.allowed and s.raw == (16, 16, 16, None) and s.payments == (-16, -16, -16, 48)


def test_minimum_32_in_qipi_kaikou_and_64_in_koukou() -> None:
    for rules in ("wuhan-qipi-kaikou", "wuhan-hongzhong-koukou", "wuhan-qipi-koukou"):
        s = self_drawn_by_dealer(rules)
        assert s.reason == "below_minimum" and s.payments == (0, 0, 0, 0)
