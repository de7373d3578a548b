"""The rules object the engine asks (laizi.rules.ruleset)."""

from __future__ import annotations

from fractions import Fraction

from laizi.rules import Meld, preset, ruleset
from laizi.scoring import situation_from_json
from laizi.tiles import count_vector, parse_tile, parse_tiles
from tests.score_helpers import chow, no_min, player, situation


def test_claims_and_laying_out_by_variant() -> None:
    classic = ruleset(preset("wuhan-hongzhong-kaikou")).hand_rules(parse_tile("5m"))
    assert not classic.may_claim(parse_tile("6m"))  # the laizi
    assert not classic.may_claim(parse_tile("7z")) and classic.must_lay_out(parse_tile("7z"))
    assert classic.may_claim(parse_tile("6z")) and not classic.must_lay_out(parse_tile("6z"))
    assert classic.may_lay_out(parse_tile("6m")) and not classic.may_lay_out(parse_tile("1m"))
    facai = ruleset(preset("wuhan-facai-koukou")).hand_rules(parse_tile("5m"))
    assert facai.must_lay_out(parse_tile("6z")) and not facai.may_claim(parse_tile("6z"))


def test_room_level_answers() -> None:
    rules = ruleset(
        preset("wuhan-hongzhong-kaikou").with_overrides({"win_priority": "from_discarder"})
    )
    assert rules.claim_order(dealer=0, discarder=2) == (3, 0, 1)
    assert rules.next_dealer(0, 2) == 1
    assert rules.escape_payments(0)[0] == -400 and rules.escape_payments(0)[1] == Fraction(400, 3)


def test_win_check_multiplier_and_waits() -> None:
    rules = ruleset(preset("wuhan-hongzhong-kaikou"))
    data = situation(
        [player(), player(), player(), player("123m456m123p5p", chow("789p", 2))],
        rules=no_min(),
        src=1,
        tile="5p",
    )
    assert rules.score(situation_from_json(data)).allowed
    hand = rules.hand_rules(parse_tile("3z"))
    melds = (Meld("chow", tuple(parse_tiles("789p")), 2),)
    assert hand.winning_tiles(count_vector(parse_tiles("123m456m123p5p")), melds) == parse_tiles(
        "5p4z"
    )
    m = hand.current_multiplier(melds, parse_tiles("7z4z"), dealer=True)
    assert m.total == 16 and [f.name for f in m.factors] == [
        "opened",
        "hongzhong_gang",
        "laizi_gang",
        "dealer",
    ]
