"""The fixed action space and observation layout shared by every laizi environment.

Actions are integers in ``range(NUM_ACTIONS)`` (177).  Tile-valued actions take one block of 34
indices each, the tile id (``laizi.tiles``: 1m…9m 0–8, 1p…9p 9–17, 1s…9s 18–26, 东…中 27–33)
added to the block's start; a chow is named by where the claimed tile sits in the sequence.

>>> NUM_ACTIONS, ACTION_BLOCKS["lay_out"], describe_action(LAY_OUT + 33)
(177, 34, 'lay_out 7z')
>>> describe_action(CHOW_LOW), describe_action(PASS_ACTION)
('chow (claimed tile lowest)', 'pass')

The observation of one seat is a ``(OBS_ROWS, 34)`` float32 array (rows documented in
:data:`OBS_ROW_NAMES`, the scalar row in :data:`SCALAR_NAMES`).  Seats are relative to the
viewer: 0 = the viewer, 1 = the next seat in play order (下家), 2 = across, 3 = the previous seat
(上家).

>>> OBS_SHAPE
(22, 34)
>>> OBS_ROW_NAMES[0], OBS_ROW_NAMES[20], OBS_ROW_NAMES[21], SCALAR_NAMES[0]
('hand', 'scalars', 'declared_ready', 'tiles_left')
"""

from __future__ import annotations

from laizi.tiles import format_tile

__all__ = [
    "ACTION_BLOCKS",
    "ADDED_KONG",
    "CHOW_HIGH",
    "CHOW_LOW",
    "CHOW_MID",
    "CONCEALED_KONG",
    "DECLARE_READY",
    "DISCARD",
    "HIDDEN_KONGS",
    "KONG_ACTION",
    "LAY_OUT",
    "NUM_ACTIONS",
    "OBS_ROWS",
    "OBS_ROW_NAMES",
    "OBS_SHAPE",
    "PASS_ACTION",
    "PUNG_ACTION",
    "SCALAR_NAMES",
    "WIN_ACTION",
    "describe_action",
]

DISCARD = 0
"""``DISCARD + t``: discard tile t (a laizi or must-gang tile discarded is laid out, A3/A4)."""
LAY_OUT = 34
"""``LAY_OUT + t``: lay out t (癞子杠, 红中杠, 发财杠, 皮杠), followed by a replacement draw."""
CONCEALED_KONG = 68
"""``CONCEALED_KONG + t``: 暗杠 of four t."""
ADDED_KONG = 102
"""``ADDED_KONG + t``: 蓄杠, add t to one's pung of t."""
CHOW_LOW = 136
"""Chow with the claimed tile lowest in the sequence (claim 3m with 45m)."""
CHOW_MID = 137
"""Chow with the claimed tile in the middle (claim 4m with 35m)."""
CHOW_HIGH = 138
"""Chow with the claimed tile highest (claim 5m with 34m)."""
PUNG_ACTION = 139
KONG_ACTION = 140
"""冲杠: a kong on a discard."""
WIN_ACTION = 141
"""Win: on a discard, by self-draw, by robbing a kong, or in the 海底 round."""
PASS_ACTION = 142
"""Decline every claim (or a 海底 win)."""
DECLARE_READY = 143
"""``DECLARE_READY + t``: Baishan 报听, discarding t."""
NUM_ACTIONS = 177

ACTION_BLOCKS = {
    "discard": DISCARD,
    "lay_out": LAY_OUT,
    "concealed_kong": CONCEALED_KONG,
    "added_kong": ADDED_KONG,
    "declare_ready": DECLARE_READY,
}
"""The tile-valued action types and the first index of their 34-wide block."""

_SINGLE = {
    CHOW_LOW: "chow (claimed tile lowest)",
    CHOW_MID: "chow (claimed tile in the middle)",
    CHOW_HIGH: "chow (claimed tile highest)",
    PUNG_ACTION: "pung",
    KONG_ACTION: "kong",
    WIN_ACTION: "win",
    PASS_ACTION: "pass",
}


def describe_action(index: int) -> str:
    """A short English description of an action index (for logs and error messages)."""
    if not 0 <= index < NUM_ACTIONS:
        raise ValueError(f"action index {index} is outside 0..{NUM_ACTIONS - 1}")
    if index in _SINGLE:
        return _SINGLE[index]
    for name, start in ACTION_BLOCKS.items():
        if start <= index < start + 34:
            return f"{name} {format_tile(index - start)}"
    raise AssertionError(index)  # pragma: no cover - the blocks and singles cover the range


OBS_ROW_NAMES = (
    "hand",  # 0: own concealed tiles, counts 0-4
    "drawn",  # 1: the tile just drawn (own turn or 海底 draw), one-hot
    "melds_0",  # 2-5: tiles in melds, per relative seat (another's 暗杠 is not shown)
    "melds_1",
    "melds_2",
    "melds_3",
    "discards_0",  # 6-9: every tile discarded, claimed ones included, per relative seat
    "discards_1",
    "discards_2",
    "discards_3",
    "laid_out_0",  # 10-13: tiles laid out (laizi, must-gang tiles), per relative seat
    "laid_out_1",
    "laid_out_2",
    "laid_out_3",
    "indicator",  # 14: one-hot (zero in Baishan)
    "laizi",  # 15: one-hot (zero when there is none)
    "pi",  # 16: the pi tiles
    "must_gang",  # 17: the must-gang tiles (红中, 发财 …)
    "claim_tile",  # 18: the tile on offer in a claim or rob window, one-hot
    "lay_out_kinds",  # 19: kinds laid out instead of discarded (never claimable)
    "scalars",  # 20: see SCALAR_NAMES
    "declared_ready",  # 21: columns 0-3: the relative seat has declared ready (Baishan 报听)
)
OBS_ROWS = len(OBS_ROW_NAMES)
OBS_SHAPE = (OBS_ROWS, 34)

SCALAR_NAMES = (
    "tiles_left",  # 0: tiles still in the wall
    "live",  # 1: tiles a normal draw may still take (beyond the 海底 reserve)
    "phase_turn",  # 2-6: the phase, one-hot
    "phase_claim",
    "phase_rob",
    "phase_final",
    "phase_over",
    "dealer_0",  # 7-10: the dealer, one-hot by relative seat
    "dealer_1",
    "dealer_2",
    "dealer_3",
    "turn_0",  # 11-14: whose turn it is (the discarder during a window), relative
    "turn_1",
    "turn_2",
    "turn_3",
    "log2_multiplier_0",  # 15-18: log2 of each seat's standing multiplier (A7; paid, at the end)
    "log2_multiplier_1",
    "log2_multiplier_2",
    "log2_multiplier_3",
    "hand_size_0",  # 19-22: concealed tiles held, relative
    "hand_size_1",
    "hand_size_2",
    "hand_size_3",
    "openings_0",  # 23-26: openings (开口: chows, pungs, exposed kongs), relative
    "openings_1",
    "openings_2",
    "openings_3",
    "hidden_kongs_0",  # 27-30: concealed kongs whose faces the viewer can't see, relative
    "hidden_kongs_1",
    "hidden_kongs_2",
    "hidden_kongs_3",
    "after_kong",  # 31: the viewer's drawn tile is a replacement draw (杠上花 if it wins)
    "win_locked",  # 32: the viewer passed a win and may not win until its next draw (过胡)
    "kongs_made",  # 33: kongs and lay-outs made at the table so far
)
assert len(SCALAR_NAMES) == 34
HIDDEN_KONGS = SCALAR_NAMES.index("hidden_kongs_0")
"""The scalars' first hidden-kongs column (one per relative seat, the viewer's always zero)."""
