"""The cap ladder 封顶 → 金顶 → 阳光顶 → 三阳开泰 (RULES.md A9), with exact amounts.

The winner self-draws 碰碰胡 + 清一色 (base 20) hard with one opening: M = 2 · 1.5 · 2 = 6, so
each loser owes 120 × M(loser).  A loser with an exposed kong (opened ×2, kong ×2) owes 480; with
a concealed kong (×4, never opened) 480 too.
"""

from __future__ import annotations

from typing import Any

from tests.score_helpers import concealed, kong, no_min, player, pung, settle

WINNER = player("111m333m999m4m", pung("777m", 2))


def big(losers: list[dict[str, Any]], rules: Any = "wuhan-hongzhong-kaikou"):
    return settle([*losers, WINNER], rules=rules, win="self_draw", tile="4m", dealer=0)


def test_below_the_cap_pays_the_raw_amount() -> None:
    s = big([player(), player(None, pung("111s", 0)), player()])
    assert s.wins == ("pengpenghu", "qingyise") and s.multipliers[3].total == 6
    assert s.raw == (120, 240, 120, None) and s.caps == (None,) * 4
    assert s.payments == (-120, -240, -120, 480)


def test_one_loser_over_the_cap_pays_the_cap() -> None:
    s = big([player(), player(None, pung("111s", 0)), player(None, kong("9999p", 0))])
    assert s.raw == (120, 240, 480, None)
    assert s.caps == (None, None, "cap", None)
    assert s.payments == (-120, -240, -300, 660)


def test_two_over_the_cap_is_not_yet_golden() -> None:
    s = big([player(), player(None, kong("1111s", 0)), player(None, kong("9999p", 0))])
    assert s.caps == (None, "cap", "cap", None)
    assert s.payments == (-120, -300, -300, 720)


def test_all_three_exceed_each_pays_the_golden_cap() -> None:
    losers = [
        player(None, kong("9999s", 1)),
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = big(losers)
    assert s.raw == (480, 480, 480, None)
    assert s.caps == ("golden", "golden", "golden", None)
    assert s.payments == (-400, -400, -400, 1200)


def test_golden_cap_is_500_in_koukou() -> None:
    losers = [
        player(None, kong("9999s", 1)),
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = big(losers, rules="wuhan-hongzhong-koukou")
    assert s.payments == (-500, -500, -500, 1500)


def test_at_the_golden_cap_a_loser_who_never_opened_pays_sunshine() -> None:
    losers = [
        player(None, concealed("9999s")),  # never opened
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = big(losers)
    assert s.caps == ("sunshine", "golden", "golden", None)
    assert s.payments == (-600, -400, -400, 1400)


def test_none_of_the_three_opened_three_suns() -> None:
    losers = [player(None, concealed(t)) for t in ("9999s", "1111s", "9999p")]
    s = big(losers)
    assert s.caps == ("three_suns", "three_suns", "three_suns", None)
    assert s.payments == (-800, -800, -800, 2400)


def test_exactly_the_cap_is_not_exceeding_it() -> None:
    losers = [
        player(None, kong("9999s", 1)),
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = big(losers, rules=no_min(cap=480, golden_cap=500, sunshine_cap=600))
    assert s.caps == (None,) * 4
    assert s.payments == (-480, -480, -480, 1440)


def test_cap_values_are_room_settings() -> None:
    # 001's ladder for its rooms: cap 400, golden 500, sunshine 600.
    losers = [
        player(None, concealed("9999s")),
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = big(losers, rules=no_min(cap=400, golden_cap=500, sunshine_cap=600))
    assert s.payments == (-600, -500, -500, 1600)
