"""The settlement 结算 (RULES.md A7, A9, A10): multipliers, raw amounts, minimum, caps, contracts.

``Loss of loser L = base × M(L) × M(winner)`` (A7), counted in the room's unit.  Each reading of
the winning hand (:func:`laizi.rules.wuhan.readings.evaluate`) is settled in full; the one that
gives the winner the largest total after caps and contracts is kept, the hard one on a tie (A3).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from functools import lru_cache
from typing import Any

from laizi.numbers import number_text
from laizi.rules.melds import Meld
from laizi.rules.ruleset import SpecialTiles
from laizi.rules.situation import (
    Factor,
    InputError,
    Multiplier,
    PlayerHand,
    WinSituation,
    number_json,
)
from laizi.rules.wuhan.readings import Reading, Verdict, evaluate, is_ready
from laizi.rules.wuhan.settings import WuhanSettings, wuhan_settings
from laizi.rules.wuhan.specials import special_tiles
from laizi.tiles import RED, count_vector, format_tile

__all__ = ["Settlement", "current_multiplier", "multipliers", "score", "standing_factors"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Settlement:
    """The result of :func:`score`: who pays whom, and every step of why."""

    situation: WinSituation
    special: SpecialTiles
    allowed: bool
    reason: str | None
    wins: tuple[str, ...]
    hard: bool | None
    base: int | None
    multipliers: tuple[Multiplier, ...]
    raw: tuple[Fraction | None, ...]
    caps: tuple[str | None, ...]
    after_caps: tuple[Fraction | None, ...]
    """What each loser owes after caps, before a contract moves the bill (null for the winner)."""
    contract: int | None
    contract_reason: str | None
    payments: tuple[Fraction, ...]
    refused_reading: Settlement | None = field(default=None, repr=False)
    """For ``below_minimum``: the best reading's figures, to show how far it fell short."""

    def to_json(self) -> dict[str, Any]:
        """The ``laizi score --json`` object (INTERFACES.md keys, plus a few of our own)."""
        settings = wuhan_settings(self.situation.settings)
        assert self.special.laizi is not None
        out: dict[str, Any] = {
            "allowed": self.allowed,
            "reason": self.reason,
            "wins": list(self.wins),
            "hard": self.hard,
            "base": self.base,
            "multipliers": [m.to_json() for m in self.multipliers],
            "raw": [None if r is None else number_json(r) for r in self.raw],
            "caps": list(self.caps),
            "after_caps": [None if a is None else number_json(a) for a in self.after_caps],
            "contract": self.contract,
            "contract_reason": self.contract_reason,
            "payments": [number_json(p) for p in self.payments],
            "rules": settings.preset,
            "rules_hash": settings.short_hash(),
            "laizi": format_tile(self.special.laizi),
            "pi": [format_tile(t) for t in self.special.pi],
            "must_gang": [format_tile(t) for t in sorted(self.special.must_gang)],
        }
        if self.refused_reading is not None:
            best = self.refused_reading
            out["minimum"] = {
                "min_points": number_json(settings.min_points * settings.base),
                "wins": list(best.wins),
                "hard": best.hard,
                "base": best.base,
                "raw": [None if r is None else number_json(r) for r in best.raw],
            }
        return out

    def explain(self, lang: str = "en") -> str:
        """The readable table, one line per player (Chinese ``zh`` or English ``en``)."""
        from laizi.rules.wuhan.explain import explain

        return explain(self, "zh" if lang == "zh" else "en")

    def __repr__(self) -> str:
        if not self.allowed:
            return f"Settlement(refused: {self.reason})"
        wins = "+".join(self.wins)
        pays = ", ".join(number_text(p) for p in self.payments)
        return f"Settlement({wins}, {'hard' if self.hard else 'soft'}, payments [{pays}])"


