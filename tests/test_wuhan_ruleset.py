"""The Wuhan ruleset the engine asks (laizi.rules.wuhan.ruleset): special tiles, claims, dealer,
escape, the win check, waits and the live multiplier."""

from __future__ import annotations

from fractions import Fraction

from laizi.rules import Meld, make_ruleset, preset
from laizi.rules.wuhan import winning_tiles
from laizi.scoring import situation_from_json
from laizi.tiles import count_vector, parse_tile, parse_tiles
from tests.score_helpers import chow, no_min, player, situation


def test_claims_and_laying_out_by_variant() -> None:
    classic = make_ruleset(preset("wuhan-hongzhong-kaikou")).specials(parse_tile("5m"))
    assert parse_tile("6m") in classic.lay_out  # the laizi: laid out, never claimed
    assert parse_tile("7z") in classic.lay_out and parse_tile("7z") in classic.must_gang
    assert parse_tile("6z") not in classic.lay_out and parse_tile("6z") not in classic.must_gang
    assert parse_tile("1m") not in classic.lay_out
    facai = make_ruleset(preset("wuhan-facai-koukou")).specials(parse_tile("5m"))
    assert parse_tile("6z") in facai.must_gang and parse_tile("6z") in facai.lay_out


def test_room_level_answers() -> None:
    rules = make_ruleset(
        preset("wuhan-hongzhong-kaikou").with_overrides({"win_priority": "from_discarder"})
    )
    assert tuple(rules.win_order(dealer=0, discarder=2)) == (3, 0, 1)
    assert rules.next_dealer(0, 2) == 1
    assert rules.escape_payments(0)[0] == -400 and rules.escape_payments(0)[1] == Fraction(400, 3)


def test_win_check_multiplier_and_waits() -> None:
    rules = make_ruleset(preset("wuhan-hongzhong-kaikou"))
    data = situation(
        [player(), player(), player(), player("123m456m123p5p", chow("789p", 2))],
        rules=no_min(),
        src=1,
        tile="5p",
    )
    assert rules.score(situation_from_json(data)).allowed
    special = rules.specials(parse_tile("3z"))
    melds = (Meld("chow", tuple(parse_tiles("789p")), 2),)
    assert winning_tiles(count_vector(parse_tiles("123m456m123p5p")), melds, special) == (
        parse_tiles("5p4z")
    )
    m = rules.seat_multiplier(special, melds, parse_tiles("7z4z"), True)
    assert m is not None
    assert m.total == 16 and [f.name for f in m.factors] == [
        "opened",
        "hongzhong_gang",
        "laizi_gang",
        "dealer",
    ]
