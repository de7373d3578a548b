"""The wall: 136 tiles derived from a 256-bit seed, and the layout the engine reads it in.

Part C of RULES.md: the server draws a secret seed, shows everybody ``sha256(seed)`` (the
*commitment*) before the deal and reveals the seed after the hand, so anyone can re-derive the
wall and check that nobody arranged it.  This module is the whole derivation; ``docs/engine.md``
spells it out for independent implementations.

The shuffle
    Start from the sorted tile list ``[0, 0, 0, 0, 1, 1, 1, 1, …, 33, 33, 33, 33]``.  A byte
    stream is the concatenation of ``SHA-256(seed ‖ counter)`` for counter = 0, 1, 2, … (8-byte
    big-endian).  Read it as 32-bit big-endian unsigned words.  Fisher–Yates from the top: for
    ``i`` = 135 down to 1 take words until one is below ``2**32 - (2**32 % (i + 1))`` (rejection
    sampling: no modulo bias), let ``j = word % (i + 1)`` and swap positions ``i`` and ``j``.

>>> seed = bytes(32)
>>> wall = wall_from_seed(seed)
>>> len(wall), sorted(wall) == sorted_tiles()
(136, True)
>>> commitment(seed)[:16]
'66687aadf862bd77'

Players' entropy (tables with people): the server's secret seed alone does not choose the wall.
It commits to ``sha256(seed)`` first; then each person's client sends 32 random bytes of its own
(its *contribution*, after it has seen the commitment), and the wall is derived from
:func:`combined_seed` — SHA-256 over a domain tag, the server's seed and the four seats'
contributions in seat order 0–3 (an absent one as a single ``0x00`` byte, a present one as
``0x01`` and its 32 bytes):

>>> mine = bytes.fromhex("ab" * 32)
>>> combined_seed(seed, [None, mine, None, None]) != combined_seed(seed, [None, None, mine, None])
True
>>> combined_seed(seed, [None, mine, None, None]).hex()[:16]
'd4d664e8cf377148'

The layout (how the engine reads a wall, see :mod:`laizi.engine.game`): the dealer takes
``wall[0:14]``, the next seats in play order 13 each, then the indicator (when the ruleset uses
one) is the next tile; normal draws continue from the front, replacement draws take the last
tile still in the wall.
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator, Sequence
from itertools import islice
from typing import Any

from laizi.tiles import KINDS, format_tile

__all__ = [
    "CONTRIBUTION_BYTES",
    "SEED_BYTES",
    "WALL_SIZE",
    "WallError",
    "combined_seed",
    "commitment",
    "format_contributions",
    "parse_contributions",
    "parse_seed",
    "sorted_tiles",
    "wall_from_parts",
    "wall_from_seed",
]

SEED_BYTES = 32
"""A seed is 256 bits."""
WALL_SIZE = 4 * KINDS
"""136 tiles: four of each of the 34 kinds (RULES A2; no flowers)."""

CONTRIBUTION_BYTES = 32
"""A player's contribution to a deal is 256 bits too."""
DEAL_DOMAIN = b"laizi deal v1"
"""The tag :func:`combined_seed` hashes first (so its hashes can't be mistaken for others)."""

_WORD = 1 << 32


class WallError(ValueError):
    """A seed or a scripted wall that can't be used; ``field`` names the offending input."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        super().__init__(f"{field}: {message}")


def sorted_tiles() -> list[int]:
    """The 136 tiles in id order, four of each kind: the shuffle's starting point."""
    return [tile for tile in range(KINDS) for _ in range(4)]


def parse_seed(text: str) -> bytes:
    """A seed written as 64 hex digits (as records and ``laizi deal --seed`` write it)."""
    cleaned = text.strip().lower()
    if cleaned.startswith("0x"):
        cleaned = cleaned[2:]
    if len(cleaned) != 2 * SEED_BYTES:
        raise WallError("seed", f"needs {2 * SEED_BYTES} hex digits, got {len(cleaned)}")
    try:
        return bytes.fromhex(cleaned)
    except ValueError:
        raise WallError("seed", "not hexadecimal") from None


def commitment(seed: bytes) -> str:
    """The public commitment to a seed: ``sha256(seed)`` as 64 lower-case hex digits."""
    return hashlib.sha256(seed).hexdigest()