def standing_factors(
    settings: WuhanSettings, special: SpecialTiles, melds: Sequence[Meld], laid_out: Sequence[int]
) -> list[Factor]:
    """The factors a seat carries whoever wins: openings, kongs, tiles laid out (A7)."""
    factors: list[Factor] = []
    openings = sum(1 for m in melds if m.is_opening)
    if openings:
        # 开口翻 doubles once for having opened; 口口翻 doubles for every opening (A1, A7).
        value = 2 if settings.mode == "kaikou" else 2**openings
        factors.append(Factor("opened", Fraction(value), openings))
    exposed = sum(1 for m in melds if m.is_exposed_kong)
    if exposed:
        factors.append(Factor("exposed_kong", Fraction(2**exposed), exposed))
    concealed = sum(1 for m in melds if m.is_concealed_kong)
    if concealed:
        factors.append(Factor("concealed_kong", Fraction(4**concealed), concealed))
    for name, count in _laid_out_kinds(special, laid_out):
        each = settings.laizi_gang_factor if name == "laizi_gang" else Fraction(2)
        factors.append(Factor(name, each**count, count))
    return factors


def _laid_out_kinds(special: SpecialTiles, laid_out: Sequence[int]) -> list[tuple[str, int]]:
    """How many of each kind of gang the laid-out tiles make (A3, A4), in a fixed order."""
    names = {"hongzhong_gang": 0, "facai_gang": 0, "pi_gang": 0, "laizi_gang": 0}
    for tile in laid_out:
        if tile == special.laizi:
            names["laizi_gang"] += 1
        elif tile == RED:
            names["hongzhong_gang"] += 1
        elif tile in special.pi:
            names["pi_gang"] += 1
        else:
            names["facai_gang"] += 1
    return [(name, n) for name, n in names.items() if n]


def current_multiplier(
    settings: WuhanSettings,
    special: SpecialTiles,
    melds: Sequence[Meld],
    laid_out: Sequence[int],
    *,
    dealer: bool = False,
) -> Multiplier:
    """A seat's multiplier during play, for table views (003: shown on the table at all times).

    It has the standing factors and, for the dealer, the ×2 it carries when it loses a small win
    (A7); the win-time factors (self-draw, hard, discarder, dealer won) come only with a win.
    """
    factors = standing_factors(settings, special, melds, laid_out)
    if dealer:
        factors.append(Factor("dealer", Fraction(2)))
    return Multiplier.of(factors)


def multipliers(
    settings: WuhanSettings, indicator: int, players: Sequence[PlayerHand], dealer: int
) -> tuple[Multiplier, ...]:
    """:func:`current_multiplier` for the four seats."""
    special = special_tiles(settings.variant, indicator)
    return tuple(
        current_multiplier(settings, special, p.melds, p.laid_out, dealer=seat == dealer)
        for seat, p in enumerate(players)
    )


def score(situation: WinSituation) -> Settlement:
    """Settle a claimed win: allowed or the refusal reason, and who pays what (A3–A10).

    The situation is trusted: input from outside is checked once, where it is read
    (:func:`laizi.rules.wuhan.validate.check_situation`)."""
    settings = wuhan_settings(situation.settings)
    assert situation.indicator is not None  # the checks guarantee it
    special = special_tiles(settings.variant, situation.indicator)
    winner = situation.players[situation.winner]
    assert winner.hand is not None  # the checks guarantee it
    concealed = count_vector((*winner.hand, situation.winning_tile), limit=None)
    verdict = _evaluate(
        tuple(concealed),
        tuple(winner.melds),
        special,
        situation.win,
        situation.after_kong,
        situation.haidi,
    )
    if not verdict.allowed:
        return _refused(situation, special, verdict.reason or "not_complete")
    # A contract only changes who pays, never the winner's total, so the reading is chosen first
    # and its contract looked for afterwards (which may need the discarder's hand).
    settled = [_settle(situation, special, reading) for reading in verdict.readings]
    passing = [s for s in settled if s.allowed]
    if not passing:
        best = max(settled, key=_preference)
        return _refused(situation, special, "below_minimum", best)
    return _with_contract(max(passing, key=_preference))


