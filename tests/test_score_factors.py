"""Each factor of the multiplier, alone, with exact points (RULES.md A3, A4, A5, A7).

The baseline: hongzhong kaikou, no minimum; seat 0 deals, seat 1 discards 5p to seat 3, whose
hand 123m456m123p5p + chow 789p (from seat 2) is a small hard win: M(winner) = opened ×2 · hard ×2
= 4.  Losers: dealer ×2, discarder ×2, seat 2 ×1 → raw 8, 8, 4; the winner gets 20.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from laizi.rules import preset
from laizi.rules.wuhan import current_multiplier, multipliers, special_tiles
from laizi.scoring import score, situation_from_json
from laizi.tiles import parse_tile
from tests.score_helpers import added, chow, concealed, kong, no_min, player, pung, settle

WINNER = player("123m456m123p5p", chow("789p", 2))


def base_case(
    seat2: dict[str, Any] | None = None,
    winner: dict[str, Any] = WINNER,
    rules: Any = None,
    **kwargs: Any,
):
    players = [player(), player(), seat2 or player(), winner]
    kwargs.setdefault("src", 1)
    kwargs.setdefault("tile", "5p")
    return settle(players, rules=rules or no_min(), **kwargs)


def factors(s, seat: int) -> dict[str, Fraction]:
    return {f.name: f.factor for f in s.multipliers[seat].factors}


def test_baseline() -> None:
    s = base_case()
    assert s.wins == ("small",) and s.hard
    assert [m.total for m in s.multipliers] == [2, 2, 1, 4]
    assert s.raw == (8, 8, 4, None)
    assert s.payments == (-8, -8, -4, 20)


def test_kaikou_opened_doubles_once_however_many_openings() -> None:
    s = base_case(seat2=player(None, pung("111s", 0), pung("999s", 1), chow("234s", 1)))
    assert factors(s, 2) == {"opened": 2}
    assert s.payments[2] == -8


def test_koukou_every_opening_doubles() -> None:
    seat2 = player(None, pung("111s", 0), pung("999s", 1), chow("234s", 1))
    s = base_case(seat2=seat2, rules=no_min("wuhan-hongzhong-koukou"))
    assert factors(s, 2) == {"opened": 8}
    assert s.payments[2] == -32


def test_exposed_kong_doubles_and_is_an_opening() -> None:
    s = base_case(seat2=player(None, kong("9999s", 0)))  # 冲杠
    assert factors(s, 2) == {"opened": 2, "exposed_kong": 2}
    assert s.payments[2] == -16


def test_added_kong_doubles_but_is_one_opening_not_two() -> None:
    rules = no_min("wuhan-hongzhong-koukou")
    s = base_case(seat2=player(None, added("9999s", 0)), rules=rules)  # 蓄杠
    assert factors(s, 2) == {"opened": 2, "exposed_kong": 2}
    assert s.payments[2] == -16


def test_concealed_kong_quadruples_and_is_no_opening() -> None:
    s = base_case(seat2=player(None, concealed("9999s")))  # 暗杠
    assert factors(s, 2) == {"concealed_kong": 4}
    assert s.payments[2] == -16
    two = base_case(seat2=player(None, concealed("9999s"), concealed("1111s")))
    assert factors(two, 2) == {"concealed_kong": 16} and two.payments[2] == -64


def test_each_must_gang_tile_laid_out_doubles() -> None:
    s = base_case(seat2=player(laid_out="7z7z"))
    assert factors(s, 2) == {"hongzhong_gang": 4}
    assert s.payments[2] == -16


def test_facai_gang_in_hongzhong_facai() -> None:
    s = base_case(seat2=player(laid_out="6z"), rules=no_min("wuhan-facai-kaikou"))
    assert factors(s, 2) == {"facai_gang": 2} and s.payments[2] == -8


def test_pi_gang_in_qipi_silai() -> None:
    # indicator 西 3z: pi are 西 and 南 (2z)
    s = base_case(seat2=player(laid_out="2z3z"), rules=no_min("wuhan-qipi-kaikou"))
    assert factors(s, 2) == {"pi_gang": 4} and s.payments[2] == -16


def test_laizi_gang_factor_by_variant() -> None:
    # indicator 西 3z → laizi 北 4z in every variant; a discarded laizi is recorded as laid out.
    assert base_case(seat2=player(laid_out="4z")).payments[2] == -8  # ×2
    facai = base_case(seat2=player(laid_out="4z"), rules=no_min("wuhan-facai-kaikou"))
    assert factors(facai, 2) == {"laizi_gang": 4} and facai.payments[2] == -16
    qipi = base_case(seat2=player(laid_out="4z4z"), rules=no_min("wuhan-qipi-kaikou"))
    assert factors(qipi, 2) == {"laizi_gang": 16} and qipi.payments[2] == -64


def test_laizi_gang_factor_is_a_room_setting() -> None:
    s = base_case(seat2=player(laid_out="4z"), rules=no_min(laizi_gang_factor=3))
    assert s.payments[2] == -12


def test_small_self_draw_doubles() -> None:
    s = base_case(win="self_draw")
    assert factors(s, 3) == {"opened": 2, "self_draw": 2, "hard": 2}
    assert s.payments == (-16, -8, -8, 32)


def test_hard_win_doubles_soft_does_not() -> None:
    soft = base_case(winner=player("123m456m12p4z5p", chow("789p", 2)))  # 北 stands for 3p
    assert soft.hard is False and factors(soft, 3) == {"opened": 2}
    assert soft.payments == (-4, -4, -2, 10)


def test_small_win_discarder_doubles() -> None:
    assert factors(base_case(), 1) == {"discarder": 2}


def test_dealer_wins_every_loser_doubles() -> None:
    s = base_case(dealer=3)
    assert factors(s, 3) == {"opened": 2, "hard": 2}
    assert factors(s, 0) == {"dealer_won": 2}
    assert factors(s, 1) == {"discarder": 2, "dealer_won": 2}
    assert s.payments == (-8, -16, -8, 32)


def test_dealer_loses_dealer_doubles() -> None:
    assert factors(base_case(dealer=2), 2) == {"dealer": 2}
    assert base_case(dealer=2).payments == (-4, -8, -8, 20)


PPP = player("111m999m333p4p", pung("777p", 2))  # 碰碰胡 on a 4p discard


def test_big_win_base_ten_and_no_dealer_factor() -> None:
    s = base_case(winner=PPP, tile="4p")
    assert s.wins == ("pengpenghu",) and s.base == 10
    assert factors(s, 0) == {} and factors(s, 1) == {"discarder": Fraction(3, 2)}
    assert s.raw == (40, 60, 40, None)
    assert s.payments == (-40, -60, -40, 140)


def test_big_win_self_draw_one_and_a_half() -> None:
    s = base_case(winner=PPP, tile="4p", win="self_draw")
    assert factors(s, 3) == {"opened": 2, "self_draw": Fraction(3, 2), "hard": 2}
    assert s.payments == (-60, -60, -60, 180)


def test_big_factors_are_room_settings() -> None:
    # 003's rooms: ×2 for both
    rules = no_min(big_self_draw_factor=2, big_discard_factor=2)
    assert base_case(winner=PPP, tile="4p", rules=rules).payments == (-40, -80, -40, 160)
    assert base_case(winner=PPP, tile="4p", win="self_draw", rules=rules).payments == (
        -80,
        -80,
        -80,
        240,
    )


def test_fractions_are_exact_and_printed_as_decimals() -> None:
    soft_ppp = player("111m999m33p4z4p", pung("777p", 2))  # 北 stands for 3p: soft
    rules = no_min(big_self_draw_factor=1.125)
    s = base_case(winner=soft_ppp, tile="4p", win="self_draw", rules=rules)
    assert s.hard is False and s.multipliers[3].total == Fraction(9, 4)
    assert s.payments == (Fraction(-45, 2),) * 3 + (Fraction(135, 2),)
    out = json.loads(json.dumps(s.to_json()))
    assert out["payments"] == [-22.5, -22.5, -22.5, 67.5]
    assert "22.5" in s.explain("en")


def test_big_wins_are_cumulative() -> None:
    # 碰碰胡 + 清一色, self-drawn on a kong's replacement: 杠上花 too → base 30.
    w = player("111m333m999m4m", pung("777m", 2), laid_out="7z")
    s = base_case(winner=w, tile="4m", win="self_draw", after_kong=True)
    assert s.wins == ("pengpenghu", "qingyise", "gangshanghua") and s.base == 30
    # M(winner) = opened 2 · 红中杠 2 · self 1.5 · hard 2 = 12 → 360 per loser
    assert s.raw == (360, 360, 360, None)


def test_room_base_unit_scales_amounts() -> None:
    s = base_case(rules=no_min(base=5))
    assert s.payments == (-40, -40, -20, 100)


def test_current_multiplier_for_table_views() -> None:
    settings = preset("wuhan-hongzhong-koukou")
    special = special_tiles("hongzhong", parse_tile("5m"))
    sit = situation_from_json(
        {
            "rules": "wuhan-hongzhong-koukou",
            "dealer": 2,
            "indicator": "5m",
            "winner": 3,
            "win": "self_draw",
            "winning_tile": "5p",
            "players": [
                player(),
                player(None, pung("111s", 0), pung("111p", 3), laid_out="7z6m"),
                player(None, pung("444s", 0), pung("444p", 0)),
                player("123m456m789m5p", chow("234p", 2)),
            ],
        }
    )
    m = current_multiplier(settings, special, sit.players[1].melds, sit.players[1].laid_out)
    assert m.total == 16 and [f.name for f in m.factors] == [
        "opened",
        "hongzhong_gang",
        "laizi_gang",
    ]
    totals = [m.total for m in multipliers(settings, parse_tile("5m"), sit.players, dealer=2)]
    assert totals == [1, 16, 8, 2]
    assert score(sit).allowed is False  # 64 minimum: M(winner) 8 with 1 → 8 < 64
