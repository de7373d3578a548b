"""A terminal table: one person against three bots, drawn with rich (``laizi play``).

The person's seat is shown exactly what its view holds (:func:`laizi.engine.view`): the hand
sorted, with the laizi and the must-gang tiles marked; every seat's discards, melds, laid-out
tiles and current multiplier; the indicator; the legal actions, each with a key to type.  At the
end of a hand every hand is shown with the settlement's line-by-line table
(:meth:`laizi.scoring.Settlement.explain`), and the next hand follows on ``n``.

Input is read a line at a time (``read_line``), so the table runs in any terminal, a pty, or a
test that feeds it lines.
"""

from __future__ import annotations

import hashlib
import secrets
import string
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from laizi.bots.base import make_bot
from laizi.engine import Action, Match, apply, legal_actions, make_ruleset, view
from laizi.engine.actions import ABANDON, DISCARD
from laizi.engine.events import HandResult, encode_all
from laizi.engine.view import seat_event
from laizi.i18n import Lang, pick
from laizi.numbers import number_text
from laizi.rules.wuhan.explain import FACTOR_NAMES
from laizi.tiles import format_tile, parse_tile, parse_tiles, tile_name

__all__ = ["TerminalTable", "action_keys", "factor_text", "multiplier_text", "tile_legend"]

ACTION_NAMES = {
    "discard": ("打", "discard"),
    "chow": ("吃", "chow"),
    "pung": ("碰", "pung"),
    "kong": ("冲杠", "kong"),
    "concealed_kong": ("暗杠", "concealed kong"),
    "added_kong": ("蓄杠", "added kong"),
    "lay_out": ("亮", "lay out"),
    "win": ("胡", "win"),
    "pass": ("过", "pass"),
    "declare_ready": ("报听", "declare ready"),
}
MELD_NAMES = {
    "chow": ("吃", "chow"),
    "pung": ("碰", "pung"),
    "exposed_kong": ("冲杠", "kong"),
    "added_kong": ("蓄杠", "added kong"),
    "concealed_kong": ("暗杠", "concealed kong"),
}
OTHER_KEYS = string.digits[1:] + string.ascii_uppercase


def factor_text(factor: dict[str, Any], lang: Lang) -> str:
    """One factor of a multiplier as a player reads it, e.g. ``开口(3次)×2`` / ``opened (3)×2``.

    ``factor`` is already the whole factor (the view aggregates: kaikou's three openings are
    ×2 once, two red dragons laid out ×4), so the count is said in words, never as a power.

    >>> factor_text({"name": "opened", "factor": 2, "count": 3}, "en")
    'opened (3)×2'
    >>> factor_text({"name": "hongzhong_gang", "factor": 4, "count": 2}, "zh")
    '红中杠(2次)×4'
    >>> factor_text({"name": "self_draw", "factor": 1.5, "count": 1}, "en")
    'self-drawn×1.5'
    """
    zh, en = FACTOR_NAMES.get(factor["name"], (factor["name"], factor["name"]))
    name = pick(lang, zh, en)
    count = factor.get("count", 1)
    if count > 1:
        name += pick(lang, f"({count}次)", f" ({count})")
    return f"{name}×{number_text(Fraction(str(factor['factor'])))}"


def multiplier_text(multiplier: dict[str, Any], lang: Lang) -> str:
    """``×4 (opened (3)×2, laizi laid out×2)``: the factors shown multiply to the total shown."""
    parts = [factor_text(f, lang) for f in multiplier.get("factors", [])]
    total = number_text(Fraction(str(multiplier.get("total", 1))))
    return f"×{total}" + (f" ({', '.join(parts)})" if parts else "")


def tile_legend(lang: Lang) -> str:
    """How to read a tile code: the suits, the honours 1z–7z, and the laizi / must-gang marks."""
    honors = " ".join(f"{n}z={tile_name(26 + n, lang)}" for n in range(1, 8))
    return pick(
        lang,
        f"图例：1m–9m=万  1p–9p=筒  1s–9s=条  {honors}  *=癞子  !=必杠",
        f"legend: 1m–9m=Characters  1p–9p=Dots  1s–9s=Bamboo  {honors}  *=laizi  !=must-gang",
    )


