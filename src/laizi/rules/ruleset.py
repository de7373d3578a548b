"""The questions the engine asks a game, with the answers both games share.

The engine (:mod:`laizi.engine.game`) knows the shape of a mahjong hand — deal, draw, discard,
claim, kong, lay out, the final round, the end — and nothing about any game.  Whatever a rule
text decides (which tiles are wild or must be laid out, who may chow, when the wall ends, whether
a hand may win and what it pays, who deals next, what an escape costs) is a method of
:class:`Ruleset`.  A game is a subclass in its own folder (``laizi.rules.wuhan``,
``laizi.rules.baishan``) that overrides the hooks where its rules differ; the answers below are
the ones both games give.

A ruleset reads the hand in play through :class:`HandView` (the engine's ``HandState`` has
that shape), so nothing here imports the engine.

The bots, the hints and the hand analysis ask it too, so that no game flag travels outside
``laizi.rules``: whether a declared hand is locked (:meth:`Ruleset.hand_locked`), why a win is
refused as the hints name it (:meth:`Ruleset.refusal_reasons`), which tiles and shapes a hand
may use (:meth:`Ruleset.has_wild_tiles`, :meth:`Ruleset.wins_special_shapes`) and the value
model of the expert bot's search — what a seat pays another's win (:meth:`Ruleset.loss_estimate`,
:meth:`Ruleset.deal_in_loss`) and what a claim does to it (:meth:`Ruleset.claim_loss_factor`).

>>> from laizi.rules import make_ruleset
>>> rules = make_ruleset("baishan")
>>> rules.chow_allowed(discarder=2, claimer=3), rules.chow_allowed(discarder=2, claimer=1)
(True, False)
>>> rules.next_dealer(dealer=1, winner=None), rules.next_dealer(dealer=1, winner=2)
(1, 2)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

from laizi.rules.melds import Meld
from laizi.tiles import format_tile, format_tiles, is_suited

if TYPE_CHECKING:
    from laizi.i18n import Lang
    from laizi.rules.settings import Settings
    from laizi.rules.situation import Multiplier, PlayerHand, WinSituation

__all__ = [
    "HandView",
    "PublicSeat",
    "Ruleset",
    "SeatView",
    "SpecialTiles",
    "WinOffer",
    "claim_order",
]


@dataclass(frozen=True, slots=True)
class SpecialTiles:
    """The hand's special tiles, fixed by the indicator at the deal (RULES.md A2–A4).

    ``indicator`` the turned tile 翻牌, ``laizi`` the wild tile 癞子, ``pi`` the 癞子皮,
    ``must_gang`` the tiles that must be laid out (红中, 发财, 癞子皮) and ``lay_out`` every kind
    laid out rather than discarded — never chowed, punged, konged or won on (the must-gang tiles
    and the laizi).  A game without an indicator has none of them.
    """

    indicator: int | None = None
    laizi: int | None = None
    pi: tuple[int, ...] = ()
    must_gang: frozenset[int] = frozenset()
    lay_out: frozenset[int] = frozenset()

    def __repr__(self) -> str:
        def tile(t: int | None) -> str:
            return "-" if t is None else format_tile(t)

        return (
            f"SpecialTiles(indicator={tile(self.indicator)}, laizi={tile(self.laizi)}, "
            f"pi={format_tiles(self.pi)}, must_gang={format_tiles(self.must_gang)})"
        )


class Settlement(Protocol):
    """What every game's settlement of a claimed win (:meth:`Ruleset.score`) offers: whether
    the win stands (``allowed``; ``reason`` when not), the wins it counts, ``payments`` (four
    Fractions, zero-sum), its JSON object (``laizi score --json``, an ``end`` event's
    ``settlement``; :class:`laizi.engine.events.SettlementSummary` reads it back typed) and
    its readable table."""

    @property
    def allowed(self) -> bool: ...
    @property
    def reason(self) -> str | None: ...
    @property
    def wins(self) -> tuple[str, ...]: ...
    @property
    def payments(self) -> tuple[Fraction, ...]: ...
    def to_json(self) -> dict[str, Any]: ...
    def explain(self, lang: Lang = "en") -> str: ...


@dataclass(frozen=True, slots=True)
class WinOffer:
    """A win the ruleset allows: the settlement it would pay (``payments`` four Fractions)."""

    settlement: Settlement
    payments: tuple[Fraction, ...]


class SeatView(Protocol):
    """One seat of the hand in play, as a ruleset reads it."""

    @property
    def counts(self) -> list[int]: ...
    @property
    def melds(self) -> list[Meld]: ...
    @property
    def laid_out(self) -> list[int]: ...
    @property
    def openings(self) -> int: ...
    @property
    def win_locked(self) -> bool: ...
    @property
    def declared_ready(self) -> bool: ...


class HandView(Protocol):
    """The hand in play, as a ruleset reads it (the engine's ``HandState`` has this shape)."""

    @property
    def players(self) -> Sequence[SeatView]: ...
    @property
    def dealer(self) -> int: ...
    @property
    def specials(self) -> SpecialTiles: ...
    @property
    def phase(self) -> str: ...
    @property
    def turn(self) -> int: ...
    @property
    def drawn(self) -> int | None: ...
    @property
    def claim_tile(self) -> int | None: ...
    @property
    def claim_from(self) -> int | None: ...
    @property
    def after_kong(self) -> bool: ...


class PublicSeat(Protocol):
    """What every seat sees of one seat, as the value model reads it (the bots' ``Opponent`` and
    ``SeatTable`` have this shape): ``multiplier`` is the total a seat's view shows (1 in a game
    without multipliers), ``meld_suits`` the suits of its melds (0–2, 3 for honors)."""

    @property
    def seat(self) -> int: ...
    @property
    def multiplier(self) -> int: ...
    @property
    def openings(self) -> int: ...
    @property
    def declared_ready(self) -> bool: ...
    @property
    def hand_size(self) -> int: ...
    @property
    def meld_suits(self) -> set[int]: ...


def claim_order(win_priority: str, dealer: int, discarder: int) -> tuple[int, ...]:
    """一炮单响 (A6): the seats that may win one discard, first claimant first.

    ``from_dealer`` counts from the dealer in play order, ``from_discarder`` from the seat after
    the discarder; the discarder never wins its own tile.  The same order settles several players
    robbing one kong.

    >>> claim_order("from_dealer", dealer=2, discarder=3)
    (2, 0, 1)
    >>> claim_order("from_discarder", dealer=2, discarder=3)
    (0, 1, 2)
    """
    if win_priority == "from_dealer":
        start = dealer
    elif win_priority == "from_discarder":
        start = discarder + 1
    else:
        raise ValueError(f"unknown win_priority {win_priority!r}")
    return tuple(seat % 4 for seat in range(start, start + 4) if seat % 4 != discarder)


class Ruleset(ABC):
    """Base class of the games' rulesets.  Subclasses override the hooks their rules change."""

    game: str = ""
    """The game's id, written into records (``"wuhan"``)."""
    settings: Settings
    """The room's settings (a game's ruleset holds its own kind: ``WuhanSettings``, …)."""

    # --- the wall -------------------------------------------------------------------------
    uses_indicator: bool = True
    """Whether a tile is turned after the deal (翻牌) to fix the special tiles."""
    reserve: int = 0
    """Tiles at the back of the wall never drawn by a normal draw (A8's 海底 reserve)."""

    def __init__(self, settings: Any = None) -> None:
        """A ruleset is made from the room's settings of its own game (the registry calls
        ``cls(settings)``; a bare ruleset of the engine's tests has none)."""
        if settings is not None and settings.game != self.game:
            raise ValueError(f"not {self.game} settings: game {settings.game!r}")
        self.settings = settings

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.settings!r})"

    def specials(self, indicator: int | None) -> SpecialTiles:
        """The special tiles of a hand with this indicator (``None`` when not used)."""
        return SpecialTiles(indicator)

    @abstractmethod
    def final_round_starts(self, live: int, kongs_made: int) -> bool:
        """Whether the next normal draw, with ``live`` drawable tiles left, opens the final round
        (each player draws once and may only win: 海底 in Wuhan, 分张 in Baishan)."""

    # --- claims ---------------------------------------------------------------------------
    @staticmethod
    def chow_source(claimer: int) -> int:
        """The one seat ``claimer`` may chow from: the previous seat, 上家 (A5, Part B)."""
        return (claimer + 3) % 4

    def chow_allowed(self, discarder: int, claimer: int) -> bool:
        """Whether ``claimer`` may chow a tile ``discarder`` threw (:meth:`chow_source`)."""
        return discarder == self.chow_source(claimer)

    @staticmethod
    def chowable(tile: int) -> bool:
        """Only suit tiles make sequences: honors are never chowed (A5, Part B)."""
        return is_suited(tile)

    kong_robbable: bool = True
    """抢杠: whether an added kong may be robbed (A6); a game that says no refuses ``rob_kong``
    wins in :meth:`win_offer` and in its input checks."""

    def win_order(self, dealer: int, discarder: int) -> Sequence[int]:
        """Seats in the order that settles several claims to one win, discarder excluded: the
        room's ``win_priority`` (一炮单响 A6; Baishan's preset counts from the discarder)."""
        return claim_order(self.settings.win_priority, dealer, discarder)

    def pass_win_locked(self) -> bool:
        """Whether passing a win bars a seat from winning until its own next draw (A6)."""
        return False

    def declarable_discards(self, state: HandView, seat: int) -> Sequence[int]:
        """The tiles ``seat``, on its turn, may discard while declaring ready (报听, Part B).

        A seat that declared is locked: from then on it only discards what it draws, claims
        nothing but a win and makes no kong.  Wuhan has no 报听: none."""
        return ()

    def hand_locked(self, state: HandView, seat: int) -> bool:
        """Whether ``seat``'s hand is locked: on its turn it only discards the tile it drew (or
        wins with it), it claims nothing but a win and makes no kong.  Here: once it declared
        ready (:meth:`declarable_discards`; a game without 报听 never locks a hand)."""
        return state.players[seat].declared_ready

    def why_not_declarable(self, tile: int) -> tuple[str, str]:
        """Why discarding ``tile`` does not declare ready now, in Chinese and English."""
        return "这个规则没有报听", "these rules have no 报听 (declaring ready)"

    def kong_payments(
        self, state: HandView, seat: int, kind: str, tile: int
    ) -> tuple[Fraction, ...] | None:
        """What a kong that stands pays on the spot (Baishan, Part B): four Fractions, zero-sum,
        added to the hand's payments whatever its end; ``None`` when kongs pay nothing then
        (Wuhan: a kong is a factor of the settlement, A7)."""
        return None

    # --- wins and money -------------------------------------------------------------------
    @abstractmethod
    def win_offer(self, state: HandView, seat: int, tile: int, how: str) -> WinOffer | None:
        """The win ``seat`` could declare with ``tile`` (``how`` ∈ ``discard``, ``self_draw``,
        ``rob_kong``), or ``None`` when the rules do not allow it.  For ``self_draw`` the tile
        is already in the seat's concealed counts; for the others it is not."""

    def shape_waits(
        self, counts: Sequence[int], melds: Sequence[Meld], specials: SpecialTiles
    ) -> list[int]:
        """The kinds that may complete the shape of a 3n+1 concealed hand (``counts``) with these
        melds: a superset is fine, :meth:`score` decides (the waits of 听牌 hints).  Here: melds
        and a pair, the laizi wild (:func:`laizi.hand.waits`); a game adds its other shapes."""
        from laizi import hand as shapes

        try:
            return shapes.waits(counts, specials.laizi)
        except shapes.HandSizeError:
            return []

    def why_no_win(self, state: HandView, seat: int) -> str:
        """Why ``seat`` may not win now (an id for error messages, e.g. ``holds_special``):
        the settlement's refusal reason for the tile it could win with."""
        if state.phase in ("claim", "rob") and state.claim_tile is not None:
            tile, how = state.claim_tile, "discard" if state.phase == "claim" else "rob_kong"
            if state.players[seat].win_locked:
                return "pass_win_locked"
        elif state.drawn is not None and state.turn == seat:
            tile, how = state.drawn, "self_draw"
        else:
            return "no_winning_tile"
        try:
            settlement = self.score(self.situation(state, seat, tile, how))
        except NotImplementedError:  # a ruleset without a settlement gives no reason
            return "not_allowed"
        except ValueError:  # a hand the settlement can't read (e.g. the wrong size): no win
            return "not_complete"
        return settlement.reason or "not_allowed"

    @classmethod
    def refusal_reasons(cls) -> dict[str, tuple[str, str]]:
        """Every reason the hints give for a win these rules refuse: id → (Chinese, English).
        Stable ids, listed in docs/protocol.md.  Here the two any game gives."""
        return {
            "pass_win_locked": (
                "过胡：摸牌前不能再胡",
                "a win was passed: none until your next draw",
            ),
            "not_allowed": ("规则不允许这样胡", "the rules do not allow this win"),
        }

    def hint_reason(self, reason: str) -> str:
        """A settlement's refusal id (its ``reason``) as the hints name it
        (:meth:`refusal_reasons`).  Here: the same id."""
        return reason

    def refused_by_the_hand(self, reason: str) -> bool:
        """Whether a refusal (a hint id) depends on the hand alone, not on how it wins: a
        self-drawn win refused so is refused on every discard too.  Here: none is."""
        return False

    @classmethod
    def has_wild_tiles(cls) -> bool:
        """Whether a hand may hold a wild tile (a laizi, A3)."""
        return False

    @classmethod
    def wins_special_shapes(cls) -> bool:
        """Whether seven pairs and thirteen orphans win (the hand analysis shows them)."""
        return False

    def drawn_payments(self, state: HandView) -> tuple[Fraction, ...]:
        """What changes hands when nobody wins (Wuhan: nothing, A8)."""
        return (Fraction(0),) * 4

    def escape_payments(self, seat: int) -> tuple[Fraction, ...]:
        """逃跑 (A9, Part B): the escaper pays ``escape_penalty`` (in the room's unit), the
        other three share it, so points stay zero-sum (``400 / 3`` stays an exact fraction)."""
        if not 0 <= seat <= 3:
            raise ValueError(f"seat must be 0–3, not {seat}")
        penalty = self.settings.escape_penalty * self.settings.base
        return tuple(-penalty if s == seat else penalty / 3 for s in range(4))

    def next_dealer(self, dealer: int, winner: int | None) -> int:
        """坐庄 (A9, Part B): stays on a dealer win or a drawn hand (``winner`` None), else the
        deal passes to the next seat in play order."""
        if winner is None or winner == dealer:
            return dealer
        return (dealer + 1) % 4

    def seat_multiplier(
        self, specials: SpecialTiles, melds: Sequence[Meld], laid_out: Sequence[int], dealer: bool
    ) -> Multiplier | None:
        """A seat's multiplier during play, with its factors (``None`` if the game has none)."""
        return None

    def multipliers(self, state: HandView) -> list[dict[str, Any]] | None:
        """Every seat's current multiplier with its factors, for views (``None`` if the game
        has none)."""
        found = []
        for seat, p in enumerate(state.players):
            m = self.seat_multiplier(state.specials, p.melds, p.laid_out, seat == state.dealer)
            if m is None:
                return None
            found.append(m.to_json())
        return found

    def running_fans(self, state: HandView) -> list[list[dict[str, Any]]] | None:
        """Per seat, the fans it counts already that every seat can see (a table shows them
        beside each seat), as ``{"id", "zh", "en", "fans"}``; ``None`` in a game without fans."""
        return None

    # --- the value model (the expert bot's search) ---------------------------------------
    def must_open_to_win(self) -> bool:
        """Whether a hand must have claimed a set (opened) before it may win (Wuhan A5/A6)."""
        return False

    def loss_estimate(
        self,
        winner: PublicSeat,
        loser: PublicSeat,
        dealer: int,
        *,
        discarder: bool,
        multiplier: float,
    ) -> float:
        """About how many points ``loser`` pays when ``winner`` wins with a common hand, from
        what the table shows; ``discarder``: it threw the winning tile; ``multiplier``: the
        loser's own multiplier to count with (its current one, or what a claim would make it).
        Here: the room's unit times that multiplier, twice from the discarder."""
        return float(self.settings.base) * multiplier * (2.0 if discarder else 1.0)

    def deal_in_loss(
        self,
        winner: PublicSeat,
        loser: PublicSeat,
        dealer: int,
        tile: int,
        *,
        ready: bool,
        threat: float,
        chance: float,
    ) -> float:
        """Expected points ``loser`` pays by discarding ``tile`` when ``winner`` is ready with
        chance ``threat`` and waits on it with chance ``chance``; ``ready``: the loser is ready
        after the discard.  Here: that chance times :meth:`loss_estimate` (no contract)."""
        loss = self.loss_estimate(
            winner, loser, dealer, discarder=True, multiplier=loser.multiplier
        )
        return threat * chance * loss

    def claim_loss_factor(self, openings: int, kong: bool) -> float:
        """How much a claim (a pung or chow; with ``kong`` an exposed kong) multiplies what a
        seat with ``openings`` openings so far pays when another seat wins.  Here: nothing."""
        return 1.0

    # --- the settlement -------------------------------------------------------------------
    def score(self, situation: WinSituation) -> Settlement:
        """The settlement of a claimed win (``.allowed`` is the win check, ``.payments``)."""
        raise NotImplementedError(f"{type(self).__name__} has no settlement")

    def win_payments(self, settlement: Settlement) -> tuple[Fraction, ...]:
        """What an allowed win's settlement (:meth:`score`) pays, as :class:`WinOffer` carries it
        (a game whose kongs were paid on the spot leaves them out: the engine adds them)."""
        return tuple(settlement.payments)

    def check_situation(self, situation: WinSituation) -> None:  # noqa: B027  (none by default)
        """Raise ``InputError`` (naming the field) for a finished hand that can't have happened.

        Run once, where a hand comes in from outside (``laizi.scoring.situation_from_json``);
        the settlement trusts its input."""

    @classmethod
    def check_meld_source(cls, seat: int, meld: Meld, field: str) -> None:
        """A claimed tile comes from another seat, a chow's from :meth:`chow_source`
        (``InputError`` naming ``field`` otherwise)."""
        from laizi.rules.situation import InputError, check_seat

        if meld.from_seat is None:
            return
        source = check_seat(meld.from_seat, field)
        if source == seat:
            raise InputError(field, "a claimed tile comes from another seat")
        if meld.kind == "chow" and source != cls.chow_source(seat):
            raise InputError(
                field, f"a chow is claimed from the previous seat only ({cls.chow_source(seat)})"
            )

    def situation(self, state: HandView, seat: int, tile: int, how: str) -> WinSituation:
        """The :class:`~laizi.rules.situation.WinSituation` of ``seat`` winning now on ``tile``."""
        raise NotImplementedError(f"{type(self).__name__} has no settlement")

    def scoring_hands(
        self, state: HandView, seat: int, tile: int, how: str
    ) -> tuple[PlayerHand, ...]:
        """Every seat as a ``PlayerHand`` — concealed tiles (the winner's without the
        self-drawn ``tile``), melds, laid-out tiles and 报听 — for :meth:`situation`."""
        from laizi.rules.situation import PlayerHand

        players = []
        for s, p in enumerate(state.players):
            concealed = [t for t in range(34) for _ in range(p.counts[t])]
            if s == seat and how == "self_draw":
                concealed.remove(tile)
            players.append(
                PlayerHand(
                    tuple(concealed), tuple(p.melds), tuple(p.laid_out), None, p.declared_ready
                )
            )
        return tuple(players)

    def settings_json(self) -> dict[str, Any]:
        """The settings as written into a record's ``start`` event."""
        return self.settings.to_json()

    @classmethod
    def big_wins(cls) -> tuple[str, ...]:
        """The win ids a player's statistics count as big wins (大胡), in the game's order
        (``laizi.server.playerstats``).  None by default: every win is a plain one."""
        return ()

    # --- words ----------------------------------------------------------------------------
    @classmethod
    def words(cls) -> dict[str, Any]:
        """The names a player reads for the game's ids (wins, fans, factors, caps, contracts,
        refusal reasons, as ``(zh, en)``) and how its settlement is laid out, from its
        ``explain`` module: the web client shows these and declares none
        (``GET /api/settings/schema``, ``words``).  None by default: the client shows the ids
        and a plain table of payments."""
        return {}
