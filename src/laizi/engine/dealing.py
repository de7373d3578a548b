"""Dealing a hand: the wall's layout, the indicator, the ``start`` and ``deal`` events."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from laizi.engine.events import TILE, AnyEvent, Deal, Start, number
from laizi.engine.state import HandState, PlayerState
from laizi.engine.wall import (
    WALL_SIZE,
    WallError,
    combined_seed,
    commitment,
    format_contributions,
    wall_from_seed,
)
from laizi.rules.ruleset import Ruleset
from laizi.tiles import format_counts

__all__ = ["new_hand"]


def new_hand(
    ruleset: Ruleset,
    dealer: int = 0,
    *,
    seed: bytes | None = None,
    wall: tuple[int, ...] | None = None,
    hand_number: int = 0,
    scores: tuple[Fraction, ...] | None = None,
    contributions: Sequence[bytes | None] | None = None,
    previous: str | None = None,
) -> tuple[HandState, list[AnyEvent]]:
    """Deal a hand from a 256-bit ``seed`` (fair deals, Part C) or from a whole ``wall``.

    With ``contributions`` (one entry per seat, None where a seat gave none) the wall comes from
    :func:`laizi.engine.wall.combined_seed` of the seed and them, and the ``start`` event lists
    them; the commitment is still ``sha256(seed)`` and the ``end`` event still reveals ``seed``.
    ``previous`` (a hand after a match's first) is the previous hand's
    :func:`~laizi.engine.events.hand_digest`, listed in the ``start`` event: the hash chain.

    Returns the state (the dealer to act) and the ``start`` and ``deal`` events.
    """
    if (seed is None) == (wall is None):
        raise ValueError("give exactly one of seed or wall")
    if contributions is not None and seed is None:
        raise ValueError("contributions go with a seed, not with a whole wall")
    if not 0 <= dealer <= 3:
        raise ValueError(f"dealer must be a seat 0–3, not {dealer}")
    if seed is not None:
        wall = wall_from_seed(seed if contributions is None else combined_seed(seed, contributions))
    assert wall is not None
    if len(wall) != WALL_SIZE:
        raise WallError("wall", f"must be {WALL_SIZE} tiles")
    players = [PlayerState([0] * 34) for _ in range(4)]
    position = 0
    for k in range(4):
        seat = (dealer + k) % 4
        size = 14 if k == 0 else 13
        counts = players[seat].counts
        for tile in wall[position : position + size]:
            counts[tile] += 1
        position += size
    indicator = None
    if ruleset.uses_indicator:
        indicator = wall[position]
        position += 1
    specials = ruleset.specials(indicator)
    state = HandState(
        ruleset=ruleset,
        dealer=dealer,
        wall=tuple(wall),
        front=position,
        back=WALL_SIZE,
        specials=specials,
        players=players,
        seed=seed,
        commitment=None if seed is None else commitment(seed),
        hand_number=hand_number,
        scores=tuple(scores) if scores is not None else (Fraction(0),) * 4,
        turn=dealer,
        drawn=wall[13],
        special_mask=tuple(kind in specials.lay_out for kind in range(34)),
    )
    start = Start(
        game=ruleset.game,
        rules=ruleset.settings_json(),
        hand=hand_number,
        dealer=dealer,
        scores=[number(s) for s in state.scores],
        commitment=state.commitment,
        previous=previous,
        contributions=None if contributions is None else format_contributions(contributions),
        wall="".join(TILE[t] for t in wall) if seed is None else None,
    )
    deal = Deal(
        hands=[format_counts(p.counts) for p in players],
        indicator=None if indicator is None else TILE[indicator],
        laizi=None if specials.laizi is None else TILE[specials.laizi],
        pi=[TILE[t] for t in specials.pi],
        must_gang=[TILE[t] for t in sorted(specials.must_gang)],
    )
    state.events = 2
    return state, [start, deal]
