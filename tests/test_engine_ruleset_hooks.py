"""The engine asks a ruleset and never names a game: a second, made-up ruleset plugs in as is.

``PlainRuleset`` is a test double shaped like issue 5's needs — no indicator, no wild tiles,
no reserve, the final round when 18 tiles are left (4 after a kong), any complete hand wins
for 1 point from each other seat — so the engine's paths that Wuhan never takes are covered.
"""

from __future__ import annotations

import random
from fractions import Fraction

from laizi import hand
from laizi.engine import Action, Ruleset, WinOffer, legal_actions, view
from tests.engine_helpers import apply_json, deal_json


class PlainRuleset(Ruleset):
    game = "plain"
    uses_indicator = False
    reserve = 0
    settings = None

    def settings_json(self):
        return {"preset": "plain"}

    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        return live <= (4 if kongs_made else 18)

    def win_order(self, dealer, discarder):
        return [(discarder + k) % 4 for k in (1, 2, 3)]

    def win_offer(self, state, seat, tile, how):
        counts = state.players[seat].counts[:]
        if how != "self_draw":
            counts[tile] += 1
        if not hand.complete(counts):
            return None
        payments = [Fraction(-1)] * 4
        payments[seat] = Fraction(3)
        return WinOffer(None, tuple(payments))

    def escape_payments(self, seat):
        return tuple(Fraction(-3) if s == seat else Fraction(1) for s in range(4))


def play(seed: int):
    rng = random.Random(seed)
    state, events = deal_json(PlainRuleset(), seed % 4, seed=rng.randbytes(32))
    while not state.over:
        seat = state.to_act()[0]
        legal = legal_actions(state, seat)
        wins = [a for a in legal if a.type == "win"]
        events += apply_json(state, wins[0] if wins else rng.choice(legal))
    return state, events


def test_a_ruleset_without_indicator_deals_53_and_lays_nothing_out():
    state, events = deal_json(PlainRuleset(), 0, seed=bytes(32))
    assert events[1]["indicator"] is None and events[1]["laizi"] is None
    assert state.front == 53 and state.live == 136 - 53
    assert not any(a.type == "lay_out" for a in legal_actions(state, 0))
    assert view(state, 0)["laizi"] is None


def test_its_hands_run_to_the_end_with_tiles_conserved_and_zero_sum():
    endings = {}
    for seed in range(150):
        state, events = play(seed)
        assert state.tiles_in_play() == [4] * 34
        assert sum(state.result["payments"]) == 0
        reason = state.result["reason"]
        endings[reason] = endings.get(reason, 0) + 1
        if reason == "drawn":
            # The final round: at 18 tiles left (each of 4 seats draws one) or, after a kong, at 4.
            assert state.wall_left == (0 if state.kongs_made else 14)
            if not state.kongs_made:
                assert len([e for e in events if e.get("final")]) == 4
    assert endings.get("win", 0) > 0 and endings.get("drawn", 0) > 0


def test_its_escape_payments_come_from_the_ruleset():
    state, _ = deal_json(PlainRuleset(), 0, seed=bytes(32))
    events = apply_json(state, Action(1, "abandon"))
    assert events[-1]["payments"] == [1, -3, 1, 1]
