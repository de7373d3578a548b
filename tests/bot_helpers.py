"""Helpers for the bot tests: a hand-made seat view, and a state with its hidden tiles redealt."""

from __future__ import annotations

from typing import Any

from laizi.engine.actions import Action


def table_view(
    concealed: str,
    *,
    seat: int = 0,
    phase: str = "turn",
    laizi: str | None = "9s",
    indicator: str | None = "8s",
    must_gang: tuple[str, ...] = ("7z",),
    game: str = "wuhan",
    players: dict[int, dict[str, Any]] | None = None,
    claim: dict[str, Any] | None = None,
    drawn: str | None = None,
    live: int = 50,
) -> dict[str, Any]:
    """A seat view as :func:`laizi.engine.view` shapes it, written by hand for a situation."""
    entries = []
    for s in range(4):
        entry: dict[str, Any] = {
            "seat": s,
            "hand_size": 13,
            "melds": [],
            "laid_out": [],
            "discards": [],
            "claimed": [],
            "openings": 0,
            "multiplier": {"total": 1, "factors": []},
            "declared_ready": False,
        }
        entry.update((players or {}).get(s, {}))
        entries.append(entry)
    view: dict[str, Any] = {
        "seat": seat,
        "game": game,
        "hand": 0,
        "dealer": 0,
        "phase": phase,
        "turn": seat,
        "to_act": [seat],
        "indicator": indicator,
        "laizi": laizi,
        "pi": [],
        "must_gang": list(must_gang),
        "tiles_left": live + 10,
        "live": live,
        "scores": [0, 0, 0, 0],
        "commitment": None,
        "players": entries,
        "concealed": concealed,
        "drawn": drawn,
        "legal": [],
    }
    if claim is not None:
        view["claim"] = claim
    return view


def opened_view(concealed: str) -> dict[str, Any]:
    """Seat 0's turn in Wuhan with ``concealed`` in hand after one opening, a pung of 999p from
    seat 1 (x2 so far); the laizi 9s and no must-gang tiles."""
    return table_view(
        concealed,
        must_gang=(),
        players={
            0: {
                "openings": 1,
                "multiplier": {"total": 2, "factors": []},
                "melds": [{"kind": "pung", "tiles": "999p", "from": 1}],
                "hand_size": 10,
            }
        },
    )


def discards_of(view: dict[str, Any], seat: int = 0) -> list[Action]:
    from laizi.tiles import parse_tiles

    return [Action(seat, "discard", t) for t in sorted(set(parse_tiles(view["concealed"])))]
