"""Win evaluation over count vectors: shapes, big wins, hard/soft, refusals (RULES.md A3–A6)."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from laizi.hand import complete, complete_258
from laizi.rules.melds import Meld
from laizi.rules.wuhan import Reading, evaluate, is_ready, special_tiles, winning_tiles
from laizi.rules.wuhan.readings import _decomposable
from laizi.tiles import count_vector, parse_tile, parse_tiles

# Indicator 4s: laizi 5s; in qipi_silai the pi are 4s and 3s.  OTHER: laizi 6m (not a 2/5/8).
CLASSIC = special_tiles("hongzhong", parse_tile("4s"))
QIPI = special_tiles("qipi_silai", parse_tile("4s"))
OTHER = special_tiles("hongzhong", parse_tile("5m"))


def m(kind: str, tiles: str, src: int | None = 1) -> Meld:
    return Meld(kind, tuple(parse_tiles(tiles)), None if kind == "concealed_kong" else src)


def ev(hand: str, *melds: Meld, special=CLASSIC, win: str = "discard", **flags: bool):
    return evaluate(count_vector(parse_tiles(hand), limit=None), melds, special, win=win, **flags)


def readings(hand: str, *melds: Meld, **kw) -> set[tuple[tuple[str, ...], bool]]:
    return {(r.wins, r.hard) for r in ev(hand, *melds, **kw).readings}


CHOW = m("chow", "789p")


def test_small_win_needs_a_258_pair() -> None:
    assert readings("123m456m123p55p", CHOW) == {(("small",), True)}
    assert ev("123m456m123p44p", CHOW).reason == "not_complete"


def test_laizi_as_wildcard_is_soft_and_as_itself_hard() -> None:
    # 5s completes 456s as itself: the hard reading (a soft one exists too, worth less).
    assert readings("123m456s123p55p", CHOW) == {(("small",), True), (("small",), False)}
    # Here 5s can only stand for 3p: soft only.
    assert readings("123m456m12p5s55p", CHOW) == {(("small",), False)}


def test_laizi_may_stand_for_a_fifth_copy() -> None:
    # Four 5p in hand plus a laizi as a fifth 5p: 555p + 55p.
    assert readings("123m789m5555p5s", CHOW) == {(("small",), False)}


def test_two_laizi_may_form_the_pair_and_a_laizi_pairs_a_258() -> None:
    assert readings("123m789m123p5p5s", CHOW) == {(("small",), False)}
    # two laizi as the pair make a hand, but only a small one: refused for the two laizi
    assert ev("123m789m123p5s5s", CHOW).reason == "two_laizi"


def test_two_laizi_forbid_the_small_win_but_not_a_big_one() -> None:
    assert ev("123m789m123p5s5s", CHOW).reason == "two_laizi"
    big = readings("111m999m5s5s", m("pung", "777p"), m("pung", "333p"))
    assert (("pengpenghu",), True) in big and all(w != ("small",) for w, _ in big)


def test_laizi_never_stands_for_a_must_gang_tile() -> None:
    # qipi_silai, indicator 4s: pi 4s and 3s.  1s2s + laizi needs a 3s: not complete.
    assert ev("12s5s123m789m88p", CHOW, special=QIPI).reason == "not_complete"
    # the same hand in the classic variant: the laizi stands for 3s.
    assert readings("12s5s123m789m88p", CHOW) == {(("small",), False)}


def test_holding_a_must_gang_tile_refuses_every_win() -> None:
    assert ev("123m456m12p7z55p", CHOW, win="self_draw").reason == "holds_special"
    assert ev("123m789m12p3s55p", CHOW, special=QIPI).reason == "holds_special"
    assert ev("123m789m123p55p", CHOW, special=QIPI).allowed


def test_never_opened_cannot_win() -> None:
    assert ev("123m456m789m123p55p").reason == "not_opened"
    assert ev("123m456m123p55p", m("concealed_kong", "9999p")).reason == "not_opened"


def test_pengpenghu_any_pair() -> None:
    assert readings("111m999m333p44p", m("pung", "777p")) == {(("pengpenghu",), True)}
    assert ev("111m999m333p44p", m("chow", "789p")).reason == "not_complete"


def test_qingyise_any_pair() -> None:
    assert readings("123m456m789m11m", m("chow", "234m")) == {(("qingyise",), True)}


def test_qingyise_and_pengpenghu_add_up() -> None:
    got = readings("111m333m999m44m", m("pung", "777m"))
    assert (("pengpenghu", "qingyise"), True) in got


def test_fengyise_any_shape() -> None:
    # 乱风: 东南西北白发 in any shape.
    assert readings("1z2z3z4z5z6z1z2z3z4z6z", m("pung", "555z")) == {(("fengyise",), True)}


def test_fengyise_honor_laizi_is_hard_suit_laizi_soft() -> None:
    honor_laizi = special_tiles("hongzhong", parse_tile("3z"))  # laizi 北 4z
    got = readings("1z2z3z4z5z6z1z2z3z5z6z", m("pung", "555z"), special=honor_laizi)
    assert (("fengyise",), True) in got
    got = readings("1z2z3z5s5z6z1z2z3z5z6z", m("pung", "555z"))  # laizi 5s stands for an honor
    assert got == {(("fengyise",), False)}


def test_jiangyise_any_shape_and_non_258_laizi_is_soft() -> None:
    hand = "2m5m8m2p5p8p2s5s8s2s8s"
    assert readings(hand, m("pung", "222m"), special=OTHER) == {(("jiangyise",), True)}
    soft = "2m5m8m2p5p8p2s5s8s2s6m"
    assert readings(soft, m("pung", "222m"), special=OTHER) == {(("jiangyise",), False)}


def test_jiangyise_with_a_258_laizi_is_hard() -> None:
    got = readings("2m5m8m2p5p8p2s5s8s2s8s", m("pung", "222m"))  # laizi 5s is a 2/5/8
    assert (("jiangyise",), True) in got


def test_quanqiuren_needs_four_openings_a_258_pair_and_a_discard() -> None:
    melds = (m("chow", "123m"), m("chow", "456p"), m("pung", "999s"), m("chow", "789p"))
    assert readings("2s2s", *melds) == {(("quanqiuren",), True)}
    assert ev("4s4s", *melds).reason == "not_complete"
    # self-drawn it is a small win, not 全求人
    assert readings("2s2s", *melds, win="self_draw") == {(("small",), True)}
    # a concealed kong is not an opening: no 全求人
    no = (m("chow", "123m"), m("chow", "456p"), m("concealed_kong", "9999s"), m("chow", "789p"))
    assert readings("2s2s", *no) == {(("small",), True)}


def test_any_pair_big_win_frees_the_others() -> None:
    # 碰碰胡 + 全求人 with a 4s pair
    melds = (m("pung", "111m"), m("pung", "444p"), m("pung", "999s"), m("pung", "777p"))
    assert readings("4s4s", *melds) == {(("pengpenghu", "quanqiuren"), True)}


def test_haidilao_gangshanghua_qiangganghu_need_a_258_pair() -> None:
    hand = "123m456m123p55p"
    assert readings(hand, CHOW, win="self_draw", haidi=True) == {(("haidilao",), True)}
    assert readings(hand, CHOW, win="self_draw", after_kong=True) == {(("gangshanghua",), True)}
    assert readings(hand, CHOW, win="rob_kong") == {(("qiangganghu",), True)}
    assert ev("123m456m123p44p", CHOW, win="rob_kong").reason == "not_complete"
    assert readings("111m999m333p44p", m("pung", "777p"), win="rob_kong") == {
        (("pengpenghu", "qiangganghu"), True)
    }


def test_refusal_order_holds_special_before_not_opened() -> None:
    assert ev("123m456m789m7z55p").reason == "holds_special"


def test_winning_tiles_and_ready() -> None:
    hand = count_vector(parse_tiles("123m456m123p5p"))
    assert winning_tiles(hand, (CHOW,), CLASSIC) == parse_tiles("5p5s")
    assert is_ready(hand, (CHOW,), CLASSIC)
    assert not is_ready(count_vector(parse_tiles("123m456m124p5p")), (CHOW,), CLASSIC)
    # never opened: not ready; holding a must-gang tile: not ready
    assert not is_ready(count_vector(parse_tiles("123m456m789m123p5p")), (), CLASSIC)
    assert not is_ready(count_vector(parse_tiles("123m456m12p7z5p")), (CHOW,), CLASSIC)


def test_reading_base() -> None:
    assert Reading(("small",), True).base == 1
    assert Reading(("pengpenghu", "qingyise"), False).base == 20
    assert Reading(("pengpenghu", "qingyise", "quanqiuren"), False).base == 30


# -- the exact search against laizi.hand and a brute force ---------------------------------------
hand_sizes = st.sampled_from([2, 5, 8, 11, 14])


@st.composite
def hands_with_laizi(draw):
    size = draw(hand_sizes)
    tiles = draw(st.lists(st.integers(0, 33), min_size=size, max_size=size))
    counts = count_vector(tiles, limit=None)
    assume(max(counts) <= 4)
    laizi = draw(st.integers(0, 33))
    return counts, laizi


def _split(counts: list[int], laizi: int) -> tuple[tuple[int, ...], int]:
    return tuple(0 if k == laizi else c for k, c in enumerate(counts)), counts[laizi]


@settings(max_examples=400, deadline=None)
@given(hands_with_laizi())
def test_search_agrees_with_laizi_hand_when_nothing_is_forbidden(case) -> None:
    counts, laizi = case
    rest, wild = _split(counts, laizi)
    everything = (1 << 34) - 1
    two_five_eight = sum(1 << t for t in range(27) if t % 9 in (1, 4, 7))
    assert _decomposable(rest, wild, everything, everything, False) == complete(counts, laizi)
    assert _decomposable(rest, wild, everything, two_five_eight, False) == complete_258(
        counts, laizi
    )


def _triplets_brute(rest: tuple[int, ...], wild: int) -> bool:
    """Pair + triplets with wildcards standing for anything, by trying every pair."""
    for pair in range(34):
        for used in (2, 1, 0):  # real tiles of the pair
            if rest[pair] < used or wild < 2 - used:
                continue
            left = list(rest)
            left[pair] -= used
            need = sum((3 - c % 3) % 3 for c in left)
            spare = wild - (2 - used) - need
            if spare >= 0 and spare % 3 == 0:
                return True
    return not any(rest) and wild >= 2 and (wild - 2) % 3 == 0


@settings(max_examples=400, deadline=None)
@given(hands_with_laizi())
def test_triplets_only_search_agrees_with_a_brute_force(case) -> None:
    counts, laizi = case
    rest, wild = _split(counts, laizi)
    everything = (1 << 34) - 1
    assert _decomposable(rest, wild, everything, everything, True) == _triplets_brute(rest, wild)


@settings(max_examples=200, deadline=None)
@given(hands_with_laizi(), st.integers(0, 33))
def test_forbidding_kinds_never_adds_a_shape(case, indicator) -> None:
    counts, _ = case
    sp = special_tiles("qipi_silai", indicator)
    rest, wild = _split(counts, sp.laizi)
    assume(not any(rest[t] for t in sp.must_gang))
    everything = (1 << 34) - 1
    allowed = everything & ~sum(1 << t for t in sp.must_gang)
    if _decomposable(rest, wild, allowed, allowed, False):
        assert _decomposable(rest, wild, everything, everything, False)
    if wild == 0:  # without wildcards nothing is forbidden in effect
        assert _decomposable(rest, 0, allowed, allowed, False) == _decomposable(
            rest, 0, everything, everything, False
        )
