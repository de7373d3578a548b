"""The readable Baishan settlement: one line per player with its fans, then the kongs.

A loser's line: its fans, ``base × 2^(winner's + its fans) = raw``, the cap if it bites, what it
pays for the hand; the winner's line adds up what it receives.  Each kong gets a line with what
the three others paid on the spot, and the last line has the four totals.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from laizi.i18n import Lang, pick
from laizi.numbers import number_text
from laizi.tiles import format_tile

if TYPE_CHECKING:
    from laizi.rules.baishan.settle import BaishanSettlement, Fans

__all__ = ["explain", "words"]

REASONS = {
    "not_complete": ("不成胡牌牌型", "not a winning hand"),
    "no_terminal": ("断幺九：手里没有幺九或字牌，不能胡", "no terminal or honor: no win"),
    "no_triplet": ("没有刻子或杠，不能胡（七对、十三幺除外）", "no triplet or kong"),
}
KONG_NAMES = {
    "exposed_kong": ("明杠", "exposed kong"),
    "added_kong": ("明杠（加杠）", "added kong"),
    "concealed_kong": ("暗杠", "concealed kong"),
}

CAP_NAMES = {"cap": ("封顶", "cap")}


def words() -> dict[str, object]:
    """The names a player reads for this game's ids, for the web client (which copies none):
    wins (the shapes), fans, caps and refusal reasons as ``(zh, en)``; the settlement's layout
    (``"fans"``: each seat's fans, base × 2^(winner's + its fans), the kongs apart)."""
    from laizi.rules.baishan.settle import FANS, SHAPE_NAMES

    return {
        "settlement": "fans",
        "counts": False,
        "wins": SHAPE_NAMES,
        "fans": {name: (zh, en) for name, (zh, en, _when) in FANS.items()},
        "factors": {},
        "caps": CAP_NAMES,
        "contracts": {},
        "reasons": REASONS,
        "how": {},
    }


def _fans(f: Fans, lang: Lang) -> str:
    from laizi.rules.baishan.settle import FANS

    if not f.fans:
        return pick(lang, "无番 → 0番", "no fans → 0")
    parts = [f"{pick(lang, *FANS[x.name][:2])} +{x.fans}" for x in f.fans]
    return " · ".join(parts) + pick(lang, f" → {f.total}番", f" → {f.total}")


def _signed(value: Fraction | int) -> str:
    text = number_text(value)
    return text if text.startswith("-") or text == "0" else "+" + text


def explain(s: BaishanSettlement, lang: Lang) -> str:
    from laizi.rules.baishan.settle import SHAPE_NAMES

    sit = s.situation
    settings = sit.settings
    base = settings.base
    lines = [
        pick(lang, "规则", "Rules")
        + f" {settings.preset} · "
        + pick(lang, "底分", "base")
        + f" {number_text(base)} · "
        + pick(lang, "封顶", "cap")
        + f" {number_text(settings.cap * base)} · hash {settings.short_hash()}"
    ]
    tile = format_tile(sit.winning_tile)
    if sit.win == "discard":
        how = pick(
            lang,
            f"{sit.winner}号位胡 {tile}（{sit.from_seat}号位点炮）",
            f"Seat {sit.winner} wins on {tile} discarded by seat {sit.from_seat}",
        )
        if sit.after_kong_discard:
            how += pick(lang, "（杠后点炮）", " (discarded right after a kong)")
    else:
        how = pick(
            lang, f"{sit.winner}号位自摸 {tile}", f"Seat {sit.winner} wins on a self-drawn {tile}"
        )
        if sit.after_kong:
            how += pick(lang, "（杠后开）", " (on a kong's replacement draw)")
    lines.append(how + pick(lang, f" · 庄家 {sit.dealer}号位", f" · dealer: seat {sit.dealer}"))
    if not s.allowed:
        lines.append(
            pick(lang, "不能胡：", "Win refused: ")
            + pick(lang, *REASONS[s.reason or "not_complete"])
        )
        lines.append(pick(lang, "无人付分", "Nobody pays") + ": 0 0 0 0")
        return "\n".join(lines)
    lines.append(" + ".join(pick(lang, *SHAPE_NAMES[w]) for w in s.wins))
    winner_fans = s.fans[sit.winner].total
    unit = number_text(base)
    for seat in range(4):
        if seat == sit.winner:
            continue
        raw = s.raw[seat]
        assert raw is not None
        if s.wins == ("shisanyao",):
            formula = pick(
                lang,
                f"十三幺：封顶×2 = {number_text(raw)}",
                f"thirteen orphans: twice the cap = {number_text(raw)}",
            )
        else:
            exponent = winner_fans + s.fans[seat].total
            formula = (
                f"{unit} × 2^({winner_fans}+{s.fans[seat].total}) = {unit} × "
                f"{2**exponent} = {number_text(raw)}"
            )
            if s.caps[seat] == "cap":
                formula += pick(
                    lang,
                    f" → 封顶 {number_text(settings.cap * base)}",
                    f" → cap {number_text(settings.cap * base)}",
                )
        lines.append(
            pick(lang, f"{seat}号位 输方：", f"seat {seat} loses: ")
            + _fans(s.fans[seat], lang)
            + f" | {formula} | "
            + pick(lang, "付", "pays")
            + f" {number_text(-s.win_payments[seat])}"
        )
    lines.append(
        pick(lang, f"{sit.winner}号位 赢方：", f"seat {sit.winner} wins: ")
        + _fans(s.fans[sit.winner], lang)
        + " | "
        + " + ".join(number_text(-s.win_payments[x]) for x in range(4) if x != sit.winner)
        + f" = {number_text(s.win_payments[sit.winner])}"
    )
    for seat, meld, pays in s.kongs:
        lines.append(
            pick(
                lang,
                f"{seat}号位 {KONG_NAMES[meld.kind][0]} {format_tile(meld.tiles[0])}：",
                f"seat {seat} {KONG_NAMES[meld.kind][1]} of {format_tile(meld.tiles[0])}: ",
            )
            + "  ".join(f"{x}: {_signed(p)}" for x, p in enumerate(pays))
        )
    if s.kongs:
        lines.append(
            pick(lang, "胡牌", "Hand")
            + ": "
            + "  ".join(f"{x}: {_signed(p)}" for x, p in enumerate(s.win_payments))
            + " · "
            + pick(lang, "杠", "kongs")
            + ": "
            + "  ".join(f"{x}: {_signed(p)}" for x, p in enumerate(s.kong_payments))
        )
    lines.append(
        pick(lang, "结算", "Payments")
        + ": "
        + "  ".join(f"{x}: {_signed(p)}" for x, p in enumerate(s.payments))
    )
    return "\n".join(lines)
