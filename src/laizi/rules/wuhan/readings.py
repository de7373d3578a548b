"""Wuhan's readings of a winning hand (RULES.md A3, A5, A6).

A *reading* of a winning hand is one way to see it: which big wins (or the small win) it makes
and whether it is hard (every laizi standing for its own face) or soft.  :func:`evaluate` lists
every reading a hand allows, or the reason it allows none; choosing among them is the
settlement's job (the largest total after caps, A3), in :mod:`laizi.rules.wuhan.settle`.

Everything works on 34-entry count vectors.  Wildcards are handled by a small exact search of
their own, because a laizi may never stand for a must-gang tile (A3) — in ``qipi_silai`` the two
pi can be suit tiles, which changes which sequences a laizi can complete.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from laizi.hand import HandSizeError, complete
from laizi.rules.melds import Meld
from laizi.rules.ruleset import SpecialTiles
from laizi.rules.wuhan.specials import indicator_and_laizi
from laizi.tiles import FIRST_HONOR, HONORS, KINDS, TWO_FIVE_EIGHT, count_vector

__all__ = [
    "BIG_WINS",
    "WIN_ORDER",
    "Reading",
    "Verdict",
    "evaluate",
    "holds_must_gang",
    "is_ready",
    "shapeless_family",
    "winning_tiles",
]

WIN_ORDER = (
    "small",
    "pengpenghu",
    "qingyise",
    "fengyise",
    "jiangyise",
    "quanqiuren",
    "haidilao",
    "gangshanghua",
    "qiangganghu",
)
"""Win ids in the order INTERFACES.md lists them."""
BIG_WINS = WIN_ORDER[1:]
"""The big wins 大胡 (A6), base 10 each."""


# -- readings -----------------------------------------------------------------------------------
@dataclass(frozen=True, order=True)
class Reading:
    """One way to score a winning hand: its win ids (in :data:`WIN_ORDER`) and hard or soft."""

    wins: tuple[str, ...]
    hard: bool

    @property
    def big(self) -> bool:
        return self.wins != ("small",)

    @property
    def base(self) -> int:
        """1 for the small win, 10 per big win (A6)."""
        return 10 * len(self.wins) if self.big else 1

    def __repr__(self) -> str:
        return f"Reading({'+'.join(self.wins)}, {'hard' if self.hard else 'soft'})"


@dataclass(frozen=True)
class Verdict:
    """Every reading a hand allows (sorted), or ``reason`` why it allows none (A6)."""

    reason: str | None
    readings: tuple[Reading, ...]

    @property
    def allowed(self) -> bool:
        return self.reason is None


def _mask(kinds: Iterable[int]) -> int:
    out = 0
    for kind in kinds:
        out |= 1 << kind
    return out


_ALL = (1 << KINDS) - 1
_SUIT_MASKS = {letter: _mask(range(9 * i, 9 * i + 9)) for i, letter in enumerate("mps")}
_HONORS = _mask(HONORS)
_TWO_FIVE_EIGHT = _mask(TWO_FIVE_EIGHT)


class _Restriction(NamedTuple):
    """Which tiles a reading may use, and the big wins that staying within them makes."""

    mask: int
    one_suit: bool  # 清一色 (with a standard shape)
    honors: bool  # 风一色, any shape
    two_five_eight: bool  # 将一色, any shape

    @property
    def any_shape(self) -> bool:
        """乱风 / 乱将: every tile an honor, or every tile a 2/5/8, wins in any shape (A6)."""
        return self.honors or self.two_five_eight


_RESTRICTIONS: tuple[_Restriction, ...] = (
    _Restriction(_ALL, False, False, False),
    *(_Restriction(m, True, False, False) for m in _SUIT_MASKS.values()),
    _Restriction(_HONORS, False, True, False),
    _Restriction(_TWO_FIVE_EIGHT, False, False, True),
    *(_Restriction(m & _TWO_FIVE_EIGHT, True, False, True) for m in _SUIT_MASKS.values()),
)


@lru_cache(maxsize=1 << 16)
def _decomposable(
    counts: tuple[int, ...], wild: int, allowed: int, pair_kinds: int, triplets_only: bool
) -> bool:
    """Can ``counts`` plus ``wild`` wildcards form one pair and melds?

    Wildcards may stand only for kinds in ``allowed`` (any number of copies); the pair's kind
    must be in ``pair_kinds``; ``triplets_only`` forbids sequences.  The lowest kind left must
    belong to the pair, a triplet or a sequence through it; real tiles are used before
    wildcards, which loses nothing because a wildcard can stand for any real tile it replaces.
    """
    if not pair_kinds:
        return False
    lowest = next((k for k, c in enumerate(counts) if c), None)
    if lowest is None:
        return wild >= 2 and (wild - 2) % 3 == 0  # the pair and the melds all of wildcards
    c = counts[lowest]
    if (pair_kinds >> lowest) & 1:
        used = min(c, 2)
        if wild >= 2 - used and _melds_only(
            _take(counts, ((lowest, used),)), wild - (2 - used), allowed, triplets_only
        ):
            return True
    for taken, need in _melds_through(counts, lowest, allowed, triplets_only):
        if need <= wild and _decomposable(
            _take(counts, taken), wild - need, allowed, pair_kinds, triplets_only
        ):
            return True
    return False


def _melds_through(
    counts: tuple[int, ...], lowest: int, allowed: int, triplets_only: bool
) -> list[tuple[tuple[tuple[int, int], ...], int]]:
    """The melds that can hold the lowest kind left: (real tiles taken, wildcards needed)."""
    used = min(counts[lowest], 3)
    options: list[tuple[tuple[tuple[int, int], ...], int]] = [(((lowest, used),), 3 - used)]
    if triplets_only or lowest >= FIRST_HONOR:
        return options
    first_of_suit = lowest - lowest % 9
    for start in (lowest - 2, lowest - 1, lowest):
        if start < first_of_suit or start + 2 > first_of_suit + 8:
            continue  # the run would leave the suit
        taken: list[tuple[int, int]] = []
        need = 0
        for kind in (start, start + 1, start + 2):
            if counts[kind]:
                taken.append((kind, 1))
            elif (allowed >> kind) & 1:
                need += 1
            else:
                break  # a wildcard can't stand for this kind (a must-gang tile, A3)
        else:
            options.append((tuple(taken), need))
    return options


@lru_cache(maxsize=1 << 16)
def _melds_only(counts: tuple[int, ...], wild: int, allowed: int, triplets_only: bool) -> bool:
    """Can ``counts`` plus ``wild`` wildcards form melds only (no pair)?"""
    lowest = next((k for k, c in enumerate(counts) if c), None)
    if lowest is None:
        return wild % 3 == 0
    return any(
        need <= wild and _melds_only(_take(counts, taken), wild - need, allowed, triplets_only)
        for taken, need in _melds_through(counts, lowest, allowed, triplets_only)
    )


def _take(counts: tuple[int, ...], taken: tuple[tuple[int, int], ...]) -> tuple[int, ...]:
    out = list(counts)
    for kind, n in taken:
        out[kind] -= n
    return tuple(out)


def _within(counts: Sequence[int], mask: int) -> bool:
    return all(not c or (mask >> k) & 1 for k, c in enumerate(counts))


def holds_must_gang(concealed: Sequence[int], must_gang: Iterable[int]) -> bool:
    """A4: while a player holds a must-gang tile (红中, 发财, 癞子皮) it can't win."""
    # A plain loop, not any(generator): asked at every discard for every seat that opened.
    for t in must_gang:  # noqa: SIM110
        if concealed[t]:
            return True
    return False


