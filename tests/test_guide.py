"""The learned policy inside expert's search (laizi.bots.guide, issue 29 item 3)."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import numpy as np
import pytest

from laizi.bots import ExpertBot, SeatTable, make_bot
from laizi.bots.guide import Others, PolicyGuide, turn_to
from laizi.bots.learned import ENV_VAR
from laizi.bots.search import Evaluator, World, sample_worlds
from laizi.engine import legal_actions, make_ruleset, view
from laizi.env.views import encode_view
from laizi.rules import preset
from laizi.tiles import parse_tile, parse_tiles
from tests.bot_helpers import opened_view, table_view
from tests.engine_helpers import apply_json, deal_json

WUHAN = preset("wuhan-hongzhong-kaikou")


def _tiles(text: str) -> list[int]:
    return sorted(parse_tiles(text))


def _guide() -> PolicyGuide:
    guide = PolicyGuide.for_rules(WUHAN)
    assert guide is not None  # the package ships the Wuhan model
    return guide


def _played(seed: bytes, steps: int) -> Any:
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")
    state, _ = deal_json(ruleset, 0, seed=seed)
    bots = [make_bot("greedy", ruleset.settings, s) for s in range(4)]
    for _ in range(steps):
        seat = state.to_act()[0]
        apply_json(state, bots[seat].act(view(state, seat), legal_actions(state, seat)))
    return state


def test_an_observation_turned_to_another_seat_is_that_seats_public_part():
    state = _played(bytes(range(32)), 30)
    assert not state.over
    seen = view(state, 0)
    assert not any(m["kind"] == "concealed_kong" for p in seen["players"] for m in p["melds"])
    assert any(p["melds"] for p in seen["players"]) and all(p["discards"] for p in seen["players"])
    mine = encode_view(seen)
    for rel in (1, 2, 3):
        theirs = encode_view(view(state, rel))
        turned = turn_to(mine, rel)
        # melds, discards, laid out, indicator, laizi, pi, must-gang: exactly that seat's rows
        assert np.array_equal(turned[2:18], theirs[2:18])
        assert np.array_equal(turned[19], theirs[19])
        assert np.array_equal(turned[21, :4], theirs[21, :4])
        for first in (7, 15, 19, 23, 27):  # dealer, multipliers, hand sizes, openings, kongs
            assert np.array_equal(turned[20, first : first + 4], theirs[20, first : first + 4])
        assert np.array_equal(turned[0], mine[0])  # its own hand is the caller's to fill


def _ready_table() -> SeatTable:
    """Seat 0 (opened with 999p) holds 23m456p678s55s, ready on 1m and 4m; no must-gang tiles,
    the laizi 9s."""
    return SeatTable(opened_view("23m456p678s55s"))


def test_without_policy_rounds_the_others_throw_their_draws_and_win_on_their_waits():
    table = _ready_table()
    guide = _guide()
    strategy = make_bot("expert", WUHAN, 0).strategy
    far = "1m4m7m1p4p7p1s4s7s1z2z3z4z"
    hands = {1: _tiles("123m456m789m234p5s"), 2: _tiles(far), 3: _tiles(far)}  # 1 waits on 5s
    t = parse_tile
    on_a_discard = [t("6z"), t("5s"), t("5z"), t("9m")] + [t("1p")] * 12
    on_its_draw = [t("2z"), t("3z"), t("4z"), t("9m"), t("5s")] + [t("1p")] * 11
    out = guide.play_others(table, strategy, [hands, hands], [on_a_discard, on_its_draw], 4, 0)
    assert guide.rows == 0  # no policy round: nothing asked
    five_s = frozenset({t("5s"), t("9s")})  # its wait, and the laizi
    # seat 1 throws its 6z, seat 2 its 5s: seat 1 wins on it; the viewer saw those two discards
    assert out[0] == Others([(t("6z"), t("5s"), -1)], [(five_s, frozenset(), frozenset())], (0, 2))
    # round 0 passes; in round 1 seat 1 draws 5s and wins before anyone throws
    assert out[1].shown == [(t("2z"), t("3z"), t("4z")), (-1, -1, -1)]
    assert out[1].end == (1, 0)


def test_in_policy_rounds_the_others_throw_a_tile_they_hold():
    state = _played(bytes([7] * 32), 20)
    seat = state.to_act()[0]
    table = SeatTable(view(state, seat))
    guide = _guide()
    strategy = make_bot("expert", WUHAN, 0).strategy
    worlds = sample_worlds(table, 12, random.Random(5))
    hands = [w.hands for w in worlds]
    out = guide.play_others(table, strategy, hands, [w.wall for w in worlds], 3, 3)
    kept = strategy.kept_out(table)
    thrown_from_hand = 0
    for world, played in zip(worlds, out, strict=True):
        held = {s: list(h) for s, h in world.hands.items()}
        for r, shown in enumerate(played.shown):
            for k, throw in enumerate(shown):
                if throw < 0:
                    continue
                seat_k = (table.seat + k + 1) % 4
                drawn = world.wall[4 * r + k]
                hand = [*held[seat_k], drawn]
                assert throw in hand and throw not in kept
                hand.remove(throw)
                held[seat_k] = hand
                thrown_from_hand += throw != drawn
    assert thrown_from_hand > 0  # the policy keeps draws and throws from the hand
    assert guide.rows > 0


def test_a_world_counts_more_where_the_others_threw_what_the_policy_throws():
    seen = table_view("123m456p789s1p2p5s5s", must_gang=(), players={1: {"discards": ["1z"]}})
    table = SeatTable(seen)
    guide = _guide()
    junk = {1: _tiles("123m456p789s23p55s")}  # the 1z was alone: the policy throws it
    pung = {1: _tiles("123m456p789s23p11z")}  # 1z was the third of a set: it does not
    light, heavy = guide.weights(table, [pung, junk], frozenset())
    assert heavy == 1.0  # the likeliest world has weight 1
    assert light < 0.5 * heavy


def _evaluator(worlds: list[World]) -> Evaluator:
    bot = make_bot("expert", dataclasses.replace(WUHAN, min_points=0), 0)
    return Evaluator(bot.ruleset, bot.strategy, _ready_table(), worlds, 0.5)


def test_play_outs_see_the_discards_the_others_make_and_stop_where_the_hand_ends():
    t = parse_tile
    junk = t("9m")
    wall = [junk] * 16
    table = _ready_table()
    nothing = (frozenset(), frozenset(), frozenset())

    def world(shown: list[tuple[int, int, int]], end: tuple[int, int] | None, weight=1.0):
        w = World({}, wall)
        w.others = Others(shown, [nothing] * len(shown), end, horizon=4)
        w.weight = weight
        return w

    rounds = [(junk, junk, junk), (junk, t("4m"), junk), (junk, junk, junk)]
    wins = world(rounds, None, 3.0)
    evaluator = _evaluator([wins])
    melds = evaluator.public[0]
    expected = evaluator.win_value(tuple(table.counts), melds, t("4m"), "discard")
    assert expected > 0
    # no hazard inside the policy's rounds: the whole value of the win on seat 2's 4m
    assert evaluator.value(table.counts) == expected
    ends_first = world(rounds[:2], (1, 1), 1.0)  # seat 1 won before seat 2 threw the 4m
    assert _evaluator([ends_first]).value(table.counts) == 0.0
    weighted = _evaluator([wins, ends_first]).value(table.counts)
    assert weighted == pytest.approx(expected * 3 / 4)


def test_the_seats_own_discard_into_a_wait_ends_its_play_out():
    t = parse_tile
    junk = t("9m")
    table = _ready_table()
    wall = [junk] * 3 + [t("1z")] + [junk] * 3 + [t("1m")] + [junk] * 8  # it draws 1z, then 1m
    waits_1z = (frozenset({t("1z")}), frozenset(), frozenset())
    for waits, won in ((waits_1z, False), ((frozenset(),) * 3, True)):
        w = World({}, wall)
        w.others = Others([(junk, junk, junk)] * 4, [waits] * 4, None, horizon=4)
        evaluator = _evaluator([w])
        value = evaluator.value(table.counts)
        expected = evaluator.win_value(
            tuple(table.counts), evaluator.public[0], t("1m"), "self_draw"
        )
        assert value == (expected if won else 0.0)  # it threw the 1z seat 1 waits on


def test_expert_searches_with_the_shipped_policy_and_without_a_model_as_before(
    monkeypatch, tmp_path
):
    guided = make_bot("expert", WUHAN, 1)
    assert isinstance(guided, ExpertBot) and guided.guide is not None
    assert guided.samples == 32  # the default 200 ms: a guided world costs about three blind
    monkeypatch.setattr(ExpertBot, "use_policy", False)
    plain = make_bot("expert", WUHAN, 1)
    assert isinstance(plain, ExpertBot) and plain.guide is None and plain.samples == 100
    monkeypatch.setattr(ExpertBot, "use_policy", True)
    monkeypatch.setenv(ENV_VAR, str(tmp_path))  # a directory without models
    without = make_bot("expert", WUHAN, 1)
    assert isinstance(without, ExpertBot) and without.guide is None and without.samples == 100


def test_priors_are_the_learned_bots_probabilities_of_the_legal_actions():
    from laizi.bots.learned import LearnedBot

    state = _played(bytes([3] * 32), 24)
    seat = state.to_act()[0]
    seen, legal = view(state, seat), legal_actions(state, seat)
    assert len(legal) > 1
    priors = _guide().priors(seen, legal)
    assert sorted(map(repr, (a for _, a in priors))) == sorted(map(repr, legal))
    assert sum(p for p, _ in priors) == pytest.approx(1.0, abs=1e-5)
    assert [p for p, _ in priors] == sorted((p for p, _ in priors), reverse=True)
    assert priors[0][1] == LearnedBot(WUHAN, 0).act(seen, legal)  # its argmax is learned's play


@pytest.mark.parametrize("rules", ["wuhan-qipi-koukou", "baishan"])
def test_expert_with_every_part_of_the_policy_plays_whole_hands_alike(monkeypatch, rules):
    from laizi.sim import play_hand, wall_seed

    monkeypatch.setattr(ExpertBot, "policy_priors", 2)
    monkeypatch.setattr(ExpertBot, "policy_weights", True)
    ruleset = make_ruleset(rules)

    def once() -> tuple[Any, ...]:
        bots = [make_bot("expert" if s == 1 else "strong", ruleset.settings, s) for s in range(4)]
        out = play_hand(ruleset, bots, 0, wall_seed(9, 2))
        guide = bots[1].guide
        assert guide is not None and guide.rows > 0
        return out.payments, out.decisions, guide.rows

    first = once()
    assert sum(first[0]) == 0
    assert once() == first


def test_expert_blind_is_the_search_without_the_policy_and_the_recipes_name_it():
    from laizi.dataset.recipes import find_recipe
    from laizi.train.recipes import find_train_recipe

    blind = make_bot("expert-blind@100", WUHAN, 3)
    assert isinstance(blind, ExpertBot) and blind.guide is None and blind.samples == 50
    assert find_train_recipe("learned-v2").teacher == "expert-blind@100"
    assert set(find_recipe("expert-selfplay-v1").bots) == {"expert-blind@200"}
