"""Inconsistent input is bad input: an InputError naming the field, never a refusal."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from laizi.scoring import InputError, situation_from_json
from tests.score_helpers import chow, concealed, no_min, player, pung, situation

GOOD = situation(
    [player(), player(), player(), player("123m456m123p5p", chow("789p", 2))],
    rules=no_min(),
    src=1,
    tile="5p",
)


def bad(change, field: str) -> None:
    data: dict[str, Any] = copy.deepcopy(GOOD)
    change(data)
    with pytest.raises(InputError) as error:
        situation_from_json(data)
    assert error.value.field == field, str(error.value)
    assert field in str(error.value)


def test_good_input_is_accepted() -> None:
    assert situation_from_json(GOOD).winner == 3


def test_win_on_a_discarded_laizi() -> None:
    def change(d: dict) -> None:
        d["winning_tile"] = "4z"  # the laizi (indicator 西)
        d["players"][3]["hand"] = "123m456m123p5p"

    bad(change, "winning_tile")


def test_win_on_a_laid_out_must_gang_tile() -> None:
    bad(lambda d: d.update(winning_tile="7z"), "winning_tile")


def test_rob_kong_of_a_must_gang_tile() -> None:
    bad(lambda d: d.update(win="rob_kong", winning_tile="7z"), "winning_tile")


def test_haidi_with_a_discard_win() -> None:
    bad(lambda d: d.update(haidi=True), "haidi")


def test_after_kong_with_a_discard_win() -> None:
    bad(lambda d: d.update(after_kong=True), "after_kong")


def test_haidi_and_after_kong_together() -> None:
    def change(d: dict) -> None:
        d.update(win="self_draw", haidi=True, after_kong=True)
        del d["from"]

    bad(change, "after_kong")


def test_more_than_four_of_a_kind_on_the_table() -> None:
    bad(lambda d: d["players"][0].update(hand="5p5p5p"), "players")


def test_indicator_counts_as_a_copy() -> None:
    bad(lambda d: d["players"][0].update(hand="3z3z3z3z"), "players")


def test_missing_from() -> None:
    bad(lambda d: d.pop("from"), "from")


def test_from_the_winner_itself() -> None:
    bad(lambda d: d.update({"from": 3}), "from")


def test_self_draw_with_from() -> None:
    bad(lambda d: d.update(win="self_draw"), "from")


def test_from_out_of_range() -> None:
    bad(lambda d: d.update({"from": 4}), "from")


def test_chow_from_a_seat_other_than_the_previous() -> None:
    bad(lambda d: d["players"][3].update(melds=[chow("789p", 1)]), "players[3].melds[0].from")


def test_meld_of_the_laizi_or_a_must_gang_tile() -> None:
    bad(lambda d: d["players"][0].update(melds=[pung("444z", 1)]), "players[0].melds[0].tiles")
    bad(lambda d: d["players"][0].update(melds=[pung("777z", 1)]), "players[0].melds[0].tiles")


def test_meld_shape() -> None:
    bad(lambda d: d["players"][0].update(melds=[chow("135m", 3)]), "players[0].melds[0].tiles")
    bad(lambda d: d["players"][0].update(melds=[pung("11m", 3)]), "players[0].melds[0].tiles")
    bad(
        lambda d: d["players"][0].update(melds=[{"kind": "flower", "tiles": "1m"}]),
        "players[0].melds[0].kind",
    )


def test_meld_from_rules() -> None:
    bad(
        lambda d: d["players"][0].update(melds=[{"kind": "pung", "tiles": "111m"}]),
        "players[0].melds[0].from",
    )
    bad(
        lambda d: d["players"][0].update(melds=[{**concealed("1111m"), "from": 2}]),
        "players[0].melds[0].from",
    )
    bad(lambda d: d["players"][0].update(melds=[pung("111m", 0)]), "players[0].melds[0].from")


def test_laid_out_must_be_special() -> None:
    bad(lambda d: d["players"][0].update(laid_out="1m"), "players[0].laid_out")


def test_winner_hand_size() -> None:
    bad(lambda d: d["players"][3].update(hand="123m456m123p"), "players[3].hand")


def test_winner_hand_required() -> None:
    bad(lambda d: d["players"][3].pop("hand"), "players[3].hand")


def test_rob_kong_needs_the_robbed_pung() -> None:
    bad(lambda d: d.update(win="rob_kong"), "from")


def test_unknown_field() -> None:
    bad(lambda d: d.update(winer=3), "winer")
    bad(lambda d: d["players"][1].update(hnd="1m"), "players[1].hnd")


def test_comment_fields_are_ignored() -> None:
    data = copy.deepcopy(GOOD)
    data["_comment"] = "a worked example"
    assert situation_from_json(data).winner == 3


def test_bad_tile_text() -> None:
    bad(lambda d: d.update(winning_tile="5x"), "winning_tile")
    bad(lambda d: d["players"][0].update(hand="12"), "players[0].hand")
    bad(lambda d: d.update(indicator="8z"), "indicator")


def test_rules_errors() -> None:
    bad(lambda d: d.update(rules="wuhan-nowhere"), "rules.preset")
    bad(lambda d: d.update(rules={"preset": "wuhan-hongzhong-kaikou", "cap": -3}), "rules.cap")
    bad(lambda d: d.pop("rules"), "rules")


def test_players_must_be_four() -> None:
    bad(lambda d: d["players"].pop(), "players")


def test_seats_and_win_kind() -> None:
    bad(lambda d: d.update(dealer=7), "dealer")
    bad(lambda d: d.update(winner="3"), "winner")
    bad(lambda d: d.update(win="tsumo"), "win")
    bad(lambda d: d.update(haidi="yes"), "haidi")


def test_baishan_field_in_wuhan() -> None:
    bad(lambda d: d.update(after_kong_discard=True), "after_kong_discard")


def test_not_an_object() -> None:
    with pytest.raises(InputError) as error:
        situation_from_json([1, 2])
    assert error.value.field == "input"


def test_only_an_added_kong_can_be_robbed() -> None:
    # 冲杠 and 暗杠 can't be robbed (A5): the robbed seat must hold the pung it was adding to.
    def robbed_with(meld: dict) -> Any:
        def change(d: dict) -> None:
            d.update(win="rob_kong", winning_tile="9s")
            d["players"][3]["hand"] = "123m456m55p78s"
            d["players"][1]["melds"] = [meld]

        return change

    bad(robbed_with({"kind": "exposed_kong", "tiles": "9999s", "from": 0}), "from")
    bad(robbed_with(concealed("9999s")), "from")
