"""Baishan settlement (RULES.md Part B): one test per fan and per payment rule, exact points.

The usual table: seat 0 deals; seat 1 wins on 5z (a 白 pair) discarded by seat 2 with the
concealed hand 111m 234p 567p 789s 5z; seats 0, 2 and 3 have each opened with one pung.  So
the winner counts 立门 (1 fan), the dealer 坐庄 and the discarder 点炮 (1 fan each), and the
payments are 2^(1+1) = 4, 4 and 2^1 = 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from laizi.scoring import InputError, score, situation_from_json

OPENED = [
    {"melds": [{"kind": "pung", "tiles": "222s", "from": 3}]},
    {"hand": "111m234p567p789s5z"},
    {"melds": [{"kind": "pung", "tiles": "333s", "from": 0}]},
    {"melds": [{"kind": "pung", "tiles": "444s", "from": 2}]},
]


def table(players: dict[int, dict[str, Any]] | None = None, **top: Any) -> dict[str, Any]:
    seats = [dict(p) for p in OPENED]
    for seat, player in (players or {}).items():
        seats[seat] = player
    data: dict[str, Any] = {
        "rules": "baishan",
        "dealer": 0,
        "winner": 1,
        "win": "discard",
        "from": 2,
        "winning_tile": "5z",
        "players": seats,
    }
    data.update(top)
    if data["win"] == "self_draw":
        data.pop("from", None)
    return data


def settle(data: dict[str, Any]):
    return score(situation_from_json(data))


def fans(s, seat: int) -> dict[str, int]:
    return {f.name: f.fans for f in s.fans[seat].fans}


def pays(s) -> list[Fraction]:
    return list(s.payments)


def test_the_usual_table():
    s = settle(table())
    assert s.allowed and s.wins == ("pinghu",)
    assert [fans(s, x) for x in range(4)] == [{"zuozhuang": 1}, {"limen": 1}, {"dianpao": 1}, {}]
    assert pays(s) == [-4, 10, -4, -2]


# --- the fans, one by one ---------------------------------------------------------------------


def test_baoting_counts_for_the_winner():
    s = settle(table({1: {"hand": "111m234p567p789s5z", "declared_ready": True}}))
    assert fans(s, 1) == {"baoting": 1, "limen": 1}
    assert pays(s) == [-8, 20, -8, -4]


def test_baoting_counts_for_a_loser_too():
    s = settle(table({3: {**OPENED[3], "declared_ready": True}}))
    assert fans(s, 3) == {"baoting": 1}
    assert pays(s) == [-4, 12, -4, -4]


def test_pengpenghu_all_triplets_is_piaohu():
    s = settle(table({1: {"hand": "111m222p777s999s5z"}}))
    assert s.wins == ("piaohu",)
    assert fans(s, 1) == {"pengpenghu": 1, "limen": 1}
    assert pays(s) == [-8, 20, -8, -4]


def test_limen_counts_for_an_unopened_loser():
    s = settle(table({3: {}}))
    assert fans(s, 3) == {"limen": 1}
    assert pays(s) == [-4, 12, -4, -4]


def test_limen_not_for_a_winner_who_opened():
    s = settle(
        table(
            {1: {"hand": "111m567p789s5z", "melds": [{"kind": "chow", "tiles": "234p", "from": 0}]}}
        )
    )
    assert fans(s, 1) == {}
    assert pays(s) == [-2, 5, -2, -1]


def test_dianpao_only_for_the_discarder():
    s = settle(table(**{"from": 3}))
    assert fans(s, 3) == {"dianpao": 1} and fans(s, 2) == {}
    assert pays(s) == [-4, 10, -2, -4]


def test_zimo_counts_for_the_winner():
    s = settle(table(win="self_draw"))
    assert fans(s, 1) == {"limen": 1, "zimo": 1}
    assert [fans(s, x) for x in (0, 2, 3)] == [{"zuozhuang": 1}, {}, {}]
    assert pays(s) == [-8, 16, -4, -4]


def test_zuozhuang_when_the_dealer_wins():
    s = settle(table(dealer=1))
    assert fans(s, 1) == {"limen": 1, "zuozhuang": 1}
    assert pays(s) == [-4, 16, -8, -4]


def test_hunyise_one_suit_and_honors():
    s = settle(table({1: {"hand": "111m234m567m789m5z"}}))
    assert fans(s, 1) == {"limen": 1, "hunyise": 1}
    assert pays(s) == [-8, 20, -8, -4]


def test_hunyise_honors_only():
    s = settle(table({1: {"hand": "111z222z333z444z5z"}}))
    assert s.wins == ("piaohu",)
    assert fans(s, 1) == {"pengpenghu": 1, "limen": 1, "hunyise": 1}
    assert pays(s) == [-16, 40, -16, -8]


def test_qingyise_one_suit_two_fans():
    s = settle(table({1: {"hand": "111m234m567m789m5m"}}, winning_tile="5m"))
    assert fans(s, 1) == {"limen": 1, "qingyise": 2}
    assert pays(s) == [-16, 40, -16, -8]


def test_shoubayi_the_winner_with_one_tile_left():
    melds = [
        {"kind": "pung", "tiles": "111m", "from": 0},
        {"kind": "chow", "tiles": "234p", "from": 0},
        {"kind": "chow", "tiles": "567p", "from": 0},
        {"kind": "chow", "tiles": "789s", "from": 0},
    ]
    s = settle(table({1: {"hand": "5z", "melds": melds}}))
    assert fans(s, 1) == {"shoubayi": 1}
    assert pays(s) == [-4, 10, -4, -2]


def test_shoubayi_counts_for_a_loser_with_one_tile():
    melds = [
        {"kind": "pung", "tiles": "444s", "from": 2},
        {"kind": "pung", "tiles": "777p", "from": 2},
        {"kind": "pung", "tiles": "888p", "from": 0},
        {"kind": "pung", "tiles": "999p", "from": 1},
    ]
    s = settle(table({3: {"hand": "6z", "melds": melds}}))
    assert fans(s, 3) == {"shoubayi": 1}
    assert pays(s) == [-4, 12, -4, -4]


def test_ganghoukai_win_on_a_replacement_draw():
    winner = {"hand": "234p567p789s5z", "melds": [{"kind": "concealed_kong", "tiles": "9999m"}]}
    s = settle(table({1: winner}, win="self_draw", after_kong=True))
    assert fans(s, 1) == {"limen": 1, "zimo": 1, "ganghoukai": 1}
    assert list(s.win_payments) == [-16, 32, -8, -8]
    # the concealed kong: 2 units from each, the dealer ×2
    assert list(s.kong_payments) == [-4, 8, -2, -2]
    assert pays(s) == [-20, 40, -10, -10]


def test_ganghoukai_discard_right_after_a_kong_is_the_discarders():
    discarder = {
        "melds": [
            {"kind": "pung", "tiles": "333s", "from": 0},
            {"kind": "exposed_kong", "tiles": "8888p", "from": 3},
        ]
    }
    s = settle(table({2: discarder}, after_kong_discard=True))
    assert fans(s, 2) == {"dianpao": 1, "ganghoukai": 1}
    assert list(s.win_payments) == [-4, 14, -8, -2]
    assert list(s.kong_payments) == [-2, -1, 4, -1]
    assert pays(s) == [-6, 13, -4, -3]


def test_yibangao_concealed_counts_for_the_winner():
    s = settle(table({1: {"hand": "111m223344p789s5z"}}))
    assert fans(s, 1) == {"limen": 1, "yibangao": 1}
    assert pays(s) == [-8, 20, -8, -4]


def test_yibangao_exposed_counts_for_a_loser():
    chows = [{"kind": "chow", "tiles": "678s", "from": 2}] * 2
    s = settle(table({3: {"melds": chows}}))
    assert fans(s, 3) == {"yibangao": 1}
    assert pays(s) == [-4, 12, -4, -4]


def test_yibangao_concealed_does_not_count_for_a_loser():
    s = settle(table({3: {"hand": "223344m", "melds": OPENED[3]["melds"]}}))
    assert fans(s, 3) == {}


def test_sanhuatongshun_beats_reading_the_same_tiles_as_triplets():
    s = settle(table({1: {"hand": "111m222333444p5z"}}))
    assert s.wins == ("pinghu",)  # 三花同顺 (+2) is worth more than 碰碰胡 (+1)
    assert fans(s, 1) == {"limen": 1, "sanhuatongshun": 2}
    assert pays(s) == [-16, 40, -16, -8]


def test_sanhuatongshun_exposed_counts_for_a_loser():
    chows = [{"kind": "chow", "tiles": "678m", "from": 2}] * 3
    s = settle(table({3: {"melds": chows}}))
    assert fans(s, 3) == {"sanhuatongshun": 2}
    assert pays(s) == [-4, 16, -4, -8]


def test_siguiyi_four_of_a_kind_not_konged():
    s = settle(table({1: {"hand": "111m123m567p789s5z"}}))
    assert fans(s, 1) == {"limen": 1, "siguiyi": 1}
    assert pays(s) == [-8, 20, -8, -4]


def test_siguiyi_exposed_counts_for_a_loser():
    melds = [
        {"kind": "pung", "tiles": "666m", "from": 0},
        {"kind": "chow", "tiles": "567m", "from": 2},
    ]
    s = settle(table({3: {"melds": melds}}))
    assert fans(s, 3) == {"siguiyi": 1}
    assert pays(s) == [-4, 12, -4, -4]


def test_a_kong_is_no_siguiyi():
    winner = {"hand": "234p567p789s5z", "melds": [{"kind": "concealed_kong", "tiles": "9999m"}]}
    s = settle(table({1: winner}))
    assert "siguiyi" not in fans(s, 1)


def test_sanjiaqing_three_others_never_opened():
    winner = {"hand": "111m567p789s5z", "melds": [{"kind": "chow", "tiles": "234p", "from": 0}]}
    s = settle(table({0: {}, 1: winner, 2: {}, 3: {}}))
    assert fans(s, 1) == {"sanjiaqing": 2}
    # the losers then count no 立门
    assert [fans(s, x) for x in (0, 2, 3)] == [{"zuozhuang": 1}, {"dianpao": 1}, {}]
    assert pays(s) == [-8, 20, -8, -4]


def test_sijiaqing_nobody_opened_replaces_limen_for_everyone():
    s = settle(table({0: {}, 2: {}, 3: {}}))
    assert fans(s, 1) == {"sijiaqing": 3}
    assert [fans(s, x) for x in (0, 2, 3)] == [{"zuozhuang": 1}, {"dianpao": 1}, {}]
    assert pays(s) == [-16, 40, -16, -8]


def test_a_concealed_kong_does_not_open():
    s = settle(table({3: {"melds": [{"kind": "concealed_kong", "tiles": "4444s"}]}}))
    assert fans(s, 3) == {"limen": 1}


def test_qidui_seven_pairs_pays_the_cap():
    s = settle(table({1: {"hand": "1133m5577p99s114z"}}, winning_tile="4z"))
    assert s.wins == ("qidui",)
    assert fans(s, 1) == {"qidui": 6}
    assert list(s.raw) == [128, None, 128, 64]
    assert list(s.caps) == ["cap", None, "cap", None]
    assert pays(s) == [-64, 192, -64, -64]


def test_qidui_needs_a_terminal_or_honor():
    s = settle(table({1: {"hand": "2233m4455p6677s8s"}}, winning_tile="8s"))
    assert not s.allowed and s.reason == "no_terminal"


def test_shisanyao_pays_twice_the_cap():
    s = settle(table({1: {"hand": "19m19p19s1234567z"}}, winning_tile="1m"))
    assert s.wins == ("shisanyao",)
    assert fans(s, 1) == {"shisanyao": 7}
    assert pays(s) == [-128, 384, -128, -128]


# --- winning requirements ------------------------------------------------------------------


def test_no_terminal_or_honor_no_win():
    s = settle(table({1: {"hand": "234m345p555s678s2p"}}, winning_tile="2p"))
    assert (s.allowed, s.reason, pays(s)) == (False, "no_terminal", [0, 0, 0, 0])


def test_no_triplet_no_win_and_a_dragon_pair_does_not_excuse_it():
    s = settle(table({1: {"hand": "123m456p789s234s5z"}}))
    assert (s.allowed, s.reason) == (False, "no_triplet")


def test_a_triplet_on_the_table_is_enough():
    winner = {"hand": "123m456p789s5z", "melds": [{"kind": "pung", "tiles": "666p", "from": 0}]}
    s = settle(table({1: winner}))
    assert s.allowed and s.wins == ("pinghu",)


def test_not_complete():
    s = settle(table({1: {"hand": "111m234p567p789s6z"}}))
    assert (s.allowed, s.reason) == (False, "not_complete")


# --- payments -----------------------------------------------------------------------------


def test_room_base_scales_every_amount():
    s = settle(table(rules={"preset": "baishan", "base": 2}))
    assert pays(s) == [-8, 20, -8, -4]


def test_room_cap_is_a_setting():
    s = settle(
        table(
            {1: {"hand": "1133m5577p99s114z"}},
            winning_tile="4z",
            rules={"preset": "baishan", "cap": 32},
        )
    )
    assert pays(s) == [-32, 96, -32, -32]


def test_payment_is_capped_at_2_to_the_6():
    # 清一色 (2) + 自摸 + 坐庄 + 四家清 (3) = 7 fans for the dealer: every loser pays the cap.
    s = settle(
        table(
            {0: {}, 1: {"hand": "111m234m567m789m5m"}, 2: {}, 3: {}},
            dealer=1,
            win="self_draw",
            winning_tile="5m",
        )
    )
    assert fans(s, 1) == {"zimo": 1, "zuozhuang": 1, "qingyise": 2, "sijiaqing": 3}
    assert list(s.raw) == [128, None, 128, 128]
    assert pays(s) == [-64, 192, -64, -64]


def test_exposed_kong_one_unit_and_the_dealer_pays_double():
    melds = [{"kind": "exposed_kong", "tiles": "4444s", "from": 2}]
    s = settle(table({3: {"melds": melds}}))
    assert list(s.kong_payments) == [-2, -1, -1, 4]
    assert pays(s) == [-6, 9, -5, 2]


def test_concealed_kong_two_units_and_the_dealers_kong_is_paid_double():
    s = settle(table({0: {"melds": [{"kind": "concealed_kong", "tiles": "2222s"}]}}))
    assert fans(s, 0) == {"limen": 1, "zuozhuang": 1}
    assert list(s.kong_payments) == [12, -4, -4, -4]
    assert list(s.win_payments) == [-8, 14, -4, -2]
    assert pays(s) == [4, 10, -8, -6]


def test_dagang_a_kong_of_ones_is_double():
    melds = [{"kind": "exposed_kong", "tiles": "1111s", "from": 2}]
    s = settle(table({3: {"melds": melds}}))
    assert list(s.kong_payments) == [-4, -2, -2, 8]


def test_added_kong_pays_as_exposed():
    melds = [{"kind": "added_kong", "tiles": "3333s", "from": 0}]
    s = settle(table({2: {"melds": melds}}))
    assert list(s.kong_payments) == [-2, -1, 4, -1]


def test_payments_are_zero_sum_and_kongs_included():
    s = settle(table({3: {"melds": [{"kind": "exposed_kong", "tiles": "4444s", "from": 2}]}}))
    assert sum(s.payments) == 0
    assert [w + k for w, k in zip(s.win_payments, s.kong_payments, strict=True)] == pays(s)


# --- input ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"indicator": "5m"}, "indicator"),
        ({"win": "rob_kong"}, "win"),
        ({"haidi": True}, "haidi"),
        ({"after_kong": True}, "after_kong"),
        ({"after_kong_discard": True}, "after_kong_discard"),
    ],
)
def test_bad_baishan_input_names_the_field(change, field):
    with pytest.raises(InputError) as error:
        settle(table(**change))
    assert error.value.field == field


def test_laid_out_tiles_are_bad_input():
    with pytest.raises(InputError) as error:
        settle(table({3: {**OPENED[3], "laid_out": "7z"}}))
    assert error.value.field == "players[3].laid_out"


def test_wuhan_only_settings_are_refused_in_a_baishan_room():
    with pytest.raises(InputError) as error:
        settle(table(rules={"preset": "baishan", "min_points": 16}))
    assert error.value.field == "rules.min_points"


def run_cli(*args: str, stdin: str) -> subprocess.CompletedProcess[str]:
    code = "from laizi.cli import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_cli_json_gives_fans_objects_and_payments():
    data = table({3: {"melds": [{"kind": "exposed_kong", "tiles": "4444s", "from": 2}]}})
    done = run_cli("score", "-", "--json", stdin=json.dumps(data))
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.splitlines()[-1])
    assert out["wins"] == ["pinghu"] and out["hard"] is None
    assert out["fans"][1] == {"total": 1, "fans": [{"name": "limen", "fans": 1}]}
    assert out["payments"] == [-6, 9, -5, 2]
    assert out["kong_payments"] == [-2, -1, -1, 4]
    assert "multipliers" not in out


def test_cli_explains_in_chinese_and_english():
    data = json.dumps(table())
    zh = run_cli("score", "-", "--lang", "zh", stdin=data)
    en = run_cli("score", "-", "--lang", "en", stdin=data)
    assert "0号位 输方：坐庄 +1 → 1番 | 1 × 2^(1+1) = 1 × 4 = 4 | 付 4" in zh.stdout
    assert "seat 2 loses: discarder +1 → 1 | 1 × 2^(1+1) = 1 × 4 = 4 | pays 4" in en.stdout
    assert "Payments: 0: -4  1: +10  2: -4  3: -2" in en.stdout


def test_cli_bad_baishan_input_exits_1():
    done = run_cli("score", "-", "--json", stdin=json.dumps(table(win="rob_kong")))
    assert done.returncode == 1 and "win" in done.stderr and not done.stdout


EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "score"


@pytest.mark.parametrize(
    ("name", "payments"),
    [
        ("baishan-discard.json", [-4, 10, -4, -2]),
        ("baishan-kongs.json", [0, 8, -10, 2]),
        ("baishan-baoting-zimo-qingyise.json", [192, -64, -64, -64]),
        ("baishan-qidui.json", [-64, 192, -64, -64]),
        ("baishan-shisanyao.json", [-128, 384, -128, -128]),
        ("baishan-no-triplet.json", [0, 0, 0, 0]),
    ],
)
def test_score_examples(name, payments):
    data = json.loads((EXAMPLES / name).read_text(encoding="utf-8"))
    assert pays(settle(data)) == payments
