"""The matchmaking core (issue 26 items 1, 2, 7, 8): exact tables with a fixed seed and clock,
the anti-collusion rules, band widening, casual bots, the accept phase and its penalty, tiers,
counts, every coded error, and properties over random sequences of what players do."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from fractions import Fraction
from random import Random
from types import FrameType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi.rules import RANKS
from laizi.server.errors import CATALOGUE
from laizi.server.matchmaking import (
    TIERS,
    Bucket,
    Match,
    Matchmaker,
    MatchSettings,
    Person,
    RecentTables,
    Tick,
    allowed,
    tier_of,
)
from laizi.server.matchmaking import queue as queue_module
from laizi.server.protocol import ProtocolError

PRESET = "baishan"
OTHER = "wuhan-hongzhong-kaikou"
PHOENIX = RANKS[-3].points  # 红中


def person(i: int, rating: float = 0.0, **kw: Any) -> Person:
    return Person(f"p{i}", account=kw.pop("account", i), rating=rating, **kw)


def queue_all(mm: Matchmaker, people: Iterable[Person], now: float, kind: str = "ranked") -> None:
    for p in people:
        mm.enqueue(p, PRESET, kind, now)


def keys(match: Match) -> list[str | None]:
    return [None if p is None else p.key for p in match.seats]


def first_tick_with_a_match(mm: Matchmaker, start: int, stop: int) -> tuple[int, Tick]:
    for now in range(start, stop):
        tick = mm.tick(float(now), Random(0))
        if tick.matches:
            return now, tick
    raise AssertionError("no match")


# -- tiers ------------------------------------------------------------------------------------
def test_the_tiers_group_the_ladder_as_rules_part_b_says() -> None:
    assert [(t.zh, t.en) for t in TIERS] == [
        ("一般", "General"),
        ("上级", "Upper"),
        ("特上", "Expert"),
        ("凤凰", "Phoenix"),
    ]
    assert [(t.ranks[0].zh, t.ranks[-1].zh) for t in TIERS] == [
        ("白板", "三万"),
        ("四万", "七万"),
        ("八万", "北风"),
        ("红中", "雀神"),
    ]
    assert sum((t.ranks for t in TIERS), ()) == RANKS  # every rank in one tier, in order
    assert [tier_of(p).id for p in (-50, 999, 1000, 19_999, 20_000, 799_999, PHOENIX)] == [
        "general",
        "general",
        "upper",
        "upper",
        "expert",
        "expert",
        "phoenix",
    ]
    assert tier_of(Fraction(1999, 2)).id == "general"


def test_a_player_queues_in_their_tier_or_below() -> None:
    mm = Matchmaker(presets=[PRESET])
    phoenix = person(1, points=PHOENIX)
    assert mm.enqueue(phoenix, PRESET, "ranked", 0.0, tier="upper").bucket == Bucket(
        PRESET, "ranked", "upper"
    )
    assert mm.enqueue(person(2, points=PHOENIX), PRESET, "ranked", 0.0).bucket.tier == "phoenix"
    with pytest.raises(ProtocolError) as refused:
        mm.enqueue(person(3, points=0), PRESET, "ranked", 0.0, tier="expert")
    assert (refused.value.code, refused.value.params) == (
        "tier_too_high",
        {"tier": "expert", "own": "general"},
    )
    assert [t.id for t in allowed(PHOENIX)] == ["general", "upper", "expert", "phoenix"]
    assert [t.id for t in allowed(0)] == ["general"]
    assert mm.queued() == {"p1", "p2"}


# -- pairing ----------------------------------------------------------------------------------
def test_four_near_ratings_are_seated_at_random_reproducibly() -> None:
    mm = Matchmaker(presets=[PRESET])
    queue_all(mm, [person(i, r) for i, r in enumerate([0, 20, 0.5, 20.5, 1, 21, 1.5, 21.5])], 0.0)
    tick = mm.tick(1.0, Random(1))
    assert [keys(m) for m in tick.matches] == [
        ["p6", "p0", "p4", "p2"],
        ["p7", "p3", "p1", "p5"],
    ]
    assert [(m.id, m.band, m.formed, m.deadline, m.bots) for m in tick.matches] == [
        ("m1", 2.25, 1.0, 11.0, ()),
        ("m2", 2.25, 1.0, 11.0, ()),
    ]
    assert mm.counts() == {} and mm.matched() == {f"p{i}" for i in range(8)}
    # the same queue, the same seed: the same seats
    again = Matchmaker(presets=[PRESET])
    queue_all(again, [person(i, r) for i, r in enumerate([0, 20, 0.5, 20.5, 1, 21, 1.5, 21.5])], 0)
    assert [keys(m) for m in again.tick(1.0, Random(1)).matches] == [keys(m) for m in tick.matches]


def test_a_far_rating_is_seated_once_the_band_has_widened_to_reach_it() -> None:
    # band = 2 + 0.25 × wait: a spread of 10 needs 32 s of waiting
    mm = Matchmaker(presets=[PRESET])
    queue_all(mm, [person(0, 10.0)], 0.0)
    queue_all(mm, [person(i, 0.0) for i in (1, 2, 3)], 5.0)
    when, tick = first_tick_with_a_match(mm, 1, 60)
    assert when == 32
    assert sorted(p.key for p in tick.matches[0].people) == ["p0", "p1", "p2", "p3"]
    assert tick.matches[0].band == 10.0


def test_the_band_is_the_longest_waits() -> None:
    """Three who just came are seated with a far one who has waited long: the spread is within
    the band of the longest wait (p0: 40 s → 12), not of the newcomers (2)."""
    mm = Matchmaker(presets=[PRESET])
    queue_all(mm, [person(0, 30.0)], 0.0)
    queue_all(mm, [person(i, 19.0 + i) for i in (1, 2, 3)], 40.0)
    tick = mm.tick(40.0, Random(0))
    assert [sorted(p.key for p in m.people) for m in tick.matches] == [["p0", "p1", "p2", "p3"]]
    assert tick.matches[0].band == 12.0


def test_nearer_ratings_are_preferred() -> None:
    mm = Matchmaker(presets=[PRESET], settings=MatchSettings(band_start=50.0))
    queue_all(mm, [person(i, r) for i, r in enumerate([5.0, 4.0, 9.0, 6.0, 5.5, 0.0])], 0.0)
    (match,) = mm.tick(0.0, Random(0)).matches
    assert sorted(p.key for p in match.people) == ["p0", "p1", "p3", "p4"]
    assert mm.queued() == {"p2", "p5"}


def test_two_accounts_of_one_address_are_never_seated_together() -> None:
    mm = Matchmaker(presets=[PRESET])
    people = [
        person(i, i * 0.1, address="10.0.0.9" if i in (0, 2) else f"10.0.1.{i}") for i in range(5)
    ]
    queue_all(mm, people, 0.0)
    (match,) = mm.tick(1.0, Random(0)).matches
    assert sorted(p.key for p in match.people) == ["p0", "p1", "p3", "p4"]
    assert mm.queued() == {"p2"}
    # with the rule off they may
    off = Matchmaker(presets=[PRESET], settings=MatchSettings(shared_address_rule=False))
    queue_all(off, people, 0.0)
    (match,) = off.tick(1.0, Random(0)).matches
    assert sorted(p.key for p in match.people) == ["p0", "p1", "p2", "p3"]


def test_only_four_from_one_address_never_make_a_table() -> None:
    mm = Matchmaker(presets=[PRESET])
    queue_all(mm, [person(i, 0.0, address="1.2.3.4") for i in range(8)], 0.0)
    assert mm.tick(1000.0, Random(0)).matches == ()
    assert len(mm.queued()) == 8


@pytest.mark.parametrize(("together", "apart"), [(3, False), (4, True)])
def test_more_than_k_of_the_last_n_tables_together_keeps_two_apart(
    together: int, apart: bool
) -> None:
    history = RecentTables()
    for _ in range(together):
        history.add([0, 1, 90, 91])
    for _ in range(20 - together):
        history.add([1, 92, 93, 94])  # p1's other tables: p0 sits at `together` of p1's last 20
    mm = Matchmaker(presets=[PRESET], history=history)  # K = 3 of N = 20
    queue_all(mm, [person(i, i * 0.1) for i in range(5)], 0.0)
    (match,) = mm.tick(1.0, Random(0)).matches
    seated = sorted(p.key for p in match.people)
    assert seated == (["p0", "p2", "p3", "p4"] if apart else ["p0", "p1", "p2", "p3"])


def test_only_the_last_n_tables_of_either_count() -> None:
    history = RecentTables()
    for _ in range(4):
        history.add([0, 1])
    for _ in range(20):
        history.add([0, 5])  # none of p0's last 20 tables had p1 …

    def seated() -> list[str]:
        mm = Matchmaker(presets=[PRESET], history=history)
        queue_all(mm, [person(i, i * 0.1) for i in range(5)], 0.0)
        (match,) = mm.tick(1.0, Random(0)).matches
        return sorted(p.key for p in match.people)

    assert seated() == ["p0", "p2", "p3", "p4"]  # … but 4 of p1's (all it played)
    for _ in range(16):
        history.add([1, 6])
    assert seated() == ["p0", "p2", "p3", "p4"]  # still 4 of p1's last 20
    history.add([1, 6])
    assert seated() == ["p0", "p1", "p2", "p3"]  # 3 of p1's last 20: not more than K

    history = RecentTables()  # the other way round: 4 of p0's last 20, none of p1's
    for _ in range(4):
        history.add([0, 1])
    for _ in range(20):
        history.add([1, 5])
    assert seated() == ["p0", "p2", "p3", "p4"]


# -- casual -----------------------------------------------------------------------------------
def test_casual_tables_fill_with_bots_after_the_wait() -> None:
    mm = Matchmaker(presets=[PRESET])
    guest = Person("g1")  # a guest may play casual
    mm.enqueue(guest, PRESET, "casual", 0.0)
    mm.enqueue(person(2, 40.0), PRESET, "casual", 5.0)
    assert mm.tick(19.5, Random(3)).matches == ()
    (match,) = mm.tick(20.0, Random(3)).matches
    assert keys(match) == [None, "g1", None, "p2"]
    assert (match.bots, match.band, match.bucket) == (
        (0, 2),
        None,
        Bucket(PRESET, "casual", "general"),
    )
    assert mm.accept("g1", match.id, 21.0) is None
    assert mm.accept("p2", match.id, 21.0) == match


def test_four_casual_people_start_at_once_in_order_of_wait() -> None:
    mm = Matchmaker(presets=[PRESET])
    for i in range(6):
        mm.enqueue(Person(f"g{i}"), PRESET, "casual", float(i))
    (match,) = mm.tick(6.0, Random(0)).matches
    assert sorted(p.key for p in match.people) == ["g0", "g1", "g2", "g3"] and match.bots == ()
    assert mm.statuses(6.0)["g5"][:2] == (2, 1.0)


# -- the accept phase -------------------------------------------------------------------------
def formed(mm: Matchmaker, now: float = 1.0) -> Match:
    queue_all(mm, [person(i, 0.0) for i in range(4)], 0.0)
    (match,) = mm.tick(now, Random(0)).matches
    return match


def test_all_accept_and_the_match_is_confirmed() -> None:
    mm = Matchmaker(presets=[PRESET])
    match = formed(mm)
    assert [mm.accept(f"p{i}", "m1", 10.9) for i in range(3)] == [None, None, None]
    assert mm.accept("p3", "m1", 10.9) == match
    assert mm.matched() == set() and mm.queued() == set() and mm.match_of("p0") is None
    with pytest.raises(ProtocolError) as gone:
        mm.accept("p0", "m1", 11.0)
    assert gone.value.code == "match_gone"


def test_a_no_show_goes_to_the_end_the_others_keep_their_place() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)
    mm.enqueue(person(9, 50.0), PRESET, "ranked", 3.0)  # came later, too far to play
    for i in range(3):
        mm.accept(f"p{i}", "m1", 5.0)
    assert mm.tick(10.9, Random(0)).lapsed == ()
    tick = mm.tick(11.0, Random(0))
    (lapsed,) = tick.lapsed
    assert (lapsed.kept, lapsed.requeued, lapsed.barred, lapsed.left) == (
        ("p0", "p1", "p2"),
        ("p3",),
        (),
        (),
    )
    # the same four are matched again in that tick (p3 came back last)
    assert [m.id for m in tick.matches] == ["m2"]
    assert mm.queued() == {"p9"}


def test_places_after_a_lapse() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)
    mm.enqueue(person(9, 50.0), PRESET, "ranked", 3.0)
    for i in range(3):
        mm.accept(f"p{i}", "m1", 5.0)
    mm.enqueue(person(8, 50.0), PRESET, "ranked", 6.0)
    # seat nobody at the lapse: a band too narrow for anyone once they are back
    mm.settings = MatchSettings(band_start=0.0, band_per_s=0.0, band_max=0.0)
    mm.dequeue("p1")  # p1 had accepted: leaving now is a decline (lapses at once)
    tick = mm.tick(7.0, Random(0))
    (lapsed,) = tick.lapsed
    assert (lapsed.kept, lapsed.requeued, lapsed.left) == (("p0", "p2"), ("p3",), ("p1",))
    positions = {k: (s.position, s.waiting) for k, s in mm.statuses(7.0).items()}
    assert positions == {
        "p0": (1, 7.0),
        "p2": (2, 7.0),
        "p9": (3, 4.0),
        "p8": (4, 1.0),
        "p3": (5, 0.0),
    }
    assert mm.status("p3", 7.0) == mm.statuses(7.0)["p3"]


def test_two_no_shows_in_ten_minutes_cost_five_minutes_out() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)
    for i in range(3):
        mm.accept(f"p{i}", "m1", 2.0)
    tick = mm.tick(11.0, Random(0))  # p3's first no-show; the four are matched again (m2)
    assert tick.lapsed[0].requeued == ("p3",) and [m.id for m in tick.matches] == ["m2"]
    for i in range(3):
        mm.accept(f"p{i}", "m2", 12.0)
    tick = mm.tick(21.0, Random(0))  # the second, 10 s later
    assert tick.lapsed[0].barred == (("p3", 321.0),)
    assert mm.queued() == {"p0", "p1", "p2"} and mm.barred_until("p3", 21.0) == 321.0
    with pytest.raises(ProtocolError) as barred:
        mm.enqueue(person(3), PRESET, "ranked", 320.5)
    assert (barred.value.code, barred.value.params) == ("queue_cooldown", {"seconds": 1})
    assert "p3" not in mm.queued()
    mm.enqueue(person(3), PRESET, "ranked", 321.0)
    assert mm.barred_until("p3", 321.0) is None and "p3" in mm.queued()


def test_no_shows_ten_minutes_apart_cost_nothing() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)
    for i in range(3):
        mm.accept(f"p{i}", "m1", 2.0)
    assert mm.tick(11.0, Random(0)).lapsed[0].requeued == ("p3",)
    for i in range(4):
        mm.accept(f"p{i}", "m2", 12.0)  # m2 confirmed; p3 queues again later
    mm.enqueue(person(3), PRESET, "ranked", 600.0)
    queue_all(mm, [person(i) for i in range(3)], 600.0)
    (match,) = mm.tick(601.0, Random(0)).matches
    tick = mm.tick(611.0, Random(0))  # p3's second no-show, 600 s after the first
    assert match.id == "m3" and tick.lapsed[0].match == match
    assert sorted(tick.lapsed[0].requeued) == ["p0", "p1", "p2", "p3"]
    assert tick.lapsed[0].barred == ()


def test_a_decline_lapses_the_match_at_the_next_tick() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)
    mm.accept("p0", "m1", 2.0)
    assert mm.dequeue("p2") is True
    with pytest.raises(ProtocolError) as gone:
        mm.accept("p1", "m1", 2.5)  # a declined match can't be accepted any more
    assert gone.value.code == "match_gone"
    mm.settings = MatchSettings(band_start=0.0, band_per_s=0.0, band_max=0.0)
    (lapsed,) = mm.tick(3.0, Random(0)).lapsed
    assert (lapsed.kept, lapsed.requeued, lapsed.left) == (("p0",), ("p1", "p3"), ("p2",))
    assert mm.queued() == {"p0", "p1", "p3"} and mm.dequeue("p2") is False


# -- disconnects, second tabs, seats ----------------------------------------------------------
def test_a_disconnected_person_keeps_their_place_for_the_grace_and_is_not_matched() -> None:
    mm = Matchmaker(presets=[PRESET])
    queue_all(mm, [person(i) for i in range(4)], 0.0)
    mm.disconnect("p1", 5.0)
    assert mm.tick(34.9, Random(0)) == Tick((), (), ())
    assert mm.status("p1", 34.9) is not None
    assert mm.tick(35.0, Random(0)).dropped == ("p1",)
    assert mm.queued() == {"p0", "p2", "p3"}
    mm.disconnect("p2", 40.0)
    mm.reconnect("p2")
    mm.enqueue(person(5), PRESET, "ranked", 41.0)
    (match,) = mm.tick(100.0, Random(0)).matches
    assert sorted(p.key for p in match.people) == ["p0", "p2", "p3", "p5"]


def test_a_queued_person_found_at_a_table_leaves_the_queue_unmatched() -> None:
    seated: set[str] = set()
    mm = Matchmaker(presets=[PRESET], at_table=seated.__contains__)
    queue_all(mm, [person(i) for i in range(5)], 0.0)
    seated.add("p0")  # joined a room by link while queued (the server forgot to unqueue)
    tick = mm.tick(1.0, Random(0))
    assert tick.dropped == ("p0",)
    assert [sorted(p.key for p in m.people) for m in tick.matches] == [["p1", "p2", "p3", "p4"]]
    assert mm.queued() == set() and mm.status("p0", 1.0) is None


def test_queueing_again_replaces_the_queue_and_the_same_queue_keeps_the_wait() -> None:
    mm = Matchmaker(presets=[PRESET, OTHER])
    mm.enqueue(person(1), PRESET, "ranked", 0.0)
    mm.enqueue(person(2), PRESET, "ranked", 1.0)
    assert mm.enqueue(person(1), PRESET, "ranked", 5.0)[:2] == (1, 5.0)  # a second tab
    assert mm.enqueue(person(1), OTHER, "casual", 6.0)[:2] == (1, 0.0)  # another queue
    assert mm.counts() == {
        Bucket(PRESET, "ranked", "general"): 1,
        Bucket(OTHER, "casual", "general"): 1,
    }
    assert mm.dequeue("p1") is True and mm.dequeue("p1") is False
    assert mm.counts() == {Bucket(PRESET, "ranked", "general"): 1}


def test_counts_per_preset_kind_and_tier() -> None:
    mm = Matchmaker(presets=[PRESET, OTHER])
    mm.enqueue(person(1, points=PHOENIX), PRESET, "ranked", 0.0)
    mm.enqueue(person(2, points=PHOENIX), PRESET, "ranked", 0.0, tier="general")
    mm.enqueue(person(3, points=2000), PRESET, "ranked", 0.0)
    mm.enqueue(person(4), OTHER, "ranked", 0.0)
    mm.enqueue(Person("g"), OTHER, "casual", 0.0)
    mm.enqueue(Person("h"), OTHER, "casual", 0.0)
    assert mm.counts() == {
        Bucket(PRESET, "ranked", "general"): 1,
        Bucket(PRESET, "ranked", "phoenix"): 1,
        Bucket(PRESET, "ranked", "upper"): 1,
        Bucket(OTHER, "casual", "general"): 2,
        Bucket(OTHER, "ranked", "general"): 1,
    }


def test_the_estimate_follows_the_recent_waits() -> None:
    mm = Matchmaker(presets=[PRESET])
    assert mm.enqueue(person(9, 90.0), PRESET, "ranked", 0.0) == (
        1,
        0.0,
        30.0,
        Bucket(PRESET, "ranked", "general"),
    )
    queue_all(mm, [person(i, 0.0) for i in range(4)], 0.0)
    mm.tick(12.0, Random(0))  # four seated after 12 s
    assert mm.status("p9", 14.0) == (1, 14.0, 0.0, Bucket(PRESET, "ranked", "general"))
    mm.enqueue(person(8), PRESET, "ranked", 14.0)
    assert mm.status("p8", 15.0) == (2, 1.0, 11.0, Bucket(PRESET, "ranked", "general"))
    assert mm.enqueue(Person("g"), PRESET, "casual", 15.0).estimate_s == 20.0


# -- refusals ---------------------------------------------------------------------------------
REFUSALS: list[tuple[str, dict[str, Any]]] = [
    ("bad_kind", {"kind": "rated"}),
    ("bad_preset", {"preset": "mahjong-soul"}),
    ("account_required", {}),
    ("bad_tier", {"tier": "diamond"}),
    ("tier_too_high", {"tier": "phoenix", "own": "general"}),
    ("at_table", {}),
    ("in_match", {"match": "m3"}),
    ("queue_cooldown", {"seconds": 300}),
    ("match_gone", {"match": "m7"}),
]


@pytest.mark.parametrize(("code", "params"), REFUSALS, ids=[c for c, _ in REFUSALS])
def test_every_refusal_is_a_coded_error_in_both_languages_and_changes_nothing(
    code: str, params: dict[str, Any]
) -> None:
    mm = Matchmaker(presets=[PRESET], at_table=lambda key: key == "seated")
    match = formed(mm)  # p0..p3 await their accept
    for i in range(3):
        mm.accept(f"p{i}", match.id, 2.0)
    mm.tick(11.0, Random(0))  # p3 no-shows once
    for i in range(3):
        mm.accept(f"p{i}", "m2", 12.0)
    mm.tick(21.0, Random(0))  # twice: out until 321
    mm.enqueue(person(5), PRESET, "ranked", 21.0)
    assert [m.id for m in mm.tick(21.0, Random(0)).matches] == ["m3"]  # p0..p2 and p5
    mm.enqueue(person(6), PRESET, "ranked", 21.0)
    before = (mm.queued(), mm.matched(), mm.counts(), mm.statuses(21.0))
    attempts = {
        "bad_kind": lambda: mm.enqueue(person(7), PRESET, "rated", 21.0),
        "bad_preset": lambda: mm.enqueue(person(7), "mahjong-soul", "ranked", 21.0),
        "account_required": lambda: mm.enqueue(Person("guest"), PRESET, "ranked", 21.0),
        "bad_tier": lambda: mm.enqueue(person(7), PRESET, "ranked", 21.0, tier="diamond"),
        "tier_too_high": lambda: mm.enqueue(person(7), PRESET, "casual", 21.0, tier="phoenix"),
        "at_table": lambda: mm.enqueue(Person("seated", account=70), PRESET, "ranked", 21.0),
        "in_match": lambda: mm.enqueue(person(0), PRESET, "casual", 21.0),
        "queue_cooldown": lambda: mm.enqueue(person(3), PRESET, "casual", 21.0),
        "match_gone": lambda: mm.accept("p6", "m7", 21.0),
    }
    with pytest.raises(ProtocolError) as refused:
        attempts[code]()
    error = refused.value
    assert (error.code, error.params) == (code, params)
    assert code in CATALOGUE and error.message and error.message_zh
    assert error.to_message()["message_zh"] == error.message_zh
    assert (mm.queued(), mm.matched(), mm.counts(), mm.statuses(21.0)) == before


def test_a_guest_may_queue_casual_but_not_ranked() -> None:
    mm = Matchmaker(presets=[PRESET])
    with pytest.raises(ProtocolError, match="account_required"):
        mm.enqueue(Person("guest"), PRESET, "ranked", 0.0)
    assert mm.enqueue(Person("guest"), PRESET, "casual", 0.0).position == 1


def test_the_default_presets_are_the_registrys() -> None:
    from laizi.rules import PRESETS

    assert Matchmaker().presets == frozenset(PRESETS)


@pytest.mark.parametrize(
    "bad",
    [{"accept_s": 0}, {"band_max": 1.0}, {"together_n": 0}, {"casual_wait_s": -1}, {"tiers": ()}],
)
def test_settings_are_checked(bad: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        MatchSettings(**bad)


def test_an_accept_at_the_deadline_or_for_another_match_is_refused() -> None:
    mm = Matchmaker(presets=[PRESET])
    formed(mm)  # m1, deadline 11
    queue_all(mm, [person(i, 0.0) for i in range(4, 8)], 1.0)
    mm.tick(2.0, Random(0))  # m2: p4..p7
    for key, match_id, now in (("p0", "m1", 11.0), ("p0", "m2", 5.0), ("p9", "m1", 5.0)):
        with pytest.raises(ProtocolError) as gone:
            mm.accept(key, match_id, now)
        assert (gone.value.code, gone.value.params) == ("match_gone", {"match": match_id})
    assert mm.matched() == {f"p{i}" for i in range(8)}


# -- properties -------------------------------------------------------------------------------
ADDRESSES = ("10.0.0.1", "10.0.0.2", "10.0.0.3", None)
POINTS = (0, 0, 1000, PHOENIX)

people_st = st.lists(
    st.tuples(
        st.integers(0, 16).map(lambda r: r / 2),
        st.sampled_from(POINTS),
        st.sampled_from(ADDRESSES),
        st.integers(0, 5).map(bool),  # about one in six a guest
    ),
    min_size=12,
    max_size=12,
)
enqueue_st = st.tuples(
    st.just("enqueue"),
    st.integers(0, 11),
    st.sampled_from([PRESET, PRESET, PRESET, OTHER, "nope"]),
    st.sampled_from(["ranked", "ranked", "ranked", "casual", "rated"]),
    st.sampled_from([None, None, None, None, "general", "upper", "phoenix", "x"]),
)
ops_st = st.lists(
    st.one_of(
        enqueue_st,
        enqueue_st,
        enqueue_st,
        st.tuples(st.just("dequeue"), st.integers(0, 11)),
        st.tuples(st.just("accept"), st.integers(0, 11), st.integers(0, 5).map(bool)),
        st.tuples(st.just("accept"), st.integers(0, 11), st.just(True)),
        st.tuples(st.just("disconnect"), st.integers(0, 11)),
        st.tuples(st.just("reconnect"), st.integers(0, 11)),
        st.tuples(st.just("sit"), st.integers(0, 11), st.booleans()),
        st.tuples(st.just("tick"), st.sampled_from([0.0, 1.0, 3.0, 9.5, 10.0, 25.0, 320.0])),
    ),
    min_size=20,
    max_size=120,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(people_st, ops_st, st.integers(0, 2**32 - 1))
def test_nobody_is_lost_or_matched_twice_and_no_table_breaks_a_rule(
    pool: list[tuple[float, int, str | None, bool]],
    ops: list[tuple[Any, ...]],
    seed: int,
) -> None:
    rules = MatchSettings(together_k=1, together_n=3)
    history = RecentTables()
    seated: set[str] = set()
    mm = Matchmaker(rules, presets=[PRESET, OTHER], history=history, at_table=seated.__contains__)
    people = [
        Person(f"p{i}", account=i if is_account else None, points=p, rating=r, address=a)
        for i, (r, p, a, is_account) in enumerate(pool)
    ]
    rng = Random(seed)
    now = 0.0
    active: set[str] = set()  # what the matchmaker must hold: queued or awaiting an accept
    enqueued = removed = confirmed = 0

    def check_new(match: Match) -> None:
        keys_ = [p.key for p in match.people]
        assert not seated & set(keys_)
        assert len(set(keys_)) == len(keys_) == len(match.seats) - len(match.bots)
        assert len(match.seats) == 4 and match.deadline == match.formed + rules.accept_s
        if match.bucket.kind == "casual":
            assert 1 <= len(keys_) <= 4 and match.band is None
            return
        assert len(keys_) == 4 and match.bots == ()
        assert all(match.bucket.tier in {t.id for t in allowed(p.points)} for p in match.people)
        ratings = [p.rating for p in match.people]
        assert match.band is not None and max(ratings) - min(ratings) <= match.band
        for a in match.people:
            assert a.account is not None
            for b in match.people:
                if a is b:
                    continue
                assert a.address is None or a.address != b.address
                assert b.account is not None
                assert history.recent_partners(a.account, 3).get(b.account, 0) <= 1

    warm_up = [
        ("enqueue", i, PRESET, "casual" if p.account is None else "ranked", "general")
        for i, p in enumerate(people)
    ]
    for op in warm_up + ops:
        before = (mm.queued(), mm.matched())
        if op[0] == "enqueue":
            _, i, preset, kind, tier = op
            try:
                status = mm.enqueue(people[i], preset, kind, now, tier)
            except ProtocolError as error:
                assert error.code in CATALOGUE
                assert (mm.queued(), mm.matched()) == before
            else:
                assert status == mm.status(people[i].key, now) == mm.statuses(now)[people[i].key]
                if people[i].key not in active:
                    enqueued += 1
                    active.add(people[i].key)
        elif op[0] == "dequeue":
            key = people[op[1]].key
            assert mm.dequeue(key) == (key in active)
            if key in before[0]:
                active.discard(key)
                removed += 1
        elif op[0] == "accept":
            key = people[op[1]].key
            match = mm.match_of(key)
            try:
                done = mm.accept(key, match.id if match and op[2] else "m0", now)
            except ProtocolError as error:
                assert error.code == "match_gone"
                continue
            if done is not None:
                confirmed += len(done.people)
                active -= {p.key for p in done.people}
                if done.bucket.kind == "ranked":
                    history.add(p.account for p in done.people if p.account is not None)
        elif op[0] == "disconnect":
            mm.disconnect(people[op[1]].key, now)
        elif op[0] == "reconnect":
            mm.reconnect(people[op[1]].key)
        elif op[0] == "sit":  # joins (or leaves) a room by link
            (seated.add if op[2] else seated.discard)(people[op[1]].key)
        else:
            now += op[1]
            tick = mm.tick(now, rng)
            gone = set(tick.dropped)
            for lapsed in tick.lapsed:
                gone |= set(lapsed.left) | {key for key, _ in lapsed.barred}
                assert {
                    *lapsed.kept,
                    *lapsed.requeued,
                    *lapsed.left,
                    *(k for k, _ in lapsed.barred),
                } == {p.key for p in lapsed.match.people}
            removed += len(gone)
            active -= gone
            for match in tick.matches:
                check_new(match)
        queued, matched = mm.queued(), mm.matched()
        assert not queued & matched
        assert queued | matched == active
        assert enqueued == len(active) + removed + confirmed
        by_match: dict[str, set[str]] = {}
        for key in matched:
            found = mm.match_of(key)
            assert found is not None
            by_match.setdefault(found.id, set()).add(key)
        for held in by_match.values():
            match = mm.match_of(next(iter(held)))
            assert match is not None and held == {p.key for p in match.people}
        assert sum(mm.counts().values()) == len(queued)


# -- the work per tick ------------------------------------------------------------------------
class CountedFloat(float):
    """A rating that counts how often it is compared (the sorts' comparisons, the sweep's)."""

    compared = 0

    def __lt__(self, other: object) -> bool:
        CountedFloat.compared += 1
        return float(self) < float(other)  # type: ignore[arg-type]

    def __eq__(self, other: object) -> bool:
        CountedFloat.compared += 1
        return float(self) == other

    __hash__ = float.__hash__


def tick_work(n: int, address: str | None) -> tuple[int, int]:
    """Lines run in the matchmaker's module plus rating comparisons, for one tick over ``n``
    waiting players of one ranked queue (ratings spread over 0–50); and the tables formed."""
    spread = Random(n)
    mm = Matchmaker(presets=[PRESET])
    for i in range(n):
        rating = CountedFloat(round(spread.uniform(0, 50), 3))
        mm.enqueue(
            Person(f"p{i}", account=i, rating=rating, address=address), PRESET, "ranked", 0.0
        )
    lines = 0
    here = queue_module.__file__

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        nonlocal lines
        if frame.f_code.co_filename != here:
            return None
        if event == "line":
            lines += 1
        return trace

    CountedFloat.compared = 0
    old = sys.gettrace()
    sys.settrace(trace)
    try:
        tick = mm.tick(10.0, Random(0))
    finally:
        sys.settrace(old)
    return lines + CountedFloat.compared, len(tick.matches)


@pytest.mark.parametrize("address", [None, "10.9.9.9"], ids=["tables", "nobody-fits"])
def test_a_ticks_work_grows_as_n_log_n(address: str | None) -> None:
    """Doubling the queue (2000 → 4000) at most ~2.3× the work: n log n gives 2 × log 4000 /
    log 2000 = 2.18, a quadratic sweep 4.  Counted, not timed: the same on a loaded machine."""
    small, small_tables = tick_work(2000, address)
    large, large_tables = tick_work(4000, address)
    if address is None:
        assert small_tables > 400 and large_tables > 900  # most of them are seated
    else:
        assert small_tables == large_tables == 0  # each looks at its neighbours, finds none
    assert large / small <= 2.3, (small, large)


# -- the state as data (a cluster keeps it in Redis: laizi.server.cluster.queue) ------------------
def test_a_matchmaker_restored_from_its_snapshot_goes_on_exactly_as_the_original() -> None:
    """After every step of a random run (queueing, leaving, accepting, declining, connections
    lost and back, ticks), a matchmaker restored from the original's snapshot — through JSON,
    as Redis keeps it — answers the next step exactly as the original does: same statuses,
    same tables, same lapses, same refusals, same snapshot."""
    import json

    rng = Random(26)
    settings = MatchSettings(casual_wait_s=3.0, accept_s=2.0, disconnect_grace_s=2.0)
    live = Matchmaker(settings, presets=[PRESET])
    people = [
        Person(
            f"p{i}",
            account=None if i % 5 == 0 else i,
            points=Fraction(i * 37, 3),
            rating=rng.uniform(-5, 5),
            address=f"10.0.0.{i % 9}",
        )
        for i in range(40)
    ]
    now, formed, refused = 0.0, 0, 0
    for step in range(1500):
        copy = Matchmaker(settings, presets=[PRESET])
        copy.restore(json.loads(json.dumps(live.snapshot())))
        assert copy.snapshot() == live.snapshot()
        now += rng.choice((0.0, 0.1, 0.5, 1.0))
        p = rng.choice(people)
        roll = rng.random()
        seed = rng.random()
        answers = []
        for mm in (live, copy):
            try:
                if roll < 0.35:
                    kind = "ranked" if p.account is not None and roll < 0.2 else "casual"
                    answers.append(mm.enqueue(p, PRESET, kind, now))
                elif roll < 0.45:
                    answers.append(mm.dequeue(p.key))
                elif roll < 0.65:
                    match = mm.match_of(p.key)
                    answers.append(None if match is None else mm.accept(p.key, match.id, now))
                elif roll < 0.72:
                    answers.append(mm.disconnect(p.key, now))
                elif roll < 0.78:
                    answers.append(mm.reconnect(p.key))
                else:
                    answers.append(mm.tick(now, Random(seed)))
                    answers.append(mm.statuses(now))
            except ProtocolError as error:
                answers.append((error.code, error.params))
        half = len(answers) // 2
        assert answers[:half] == answers[half:], step
        formed += sum(len(a.matches) for a in answers[:half] if isinstance(a, Tick))
        refused += sum(isinstance(a, tuple) for a in answers[:half])
    assert formed >= 20 and refused >= 20  # the run went through matches and refusals
