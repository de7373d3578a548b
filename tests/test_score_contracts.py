"""Contracts 承包 and their precedence 抢杠 > 全求人 > 三句包 (RULES.md A9)."""

from __future__ import annotations

import pytest

from laizi.rules.wuhan import Reading, special_tiles
from laizi.rules.wuhan.settle import CONTRACT_ORDER, contract_cases
from laizi.scoring import InputError, situation_from_json
from tests.score_helpers import chow, kong, no_min, player, pung, settle, situation


def test_sanjubao_qingyise_third_opening_pays_for_all() -> None:
    # third opening (pung 999m) was claimed from seat 0; seat 1 discards 7m.
    w = player("234m7m", chow("123m", 2), pung("555m", 1), pung("999m", 0))
    s = settle([player(), player(), player(), w], rules=no_min(), src=1, tile="7m")
    assert s.wins == ("qingyise",)
    assert s.raw == (40, 60, 40, None)
    assert s.contract == 0 and s.contract_reason == "sanjubao"
    assert s.payments == (-140, 0, 0, 140)


def test_sanjubao_applies_to_a_self_drawn_qingyise_too() -> None:
    w = player("234m7m", chow("123m", 2), pung("555m", 1), pung("999m", 0))
    s = settle([player(), player(), player(), w], rules=no_min(), win="self_draw", tile="7m")
    assert s.contract == 0 and s.payments == (-180, 0, 0, 180)


def test_qingyise_with_two_openings_has_no_contract() -> None:
    w = player("234m789m7m", chow("123m", 2), pung("555m", 1))
    s = settle([player(), player(), player(), w], rules=no_min(), src=0, tile="7m")
    assert s.wins == ("qingyise",) and s.contract is None


QQR = player(
    "5s", chow("123m", 2), chow("456p", 2), pung("999s", 1), chow("789p", 2)
)  # 全求人 on a 5s


def test_quanqiuren_discarder_not_ready_pays_for_all() -> None:
    not_ready = player("123m456m789m1z", pung("111s", 0))  # a single 东 is no 2/5/8 pair
    s = settle([player(), not_ready, player(), QQR], rules=no_min(), src=1, tile="5s")
    assert s.wins == ("quanqiuren",)
    # M(winner): opened 2 · hard 2 = 4; base 10 → 40, 120 (opened 2 · discarder 1.5), 40
    assert s.raw == (40, 120, 40, None)
    assert s.contract == 1 and s.contract_reason == "quanqiuren"
    assert s.payments == (0, -200, 0, 200)


def test_quanqiuren_discarder_ready_no_contract() -> None:
    ready = player("123m456m789m5p", pung("111s", 0))  # waits on 5p
    s = settle([player(), ready, player(), QQR], rules=no_min(), src=1, tile="5s")
    assert s.contract is None and s.payments == (-40, -120, -40, 200)


def test_quanqiuren_ready_flag_overrides_the_hand() -> None:
    s = settle([player(), player(ready=True), player(), QQR], rules=no_min(), src=1, tile="5s")
    assert s.contract is None
    s = settle([player(), player(ready=False), player(), QQR], rules=no_min(), src=1, tile="5s")
    assert s.contract == 1


def test_quanqiuren_discarder_holding_a_must_gang_tile_is_not_ready() -> None:
    # 003: must-gang tiles must be laid out before one can be ready.
    holds_red = player("123m456m789m7z", pung("111s", 0))
    s = settle([player(), holds_red, player(), QQR], rules=no_min(), src=1, tile="5s")
    assert s.contract == 1


def test_quanqiuren_contract_needs_the_discarders_hand_or_ready() -> None:
    with pytest.raises(InputError) as error:
        settle([player(), player(), player(), QQR], rules=no_min(), src=1, tile="5s")
    assert error.value.field == "players[1].ready"


ROBBER = player("123m456m55p78s", chow("789p", 2))  # waits 6s/9s; robs seat 1's added 9s


def test_qiangganghu_robbed_player_pays_for_all() -> None:
    robbed = player(None, pung("999s", 0))
    s = settle(
        [player(), robbed, player(), ROBBER], rules=no_min(), win="rob_kong", src=1, tile="9s"
    )
    assert s.wins == ("qiangganghu",)
    assert {f.name: f.factor for f in s.multipliers[1].factors}["robbed"] == 1.5
    assert s.raw == (40, 120, 40, None)  # robbed: opened 2 · robbed 1.5 → 3 × 4 × 10
    assert s.contract == 1 and s.contract_reason == "qiangganghu"
    assert s.payments == (0, -200, 0, 200)


def test_qiangganghu_comes_before_sanjubao() -> None:
    w = player("78m44m", chow("123m", 2), pung("555m", 2), pung("999m", 0))
    robbed = player(None, pung("666m", 0))
    s = settle([player(), robbed, player(), w], rules=no_min(), win="rob_kong", src=1, tile="6m")
    assert set(s.wins) == {"qingyise", "qiangganghu"}
    cases = contract_cases(s.situation, s.special, Reading(s.wins, bool(s.hard)))
    assert cases == {"qiangganghu": 1, "sanjubao": 0}
    assert s.contract == 1 and s.contract_reason == "qiangganghu"


def test_quanqiuren_comes_before_sanjubao() -> None:
    w = player("4m", chow("123m", 2), pung("555m", 2), pung("999m", 0), chow("678m", 2))
    s = settle([player(), player(ready=False), player(), w], rules=no_min(), src=1, tile="4m")
    assert set(s.wins) == {"qingyise", "quanqiuren"}
    assert s.contract == 1 and s.contract_reason == "quanqiuren"


def test_contract_order_constant() -> None:
    assert CONTRACT_ORDER == ("qiangganghu", "quanqiuren", "sanjubao")


def test_contract_pays_the_sum_after_caps() -> None:
    # 碰碰胡 + 清一色 self-drawn, third opening from seat 0; every loser 480 → golden 400 each.
    w = player("777m4m", pung("111m", 2), pung("333m", 1), pung("999m", 0))
    losers = [
        player(None, kong("9999s", 1)),
        player(None, kong("1111s", 0)),
        player(None, kong("9999p", 0)),
    ]
    s = settle([*losers, w], win="self_draw", tile="4m")
    assert s.caps == ("golden", "golden", "golden", None)
    assert s.contract == 0 and s.payments == (-1200, 0, 0, 1200)


def test_contract_cases_are_empty_for_a_plain_win() -> None:
    data = situation(
        [player(), player(), player(), player("123m456m123p5p", chow("789p", 2))],
        rules=no_min(),
        src=1,
        tile="5p",
    )
    sit = situation_from_json(data)
    special = special_tiles("hongzhong", sit.indicator)
    assert contract_cases(sit, special, Reading(("small",), True)) == {}