def action_keys(legal: Sequence[Action], hand: Sequence[int]) -> dict[str, Action]:
    """Keys for the legal actions: discards by the tile's letter in the sorted hand (a, b, …),
    everything else by 1, 2, … in the engine's order.

    >>> keys = action_keys([Action(0, "discard", 3), Action(0, "pass")], [1, 3, 3])
    >>> sorted(keys.items())
    [('1', Action('0 pass')), ('b', Action('0 discard 4m'))]
    """
    keys: dict[str, Action] = {}
    others = iter(OTHER_KEYS)
    for action in legal:
        if action.type == DISCARD and action.tile is not None and action.tile in hand:
            keys[string.ascii_lowercase[list(hand).index(action.tile)]] = action
        else:
            keys[next(others)] = action
    return keys


class TerminalTable:
    """Hands in a row at one table: ``seat`` is the person, the other seats are ``bots``."""

    def __init__(
        self,
        rules: Any,
        *,
        seat: int = 0,
        bots: str = "strong",
        seed: int | None = None,
        lang: Lang = "en",
        console: Console | None = None,
        read_line: Callable[[], str | None] = lambda: input(),
    ) -> None:
        self.ruleset = make_ruleset(rules)
        self.settings = self.ruleset.settings
        self.seat = seat
        self.bot_name = bots
        self.seed = seed
        self.lang = lang
        self.console = console or Console()
        self.read_line = read_line
        self.match = Match(self.ruleset, dealer=0)
        self.log: list[str] = []
        self._input_ended = False
        for s in range(4):
            if s != seat:
                make_bot(bots, self.settings, 0)

    # --- the loop ---------------------------------------------------------------------------
    def run(self, hands: int | None = None) -> list[Any]:
        """Play until the person quits (``q`` or end of input) or ``hands`` hands are done."""
        played = 0
        while not self.match.over:
            if not self.play_hand():
                break
            played += 1
            if hands is not None and played >= hands:
                break
            answer = self.ask(
                pick(self.lang, "[n] 下一局  [q] 退出", "[n] next hand  [q] quit"), {"n", "q"}
            )
            if answer != "n":
                break
        return list(self.match.totals)

    def _hand_seed(self) -> bytes:
        if self.seed is None:
            return secrets.token_bytes(32)
        return hashlib.sha256(f"laizi-play:{self.seed}:{self.match.hands_played}".encode()).digest()

    def play_hand(self) -> bool:
        """One hand; False when the person left (the escape is settled and shown)."""
        number = self.match.hands_played
        bots = {
            s: make_bot(self.bot_name, self.settings, (self.seed or 0) * 10 + number * 4 + s)
            for s in range(4)
            if s != self.seat
        }
        state, record = self.match.deal(self._hand_seed())
        self.log = []
        stayed = True
        while not state.over:
            seat = state.to_act()[0]
            if self.seat in state.to_act():
                seat = self.seat
            legal = legal_actions(state, seat)
            if seat == self.seat:
                action = self.choose(view(state, seat), legal)
                if action is None:
                    action, stayed = Action(seat, ABANDON), False
            else:
                action = bots[seat].act(view(state, seat), legal)
            events = encode_all(apply(state, action))
            record += events
            for event in events:
                line = self.describe(seat_event(event, self.seat))
                if line:
                    self.log.append(line)
        self.show_end(view(state, self.seat), state.result)
        self.match.finish(record)
        return stayed

    def ask(self, prompt: str, allowed: set[str]) -> str | None:
        """Ask until one of ``allowed`` (or ``q``) is typed; None for ``q`` or end of input.

        Prompts are plain text, never rich markup: ``[n]`` is shown as typed."""
        while True:
            self.console.print(Text(prompt))
            self.console.print("> ", end="")
            line = self.read_line()
            if line is None:
                self._input_ended = True
                return None
            key = line.strip()
            if key in allowed:
                return key
            if key == "q":
                return None
            self.console.print(
                Text(pick(self.lang, f"没有 {key!r} 这个选项", f"no choice {key!r}"))
            )

    def escape_penalty(self) -> str:
        """What leaving a hand in progress costs (A9), as text."""
        return number_text(self.settings.escape_penalty * self.settings.base)

    def confirm_escape(self) -> bool:
        """``q`` during a hand: say the penalty and ask again; True only for ``y``."""
        penalty = self.escape_penalty()
        answer = self.ask(
            pick(
                self.lang,
                f"现在离开算逃跑，要付 {penalty} 分，本场比赛结束。确定？[y] 离开  [n] 继续打",
                f"Leaving now is an escape: you pay {penalty} and the match ends. "
                "Sure? [y] leave  [n] keep playing",
            ),
            {"y", "n"},
        )
        return answer == "y"

    def choose(self, seen: dict[str, Any], legal: Sequence[Action]) -> Action | None:
        hand = sorted(set(parse_tiles(seen["concealed"])))
        keys = action_keys(legal, hand)
        self.show(seen, keys)
        penalty = self.escape_penalty()
        prompt = pick(
            self.lang,
            f"按键选择（q 离开=逃跑，付 {penalty} 分）",
            f"type a key (q leaves = escape, you pay {penalty})",
        )
        while True:
            line_key = self.ask(prompt, set(keys) - {"q"})
            if line_key is not None:
                return keys[line_key]
            if self._input_ended or self.confirm_escape() or self._input_ended:
                return None

    # --- drawing ----------------------------------------------------------------------------
    def named(self, text: str, mark: str = "") -> str:
        """A tile code with its name: ``7z*(红中)`` / ``7z*(Red Dragon)``."""
        return f"{text}{mark}({tile_name(parse_tile(text), self.lang)})"

    def tile(self, text: str, seen: dict[str, Any]) -> Text:
        tile = parse_tile(text)
        if seen.get("laizi") is not None and tile == parse_tile(seen["laizi"]):
            return Text(f"{text}*", style="bold yellow")
        if text in seen.get("must_gang", []):
            return Text(f"{text}!", style="bold red")
        return Text(text)

    def tiles(self, texts: Sequence[str], seen: dict[str, Any]) -> Text:
        out = Text()
        for index, text in enumerate(texts):
            if index:
                out.append(" ")
            out.append_text(self.tile(text, seen))
        return out

    def show(self, seen: dict[str, Any], keys: dict[str, Action]) -> None:
        lang = self.lang
        c = self.console
        c.rule(pick(lang, f"第 {seen['hand'] + 1} 局", f"Hand {seen['hand'] + 1}"))
        parts = []
        if seen.get("indicator"):
            parts.append(pick(lang, "翻牌", "indicator") + f" {self.named(seen['indicator'])}")
            parts.append(pick(lang, "癞子", "laizi") + f" {self.named(seen['laizi'], '*')}")
            gang = " ".join(self.named(t, "!") for t in seen["must_gang"])
            parts.append(pick(lang, "必杠", "must-gang") + f" {gang}")
        parts.append(pick(lang, "牌墙", "wall") + f" {seen['tiles_left']}")
        specials = "  ".join(parts)
        c.print(Text(f"{self.settings.preset} · {specials}"))
        table = Table(show_lines=False)
        headers = (
            pick(lang, "座位", "seat"),
            pick(lang, "倍数", "mult."),
            pick(lang, "副露 / 亮牌", "melds / laid out"),
            pick(lang, "弃牌", "discards"),
            pick(lang, "手牌", "hand"),
            pick(lang, "总分", "score"),
        )
        for header in headers:
            table.add_column(header)
        for player in seen["players"]:
            s = player["seat"]
            who = pick(lang, "你", "you") if s == self.seat else self.bot_name
            label = f"{s} {who}" + (pick(lang, " 庄", " dealer") if s == seen["dealer"] else "")
            if player.get("declared_ready"):
                label += pick(lang, " 报听", " ready")
            melds = Text()
            for meld in player["melds"]:
                name = pick(lang, *MELD_NAMES[meld["kind"]])
                melds.append(f"{name} {meld['tiles'] or '????'}  ")
            if player["laid_out"]:
                melds.append_text(self.tiles(player["laid_out"], seen))
            # Baishan counts fans at the end, not a running multiplier: "—"
            mult = multiplier_text(player["multiplier"], lang) if "multiplier" in player else "—"
            table.add_row(
                label,
                mult,
                melds,
                self.tiles(player["discards"], seen),
                str(player["hand_size"]),
                number_text(Fraction(str(seen["scores"][s]))),
            )
        c.print(table)
        c.print(Text(tile_legend(lang), style="dim"))
        for line in self.log[-6:]:
            c.print(f"  {line}")
        own = [format_tile(t) for t in parse_tiles(seen["concealed"])]
        c.print(
            pick(lang, "你的手牌：", "your hand: "),
            self.tiles(own, seen),
            pick(lang, f"  摸到 {seen['drawn']}", f"  drew {seen['drawn']}")
            if seen.get("drawn")
            else "",
        )
        if "claim" in seen:
            c.print(
                pick(
                    lang,
                    f"座位 {seen['claim']['from']} 打出 {seen['claim']['tile']}",
                    f"seat {seen['claim']['from']} discarded {seen['claim']['tile']}",
                )
            )
        choices = Text()
        for key, action in keys.items():
            name = pick(lang, *ACTION_NAMES.get(action.type, (action.type, action.type)))
            shown = action.tile is not None or action.tiles is not None
            what = action.notation().split(" ", 2)[2:] if shown else []
            choices.append(f"[{key}] {name}{' ' + what[0] if what else ''}  ", style="cyan")
        c.print(choices)

    def describe(self, event: dict[str, Any] | None) -> str | None:
        if event is None:
            return None
        kind = event["type"]
        if kind in ("start", "deal", "end", "claim", "pass"):
            return None
        who = pick(self.lang, f"座位 {event.get('seat')}", f"seat {event.get('seat')}")
        if kind == "draw":
            return (
                f"{who} "
                + pick(self.lang, "摸牌", "draws")
                + (f" {event['tile']}" if "tile" in event else "")
            )
        name = pick(self.lang, *ACTION_NAMES.get(kind, MELD_NAMES.get(kind, (kind, kind))))
        tile = event.get("tiles") or event.get("tile") or ""
        return f"{who} {name} {tile}".rstrip()

    def show_end(self, seen: dict[str, Any], result: HandResult | None) -> None:
        lang = self.lang
        c = self.console
        assert result is not None
        c.rule(pick(lang, "本局结束", "End of the hand"))
        for s, hand in enumerate(seen["result"]["hands"]):
            c.print(Text(f"{self.seat_label(s)}: {hand}"))
        settlement = result["settlement"]
        if result["reason"] == "win" and settlement is not None:
            c.print(pick(lang, f"座位 {result['winner']} 胡牌", f"seat {result['winner']} wins"))
            c.print(settlement.explain(lang))
        elif result["reason"] == "drawn" and any(result["payments"]):
            # Baishan: kongs are paid on the spot and stand whatever the end (Part B)
            c.print(pick(lang, "流局（荒庄）：杠钱照付", "drawn hand: the kong payments stand"))
        elif result["reason"] == "drawn":
            c.print(pick(lang, "流局（荒庄）：不计分", "drawn hand: nobody pays"))
        else:
            c.print(pick(lang, f"座位 {result['escaped']} 逃跑", f"seat {result['escaped']} left"))
        c.print(Text(pick(lang, "本局得分：", "payments: ") + self.by_seat(result["payments"])))
        c.print(
            Text(
                pick(lang, "累计总分：", "totals so far: ")
                + self.by_seat(self.totals_after(result))
            )
        )

    def seat_label(self, seat: int) -> str:
        """``座位 0（你）`` / ``seat 1 (strong)``."""
        if seat == self.seat:
            return pick(self.lang, f"座位 {seat}（你）", f"seat {seat} (you)")
        bot = self.bot_name
        return pick(self.lang, f"座位 {seat}（机器人 {bot}）", f"seat {seat} (bot {bot})")

    def by_seat(self, amounts: Sequence[Any]) -> str:
        """Four amounts, each after its seat's label, signed, fractions as fractions."""
        return "  ".join(
            f"{self.seat_label(s)} {_signed(Fraction(a))}" for s, a in enumerate(amounts)
        )

    def totals_after(self, result: HandResult) -> list[Fraction]:
        """The match totals once this hand's payments are booked."""
        return [t + Fraction(p) for t, p in zip(self.match.totals, result["payments"], strict=True)]


def _signed(value: Fraction) -> str:
    return ("+" if value > 0 else "") + number_text(value)
