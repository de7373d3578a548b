"""The seed → wall shuffle of Part C: deterministic, a permutation, unbiased, documented."""

from __future__ import annotations

import hashlib
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laizi.engine.wall import (
    WallError,
    commitment,
    parse_seed,
    sorted_tiles,
    wall_from_parts,
    wall_from_seed,
)
from laizi.tiles import parse_tiles


def reference_shuffle(seed: bytes) -> list[int]:
    """docs/engine.md's specification, written out again independently of the module."""
    stream = b"".join(hashlib.sha256(seed + i.to_bytes(8, "big")).digest() for i in range(64))
    words = [int.from_bytes(stream[k : k + 4], "big") for k in range(0, len(stream), 4)]
    tiles = [kind for kind in range(34) for _ in range(4)]
    position = 0
    for i in range(135, 0, -1):
        while True:
            word = words[position]
            position += 1
            if word < 2**32 - 2**32 % (i + 1):
                break
        j = word % (i + 1)
        tiles[i], tiles[j] = tiles[j], tiles[i]
    return tiles


def test_the_zero_seed_gives_the_documented_wall():
    wall = wall_from_seed(bytes(32))
    assert list(wall) == reference_shuffle(bytes(32))
    assert commitment(bytes(32)) == hashlib.sha256(bytes(32)).hexdigest()


@given(st.binary(min_size=32, max_size=32))
def test_every_seed_gives_a_permutation_of_the_136_tiles(seed):
    wall = wall_from_seed(seed)
    assert sorted(wall) == sorted_tiles()
    assert list(wall) == reference_shuffle(seed)
    assert wall_from_seed(seed) == wall  # deterministic


def test_the_shuffle_is_not_visibly_biased():
    # Which kind lands on the first tile: 3,400 walls, 34 kinds, chi-square with 33 degrees
    # of freedom; 70 is far beyond its 99.9th percentile (≈ 63.9).
    n = 3400
    firsts = Counter(wall_from_seed(i.to_bytes(32, "big"))[0] for i in range(n))
    expected = n / 34
    chi2 = sum((firsts[k] - expected) ** 2 / expected for k in range(34))
    assert chi2 < 70


def test_seeds_are_64_hex_digits():
    assert parse_seed("ab" * 32) == bytes([0xAB]) * 32
    for bad in ("ab", "zz" * 32, "ab" * 33):
        with pytest.raises(WallError) as caught:
            parse_seed(bad)
        assert caught.value.field == "seed"
    with pytest.raises(WallError):
        wall_from_seed(bytes(16))


def test_a_scripted_wall_puts_unnamed_tiles_in_id_order():
    dealt = [
        parse_tiles("11112222333344m"),
        parse_tiles("4455556666777m"),
        parse_tiles("7m8888m9999m1111p"),
        parse_tiles("2222333344445p"),
    ]
    wall = wall_from_parts(dealt, parse_tiles("5p"), parse_tiles("7z"), parse_tiles("1z6z"))
    assert wall[:53] == tuple(t for hand in dealt for t in hand)
    assert wall[53] == parse_tiles("5p")[0]
    assert wall[54] == parse_tiles("7z")[0]
    assert wall[55] == parse_tiles("5p")[0]  # the lowest unnamed tile comes next
    assert wall[-1] == parse_tiles("1z")[0] and wall[-2] == parse_tiles("6z")[0]
    assert sorted(wall) == sorted_tiles()
    with pytest.raises(WallError):
        wall_from_parts(dealt, parse_tiles("1m"), [], [])
