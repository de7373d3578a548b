"""Is a claimed Baishan win a hand that can have happened?  Every error names the input field at
fault (RULES.md Part B): no indicator, no robbing a kong, no 海底, nothing laid out.
"""

from __future__ import annotations

from laizi.rules.ruleset import Ruleset
from laizi.rules.situation import (
    InputError,
    PlayerHand,
    WinSituation,
    check_hand_size,
    check_seat,
)
from laizi.tiles import KINDS, format_tile

__all__ = ["check_situation"]


def check_situation(s: WinSituation) -> None:
    """Raise :class:`InputError` (naming the field) if ``s`` can't be a Baishan hand (a robbed
    kong is refused before, by the ruleset: ``kong_robbable``)."""
    check_seat(s.dealer, "dealer")
    winner = check_seat(s.winner, "winner")
    if s.indicator is not None:
        raise InputError("indicator", "Baishan turns no indicator: leave it out")
    if s.win not in ("discard", "self_draw"):
        raise InputError("win", f"must be discard or self_draw, not {s.win!r}")
    if s.haidi:
        raise InputError("haidi", "Baishan has no 海底 rule (its last round is 分张)")
    if s.win == "self_draw":
        if s.from_seat is not None:
            raise InputError("from", "a self-drawn win comes from nobody; leave 'from' out")
        if s.after_kong_discard:
            raise InputError("after_kong_discard", "杠后点炮 needs a discard win")
    else:
        if s.from_seat is None:
            raise InputError("from", "required for a discard win: the seat that discarded")
        if check_seat(s.from_seat, "from") == winner:
            raise InputError("from", "the winner can't win on its own tile")
        if s.after_kong:
            raise InputError("after_kong", "a replacement draw after a kong is self-drawn")
    if not 0 <= s.winning_tile < KINDS:
        raise InputError("winning_tile", f"not a tile id: {s.winning_tile!r}")
    if len(s.players) != 4:
        raise InputError("players", f"must list four seats, not {len(s.players)}")
    counts = [0] * KINDS
    counts[s.winning_tile] += 1
    for seat, player in enumerate(s.players):
        _check_player(s, seat, player)
        for t in player.hand or ():
            counts[t] += 1
        for meld in player.melds:
            for t in meld.tiles:
                counts[t] += 1
    for tile, count in enumerate(counts):
        if count > 4:
            raise InputError(
                "players",
                f"{count} copies of {format_tile(tile)} on the table (the winning tile "
                "included); only 4 exist",
            )
    if s.after_kong and not any(m.is_kong for m in s.players[winner].melds):
        raise InputError("after_kong", "the winner made no kong to draw a replacement for")
    if (
        s.after_kong_discard
        and s.from_seat is not None
        and not any(m.is_kong for m in s.players[s.from_seat].melds)
    ):
        raise InputError("after_kong_discard", f"seat {s.from_seat} made no kong")


def _check_player(s: WinSituation, seat: int, player: PlayerHand) -> None:
    field = f"players[{seat}]"
    if player.laid_out:
        raise InputError(f"{field}.laid_out", "Baishan has no tiles to lay out")
    if len(player.melds) > 4:
        raise InputError(f"{field}.melds", f"at most four melds, not {len(player.melds)}")
    for index, meld in enumerate(player.melds):
        Ruleset.check_meld_source(seat, meld, f"{field}.melds[{index}].from")
    check_hand_size(seat, player, s.winner, field)
