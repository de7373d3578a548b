"""Properties of every settlement over random finished hands (Hypothesis).

Payments are zero-sum; a refused win pays nothing; an allowed one meets the minimum for every
loser; caps and contracts behave as RULES.md A9 says; the scored reading is the best one.
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from laizi.rules import PRESETS
from laizi.rules.wuhan import Settlement, evaluate, special_tiles
from laizi.rules.wuhan.settle import _settle
from laizi.scoring import InputError, score, situation_from_json
from laizi.tiles import count_vector, format_tile, format_tiles

MELD_KINDS = ["chow", "pung", "exposed_kong", "added_kong", "concealed_kong"]


class Pool:
    """The tiles still unseen, so that no kind is used more than four times."""

    def __init__(self, indicator: int) -> None:
        self.left = [4] * 34
        self.left[indicator] -= 1

    def take(self, tiles: list[int]) -> bool:
        need = count_vector(tiles, limit=None)
        if any(need[k] > self.left[k] for k in range(34)):
            return False
        for k in range(34):
            self.left[k] -= need[k]
        return True


def meld_tiles(draw: Any, kind: str, plain: list[int]) -> list[int] | None:
    if kind == "chow":
        starts = [t for t in plain if t < 27 and t % 9 <= 6 and t + 1 in plain and t + 2 in plain]
        if not starts:
            return None
        start = draw(st.sampled_from(starts))
        return [start, start + 1, start + 2]
    tile = draw(st.sampled_from(plain))
    return [tile] * (3 if kind == "pung" else 4)


@st.composite
def situations(draw: Any) -> dict[str, Any]:
    name = draw(st.sampled_from(sorted(n for n, s in PRESETS.items() if s.game == "wuhan")))
    rules: Any = name if draw(st.booleans()) else {"preset": name, "min_points": 0}
    variant = PRESETS[name].variant
    indicator = draw(st.integers(0, 33))
    special = special_tiles(variant, indicator)
    plain = [t for t in range(34) if t != special.laizi and t not in special.must_gang]
    pool = Pool(indicator)
    winner = draw(st.integers(0, 3))
    dealer = draw(st.integers(0, 3))
    win = draw(st.sampled_from(["discard", "self_draw", "rob_kong"]))
    source = draw(st.sampled_from([s for s in range(4) if s != winner]))

    players: list[dict[str, Any]] = []
    for seat in range(4):
        melds = []
        for _ in range(draw(st.integers(0, 4 if seat == winner else 3))):
            kind = draw(st.sampled_from(MELD_KINDS))
            tiles = meld_tiles(draw, kind, plain)
            if tiles is None or not pool.take(tiles):
                continue
            meld: dict[str, Any] = {"kind": kind, "tiles": format_tiles(tiles)}
            if kind == "chow":
                meld["from"] = (seat + 3) % 4
            elif kind != "concealed_kong":
                meld["from"] = draw(st.sampled_from([s for s in range(4) if s != seat]))
            melds.append(meld)
        specials = sorted(special.must_gang | {special.laizi})
        laid = draw(st.lists(st.sampled_from(specials), max_size=3))
        if not pool.take(laid):
            laid = []
        players.append({"melds": melds, "laid_out": format_tiles(laid) if laid else ""})
        if seat != winner:
            players[-1]["ready"] = draw(st.booleans())

    # The winner's concealed tiles: mostly a pair and melds, sometimes anything at all.
    size = 14 - 3 * len(players[winner]["melds"])
    pairs = [t for t in plain if t < 27 and t % 9 in (1, 4, 7)]
    if draw(st.integers(0, 3)):
        concealed = [draw(st.sampled_from(pairs if draw(st.booleans()) else plain))] * 2
        while len(concealed) < size:
            if draw(st.booleans()):
                concealed += meld_tiles(draw, "chow", plain) or [concealed[0]] * 3
            else:
                concealed += [draw(st.sampled_from(plain))] * 3
    else:
        concealed = draw(st.lists(st.sampled_from(plain), min_size=size, max_size=size))
    for index in draw(st.lists(st.integers(0, size - 1), max_size=2)):
        concealed[index] = special.laizi  # some tiles become laizi
    if draw(st.sampled_from([False] * 9 + [True])):  # now and then a must-gang tile
        concealed[0] = draw(st.sampled_from(sorted(special.must_gang)))
    assume(pool.take(concealed))
    tile = concealed.pop(draw(st.integers(0, size - 1)))
    if tile == special.laizi or tile in special.must_gang:
        win = "self_draw"
    if win == "rob_kong":
        if pool.take([tile] * 3):
            players[source]["melds"] = [
                *players[source]["melds"][:3],
                {"kind": "pung", "tiles": format_tile(tile) * 3, "from": winner},
            ]
        else:
            win = "discard"
    players[winner]["hand"] = format_tiles(concealed) if concealed else "0"
    data: dict[str, Any] = {
        "rules": rules,
        "dealer": dealer,
        "indicator": format_tile(indicator),
        "winner": winner,
        "win": win,
        "winning_tile": format_tile(tile),
        "players": players,
    }
    if win != "self_draw":
        data["from"] = source
    if win == "self_draw":
        data["after_kong"] = draw(st.booleans())
        data["haidi"] = not data["after_kong"] and draw(st.booleans())
    return data


def settle_or_skip(data: dict[str, Any]) -> Settlement:
    try:
        return score(situation_from_json(data))
    except InputError:
        assume(False)
        raise


SETTINGS = settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


@SETTINGS
@given(situations())
def test_payments_are_zero_sum(data: dict[str, Any]) -> None:
    s = settle_or_skip(data)
    assert sum(s.payments) == 0


@SETTINGS
@given(situations())
def test_refused_wins_pay_nothing(data: dict[str, Any]) -> None:
    s = settle_or_skip(data)
    if not s.allowed:
        assert s.payments == (0, 0, 0, 0)
        assert s.wins == () and s.hard is None and s.contract is None
    else:
        assert s.reason is None and s.wins


@SETTINGS
@given(situations())
def test_allowed_wins_meet_the_minimum_and_losers_only_pay(data: dict[str, Any]) -> None:
    s = settle_or_skip(data)
    assume(s.allowed)
    settings_ = s.situation.settings
    winner = s.situation.winner
    assert s.payments[winner] > 0
    for seat in range(4):
        if seat == winner:
            continue
        assert s.raw[seat] >= settings_.min_points * settings_.base
        assert s.payments[seat] <= 0
        after = s.after_caps[seat]
        if s.caps[seat] is None:
            assert after == s.raw[seat] and after <= settings_.cap
        elif s.caps[seat] == "cap":
            assert after == settings_.cap < s.raw[seat]
        else:
            assert all(s.raw[o] > settings_.cap for o in range(4) if o != winner)
    if s.contract is not None:
        assert [p for seat, p in enumerate(s.payments) if seat not in (winner, s.contract)] == [
            0,
            0,
        ]


@SETTINGS
@given(situations())
def test_the_scored_reading_is_the_best_and_ties_go_hard(data: dict[str, Any]) -> None:
    s = settle_or_skip(data)
    assume(s.allowed)
    sit = s.situation
    winner = sit.players[sit.winner]
    counts = count_vector((*(winner.hand or ()), sit.winning_tile), limit=None)
    verdict = evaluate(
        counts, winner.melds, s.special, win=sit.win, after_kong=sit.after_kong, haidi=sit.haidi
    )
    for reading in verdict.readings:
        other = _settle(sit, s.special, reading)
        if other.allowed:
            assert other.payments[sit.winner] <= s.payments[sit.winner]
            if other.payments[sit.winner] == s.payments[sit.winner] and other.hard:
                assert s.hard


@SETTINGS
@given(situations())
def test_json_output_is_plain_numbers_and_deterministic(data: dict[str, Any]) -> None:
    s = settle_or_skip(data)
    out = s.to_json()
    text = json.dumps(out)
    assert json.loads(text) == out
    assert all(isinstance(p, int | float) and not isinstance(p, bool) for p in out["payments"])
    again = score(situation_from_json(data))
    assert again.to_json() == out
    for p, q in zip(out["payments"], s.payments, strict=True):
        assert Fraction(repr(p)) == q if isinstance(p, float) else p == q