@lru_cache(maxsize=4096)
def _evaluate(
    concealed: tuple[int, ...],
    melds: tuple[Meld, ...],
    special: SpecialTiles,
    win: str,
    after_kong: bool,
    haidi: bool,
) -> Verdict:
    """:func:`evaluate`, remembered: one hand is often settled again with another discarder (the
    engine's claim window, the 听牌 hints), and its readings don't depend on who discarded."""
    return evaluate(concealed, melds, special, win=win, after_kong=after_kong, haidi=haidi)


def _preference(s: Settlement) -> tuple[Fraction, bool, Fraction, int, tuple[str, ...]]:
    """Largest total after caps first, then hard (A3); the rest only makes the choice stable."""
    total = s.payments[s.situation.winner]
    raw_total = sum((r for r in s.raw if r is not None), _ZERO)
    return (total, bool(s.hard), raw_total, s.base or 0, s.wins)


def _win_factors(situation: WinSituation, reading: Reading, seat: int) -> list[Factor]:
    """The factors that exist only because of this win (A7)."""
    settings = wuhan_settings(situation.settings)
    factors: list[Factor] = []
    big = reading.big
    if seat == situation.winner:
        if situation.win == "self_draw":
            factors.append(
                Factor("self_draw", settings.big_self_draw_factor if big else Fraction(2))
            )
        if reading.hard:
            factors.append(Factor("hard", Fraction(2)))
    elif seat == situation.from_seat:
        name = "robbed" if situation.win == "rob_kong" else "discarder"
        factors.append(Factor(name, settings.big_discard_factor if big else Fraction(2)))
    # The dealer factor exists only in small wins (A7): when the dealer wins every loser doubles
    # (庄家胡则闲家输点×2); otherwise the dealer's own loss doubles (闲家胡则庄家输点×2).
    if not big and seat != situation.winner:
        if situation.dealer == situation.winner:
            factors.append(Factor("dealer_won", Fraction(2)))
        elif seat == situation.dealer:
            factors.append(Factor("dealer", Fraction(2)))
    return factors


def _settle(situation: WinSituation, special: SpecialTiles, reading: Reading) -> Settlement:
    settings = wuhan_settings(situation.settings)
    unit = settings.base
    mults = tuple(
        Multiplier.of(
            standing_factors(settings, special, p.melds, p.laid_out)
            + _win_factors(situation, reading, seat)
        )
        for seat, p in enumerate(situation.players)
    )
    winner = situation.winner
    losers = [s for s in range(4) if s != winner]
    owed = {seat: unit * reading.base * mults[seat].total * mults[winner].total for seat in losers}
    raw: list[Fraction | None] = [owed.get(seat) for seat in range(4)]
    allowed = all(owed[s] >= settings.min_points * unit for s in losers)
    paid, caps = _apply_caps(settings, situation.players, winner, raw)
    payments = [_ZERO] * 4
    for seat in losers:
        payments[seat] = -paid[seat]
    payments[winner] = sum((paid[s] for s in losers), _ZERO)
    return Settlement(
        situation=situation,
        special=special,
        allowed=allowed,
        reason=None if allowed else "below_minimum",
        wins=reading.wins,
        hard=reading.hard,
        base=reading.base,
        multipliers=mults,
        raw=tuple(raw),
        caps=tuple(caps),
        after_caps=tuple(paid[s] if s != winner else None for s in range(4)),
        contract=None,
        contract_reason=None,
        payments=tuple(payments),
    )


def _with_contract(s: Settlement) -> Settlement:
    """The settlement with its contract, if any: the liable seat pays the whole bill (A9)."""
    contract, why = _contract(s.situation, s.special, Reading(s.wins, bool(s.hard)))
    if contract is None:
        return s
    winner = s.situation.winner
    total = s.payments[winner]
    payments = [_ZERO] * 4
    payments[contract] = -total  # 承包: what the three would have paid, each after its caps
    payments[winner] = total
    return replace(s, contract=contract, contract_reason=why, payments=tuple(payments))


