"""laizi.hand against worked examples and against the independent checker in reference.py."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi import _tablegen, hand
from laizi.tiles import count_vector, format_tiles, parse_tile, parse_tiles
from tests.reference import PAIR_258, ref_complete, ref_shanten, ref_waits


def c(text: str) -> list[int]:
    return count_vector(parse_tiles(text))


def tile(text: str) -> int:
    return parse_tile(text)


# --- complete / hard -------------------------------------------------------------------------


def test_plain_complete_hand():
    h = c("234m456p789s22555s")
    assert hand.complete(h) and hand.hard(h)
    assert hand.complete_258(h) and hand.hard_258(h)  # pair 22s


def test_pair_not_258():
    h = c("234m456p789s33555s")
    assert hand.complete(h) and not hand.complete_258(h)


def test_laizi_stands_for_a_missing_tile_soft_not_hard():
    h = c("234m456p789s2255s7z")  # 7z is the laizi and completes 55s+? -> 555s
    assert hand.complete(h, tile("7z"))
    assert not hand.hard(h, tile("7z"))


def test_laizi_standing_for_itself_is_hard():
    h = c("234m456p789s22s666z")
    assert hand.complete(h, tile("6z")) and hand.hard(h, tile("6z"))


def test_two_laizi_form_the_pair_even_for_258():
    h = c("234m456p789s555s77z")
    assert hand.complete_258(h, tile("7z"))
    assert not hand.complete_258(h)  # without wildcards 77z is an honor pair


def test_laizi_may_be_a_fifth_copy():
    h = c(
        "1111m234p567s789s1z"
    )  # 1z laizi: 111m + 1m(5th, laizi) ... 11m pair + 11m? no: 111m + 1m1z pair
    assert hand.complete(h, tile("1z"))


def test_a_3n_plus_1_hand_is_never_complete():
    assert not hand.complete(c("234m456p789s2255s"))


def test_four_laizi_alone_are_complete_with_one_more_tile():
    assert hand.complete(c("6666m9p"), tile("6m"))


@pytest.mark.parametrize(
    "bad", [c("1m"[:0]) if False else [0] * 34, c("123m"), [5] + [0] * 33, [1] * 33]
)
def test_bad_sizes_are_rejected(bad):
    with pytest.raises(hand.HandSizeError):
        hand.complete(bad)


def test_fifth_copy_in_hand_is_named():
    with pytest.raises(hand.HandSizeError, match="5 copies of 1m"):
        hand.complete([5, 0] + [0] * 32)


# --- waits ------------------------------------------------------------------------------------


def test_nine_gates_waits_on_every_character():
    assert format_tiles(hand.waits(c("1112345678999m"))) == "123456789m"


def test_waits_with_a_laizi_include_the_laizi_kind():
    assert format_tiles(hand.waits(c("234m456p789s225s7z"), tile("7z"))) == "234567s7z"


def test_waits_258_needs_the_258_pair():
    # 234m 456p 789p + 1133s: waits on 1s or 3s, and neither pair is a 2/5/8
    assert format_tiles(hand.waits(c("234m456789p1133s"))) == "13s"
    assert hand.waits_258(c("234m456789p1133s")) == []
    assert format_tiles(hand.waits_258(c("234m456p789s2233s"))) == "3s"  # 22s pair, 333s


def test_a_kind_held_four_times_is_no_wait():
    assert hand.waits(c("1111m")) == [] or format_tiles(hand.waits(c("1111m"))) == "0"
    assert format_tiles(hand.waits(c("1112m"))) == "23m"


def test_laizi_held_four_times_is_no_wait():
    # four laizi: any tile completes (it pairs with a laizi) but a fifth laizi can't be drawn
    waits = hand.waits(c("6666m456p555s123s"), tile("6m"))
    assert tile("6m") not in waits
    assert len(waits) == 33


def test_a_complete_hand_has_no_wait_list():
    assert hand.waits(c("234m456p789s22555s")) == []


# --- shanten ----------------------------------------------------------------------------------


def test_shanten_levels():
    assert hand.shanten(c("234m456p789s22555s")) == -1
    assert hand.shanten(c("234m456p789s2255s")) == 0
    assert hand.shanten(c("19m19p19s1234567z")) == 8
    assert hand.shanten(c("19m19p19s1234567z"), tile("7z")) == 7


def test_shanten_counts_laizi_as_wildcards():
    assert hand.shanten(c("19m19p19s12345z77z"), tile("7z")) == 6


def test_shanten_ignores_copies_left():
    assert hand.waits(c("1111m")) == []
    assert hand.shanten(c("1111m")) == 0  # ready in shape on a fifth 1m


def test_single_tile_is_ready():
    assert hand.shanten(c("5z")) == 0
    assert hand.waits(c("5z")) == [tile("5z")]


# --- against the independent checker ----------------------------------------------------------

SIZES = (1, 2, 4, 5, 7, 8, 10, 11, 13, 14)


@st.composite
def hands(draw, sizes=SIZES, max_laizi=4):
    size = draw(st.sampled_from(sizes))
    laizi = draw(st.none() | st.integers(0, 33))
    wild = 0 if laizi is None else draw(st.integers(0, min(max_laizi, size)))
    counts = [0] * 34
    if laizi is not None:
        counts[laizi] = wild
    pool = [kind for kind in range(34) if kind != laizi for _ in range(4)]
    # bias toward connected, hand-like content: pick a few kinds and mostly draw near them
    chosen = draw(
        st.lists(
            st.sampled_from(range(len(pool))),
            min_size=size - wild,
            max_size=size - wild,
            unique=True,
        )
    )
    for index in chosen:
        counts[pool[index]] += 1
    return counts, laizi


@st.composite
def near_complete_hands(draw, max_laizi=4):
    """Complete hands built from melds, with a tile or two swapped: where the hard cases are."""
    melds = draw(st.integers(0, 4))
    laizi = draw(st.none() | st.integers(0, 33))
    counts = [0] * 34
    shapes = []
    for _ in range(melds):
        if draw(st.booleans()):
            start = draw(st.integers(0, 26).filter(lambda t: t % 9 <= 6))
            shapes.append([start, start + 1, start + 2])
        else:
            shapes.append([draw(st.integers(0, 33))] * 3)
    shapes.append([draw(st.integers(0, 33))] * 2)
    for shape in shapes:
        for kind in shape:
            counts[kind] += 1
    for _ in range(draw(st.integers(0, 2))):  # swap some tiles
        present = [kind for kind in range(34) if counts[kind]]
        counts[draw(st.sampled_from(present))] -= 1
        counts[draw(st.integers(0, 33))] += 1
    if draw(st.booleans()):  # make it a 3n+1 hand
        present = [kind for kind in range(34) if counts[kind]]
        counts[draw(st.sampled_from(present))] -= 1
    if max(counts) > 4 or (laizi is not None and counts[laizi] > max_laizi):
        from hypothesis import reject

        reject()
    return counts, laizi


ANY_HAND = hands() | near_complete_hands()
CHECKS = settings(
    max_examples=600,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)


@CHECKS
@given(ANY_HAND)
def test_complete_agrees_with_reference(case):
    counts, laizi = case
    assert hand.complete(counts, laizi) == ref_complete(counts, laizi)
    assert hand.complete_258(counts, laizi) == ref_complete(counts, laizi, PAIR_258)
    assert hand.hard(counts, laizi) == ref_complete(counts, None)
    assert hand.hard_258(counts, laizi) == ref_complete(counts, None, PAIR_258)


@CHECKS
@given(ANY_HAND)
def test_waits_agree_with_reference(case):
    counts, laizi = case
    assert hand.waits(counts, laizi) == ref_waits(counts, laizi)
    assert hand.waits_258(counts, laizi) == ref_waits(counts, laizi, PAIR_258)


@pytest.mark.slow  # the reference's shanten search takes about a minute for 300 hands
@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)
@given(ANY_HAND)
def test_shanten_agrees_with_reference(case):
    counts, laizi = case
    assert hand.shanten(counts, laizi) == ref_shanten(counts, laizi)


@CHECKS
@given(ANY_HAND)
def test_shanten_is_consistent_with_complete_and_waits(case):
    counts, laizi = case
    value = hand.shanten(counts, laizi)
    if sum(counts) % 3 == 2:
        assert (value == -1) == hand.complete(counts, laizi)
    else:
        assert value >= 0
        if hand.waits(counts, laizi):
            assert value == 0


# --- the tables -------------------------------------------------------------------------------


@pytest.mark.slow  # rebuilding the tables takes half a minute
def test_shipped_tables_are_what_the_generator_makes():
    assert _tablegen.build() == _tablegen.TABLE_PATH.read_bytes()


# --- Baishan's special shapes -----------------------------------------------------------------


def test_seven_pairs():
    assert hand.seven_pairs(c("1199m1199p11s1133z"))
    assert hand.seven_pairs(c("1111m99p11s113355z"))  # four of a kind is two pairs
    assert not hand.seven_pairs(c("1199m1199p11s1123z"))
    assert not hand.seven_pairs(c("1199m1199p11s113z"))  # 13 tiles


def test_thirteen_orphans():
    assert hand.thirteen_orphans(c("19m19p19s12345677z"))
    assert not hand.thirteen_orphans(c("19m19p18s12345677z"))
    assert not hand.thirteen_orphans(c("19m19p19s1234567z"))


def test_special_waits():
    assert format_tiles(hand.special_waits(c("19m19p19s1234567z"))) == "19m19p19s1234567z"
    assert format_tiles(hand.special_waits(c("19m19p19s1234566z"))) == "7z"
    assert format_tiles(hand.special_waits(c("1199m1199p11s113z"))) == "3z"
    assert hand.special_waits(c("1199m1199p11s1133z")) == []  # 14 tiles: no waits


def test_special_shapes_validate_the_hand():
    with pytest.raises(hand.HandSizeError):
        hand.seven_pairs([5] + [0] * 33)


# --- tile efficiency --------------------------------------------------------------------------


def _with(counts: list[int], kind: int, change: int) -> list[int]:
    out = list(counts)
    out[kind] += change
    return out


@CHECKS
@given(ANY_HAND)
def test_shanten_after_draw_and_discard_agree_with_shanten(case):
    counts, laizi = case
    if sum(counts) % 3 == 1:
        after = hand.shanten_after_draw(counts, laizi)
        expected = [
            hand.shanten(_with(counts, kind, +1), laizi) if counts[kind] < 4 else None
            for kind in range(34)
        ]
        now = hand.shanten(counts, laizi)
        useful = [k for k in range(34) if after[k] is not None and after[k] < now]
        assert hand.useful_draws(counts, laizi) == useful
    else:
        after = hand.shanten_after_discard(counts, laizi)
        expected = [
            hand.shanten(_with(counts, kind, -1), laizi) if counts[kind] else None
            for kind in range(34)
        ]
    assert after == expected


def test_useful_draws_example():
    # 1m 2m 4p 5p 7s 8s 9s 1z 1z 6z 7z + 23m... : a plain two-sided shape gains from its ends
    assert format_tiles(hand.useful_draws(c("23m456p789s11z567s"))) == "14m"


def test_laizi_draw_always_helps():
    after = hand.shanten_after_draw(c("19m19p19s1234567z"), tile("5m"))
    assert after[tile("5m")] == 7  # one wildcard more: 8 -> 7


def test_efficiency_questions_check_the_size():
    with pytest.raises(hand.HandSizeError, match=r"3n\+1"):
        hand.shanten_after_draw(c("11m"))
    with pytest.raises(hand.HandSizeError, match=r"3n\+2"):
        hand.shanten_after_discard(c("1m"))
