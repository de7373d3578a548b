"""The learned policy's look-ahead inputs (``laizi.bots.lookahead``): exact values on hand-made
hands, the same answer from a dataset's uint8 rows as from a view's float32 observation, and
agreement with :mod:`laizi.hand` on dealt hands."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from laizi import hand as shapes
from laizi.bots.lookahead import LOOK_INPUTS, LOOK_PLANES, lookahead, lookahead_rows
from laizi.engine import Game
from laizi.env.views import encode_view
from laizi.tiles import parse_tile, parse_tiles


def obs_of(hand: str, *, laizi: str = "", claim: str = "", discarded: str = "") -> np.ndarray:
    obs = np.zeros((22, 34), np.float32)
    for t in parse_tiles(hand):
        obs[0, t] += 1
    for t in parse_tiles(discarded) if discarded else ():
        obs[6, t] += 1
    if laizi:
        obs[15, parse_tile(laizi)] = 1
    if claim:
        obs[18, parse_tile(claim)] = 1
    return obs


def test_a_ready_discard_counts_its_winning_tiles_and_what_is_seen_lowers_them():
    t = parse_tile("5m")
    look = lookahead(obs_of("123m456p789s1122z5m"))
    # discarding 5m keeps 0 shanten (best), waits on 1z and 2z: 4 unseen, none with a 2/5/8 pair
    assert np.allclose(look[:, t], [0.0, 1.0, 0.4, 0.0, 1.0, 0.0])
    assert look[5, :8].tolist() == [1, 0, 0, 0, 0, 0, 0, 0]  # the best shanten: 0
    # the 1z discarded by somebody is one winning tile fewer
    seen = lookahead(obs_of("123m456p789s1122z5m", discarded="1z"))
    assert seen[4, t] == 0.75 and seen[2, t] == np.float32(0.3)
    # breaking a complete meld costs a step
    assert look[0, parse_tile("1m")] == 1 and look[1, parse_tile("1m")] == 0


def test_a_claim_says_how_much_each_pung_and_chow_helps():
    hand = "13m456p789s122z55m"  # 1 shanten, 13 tiles
    look = lookahead(obs_of(hand, claim="2m"))
    helps = {i for i in range(34) if look[0, i] == 1}
    assert helps == {parse_tile("2m"), parse_tile("5m"), parse_tile("2z")}
    assert look[2, 0] == np.float32(0.8)  # 4 × 2m + 2 × 5m + 2 × 2z unseen
    # 2m: a chow with it in the middle (1m 2m 3m), one step nearer; no pung
    assert look[5, 8:16].tolist() == [0, 0, 0, 1, 0, 0, 1, 0]
    pung = lookahead(obs_of(hand, claim="5m"))
    assert pung[5, 8:16].tolist() == [1, 1, 0, 0, 0, 0, 0, 0]


def test_a_laizi_is_a_wildcard_in_every_answer():
    look = lookahead(obs_of("13m456p789s122z55m5p", laizi="5p"))
    t = parse_tile("1z")
    without = shapes.shanten_after_discard(
        [int(n) for n in obs_of("13m456p789s122z55m5p")[0]], parse_tile("5p")
    )
    assert without[t] == 0 and look[1, t] == 1
    assert look[:5, t].tolist() == [0.0, 1.0, 1.0, 2.0, 2.5]


def test_an_empty_or_impossible_hand_gives_zeros():
    assert not lookahead(np.zeros((22, 34), np.float32)).any()
    assert not lookahead(obs_of("123m456p789s")).any()  # 3n tiles: no question to answer


@settings(max_examples=40, deadline=None)
@given(seed=st.binary(min_size=32, max_size=32), seat=st.integers(0, 3))
def test_dealt_hands_agree_with_the_hand_tables_and_uint8_rows_give_the_same(seed, seat):
    for preset in ("wuhan-hongzhong-kaikou", "baishan"):
        game = Game.deal(preset, seed=seed)
        view = game.view(seat)
        obs = encode_view(view)
        look = lookahead(obs)
        counts = [int(n) for n in obs[0]]
        wild = parse_tile(view["laizi"]) if view.get("laizi") else None
        if sum(counts) % 3 == 2:
            after = shapes.shanten_after_discard(counts, wild)
            best = min(s for s in after if s is not None)
            assert {i for i in range(34) if look[1, i]} == {
                i for i, s in enumerate(after) if s == best
            }
        else:
            best = shapes.shanten(counts, wild)
        assert look[5, min(max(best, 0), 7)] == 1 and look[5, :8].sum() == 1
        # a dataset keeps the observation as uint8: the answer must not change (no wrap-around)
        rows = np.stack([obs, obs]).astype(np.uint8).reshape(2, -1)
        assert lookahead_rows(rows).shape == (2, LOOK_INPUTS)
        assert np.array_equal(lookahead_rows(rows)[1], look.reshape(-1))
        assert look.shape == (LOOK_PLANES, 34)
