"""Is a claimed win a hand that can have happened?  Every error names the input field at fault.

These are facts of the table, not rules a win can fail (those are refusals, with a reason):
a tile nobody can win on, five of a kind, a chow from the wrong seat, a 海底 win on a discard.
"""

from __future__ import annotations

from laizi.rules.ruleset import Ruleset
from laizi.rules.situation import (
    WIN_KINDS,
    InputError,
    WinSituation,
    check_hand_size,
    check_seat,
)
from laizi.rules.wuhan.settings import wuhan_settings
from laizi.rules.wuhan.specials import indicator_and_laizi, special_tiles
from laizi.tiles import KINDS, format_tile

__all__ = ["check_situation"]


def check_situation(s: WinSituation) -> None:
    """Raise :class:`InputError` if ``s`` is inconsistent; return quietly otherwise."""
    check_seat(s.dealer, "dealer")
    winner = check_seat(s.winner, "winner")
    if s.win not in WIN_KINDS:
        raise InputError("win", f"must be one of {', '.join(WIN_KINDS)}, not {s.win!r}")
    if s.win == "self_draw":
        if s.from_seat is not None:
            raise InputError("from", "a self-drawn win comes from nobody; leave 'from' out")
    else:
        if s.from_seat is None:
            raise InputError("from", f"required for a {s.win} win: the seat the tile came from")
        if check_seat(s.from_seat, "from") == winner:
            raise InputError("from", "the winner can't win on its own tile")
        if s.haidi:
            raise InputError(
                "haidi", "海底捞 is a self-drawn win; nobody discards in the 海底 round"
            )
        if s.after_kong:
            raise InputError(
                "after_kong", "a replacement draw after a kong is self-drawn, not a " + s.win
            )
    if s.haidi and s.after_kong:
        raise InputError("after_kong", "nobody kongs in the 海底 round, so no replacement draw")
    if s.after_kong_discard:
        raise InputError(
            "after_kong_discard", "is a Baishan field (杠后点炮); Wuhan has no such rule"
        )
    if s.indicator is None:
        raise InputError("indicator", 'missing: the turned-up tile, e.g. "5m"')
    if not 0 <= s.indicator < KINDS:
        raise InputError("indicator", f"not a tile id: {s.indicator!r}")
    if not 0 <= s.winning_tile < KINDS:
        raise InputError("winning_tile", f"not a tile id: {s.winning_tile!r}")
    if len(s.players) != 4:
        raise InputError("players", f"must list four seats, not {len(s.players)}")
    special = special_tiles(wuhan_settings(s.settings).variant, s.indicator)
    tile = s.winning_tile
    name = format_tile(tile)
    if s.win != "self_draw":
        if tile == special.laizi:
            raise InputError(
                "winning_tile",
                f"{name} is the laizi: a discarded laizi is laid out, nobody wins on it",
            )
        if tile in special.must_gang:
            raise InputError(
                "winning_tile",
                f"{name} must be laid out: discarding it lays it out, nobody wins on it",
            )
    _check_players(s, indicator_and_laizi(special)[1], special.must_gang)
    if s.after_kong:
        drawn_for = s.players[winner]
        if not any(m.is_kong for m in drawn_for.melds) and not drawn_for.laid_out:
            raise InputError(
                "after_kong",
                "the winner made no kong and laid nothing out: there was no replacement draw",
            )
    if s.win == "rob_kong":
        assert s.from_seat is not None
        robbed = s.players[s.from_seat]
        if not any(m.kind == "pung" and m.tiles[0] == tile for m in robbed.melds):
            raise InputError(
                "from",
                f"seat {s.from_seat} has no pung of {name} to add to: "
                "only an added kong can be robbed",
            )
    _check_counts(s)


def _check_players(s: WinSituation, laizi: int, must_gang: frozenset[int]) -> None:
    for seat, player in enumerate(s.players):
        field = f"players[{seat}]"
        if len(player.melds) > 4:
            raise InputError(f"{field}.melds", f"at most four melds, not {len(player.melds)}")
        for index, meld in enumerate(player.melds):
            meld_field = f"{field}.melds[{index}]"
            if meld.tiles[0] == laizi or any(t in must_gang or t == laizi for t in meld.tiles):
                raise InputError(
                    f"{meld_field}.tiles",
                    "the laizi and the must-gang tiles can't be chowed, punged or konged",
                )
            Ruleset.check_meld_source(seat, meld, f"{meld_field}.from")
        for tile in player.laid_out:
            if tile != laizi and tile not in must_gang:
                raise InputError(
                    f"{field}.laid_out",
                    f"{format_tile(tile)} is neither the laizi nor a must-gang tile",
                )
        check_hand_size(seat, player, s.winner, field)


def _check_counts(s: WinSituation) -> None:
    counts = [0] * KINDS
    assert s.indicator is not None
    counts[s.indicator] += 1
    counts[s.winning_tile] += 1
    for player in s.players:
        for t in player.hand or ():
            counts[t] += 1
        for meld in player.melds:
            for t in meld.tiles:
                counts[t] += 1
        for t in player.laid_out:
            counts[t] += 1
    for tile, count in enumerate(counts):
        if count > 4:
            raise InputError(
                "players",
                f"{count} copies of {format_tile(tile)} on the table (the indicator and the "
                "winning tile included); only 4 exist",
            )
