"""Issue 15: "the replay's last frame shows the dealer-winner at M 64 while the settlement says
M 32".  RULES.md A7 is the truth: when the dealer wins a small win its ×2 sits on each loser
(``dealer_won``), never on the dealer's own M — so the settlement's M 32 is right, and the replay's
last frame must show exactly the settlement's multipliers (one source: the settlement).

Checked here over whole matches (the dealer stays on a dealer win, running totals, the players'
contributions in the deal), every Wuhan preset, as the server's replay route serves them."""

from __future__ import annotations

import random
from typing import Any

import pytest

from laizi.bots import make_bot
from laizi.engine import Match, legal_actions, make_ruleset, view
from laizi.rules import PRESETS
from laizi.web.replay import frames
from tests.engine_helpers import apply_json

WUHAN = [name for name, s in PRESETS.items() if s.game == "wuhan"]


def match_records(preset: str, seed: int, hands: int = 6) -> list[list[dict[str, Any]]]:
    """The records of a match of four greedy bots (each from its own seat's view)."""
    ruleset = make_ruleset({"preset": preset, "min_points": 0})
    match = Match(ruleset, dealer=seed % 4)
    rng = random.Random(seed)
    bots = [make_bot("greedy", ruleset.settings, seed * 4 + s) for s in range(4)]
    records = []
    for _ in range(hands):
        if match.over:
            break
        contributions = [rng.randbytes(32), None, rng.randbytes(32), None]
        state, first = match.deal(rng.randbytes(32), contributions=contributions)
        events = list(first)
        while not state.over:
            seat = state.to_act()[0]
            events += apply_json(
                state, bots[seat].act(view(state, seat), legal_actions(state, seat))
            )
        match.finish(events)
        records.append(events)
    return records


@pytest.mark.parametrize("preset", WUHAN)
def test_the_last_frame_shows_the_settlements_multipliers_in_every_hand_of_a_match(
    preset: str,
) -> None:
    settled = dealer_won = 0
    for seed in range(4):
        for record in match_records(preset, seed):
            end = record[-1]
            shown = [p["multiplier"] for p in frames(record)[-1]["view"]["players"]]
            if "settlement" not in end:
                continue
            paid = end["settlement"]["multipliers"]
            assert shown == paid
            settled += 1
            if end["winner"] == record[0]["dealer"]:
                dealer_won += 1
                names = [f["name"] for f in shown[end["winner"]]["factors"]]
                assert "dealer" not in names and "dealer_won" not in names
    assert settled >= 3 and dealer_won >= 1
