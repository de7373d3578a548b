"""Refused wins pay nothing and say why (RULES.md A4, A6, A10); the best reading is scored (A3)."""

from __future__ import annotations

from tests.score_helpers import chow, concealed, no_min, player, pung, settle

PLAIN = player("123m456m123p5p", chow("789p", 2))


def refused(s, reason: str) -> None:
    assert not s.allowed and s.reason == reason
    assert s.wins == () and s.hard is None and s.base is None
    assert s.payments == (0, 0, 0, 0) and s.contract is None
    assert s.to_json()["payments"] == [0, 0, 0, 0]


def test_holds_special_on_a_discard() -> None:
    w = player("123m456m12p7z5p", chow("789p", 2))
    refused(
        settle([player(), player(), player(), w], rules=no_min(), src=1, tile="3p"), "holds_special"
    )


def test_holds_special_self_drawing_a_must_gang_tile() -> None:
    w = player("123m456m123p5p", chow("789p", 2))
    s = settle([player(), player(), player(), w], rules=no_min(), win="self_draw", tile="7z")
    refused(s, "holds_special")


def test_holds_special_robbing_a_kong() -> None:
    w = player("123m456m7z55p7s", chow("789p", 2))
    robbed = player(None, pung("888s", 0))
    s = settle([player(), robbed, player(), w], rules=no_min(), win="rob_kong", src=1, tile="8s")
    refused(s, "holds_special")


def test_holds_special_pi_in_qipi_silai() -> None:
    # indicator 西 3z: pi 西 and 南.  A 南 in hand refuses the win.
    w = player("123m456m12p2z5p", chow("789p", 2))
    s = settle(
        [player(), player(), player(), w], rules=no_min("wuhan-qipi-kaikou"), tile="3p", src=1
    )
    refused(s, "holds_special")


def test_holds_special_facai_in_hongzhong_facai_only() -> None:
    w = player("123m456m12p6z5p", chow("789p", 2))
    s = settle(
        [player(), player(), player(), w], rules=no_min("wuhan-facai-kaikou"), tile="3p", src=1
    )
    refused(s, "holds_special")
    # 发 is an ordinary tile in the classic variant: a pung of it completes a hand.
    w2 = player("123m456m6z6z55p", chow("789p", 2))
    s2 = settle([player(), player(), player(), w2], rules=no_min(), tile="6z", src=1)
    assert s2.allowed and s2.wins == ("small",)


def test_not_opened() -> None:
    w = player("123m456m789m123p5p")
    refused(
        settle([player(), player(), player(), w], rules=no_min(), src=1, tile="5p"), "not_opened"
    )
    ck = player("123m456m123p5p", concealed("9999s"))
    refused(
        settle([player(), player(), player(), ck], rules=no_min(), src=1, tile="5p"), "not_opened"
    )


def test_not_complete() -> None:
    w = player("123m456m124p5p", chow("789p", 2))
    refused(
        settle([player(), player(), player(), w], rules=no_min(), src=1, tile="5p"), "not_complete"
    )


def test_small_win_needs_the_258_pair() -> None:
    w = player("123m456m123p4p", chow("789p", 2))
    refused(
        settle([player(), player(), player(), w], rules=no_min(), src=1, tile="4p"), "not_complete"
    )


def test_two_laizi_small_win_refused() -> None:
    # laizi 北 4z (indicator 西): 4z + self-drawn 4z.
    w = player("123m456m123p4z", chow("789p", 2))
    s = settle([player(), player(), player(), w], rules=no_min(), win="self_draw", tile="4z")
    refused(s, "two_laizi")


def test_two_laizi_big_win_allowed() -> None:
    w = player("111m333m999m4z", pung("777m", 2))
    s = settle([player(), player(), player(), w], rules=no_min(), win="self_draw", tile="4z")
    assert s.allowed and s.wins == ("pengpenghu",)


def test_below_minimum_refused_and_shows_the_best_reading() -> None:
    # baseline: raw 8, 8, 4 with the default minimum 16
    s = settle([player(), player(), player(), PLAIN], src=1, tile="5p")
    refused(s, "below_minimum")
    out = s.to_json()
    assert out["minimum"] == {
        "min_points": 16,
        "wins": ["small"],
        "hard": True,
        "base": 1,
        "raw": [8, 8, 4, None],
    }
    assert "16" in s.explain("en") and "未达起胡点数" in s.explain("zh")


def test_minimum_checks_each_loser_before_caps() -> None:
    # seat 2 alone would pay 4 (< 8); with min 8 refused, with min 4 allowed
    sit = [player(), player(), player(), PLAIN]
    assert settle(sit, rules=no_min(min_points=8), src=1, tile="5p").reason == "below_minimum"
    s = settle(sit, rules=no_min(min_points=4), src=1, tile="5p")
    assert s.allowed and s.payments == (-8, -8, -4, 20)  # reaching the minimum exactly is enough


def test_minimum_met_by_the_big_reading() -> None:
    # 111m222m333m reads as three chows (small) or three pungs (碰碰胡): the big reading passes.
    w = player("111m222m333m5p", pung("777p", 2))
    s = settle([player(), player(), player(), w], src=1, tile="5p")
    assert s.allowed and s.wins == ("pengpenghu",)


def test_largest_total_reading_is_scored() -> None:
    w = player("111m222m333m5p", pung("777p", 2))
    s = settle([player(), player(), player(), w], rules=no_min(), src=1, tile="5p")
    assert s.wins == ("pengpenghu",) and s.payments[3] == 140


def test_tie_goes_to_the_hard_reading() -> None:
    # two laizi 北: as a 北 pair → 碰碰胡 hard (10 × 2); as a pair of m → 碰碰胡 + 清一色 soft (20).
    w = player("111m333m999m4z", pung("777m", 2))
    s = settle([player(), player(), player(), w], rules=no_min(), win="self_draw", tile="4z")
    assert s.hard is True and s.wins == ("pengpenghu",)
    assert s.payments == (-60, -60, -60, 180)
