"""The settlement of a Baishan win 白山麻将 (RULES.md Part B): fans, capped powers of two, kongs.

Each loser pays ``base × 2^(winner's fans + its own fans)``, at most the cap (2^6 units);
thirteen orphans pays twice the cap.  Every kong on the table is paid on the spot by the three
others (exposed 1 unit, concealed 2, 大杠 ×2, the dealer ×2 either way) and those payments are
part of the hand's total.

>>> from laizi.scoring import situation_from_json
>>> s = score(situation_from_json({
...     "rules": "baishan", "dealer": 0, "winner": 1, "win": "self_draw",
...     "winning_tile": "5z",
...     "players": [{}, {"hand": "111m234p567p789s5z"}, {}, {}]}))
>>> s.wins, [int(p) for p in s.payments]
(('pinghu',), [-32, 64, -16, -16])
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from laizi.rules.baishan.readings import BaishanReading, evaluate
from laizi.rules.melds import Meld
from laizi.rules.situation import WinSituation, number_json
from laizi.tiles import KINDS, count_vector, format_tile, is_honor, is_suited

__all__ = [
    "BIG_KONG_TILES",
    "FANS",
    "SHAPE_ORDER",
    "BaishanSettlement",
    "Fan",
    "Fans",
    "kong_payments",
    "public_fans",
    "score",
]

FANS: dict[str, tuple[str, str, str]] = {
    "baoting": ("报听", "declared ready", "both"),
    "pengpenghu": ("碰碰胡", "all triplets", "win"),
    "limen": ("立门", "concealed", "both"),
    "dianpao": ("点炮", "discarder", "lose"),
    "zimo": ("自摸", "self-drawn", "win"),
    "zuozhuang": ("坐庄", "dealer", "both"),
    "hunyise": ("混一色", "one suit and honors", "win"),
    "shoubayi": ("手把一", "one tile left", "both"),
    "ganghoukai": ("杠后开", "after a kong", "both"),
    "yibangao": ("一般高", "two identical sequences", "both exposed, win concealed"),
    "siguiyi": ("四归一", "four of a kind, not konged", "both exposed, win concealed"),
    "qingyise": ("清一色", "one suit", "win"),
    "sanhuatongshun": ("三花同顺", "three identical sequences", "both exposed, win concealed"),
    "sanjiaqing": ("三家清", "three others concealed", "win"),
    "sijiaqing": ("四家清", "nobody opened", "win"),
    "qidui": ("七对", "seven pairs", "win"),
    "shisanyao": ("十三幺", "thirteen orphans", "win"),
}
"""Every fan id: Chinese name, English name, and when it counts (Part B)."""
SHAPE_ORDER = ("pinghu", "piaohu", "qidui", "shisanyao")
"""The ``wins`` ids of Baishan readings (INTERFACES.md)."""
SHAPE_NAMES = {
    "pinghu": ("平胡", "standard hand"),
    "piaohu": ("飘胡", "all triplets"),
    "qidui": ("七对", "seven pairs"),
    "shisanyao": ("十三幺", "thirteen orphans"),
}
BIG_KONG_TILES = frozenset({0, 9, 18})
"""大杠: a kong of 1m, 1p or 1s is paid double (Part B)."""
_QIDUI_FANS = 6  # "7对子 … 胡牌时封顶": the cap, 2^6
_SHISANYAO_FANS = 7  # "七番牌(封顶*2)"
_ZERO = Fraction(0)


@dataclass(frozen=True)
class Fan:
    """One fan a seat counts, e.g. ``Fan("dianpao", 1)``."""

    name: str
    fans: int

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "fans": self.fans}


@dataclass(frozen=True)
class Fans:
    """A seat's fans: the list and their sum."""

    total: int
    fans: tuple[Fan, ...]

    @classmethod
    def of(cls, fans: Sequence[Fan]) -> Fans:
        return cls(sum(f.fans for f in fans), tuple(fans))

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "fans": [f.to_json() for f in self.fans]}


@dataclass(frozen=True)
class BaishanSettlement:
    """A settled Baishan win: the ``laizi score --json`` object and the readable explanation.

    ``win_payments`` are the hand's, ``kong_payments`` every kong's on-the-spot payments, and
    ``payments`` their sum (four Fractions, zero-sum).  All zero when the win is refused.
    """

    situation: WinSituation
    allowed: bool
    reason: str | None
    wins: tuple[str, ...]
    fans: tuple[Fans, ...]
    raw: tuple[Fraction | None, ...]
    caps: tuple[str | None, ...]
    win_payments: tuple[Fraction, ...]
    kong_payments: tuple[Fraction, ...]
    kongs: tuple[tuple[int, Meld, tuple[Fraction, ...]], ...]
    payments: tuple[Fraction, ...]

    def to_json(self) -> dict[str, Any]:
        settings = self.situation.settings
        return {
            "allowed": self.allowed,
            "reason": self.reason,
            "wins": list(self.wins),
            "hard": None,
            "base": 1 if self.allowed else None,
            "fans": [f.to_json() for f in self.fans],
            "raw": [None if r is None else number_json(r) for r in self.raw],
            "caps": list(self.caps),
            "contract": None,
            "win_payments": [number_json(p) for p in self.win_payments],
            "kong_payments": [number_json(p) for p in self.kong_payments],
            "kongs": [
                {
                    "seat": seat,
                    "kind": meld.kind,
                    "tile": format_tile(meld.tiles[0]),
                    "payments": [number_json(p) for p in pays],
                }
                for seat, meld, pays in self.kongs
            ],
            "payments": [number_json(p) for p in self.payments],
            "rules": settings.preset,
            "rules_hash": settings.short_hash(),
        }

    def explain(self, lang: str = "en") -> str:
        """The readable table, one line per player (Chinese ``zh`` or English ``en``)."""
        from laizi.rules.baishan.explain import explain

        return explain(self, "zh" if lang == "zh" else "en")

    def __repr__(self) -> str:
        if not self.allowed:
            return f"BaishanSettlement(refused: {self.reason})"
        pays = ", ".join(str(p) for p in self.payments)
        return f"BaishanSettlement({'+'.join(self.wins)}, payments [{pays}])"