def combined_seed(seed: bytes, contributions: Sequence[bytes | None]) -> bytes:
    """The wall's seed from the server's ``seed`` and the four seats' contributions.

    ``SHA-256(b"laizi deal v1" ‖ seed ‖ part₀ ‖ part₁ ‖ part₂ ‖ part₃)`` where ``partᵢ`` is
    ``0x00`` for a seat that contributed nothing (a bot, an absent or older client) and
    ``0x01 ‖ contribution`` (32 bytes) for one that did: every input has a fixed length, so no
    two different inputs hash the same bytes.
    """
    if len(seed) != SEED_BYTES:
        raise WallError("seed", f"must be {SEED_BYTES} bytes, got {len(seed)}")
    if len(contributions) != 4:
        raise WallError("contributions", f"needs one entry per seat (4), got {len(contributions)}")
    digest = hashlib.sha256(DEAL_DOMAIN + seed)
    for seat, part in enumerate(contributions):
        if part is None:
            digest.update(b"\x00")
            continue
        if len(part) != CONTRIBUTION_BYTES:
            raise WallError(
                "contributions", f"seat {seat}: must be {CONTRIBUTION_BYTES} bytes, got {len(part)}"
            )
        digest.update(b"\x01" + part)
    return digest.digest()


def parse_contributions(obj: Any) -> tuple[bytes | None, ...] | None:
    """The ``contributions`` of a ``start`` event: four entries, each null or 64 hex digits.

    None (the field is absent) stays None: a hand dealt from the server's seed alone.
    """
    if obj is None:
        return None
    if not isinstance(obj, list) or len(obj) != 4:
        raise WallError("contributions", "must be a list of four entries (null or 64 hex digits)")
    out: list[bytes | None] = []
    for seat, part in enumerate(obj):
        if part is None:
            out.append(None)
            continue
        if (
            not isinstance(part, str)
            or len(part) != 2 * CONTRIBUTION_BYTES
            or any(c not in "0123456789abcdef" for c in part)
        ):
            raise WallError(
                "contributions",
                f"seat {seat}: needs {2 * CONTRIBUTION_BYTES} lower-case hex digits or null",
            )
        out.append(bytes.fromhex(part))
    return tuple(out)


def format_contributions(contributions: Sequence[bytes | None]) -> list[str | None]:
    """The contributions as a ``start`` event writes them (hex, null for none)."""
    return [None if part is None else part.hex() for part in contributions]


def _words(seed: bytes) -> Iterator[int]:
    counter = 0
    while True:
        block = hashlib.sha256(seed + counter.to_bytes(8, "big")).digest()
        for offset in range(0, 32, 4):
            yield int.from_bytes(block[offset : offset + 4], "big")
        counter += 1


_FIRST_BLOCKS = 20
"""SHA-256 blocks made up front (160 words); a shuffle needs 135 words plus its rejections."""
_FIRST_WORDS = struct.Struct(f">{8 * _FIRST_BLOCKS}I")


def wall_from_seed(seed: bytes) -> tuple[int, ...]:
    """The wall of a 256-bit seed: an unbiased Fisher–Yates shuffle driven by SHA-256."""
    if len(seed) != SEED_BYTES:
        raise WallError("seed", f"must be {SEED_BYTES} bytes, got {len(seed)}")
    tiles = sorted_tiles()
    # The same stream as _words, its first blocks hashed and unpacked in one go.
    sha256 = hashlib.sha256
    first = b"".join(
        [sha256(seed + counter.to_bytes(8, "big")).digest() for counter in range(_FIRST_BLOCKS)]
    )
    stream = _FIRST_WORDS.unpack(first)
    position = 0
    more: Iterator[int] | None = None
    for i in range(WALL_SIZE - 1, 0, -1):
        bound = i + 1
        limit = _WORD - _WORD % bound
        while True:
            if position < len(stream):
                word = stream[position]
                position += 1
            else:  # rare: more rejections than the first blocks hold
                if more is None:
                    more = islice(_words(seed), position, None)
                word = next(more)
            if word < limit:
                break
        j = word % bound
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tuple(tiles)


def wall_from_parts(
    dealt: list[list[int]],
    indicator: list[int],
    draws: list[int],
    replacements: list[int],
) -> tuple[int, ...]:
    """A wall laid out so that the engine deals, turns and draws exactly the named tiles.

    ``dealt`` are the starting hands **in dealing order** (dealer first, 14 tiles, then the next
    seats in play order, 13 each); ``indicator`` is empty or one tile; ``draws`` come from the front
    in order and ``replacements`` from the back in order.  The tiles nobody named fill the middle
    of the wall in id order (1m first), so the front draws that follow ``draws`` are the lowest
    unnamed tiles and the back draws that follow ``replacements`` are the highest.
    """
    named: list[int] = [tile for hand in dealt for tile in hand]
    named += indicator + draws + replacements
    counts = [0] * KINDS
    for tile in named:
        counts[tile] += 1
        if counts[tile] > 4:
            raise WallError("tiles", f"more than four {format_tile(tile)} named in the script")
    rest = [tile for tile in range(KINDS) for _ in range(4 - counts[tile])]
    wall = [tile for hand in dealt for tile in hand] + indicator + draws + rest
    wall += list(reversed(replacements))
    if len(wall) != WALL_SIZE:  # only when a hand has the wrong size; checked by the caller
        raise WallError("hands", f"the script names a wall of {len(wall)} tiles, not {WALL_SIZE}")
    return tuple(wall)