_HONOR_KIND = tuple(t in HONORS for t in range(KINDS))
_TWO_FIVE_EIGHT_KIND = tuple(t in TWO_FIVE_EIGHT for t in range(KINDS))
# Per family: the kinds outside it as a mask over the hand's counts read as one integer (a byte
# per kind, little-endian): a hand lies in the family when no count falls under the mask.
_OUTSIDE = tuple(
    sum(0xFF << 8 * t for t in range(KINDS) if not family[t])
    for family in (_HONOR_KIND, _TWO_FIVE_EIGHT_KIND)
)


def shapeless_family(concealed: Sequence[int], melds: Sequence[Meld], laizi: int | None) -> bool:
    """风一色 / 将一色 take any shape at all (乱风 / 乱将, A6): is every tile an honor, or every
    tile a 2/5/8, with no chow on the table?  A held laizi may stand for either (A3), so it is
    left out of the test.  A quick test before the full :func:`evaluate`."""
    for m in melds:
        if m.kind == "chow":
            return False
    held = int.from_bytes(bytes(concealed), "little")
    if laizi is not None:
        held &= ~(0xFF << 8 * laizi)
    for family, outside in zip((_HONOR_KIND, _TWO_FIVE_EIGHT_KIND), _OUTSIDE, strict=True):
        if not held & outside and all(family[m.tiles[0]] for m in melds):
            return True
    return False