# --- the settlement ------------------------------------------------------------------------


def score(situation: WinSituation) -> BaishanSettlement:
    """Settle a claimed Baishan win (Part B); ``.allowed`` is the win check.

    The situation is trusted: input from outside is checked once, where it is read
    (:func:`laizi.rules.baishan.validate.check_situation`)."""
    winner = situation.players[situation.winner]
    assert winner.hand is not None
    concealed = count_vector((*winner.hand, situation.winning_tile), limit=None)
    verdict = evaluate(concealed, winner.melds)
    kongs = _kongs(situation)
    kong_total = [_ZERO] * 4
    for _, _, pays in kongs:
        for seat in range(4):
            kong_total[seat] += pays[seat]
    if not verdict.allowed:
        zero = (_ZERO,) * 4
        return BaishanSettlement(
            situation,
            False,
            verdict.reason,
            (),
            (Fans(0, ()),) * 4,
            (None,) * 4,
            (None,) * 4,
            zero,
            tuple(kong_total),
            kongs,
            zero,
        )
    settled = [_settle(situation, concealed, r, kongs, kong_total) for r in verdict.readings]
    return max(settled, key=lambda s: (s.win_payments[situation.winner], s.wins))


def _kongs(situation: WinSituation) -> tuple[tuple[int, Meld, tuple[Fraction, ...]], ...]:
    """Every kong on the table with what it was paid on the spot (Part B)."""
    base = situation.settings.base
    found = []
    for seat, player in enumerate(situation.players):
        for meld in player.melds:
            if meld.is_kong:
                pays = kong_payments(base, situation.dealer, seat, meld.kind, meld.tiles[0])
                found.append((seat, meld, pays))
    return tuple(found)


def _settle(
    situation: WinSituation,
    concealed: list[int],
    reading: BaishanReading,
    kongs: tuple[tuple[int, Meld, tuple[Fraction, ...]], ...],
    kong_total: list[Fraction],
) -> BaishanSettlement:
    settings = situation.settings
    unit = settings.base
    cap = settings.cap * unit
    winner = situation.winner
    opened = [p.openings > 0 for p in situation.players]
    losers = [s for s in range(4) if s != winner]
    all_closed = not any(opened)
    others_closed = not any(opened[s] for s in losers)
    fans = []
    for seat in range(4):
        if seat == winner:
            fans.append(
                Fans.of(_winner_fans(situation, concealed, reading, all_closed, others_closed))
            )
        else:
            fans.append(Fans.of(_loser_fans(situation, seat, others_closed)))
    raw: list[Fraction | None] = [None] * 4
    caps: list[str | None] = [None] * 4
    win_payments = [_ZERO] * 4
    for seat in losers:
        if reading.shape == "shisanyao":
            amount = 2 * cap  # 十三幺: twice the cap, whatever else counts (Part B)
            raw[seat] = amount
        else:
            amount = unit * 2 ** (fans[winner].total + fans[seat].total)
            raw[seat] = amount
            if amount > cap:
                amount, caps[seat] = cap, "cap"
        win_payments[seat] -= amount
        win_payments[winner] += amount
    payments = tuple(w + k for w, k in zip(win_payments, kong_total, strict=True))
    return BaishanSettlement(
        situation,
        True,
        None,
        (reading.shape,),
        tuple(fans),
        tuple(raw),
        tuple(caps),
        tuple(win_payments),
        tuple(kong_total),
        kongs,
        payments,
    )


def _sequence_fans(sequences: Sequence[int]) -> list[Fan]:
    """一般高 for each sequence held twice, 三花同顺 for one held three times (or four)."""
    found = []
    for _, n in sorted(Counter(sequences).items()):
        if n == 2:
            found.append(Fan("yibangao", 1))
        elif n >= 3:
            found.append(Fan("sanhuatongshun", 2))
    return found


