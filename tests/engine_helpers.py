"""Helpers the engine, bot and Baishan tests share: replay scripts in a few words, and the
hidden-information shuffle the view tests use."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from laizi.engine import HandState, Match, apply, legal_actions, make_ruleset, new_hand
from laizi.engine.events import Event, encode_all
from laizi.engine.script import ScriptUnfinished, run_script
from laizi.tiles import format_tile, parse_tiles

RULES = {"preset": "wuhan-hongzhong-kaikou", "min_points": 0}


def apply_json(state: HandState, action: Any, *, check: bool = True) -> list[Event]:
    """``apply`` with its typed events as the JSON objects a record holds (what these tests
    compare key by key)."""
    return encode_all(apply(state, action, check=check))


def deal_json(*args: Any, **kwargs: Any) -> tuple[HandState, list[Event]]:
    """``new_hand`` with its ``start`` and ``deal`` events as their record JSON."""
    state, events = new_hand(*args, **kwargs)
    return state, encode_all(events)


def act(text: str) -> dict[str, Any]:
    """``"1 chow 789m"`` → ``{"seat": 1, "type": "chow", "tiles": "789m"}``."""
    seat, kind, *rest = text.split()
    obj: dict[str, Any] = {"seat": int(seat), "type": kind}
    if rest:
        obj["tiles" if kind == "chow" else "tile"] = rest[0]
    return obj


def script(hands, actions, draws=(), replacements=(), indicator="8s", dealer=0, **rules):
    return {
        "rules": {**RULES, **rules},
        "dealer": dealer,
        "hands": hands,
        "indicator": indicator,
        "draws": list(draws),
        "replacements": list(replacements),
        "actions": [act(a) for a in actions],
    }


def state_when_script_ends(obj):
    with pytest.raises(ScriptUnfinished) as caught:
        run_script(obj)
    return caught.value.result.state


KONG_HANDS = [
    "1111m 3m5m7m 2p4p6p 2s4s6s 3z",  # 暗杠 1m, then discards 3z
    "333z 2m4m6m 3p5p7p 3s5s7s 1p",  # 冲杠 on 3z, discards 2m
    "22m 1p9p 1s9s 1z2z4z5z6z 8m8p",  # pungs 2m, later adds the fourth (蓄杠)
    "4m8m9m 1p3p4p7p8p 1s2s4s 6z 7z",
]
KONG_ACTIONS = [
    "0 concealed_kong 1m",
    "0 discard 3z",
    "1 kong",
    "1 discard 2m",
    "2 pung",
    "2 discard 1z",
    "3 discard 9m",
    "0 discard 9p",
    "1 discard 8s",
    "2 added_kong 2m",
]


def hidden_shuffled(state: HandState, seat: int | None, rng: random.Random) -> HandState:
    """A copy where every tile ``seat`` can't see (others' concealed tiles, the wall) is
    dealt around differently, hand sizes kept (``seat`` None: a spectator, who sees none)."""
    other = state.copy()
    hidden = list(state.wall[state.front : state.back])
    seats = [s for s in range(4) if s != seat]
    for s in seats:
        hidden += other.players[s].concealed()
    rng.shuffle(hidden)
    position = 0
    for s in seats:
        size = other.players[s].size()
        counts = [0] * 34
        for tile in hidden[position : position + size]:
            counts[tile] += 1
        other.players[s].counts = counts
        position += size
    other.wall = state.wall[: state.front] + tuple(hidden[position:]) + state.wall[state.back :]
    other.legal_cache = None
    other.offers = {}
    return other


def greedy(rng: random.Random):
    def choose(actions):
        wins = [a for a in actions if a.type == "win"]
        if wins:
            return wins[0]
        claims = [a for a in actions if a.type in ("pung", "kong", "chow")]
        return rng.choice(claims) if claims and rng.random() < 0.8 else rng.choice(actions)

    return choose


def play_match(hands: int, seed: int):
    rng = random.Random(seed)
    match = Match(make_ruleset("wuhan-hongzhong-kaikou"), dealer=0)
    record = []
    history = []
    choose = greedy(rng)
    for _ in range(hands):
        dealer = match.dealer
        state, events = match.deal(rng.randbytes(32))
        while not state.over:
            seat = state.to_act()[0]
            events += apply_json(state, choose(legal_actions(state, seat)))
        match.finish(events)
        history.append((dealer, state.result["winner"], match.dealer))
        record += events
    return match, record, history


# --- A8: a scripted 海底 round (tests/test_engine_rules.py, tests/test_hints.py) ---------------

HAIDI_HANDS = [
    "9m 1m2m 1p2p 1s2s 1z2z3z4z5z6z 7z",
    "99m 234m 678m 456p 5s 1z",
    "3m 4m 5m 3p 4p 5p 3s 4s 6s 2z 3z 4z 5z",
    "6m 7m 8m 6p 7p 8p 7s 1z 1z 6z 7z 7z 2s",
]


def haidi_script(final_action: str | None, reserve: int = 60):
    """Seat 1 opens, then everyone discards what it draws until the 海底 round."""
    live = 136 - 53 - 1 - reserve
    normal = live - 4
    finals = ["8p", "5s", "6z", "5z"]
    used = Counter(parse_tiles("".join(HAIDI_HANDS) + "8s" + "".join(finals)))
    # Junk: every tile still unnamed except 5s (seat 1's wait), 9s (laizi) and 7z (红中).
    junk = [
        format_tile(t)
        for t in range(34)
        for _ in range(4 - used[t])
        if format_tile(t) not in ("5s", "9s", "7z")
    ]
    draws = []
    actions = ["0 discard 9m", "1 pung", "1 discard 1z"]
    seat = 2
    for k in range(normal):
        tile = junk[k]
        draws.append(tile)
        actions.append(f"{seat} discard {tile}")
        seat = (seat + 1) % 4
    draws += finals
    if final_action:
        actions.append(final_action)
    return script(HAIDI_HANDS, actions, draws=draws, haidi_reserve=reserve), seat