def evaluate(
    concealed: Sequence[int],
    melds: Sequence[Meld],
    special: SpecialTiles,
    *,
    win: str,
    after_kong: bool = False,
    haidi: bool = False,
) -> Verdict:
    """The readings of a finished hand (A3, A5, A6), or why it can't win — minimum aside.

    ``concealed`` is the count vector of the concealed tiles *with* the winning tile; ``melds``
    the player's melds; ``win`` is ``discard``, ``self_draw`` or ``rob_kong``.  ``reason`` is the
    first of ``holds_special``, ``not_opened``, ``not_complete``, ``two_laizi`` that applies.
    """
    if holds_must_gang(concealed, special.must_gang):
        return Verdict("holds_special", ())
    openings = sum(1 for m in melds if m.is_opening)
    if openings == 0:
        return Verdict("not_opened", ())
    found = _readings(tuple(concealed), tuple(melds), special, win, after_kong, haidi)
    if not found:
        return Verdict("not_complete", ())
    # A3: holding two or more laizi (the winning tile counted) forbids the small win.
    if concealed[indicator_and_laizi(special)[1]] >= 2:
        found = [r for r in found if r.big]
        if not found:
            return Verdict("two_laizi", ())
    return Verdict(None, tuple(sorted(set(found))))


def _readings(
    concealed: tuple[int, ...],
    melds: tuple[Meld, ...],
    special: SpecialTiles,
    win: str,
    after_kong: bool,
    haidi: bool,
) -> list[Reading]:
    """Every (wins, hard) the hand can be read as, before the two-laizi rule."""
    _, laizi = indicator_and_laizi(special)
    meld_counts = count_vector((t for m in melds for t in m.tiles), limit=None)
    has_chow = any(m.kind == "chow" for m in melds)
    situational = _situational_wins(melds, win, after_kong, haidi)
    # Hard: every laizi is its own face.  Soft: the laizi are wildcards.
    ways = [(concealed, 0, True)]
    if concealed[laizi]:
        soft = tuple(0 if k == laizi else c for k, c in enumerate(concealed))
        ways.append((soft, concealed[laizi], False))
    # laizi.hand's table check lets wildcards be anything, so it is a superset of every
    # standard reading here: when it says no, only 乱风/乱将 remain to try.
    try:
        shaped = complete(concealed, laizi)
    except HandSizeError:  # a fifth copy in a what-if hand (is_ready): the search decides
        shaped = True
    forbidden = _mask(special.must_gang)
    found: list[Reading] = []
    for restriction in _RESTRICTIONS:
        if (not shaped and not restriction.any_shape) or not _within(meld_counts, restriction.mask):
            continue
        allowed = restriction.mask & ~forbidden  # a laizi never stands for a must-gang tile
        for counts, wild, hard in ways:
            if not _within(counts, allowed):
                continue
            for shape, pair_258 in _shapes(
                counts, wild, allowed, restriction.any_shape, shaped, has_chow
            ):
                wins = _wins(restriction, shape, pair_258, situational)
                if wins:
                    found.append(Reading(wins, hard))
    return found


