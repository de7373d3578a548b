"""The readable settlement, in the shape of the seeds' 番底 table: one line per player.

Each line gives the seat's factors and multiplier M; a loser's line goes on with
``base × M(loser) × M(winner) = raw``, the amount after caps, and what it finally pays (0 when a
contract moves the whole bill to one player); the winner's line sums what it receives.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from laizi.i18n import Lang, pick
from laizi.numbers import number_text
from laizi.rules.wuhan.settings import wuhan_settings
from laizi.rules.wuhan.specials import indicator_and_laizi
from laizi.tiles import format_tile

if TYPE_CHECKING:
    from laizi.rules.situation import Factor, Multiplier
    from laizi.rules.wuhan.settle import Settlement

__all__ = ["explain", "words"]

WIN_NAMES = {
    "small": ("小胡", "small win"),
    "pengpenghu": ("碰碰胡", "all pungs"),
    "qingyise": ("清一色", "one suit"),
    "fengyise": ("风一色", "all honors"),
    "jiangyise": ("将一色", "all 2-5-8"),
    "quanqiuren": ("全求人", "all from others"),
    "haidilao": ("海底捞", "last-tiles draw"),
    "gangshanghua": ("杠上花", "win on a kong's replacement"),
    "qiangganghu": ("抢杠", "robbing a kong"),
}
FACTOR_NAMES = {
    "opened": ("开口", "opened"),
    "exposed_kong": ("明杠", "exposed kong"),
    "concealed_kong": ("暗杠", "concealed kong"),
    "hongzhong_gang": ("红中杠", "red dragon laid out"),
    "facai_gang": ("发财杠", "green dragon laid out"),
    "pi_gang": ("癞子皮杠", "pi laid out"),
    "laizi_gang": ("癞子杠", "laizi laid out"),
    "self_draw": ("自摸", "self-drawn"),
    "hard": ("硬胡", "hard"),
    "discarder": ("放冲", "discarder"),
    "robbed": ("被抢杠", "kong robbed"),
    "dealer": ("坐庄", "dealer"),
    "dealer_won": ("庄家胡", "dealer won"),
}
REASONS = {
    "holds_special": ("手上有必须杠出的牌（红中/发财/癞子皮），不能胡", "holds a must-gang tile"),
    "not_opened": ("没有开口，不能胡", "never opened"),
    "not_complete": ("不成胡牌牌型", "not a winning hand"),
    "two_laizi": ("手上两个或以上癞子，不能胡小胡", "two or more laizi: no small win"),
    "below_minimum": ("未达起胡点数", "below the room's minimum"),
}
CAP_NAMES = {
    "cap": ("封顶", "cap"),
    "golden": ("金顶", "golden cap"),
    "sunshine": ("阳光顶", "sunshine cap"),
    "three_suns": ("三阳开泰", "three suns"),
}
CONTRACT_NAMES = {
    "qiangganghu": ("抢杠承包", "robbed kong"),
    "quanqiuren": ("全求人承包（放冲者未听牌）", "all-from-others, discarder not ready"),
    "sanjubao": ("三句包（清一色第三口）", "one-suit, third opening"),
}

COUNTED_FACTORS = ("opened",)
"""Factors shown with their count even once: 开口（1次）."""
HOW_WINS = {"gangshanghua": "kong_bloom", "haidilao": "last_tile"}
"""Wins that say how the hand was won: the client's 杠上花 / 海底捞 mark."""


def words() -> dict[str, object]:
    """The names a player reads for this game's ids, for the web client (which copies none):
    wins, factors, caps, contracts and refusal reasons as ``(zh, en)``; the settlement's layout
    (``"multipliers"``: each seat's factors and M); ``counts``: openings and kongs double, so every
    seat shows its 开口/杠 counts; ``counted``: factors shown with their count even once; ``how``:
    wins that say how the hand was won."""
    return {
        "settlement": "multipliers",
        "counts": True,
        "wins": WIN_NAMES,
        "fans": {},
        "factors": FACTOR_NAMES,
        "caps": CAP_NAMES,
        "contracts": CONTRACT_NAMES,
        "reasons": REASONS,
        "counted": list(COUNTED_FACTORS),
        "how": HOW_WINS,
    }


def _signed(value: Fraction) -> str:
    return ("+" if value > 0 else "") + number_text(value)


def _factor(f: Factor, lang: Lang) -> str:
    zh, en = FACTOR_NAMES.get(f.name, (f.name, f.name))
    name = pick(lang, zh, en)
    if f.count > 1 or f.name in COUNTED_FACTORS:
        name += pick(lang, f"（{f.count}次）", f" ({f.count})")
    return f"{name} ×{number_text(f.factor)}"


def _mult(m: Multiplier, lang: Lang) -> str:
    if not m.factors:
        return pick(lang, "无番 → M 1", "no factors → M 1")
    return " · ".join(_factor(f, lang) for f in m.factors) + f" → M {number_text(m.total)}"


