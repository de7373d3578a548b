"""The words of ``laizi verify`` (and of a record that does not replay) in Chinese and English.

The engine's :class:`~laizi.engine.record.Verdict` carries English ids and messages (they are
the ``--json`` output); this module words them for a person: each hand's outcome with its
payments, exact (``+400/3``, never a rounded decimal), and each known failure in both languages.

>>> from fractions import Fraction
>>> hand_text({"hand": 0, "reason": "abandon", "winner": None, "escaped": 2,
...            "payments": (Fraction(400, 3), Fraction(400, 3), Fraction(-400), Fraction(400, 3))},
...           "zh")
'第 0 局：座位 2 逃跑；得分 座位 0 +400/3、座位 1 +400/3、座位 2 -400、座位 3 +400/3'
>>> problem_text("event 7: the revealed seed does not match the commitment", "zh")
'第 7 个事件（从 0 数）：公开的种子与开局的承诺（commitment）不符'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from laizi.i18n import Lang, pick
from laizi.numbers import number_text

__all__ = ["hand_text", "problem_text", "verdict_text"]

# (the engine's English message, its Chinese wording); groups carry over as {0}, {1}, …
_PROBLEMS_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), zh)
    for pattern, zh in (
        (
            r"the revealed seed does not match the commitment",
            "公开的种子与开局的承诺（commitment）不符",
        ),
        (r"recorded (.*), replay gives (.*)", "记录是 {0}，重放得到的却是 {1}"),
        (r"missing: the engine produced (.*)", "记录少了一个事件：重放得到 {0}"),
        (r"events after the end of the hand", "这一局结束之后还有事件"),
        (
            r"the record ends before the hand does \(seats to act: (.*)\)",
            "这一局还没结束记录就断了（该行动的座位：{0}）",
        ),
        (
            r"expected a decision of seat\(s\) (.*), found (.*)",
            "这里应是座位 {0} 的决定，记录里却是 {1}",
        ),
        (r"illegal: (.*)", "非法动作：{0}"),
        (
            r"the deal is not the wall of sha256\(seed, contributions\).*",
            "发的牌不是 sha256(种子, 各家贡献) 得出的牌墙：某个贡献或发牌被改过",
        ),
        (r"the deal is not the wall of the seed.*", "发的牌不是这个种子得出的牌墙"),
        (
            r"running totals do not carry on: hand (\d+) starts from (.*),"
            r" hand (\d+) ended at (.*)",
            "累计总分与上一局接不上：第 {0} 局从 {1} 开始，第 {2} 局结束时是 {3}",
        ),
        (r"hand (-?\d+): hands are numbered from 0", "第 {0} 局：局号从 0 开始数"),
        (r"the running totals (.*) do not sum to 0", "累计总分 {0} 加起来不是 0"),
        (r"hand 0 starts from totals (.*), not from 0", "第 0 局的累计总分是 {0}，不是从 0 开始"),
        (r"hand 0 has no previous hand to link to", "第 0 局之前没有上一局，不能有 previous"),
        (
            r"hand (\d+) does not link to hand (\d+) \(previous\)",
            "第 {0} 局没有链接到第 {1} 局（缺少 previous）",
        ),
        (
            r"the hash chain is broken: hand (\d+)'s previous is not the digest of hand (\d+)'s"
            r" record \((.*)\)",
            "哈希链断了：第 {0} 局的 previous 不是第 {1} 局记录的摘要（{2}）",
        ),
        (
            r"hand (\d+) is played under other rules than hand (\d+)",
            "第 {0} 局的规则与第 {1} 局不同",
        ),
        (r"hand (\d+) follows hand (\d+)", "局号不连续：第 {0} 局（从 0 数）接在第 {1} 局后面"),
        (
            r"the dealer should be seat (\d+) \(RULES A9\), not seat (\d+)",
            "庄家应是座位 {0}（规则 A9），不是座位 {1}",
        ),
        (r"a hand after an escape: the match ended there", "有人逃跑后比赛就结束了，却还有下一局"),
        (r"the record is empty", "记录是空的"),
        (r"a record starts with a start event", "记录必须以 start 事件开头"),
        (r"the hand's last event must reveal the seed", "这一局的最后一个事件必须公开种子"),
        (
            r"a record without a commitment must list its wall",
            "没有承诺（commitment）的记录必须列出牌墙",
        ),
        (r"the wall is not the 136 tiles", "牌墙不是那 136 张牌"),
        (r"unreadable decision: (.*)", "读不懂的决定：{0}"),
        (r"unreadable hand: (.*)", "读不懂的一局：{0}"),
        (r"rules: (.*)", "规则有误：{0}"),
        (r"rules must be a preset name or a rules object", "rules 必须是预设名或规则对象"),
        (r"dealer must be a seat 0–3", "庄家必须是座位 0–3"),
        (r"scores must be four numbers", "scores 必须是四个数"),
        (r"hand must be a number", "hand 必须是一个数"),
        (r"line (\d+) is not JSON: (.*)", "第 {0} 行不是 JSON：{1}"),
        (r"line (\d+) is not an event object", "第 {0} 行不是一个事件对象"),
    )
)
_EVENT = re.compile(r"event (\d+): (.*)", re.S)


def _signed(value: Fraction) -> str:
    return ("+" if value > 0 else "") + number_text(value)


def hand_text(result: dict[str, Any], lang: Lang) -> str:
    """One verified hand: how it ended and what each seat got (exact), numbered from 0 as in
    records and the API."""
    number = result["hand"]
    reason, winner = result["reason"], result["winner"]
    if reason == "win":
        how = pick(lang, f"座位 {winner} 胡牌", f"won by seat {winner}")
    elif reason == "abandon":
        how = pick(lang, f"座位 {result['escaped']} 逃跑", f"seat {result['escaped']} escaped")
    else:
        how = pick(lang, "流局（荒庄）", "drawn")
    payments: Sequence[Fraction] = result["payments"]
    amounts = pick(lang, "、", ", ").join(
        pick(lang, f"座位 {s} {_signed(p)}", f"seat {s} {_signed(p)}")
        for s, p in enumerate(payments)
    )
    return pick(lang, f"第 {number} 局：{how}；得分 {amounts}", f"hand {number}: {how}; {amounts}")


def problem_text(message: str, lang: Lang) -> str:
    """A failure message (``event N: …`` as the engine gives it) in ``lang``."""
    if lang != "zh":
        return message
    match = _EVENT.fullmatch(message)
    index, detail = (match.group(1), match.group(2)) if match else (None, message)
    for pattern, zh in _PROBLEMS_ZH:
        found = pattern.fullmatch(detail)
        if found:
            detail = zh.format(*found.groups())
            break
    return detail if index is None else f"第 {index} 个事件（从 0 数）：{detail}"


def verdict_text(
    status: str, hands: int, message: str, results: Sequence[dict[str, Any]], lang: Lang
) -> str:
    """The one-line verdict of ``laizi verify``: ``status`` is the engine's
    (:attr:`laizi.engine.record.Verdict.status`); hands are numbered from 0."""
    if status == "failed":
        return pick(lang, "不通过：", "FAILED: ") + problem_text(message, lang)
    detail = pick(lang, "；", "; ").join(hand_text(r, lang) for r in results)
    first = results[0]["hand"] if results else 0
    part = ""
    if first > 0:
        part = pick(
            lang,
            f"；记录从第 {first} 局开始：它开局时的累计总分和与第 {first - 1} 局的链接（previous）"
            "没有核对，核对整场比赛的记录才能核对它们",
            f"; the record starts at hand {first}: the totals it starts from and its link to hand"
            f" {first - 1} (previous) are not checked here (verify the whole match's record)",
        )
    if status == "unverifiable":
        numbers = ", ".join(str(r["hand"]) for r in results if not r.get("committed", True))
        return pick(
            lang,
            f"无法核实：{hands} 局可以重放，但第 {numbers} 局没有承诺（commitment）："
            f"牌墙是记录里列出的，不是由发牌前承诺的种子得出的，可能是挑选过的"
            f"（局号从 0 数；{detail}）{part}",
            f"unverifiable: {hands} hand(s) replay, but hand(s) {numbers} have no commitment:"
            f" the wall is listed, not derived from a seed committed to before the deal, so it"
            f" may have been chosen ({detail}){part}",
        )
    return pick(
        lang,
        f"通过：{hands} 局核对无误（局号从 0 数；{detail}）{part}",
        f"ok: {hands} hand(s) verified ({detail}){part}",
    )