def _exposed_fours(melds: Sequence[Meld]) -> list[Fan]:
    """四归一 shown on the table: all four copies of a kind in chows and pungs (no kong)."""
    counts = Counter(t for m in melds if not m.is_kong for t in m.tiles)
    return [Fan("siguiyi", 1) for _, n in sorted(counts.items()) if n == 4]


def _winner_fans(
    situation: WinSituation,
    concealed: list[int],
    reading: BaishanReading,
    all_closed: bool,
    others_closed: bool,
) -> list[Fan]:
    if reading.shape == "shisanyao":
        return [Fan("shisanyao", _SHISANYAO_FANS)]
    if reading.shape == "qidui":
        return [Fan("qidui", _QIDUI_FANS)]  # the cap when winning, nothing to add
    seat = situation.winner
    player = situation.players[seat]
    melds = player.melds
    fans: list[Fan] = []
    if player.declared_ready:
        fans.append(Fan("baoting", 1))
    if reading.shape == "piaohu":
        fans.append(Fan("pengpenghu", 1))
    if not player.openings and not all_closed:
        fans.append(Fan("limen", 1))
    if situation.win == "self_draw":
        fans.append(Fan("zimo", 1))
    if seat == situation.dealer:
        fans.append(Fan("zuozhuang", 1))
    tiles = [t for t in range(KINDS) for _ in range(concealed[t])]
    tiles += [t for m in melds for t in m.tiles]
    suits = {t // 9 for t in tiles if is_suited(t)}
    honors = any(is_honor(t) for t in tiles)
    if len(suits) == 1 and not honors:
        fans.append(Fan("qingyise", 2))
    elif len(suits) <= 1 and honors:
        fans.append(Fan("hunyise", 1))
    if player.hand is not None and len(player.hand) == 1:
        fans.append(Fan("shoubayi", 1))  # one tile left, won on its pair (单贴)
    if situation.after_kong:
        fans.append(Fan("ganghoukai", 1))
    sequences = [m.tiles[0] for m in melds if m.kind == "chow"] + list(reading.chows)
    fans += _sequence_fans(sequences)
    held = Counter(tiles)
    konged = {m.tiles[0] for m in melds if m.is_kong}
    fans += [Fan("siguiyi", 1) for t, n in sorted(held.items()) if n == 4 and t not in konged]
    if all_closed:
        fans.append(Fan("sijiaqing", 3))
    elif others_closed:
        fans.append(Fan("sanjiaqing", 2))
    return fans


def _loser_fans(situation: WinSituation, seat: int, others_closed: bool) -> list[Fan]:
    player = situation.players[seat]
    fans: list[Fan] = []
    if player.declared_ready:
        fans.append(Fan("baoting", 1))
    # 三家清 / 四家清 are the winner's: the losers then count no 立门 (Part B).  A loser holding
    # seven pairs is unopened anyway, so it counts 立门 like any concealed hand.
    if not player.openings and not others_closed:
        fans.append(Fan("limen", 1))
    if situation.win == "discard" and seat == situation.from_seat:
        fans.append(Fan("dianpao", 1))
        if situation.after_kong_discard:
            fans.append(Fan("ganghoukai", 1))  # 杠后点炮
    if seat == situation.dealer:
        fans.append(Fan("zuozhuang", 1))
    if player.hand is not None and len(player.hand) == 1:
        fans.append(Fan("shoubayi", 1))
    fans += _sequence_fans([m.tiles[0] for m in player.melds if m.kind == "chow"])
    fans += _exposed_fours(player.melds)
    return fans


def public_fans(
    melds: Sequence[Meld], openings: int, declared_ready: bool, dealer: bool
) -> list[Fan]:
    """The fans a seat already counts that everyone sees during the hand: 报听, 立门 while it
    has not opened, 坐庄, and its exposed melds' 一般高 / 三花同顺 / 四归一."""
    fans: list[Fan] = []
    if declared_ready:
        fans.append(Fan("baoting", 1))
    if not openings:
        fans.append(Fan("limen", 1))
    if dealer:
        fans.append(Fan("zuozhuang", 1))
    fans += _sequence_fans([m.tiles[0] for m in melds if m.kind == "chow"])
    fans += _exposed_fours(melds)
    return fans


def kong_payments(
    base: Fraction, dealer: int, seat: int, kind: str, tile: int
) -> tuple[Fraction, ...]:
    """What a kong pays on the spot (Part B): each other seat pays the kong's owner.

    An exposed kong (冲杠, 蓄杠) is 1 unit, a concealed one (暗杠) 2; a 大杠 (1m, 1p, 1s) is ×2;
    a dealer's kong is paid ×2 by everyone, and the dealer pays ×2 for anyone else's kong.

    >>> [int(p) for p in kong_payments(Fraction(1), 0, 0, "concealed_kong", 0)]
    [24, -8, -8, -8]
    """
    unit = Fraction(2 if kind == "concealed_kong" else 1) * base
    if tile in BIG_KONG_TILES:
        unit *= 2
    payments = [Fraction(0)] * 4
    for other in range(4):
        if other != seat:
            amount = unit * (2 if dealer in (seat, other) else 1)
            payments[other] -= amount
            payments[seat] += amount
    return tuple(payments)