def _apply_caps(
    settings: WuhanSettings,
    players: Sequence[PlayerHand],
    winner: int,
    raw: Sequence[Fraction | None],
) -> tuple[list[Fraction], list[str | None]]:
    """封顶 → 金顶 → 阳光顶 → 三阳开泰 (A9), per loser, in the room's unit."""
    unit = settings.base
    losers = [s for s in range(4) if s != winner]
    paid = [_ZERO] * 4
    caps: list[str | None] = [None] * 4
    cap = settings.cap * unit
    amounts = {s: raw[s] or _ZERO for s in losers}
    if all(amounts[s] > cap for s in losers):
        # All three exceed the cap: each is raised to the golden cap, a fixed amount.
        none_opened = all(players[s].openings == 0 for s in losers)
        for seat in losers:
            if none_opened:
                paid[seat], caps[seat] = settings.three_suns_cap * unit, "three_suns"
            elif players[seat].openings == 0:
                paid[seat], caps[seat] = settings.sunshine_cap * unit, "sunshine"
            else:
                paid[seat], caps[seat] = settings.golden_cap * unit, "golden"
        return paid, caps
    for seat in losers:
        if amounts[seat] > cap:
            paid[seat], caps[seat] = cap, "cap"
        else:
            paid[seat] = amounts[seat]
    return paid, caps


CONTRACT_ORDER = ("qiangganghu", "quanqiuren", "sanjubao")
"""Which contract names the liable player when several apply (A9, our reading)."""


def _contract(
    situation: WinSituation, special: SpecialTiles, reading: Reading
) -> tuple[int | None, str | None]:
    """承包 (A9): the liable seat and the contract's id, or ``(None, None)``."""
    cases = contract_cases(situation, special, reading)
    for name in CONTRACT_ORDER:
        if name in cases:
            return cases[name], name
    return None, None


def contract_cases(
    situation: WinSituation, special: SpecialTiles, reading: Reading
) -> dict[str, int]:
    """Every contract case that applies to this reading, by id, with the seat it names."""
    cases: dict[str, int] = {}
    if situation.win == "rob_kong" and situation.from_seat is not None:
        cases["qiangganghu"] = situation.from_seat  # the robbed player 被抢的 (A9.3)
    discarder = situation.from_seat
    if (
        "quanqiuren" in reading.wins
        and discarder is not None
        and not _was_ready(situation, special, discarder)
    ):
        cases["quanqiuren"] = discarder  # discarded to 全求人 while not ready (A9.1)
    if "qingyise" in reading.wins:
        openings = [m for m in situation.players[situation.winner].melds if m.is_opening]
        if len(openings) >= 3 and openings[2].from_seat is not None:
            cases["sanjubao"] = openings[2].from_seat  # 三句包: the third opening's source (A9.2)
    return cases


def _was_ready(situation: WinSituation, special: SpecialTiles, seat: int) -> bool:
    player = situation.players[seat]
    if player.ready is not None:
        return player.ready
    field = f"players[{seat}]"
    if player.hand is None:
        raise InputError(
            f"{field}.ready", "needed for the 全求人 contract: give 'ready' or the player's 'hand'"
        )
    size = len(player.hand) + 3 * len(player.melds)
    if size != 13:
        raise InputError(
            f"{field}.hand",
            "to tell whether the discarder was ready its hand and melds must make 13 tiles, "
            f"not {size}",
        )
    return is_ready(count_vector(player.hand, limit=None), player.melds, special)


def _refused(
    situation: WinSituation,
    special: SpecialTiles,
    reason: str,
    best: Settlement | None = None,
) -> Settlement:
    settings = wuhan_settings(situation.settings)
    mults = tuple(
        Multiplier.of(standing_factors(settings, special, p.melds, p.laid_out))
        for p in situation.players
    )
    return Settlement(
        situation=situation,
        special=special,
        allowed=False,
        reason=reason,
        wins=(),
        hard=None,
        base=None,
        multipliers=mults,
        raw=(None,) * 4,
        caps=(None,) * 4,
        after_caps=(None,) * 4,
        contract=None,
        contract_reason=None,
        payments=(_ZERO,) * 4,
        refused_reading=best,
    )
