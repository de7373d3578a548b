"""Baishan's hand rules (RULES.md Part B): winning shapes, 报听 waits, kongs, ranks, settings."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from laizi.rules import PRESETS, RANKS, SettingsError, make_ruleset, preset, rank_for
from laizi.rules.baishan import (
    declarable_discards,
    evaluate,
    kong_payments,
    may_declare_ready,
    winning_tiles,
)
from laizi.rules.melds import Meld
from laizi.tiles import count_vector, format_tile, parse_tiles


def counts(text: str) -> list[int]:
    return count_vector(parse_tiles(text))


def shapes(text: str, melds=()) -> list[str]:
    return sorted({r.shape for r in evaluate(counts(text), melds).readings})


def waits(text: str, melds=()) -> list[str]:
    return [format_tile(t) for t in winning_tiles(counts(text), melds)]


# --- what wins ------------------------------------------------------------------------------


def test_pinghu_pair_four_melds_with_a_triplet():
    assert shapes("111m234p567p789s55z") == ["pinghu"]


def test_piaohu_all_triplets():
    assert shapes("111m222p777s999s55z") == ["piaohu"]


def test_piaohu_with_table_pungs_and_kongs():
    melds = (Meld("pung", (0, 0, 0), 1), Meld("concealed_kong", (9,) * 4))
    assert shapes("777s999s55z", melds) == ["piaohu"]


def test_a_chow_on_the_table_is_no_piaohu():
    melds = (Meld("chow", (0, 1, 2), 3),)
    assert shapes("777s999s111p55z", melds) == ["pinghu"]


def test_seven_pairs_and_thirteen_orphans_need_no_triplet():
    assert shapes("1133m5577p99s1144z") == ["qidui"]
    assert shapes("119m19p19s1234567z") == ["shisanyao"]


def test_four_of_a_kind_counts_as_two_pairs():
    assert "qidui" in shapes("1111m5577p99s1144z")


def test_no_terminal_or_honor_anywhere():
    assert evaluate(counts("234m345p555s678s22p"), ()).reason == "no_terminal"
    # a terminal in a meld on the table is enough
    melds = (Meld("chow", (18, 19, 20), 3),)
    assert evaluate(counts("345p555s678s22p"), melds).allowed


def test_no_triplet_even_with_a_dragon_pair():
    assert evaluate(counts("123m456p789s234s55z"), ()).reason == "no_triplet"


def test_not_complete():
    assert evaluate(counts("123m456p789s234s56z"), ()).reason == "not_complete"


def test_winning_tiles_apply_the_requirements():
    # 78p waits on 6p or 9p; with no other terminal only 9p wins (不断幺九)
    assert waits("234m456p555s66s78p") == ["9p"]
    # a two-sided wait with a terminal elsewhere wins on both
    assert waits("111m234p567p78s55z") == ["6s", "9s"]


# --- 报听 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "wait"),
    [
        ("111m234p567p79s55z", ["8s"]),  # 夹 closed wait
        ("111m234p567p12s55z", ["3s"]),  # 边 edge wait on 3
        ("111m234p567p89s55z", ["7s"]),  # 边 edge wait on 7
        ("111m234p567p789s5z", ["5z"]),  # 单调 pair wait
        ("11m99p234p567p555s", ["1m", "9p"]),  # only terminals win
        ("234m456p555s66s78p", ["9p"]),  # 断幺: only the terminal side wins
    ],
)
def test_declare_ready_on_the_single_waits(hand, wait):
    assert waits(hand) == wait
    assert may_declare_ready(winning_tiles(counts(hand), ()))


@pytest.mark.parametrize(
    "hand", ["111m234p567p78s55z", "111m234p567p23s55z", "111m234p567p789s12z"]
)
def test_no_declaring_on_a_wider_or_no_wait(hand):
    assert not may_declare_ready(winning_tiles(counts(hand), ()))


def test_declarable_discards_name_the_tiles_that_leave_a_single_wait():
    assert [format_tile(t) for t in declarable_discards(counts("111m234p567p79s55z1z"), ())] == [
        "1z"
    ]
    # discarding 1z leaves a two-sided wait; any other discard leaves no wait at all
    assert declarable_discards(counts("111m234p567p78s55z1z"), ()) == []
    # seven pairs: a single pair wait after discarding either odd tile
    assert [format_tile(t) for t in declarable_discards(counts("1133m5577p99s114z6z"), ())] == [
        "4z",
        "6z",
    ]


# --- kongs ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("dealer", "seat", "kind", "tile", "expected"),
    [
        (0, 1, "exposed_kong", "5p", [-2, 4, -1, -1]),  # the dealer pays ×2
        (0, 0, "exposed_kong", "5p", [6, -2, -2, -2]),  # the dealer's kong: ×2 from all
        (0, 1, "concealed_kong", "5p", [-4, 8, -2, -2]),  # concealed: 2 units
        (0, 1, "added_kong", "5p", [-2, 4, -1, -1]),  # an added kong is exposed
        (0, 1, "exposed_kong", "1m", [-4, 8, -2, -2]),  # 大杠 1m ×2
        (0, 1, "concealed_kong", "1p", [-8, 16, -4, -4]),  # 大杠 1p, concealed
        (2, 2, "concealed_kong", "1s", [-8, -8, 24, -8]),  # dealer's concealed 大杠
        (0, 1, "exposed_kong", "9m", [-2, 4, -1, -1]),  # 9m is no 大杠
    ],
)
def test_kong_payments_on_the_spot(dealer, seat, kind, tile, expected):
    tile_id = parse_tiles(tile)[0]
    assert list(kong_payments(Fraction(1), dealer, seat, kind, tile_id)) == expected


def test_kong_payments_scale_with_the_room_base():
    assert list(kong_payments(Fraction(5), 0, 1, "exposed_kong", 4)) == [-10, 20, -5, -5]


# --- dealer, escape, ranks, settings ---------------------------------------------------------


def test_dealer_stays_on_a_dealer_win_or_a_drawn_hand_else_passes_on():
    rules = make_ruleset(preset("baishan"))
    assert rules.next_dealer(2, 2) == 2
    assert rules.next_dealer(2, None) == 2
    assert rules.next_dealer(2, 0) == 3
    assert rules.next_dealer(3, 1) == 0


def test_escape_is_64_units_split_among_the_others():
    rules = make_ruleset(preset("baishan"))
    assert list(rules.escape_payments(1)) == [
        Fraction(64, 3),
        -64,
        Fraction(64, 3),
        Fraction(64, 3),
    ]
    based = make_ruleset(preset("baishan").with_overrides({"base": 3}))
    assert list(based.escape_payments(0)) == [-192, 64, 64, 64]


def test_one_winner_per_discard_first_after_the_discarder():
    assert tuple(make_ruleset("baishan").win_order(dealer=0, discarder=2)) == (3, 0, 1)


@pytest.mark.parametrize(
    ("points", "zh", "en"),
    [
        (0, "白板", "White Dragon"),
        (99, "白板", "White Dragon"),
        (100, "一万", "1 Character"),
        (499, "二万", "2 Characters"),
        (50000, "九万", "9 Characters"),
        (80000, "东风", "East Wind"),
        (100000, "西风", "West Wind"),
        (200000, "南风", "South Wind"),
        (500000, "北风", "North Wind"),
        (800000, "红中", "Red Dragon"),
        (1199999, "红中", "Red Dragon"),
        (1200000, "发财", "Green Dragon"),
        (2000000, "雀神", "Mahjong God"),
        (10**9, "雀神", "Mahjong God"),
        (-50, "白板", "White Dragon"),
    ],
)
def test_rank_ladder(points, zh, en):
    rank = rank_for(points)
    assert (rank.zh, rank.en) == (zh, en)


def test_the_ladder_has_seventeen_ranks_climbing():
    assert len(RANKS) == 17
    assert [r.points for r in RANKS] == sorted(r.points for r in RANKS)


def test_baishan_preset():
    s = PRESETS["baishan"]
    assert (s.game, s.cap, s.escape_penalty, s.base, s.win_priority) == (
        "baishan",
        64,
        64,
        1,
        "from_discarder",
    )
    assert s.to_json() == {
        "preset": "baishan",
        "game": "baishan",
        "win_priority": "from_discarder",
        "cap": 64,
        "escape_penalty": 64,
        "base": 1,
    }


def test_baishan_room_overrides():
    s = preset("baishan").with_overrides({"base": 2, "cap": 128, "escape_penalty": 32})
    assert (s.base, s.cap, s.escape_penalty) == (2, 128, 32)
    with pytest.raises(SettingsError) as error:
        preset("baishan").with_overrides({"laizi_gang_factor": 4})
    assert error.value.key == "laizi_gang_factor"
    with pytest.raises(SettingsError):
        preset("wuhan-hongzhong-kaikou").with_overrides({"variant": "none"})


def _brute_declarable(hand: list[int]) -> list[int]:
    found = []
    for t in range(34):
        if hand[t]:
            hand[t] -= 1
            if may_declare_ready(winning_tiles(hand, ())):
                found.append(t)
            hand[t] += 1
    return found


@settings(max_examples=300, deadline=None)
@given(
    melds=st.lists(st.integers(0, 33 + 21), min_size=4, max_size=4),
    pair=st.integers(0, 33),
    swaps=st.lists(st.tuples(st.integers(0, 13), st.integers(0, 33)), max_size=2),
)
def test_declarable_discards_skip_nothing_the_full_test_would_find(melds, pair, swaps):
    """The cheap filters (isolated tiles, shanten) never hide a declarable discard."""
    tiles = [pair, pair]
    for m in melds:  # 0–33 a triplet, 34+ a sequence
        if m < 34:
            tiles += [m] * 3
        else:
            low = (m - 34) // 7 * 9 + (m - 34) % 7
            tiles += [low, low + 1, low + 2]
    for index, tile in swaps:
        tiles[index] = tile
    hand = [0] * 34
    for t in tiles:
        hand[t] += 1
    if max(hand) > 4:
        return
    assert declarable_discards(hand, ()) == _brute_declarable(hand)