def explain(s: Settlement, lang: Lang) -> str:
    sit = s.situation
    settings = wuhan_settings(sit.settings)
    lines: list[str] = []
    lines.append(
        pick(lang, "规则", "Rules")
        + f" {settings.preset} ({settings.variant}, {settings.mode}) · "
        + pick(lang, "起胡", "minimum")
        + f" {number_text(settings.min_points * settings.base)} · hash {settings.short_hash()}"
    )
    pi = "".join(format_tile(t) for t in s.special.pi)
    indicator, laizi = indicator_and_laizi(s.special)
    lines.append(
        pick(lang, "翻牌", "Indicator")
        + f" {format_tile(indicator)} → "
        + pick(lang, "癞子", "laizi")
        + f" {format_tile(laizi)}"
        + (f" · {pick(lang, '癞子皮', 'pi')} {pi}" if pi else "")
        + f" · {pick(lang, '必杠', 'must-gang')} "
        + " ".join(format_tile(t) for t in sorted(s.special.must_gang))
    )
    lines.append(_how_won(s, lang))
    if not s.allowed:
        lines.append(
            pick(lang, "不能胡：", "Win refused: ")
            + pick(lang, *REASONS[s.reason or "not_complete"])
        )
        for seat, m in enumerate(s.multipliers):
            lines.append(pick(lang, f"{seat}号位：", f"seat {seat}: ") + _mult(m, lang))
        best = s.refused_reading
        if best is not None:
            wins = " + ".join(pick(lang, *WIN_NAMES[w]) for w in best.wins)
            hard = pick(lang, "硬胡", "hard") if best.hard else pick(lang, "软胡", "soft")
            raws = ", ".join(
                f"{seat}: {number_text(r)}" for seat, r in enumerate(best.raw) if r is not None
            )
            lines.append(
                pick(lang, "最好的读法", "Best reading")
                + pick(lang, f" {wins}（{hard}）：", f" {wins} ({hard}): ")
                + f"{raws} — "
                + pick(lang, "每家须至少", "each loser needs at least")
                + f" {number_text(settings.min_points * settings.base)}"
            )
        lines.append(pick(lang, "无人付分", "Nobody pays") + ": 0 0 0 0")
        return "\n".join(lines)

    wins = " + ".join(pick(lang, *WIN_NAMES[w]) for w in s.wins)
    hard = pick(lang, "硬胡", "hard") if s.hard else pick(lang, "软胡", "soft")
    unit = (
        ""
        if settings.base == 1
        else pick(
            lang, f" × 底 {number_text(settings.base)}", f" × unit {number_text(settings.base)}"
        )
    )
    lines.append(f"{wins} · {hard} · " + pick(lang, "基础分", "base") + f" {s.base}{unit}")
    winner_m = s.multipliers[sit.winner].total
    for seat in range(4):
        m = s.multipliers[seat]
        if seat == sit.winner:
            continue
        raw = s.raw[seat]
        assert raw is not None
        paid = -s.payments[seat] if s.contract is None else None
        cap = s.caps[seat]
        capped = _after_caps(s, seat)
        cap_text = (
            pick(lang, f"{CAP_NAMES[cap][0]}后 ", f"{CAP_NAMES[cap][1]} → ") + number_text(capped)
            if cap
            else pick(lang, "未封顶 ", "no cap ") + number_text(capped)
        )
        final = -s.payments[seat]
        lines.append(
            pick(lang, f"{seat}号位 输方：", f"seat {seat} loses: ")
            + _mult(m, lang)
            + f" | {s.base}{unit} × {number_text(m.total)} × {number_text(winner_m)}"
            + f" = {number_text(raw)}"
            + f" | {cap_text}"
            + f" | {pick(lang, '付', 'pays')} {number_text(final if paid is None else paid)}"
        )
    total = s.payments[sit.winner]
    parts = " + ".join(number_text(_after_caps(s, seat)) for seat in range(4) if seat != sit.winner)
    lines.append(
        pick(lang, f"{sit.winner}号位 赢方：", f"seat {sit.winner} wins: ")
        + _mult(s.multipliers[sit.winner], lang)
        + f" | {parts} = {number_text(total)}"
    )
    if s.contract is not None and s.contract_reason is not None:
        lines.append(
            pick(lang, "承包：", "Contract: ")
            + pick(lang, *CONTRACT_NAMES[s.contract_reason])
            + pick(
                lang,
                f"，{s.contract}号位一家付 {number_text(total)}",
                f": seat {s.contract} alone pays {number_text(total)}",
            )
        )
    lines.append(
        pick(lang, "结算", "Payments")
        + ": "
        + "  ".join(f"{seat}: {_signed(p)}" for seat, p in enumerate(s.payments))
    )
    return "\n".join(lines)


def _after_caps(s: Settlement, seat: int) -> Fraction:
    """What ``seat`` owes after caps, before any contract moves it."""
    amount = s.after_caps[seat]
    return Fraction(0) if amount is None else amount


def _how_won(s: Settlement, lang: Lang) -> str:
    sit = s.situation
    tile = format_tile(sit.winning_tile)
    if sit.win == "discard":
        text = pick(
            lang,
            f"{sit.winner}号位胡 {tile}（{sit.from_seat}号位放冲）",
            f"Seat {sit.winner} wins on {tile} discarded by seat {sit.from_seat}",
        )
    elif sit.win == "rob_kong":
        text = pick(
            lang,
            f"{sit.winner}号位抢 {sit.from_seat}号位的杠 {tile}",
            f"Seat {sit.winner} wins robbing seat {sit.from_seat}'s kong of {tile}",
        )
    else:
        text = pick(
            lang, f"{sit.winner}号位自摸 {tile}", f"Seat {sit.winner} wins on a self-drawn {tile}"
        )
    if sit.after_kong:
        text += pick(lang, "（杠后补牌）", " (replacement draw after a kong)")
    if sit.haidi:
        text += pick(lang, "（海底）", " (in the 海底 round)")
    return text + pick(lang, f" · 庄家 {sit.dealer}号位", f" · dealer: seat {sit.dealer}")