def _situational_wins(melds: Sequence[Meld], win: str, after_kong: bool, haidi: bool) -> list[str]:
    """The big wins the way of winning makes (A6), if the hand's pair allows them."""
    four_openings = len(melds) == 4 and all(m.is_opening for m in melds)
    return [
        name
        for name, holds in (
            ("quanqiuren", win == "discard" and four_openings),
            ("haidilao", win == "self_draw" and haidi),
            ("gangshanghua", win == "self_draw" and after_kong),
            ("qiangganghu", win == "rob_kong"),
        )
        if holds
    ]


def _shapes(
    counts: tuple[int, ...],
    wild: int,
    allowed: int,
    any_shape: bool,
    shaped: bool,
    has_chow: bool,
) -> list[tuple[str, bool]]:
    """The shapes the concealed tiles take: ``(shape, the pair is a 2/5/8)``.

    ``any`` (乱风/乱将), ``standard`` (a pair and melds) and ``triplets`` (a pair and triplets,
    with no chow among the melds on the table: 碰碰胡).
    """
    shapes: list[tuple[str, bool]] = []
    if any_shape:
        shapes.append(("any", False))
    if shaped and _decomposable(counts, wild, allowed, allowed, False):
        shapes.append(("standard", False))
        if _decomposable(counts, wild, allowed, allowed & _TWO_FIVE_EIGHT, False):
            shapes.append(("standard", True))
        if not has_chow and _decomposable(counts, wild, allowed, allowed, True):
            shapes.append(("triplets", False))
    return shapes


def _wins(
    restriction: _Restriction, shape: str, pair_258: bool, situational: list[str]
) -> tuple[str, ...]:
    """The win ids of one reading, in :data:`WIN_ORDER`; empty if it is no win at all."""
    wins = set()
    if restriction.one_suit and shape != "any":
        wins.add("qingyise")
    if restriction.honors:
        wins.add("fengyise")
    if restriction.two_five_eight:
        wins.add("jiangyise")
    if shape == "triplets":
        wins.add("pengpenghu")
    # The situational wins need a 2/5/8 pair, unless an any-pair big win frees them (A6);
    # 全求人 needs the last two concealed tiles to be that pair, so not in a shapeless hand.
    if wins or pair_258:
        wins.update(w for w in situational if w != "quanqiuren" or shape != "any")
    if not wins and pair_258:
        wins.add("small")
    return tuple(w for w in WIN_ORDER if w in wins)


def is_ready(concealed: Sequence[int], melds: Sequence[Meld], special: SpecialTiles) -> bool:
    """听牌 as the 全求人 contract reads it (A9): is there a tile that would give a win A6 allows?

    The minimum is left aside; the must-gang, opened and two-laizi rules are not.  Any kind
    counts as a possible draw except the must-gang tiles; a laizi only as a self-draw (nobody can
    win on a discarded laizi).  Only the hand decides: 海底捞 and 杠上花 are not assumed.
    """
    return bool(winning_tiles(concealed, melds, special))


def winning_tiles(
    concealed: Sequence[int], melds: Sequence[Meld], special: SpecialTiles
) -> list[int]:
    """The kinds (sorted) that would complete this 3n+1 hand into an allowed win (minimum aside).

    A kind counts if it wins on a discard or on a plain self-draw; the laizi only by self-draw.
    """
    held = count_vector((t for m in melds for t in m.tiles), limit=None)
    out: list[int] = []
    for tile in range(KINDS):
        if tile in special.must_gang or concealed[tile] + held[tile] >= 4:
            continue  # a must-gang tile can't be won with; a fifth copy can't be drawn
        counts = list(concealed)
        counts[tile] += 1
        wins = ("self_draw",) if tile == special.laizi else ("discard", "self_draw")
        if any(evaluate(counts, melds, special, win=w).allowed for w in wins):
            out.append(tile)
    return out
