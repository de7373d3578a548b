"""The bots (issue 6): legal, deterministic, blind to hidden tiles, and playing by the rules."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi.bots import BOTS, Bot, BotError, SeatTable, make_bot
from laizi.engine import Action, legal_actions, make_ruleset, view
from laizi.rules import PRESETS, preset
from laizi.sim import play_hand, wall_seed
from laizi.tiles import parse_tile
from tests.bot_helpers import discards_of, table_view
from tests.engine_helpers import apply_json, deal_json, hidden_shuffled

WUHAN = preset("wuhan-hongzhong-kaikou")
ALL_PRESETS = sorted(PRESETS)


def test_bots_are_named_by_string():
    assert sorted(BOTS) == ["expert", "expert-blind", "greedy", "learned", "random", "strong"]
    assert type(make_bot("strong", WUHAN, 3)).__name__ == "StrongBot"


def test_an_outside_bot_is_loaded_as_module_colon_class():
    bot = make_bot("tests.outside.first_tile:FirstTile", WUHAN, 0)
    ruleset = make_ruleset(WUHAN)
    out = play_hand(
        ruleset, [bot, *[make_bot("random", WUHAN, s) for s in range(3)]], 0, wall_seed(1, 0)
    )
    assert sum(out.payments) == 0


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("nobody", "unknown bot 'nobody'"),
        ("no_such_module_xyz:Bot", "can't import module"),
        ("tests.outside.first_tile:Missing", "has no class 'Missing'"),
    ],
)
def test_a_bad_bot_name_is_a_clear_error(name, message):
    with pytest.raises(BotError, match=message):
        make_bot(name, WUHAN, 0)


@pytest.mark.parametrize("rules", ALL_PRESETS)
@pytest.mark.parametrize("name", ["random", "greedy", "strong", "expert"])
def test_every_bot_plays_whole_hands_of_every_preset(rules, name):
    ruleset = make_ruleset(rules)
    settings_ = ruleset.settings
    for index in range(2):
        bots = [make_bot(name if s == 0 else "greedy", settings_, index * 4 + s) for s in range(4)]
        out = play_hand(ruleset, bots, index, wall_seed(5, index))  # raises on an illegal action
        assert sum(out.payments) == 0


class Recorder(Bot):
    """Wraps a bot and keeps everything it was handed."""

    def __init__(self, inner: Bot) -> None:
        super().__init__(inner.rules, inner.seed)
        self.inner = inner
        self.seen: list[dict[str, Any]] = []

    def act(self, view: dict[str, Any], legal: Any) -> Action:
        self.seen.append(view)
        return self.inner.act(view, legal)


def test_a_bot_is_handed_only_its_seats_view():
    ruleset = make_ruleset("wuhan-qipi-koukou")
    bots = [Recorder(make_bot("strong", ruleset.settings, s)) for s in range(4)]
    out = play_hand(ruleset, bots, 0, wall_seed(2, 0))
    for seat, bot in enumerate(bots):
        assert bot.seen
        for seen in bot.seen:
            assert isinstance(seen, dict)
            assert seen["seat"] == seat
            assert "wall" not in seen and "result" not in seen
            for player in seen["players"]:
                assert "concealed" not in player  # another seat's tiles are never in a view
            assert seen["concealed"]  # its own hand is there
            json.dumps(seen)  # plain data: no engine object to reach through
    assert sum(out.payments) == 0


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.binary(min_size=32, max_size=32),
    steps=st.integers(min_value=0, max_value=60),
    preset_name=st.sampled_from(["wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "baishan"]),
    name=st.sampled_from(["random", "greedy", "strong"]),
)
def test_a_decision_does_not_depend_on_hidden_tiles(seed, steps, preset_name, name):
    ruleset = make_ruleset(preset_name)
    state, _ = deal_json(ruleset, 0, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.over:
            return
        seat = state.to_act()[0]
        apply_json(state, rng.choice(legal_actions(state, seat)))
    if state.over:
        return
    seat = state.to_act()[0]
    other = hidden_shuffled(state, seat, rng)
    seen, seen_other = view(state, seat), view(other, seat)
    assert seen == seen_other  # the hidden tiles really differ, the view does not
    first = make_bot(name, ruleset.settings, 9).act(seen, legal_actions(state, seat))
    second = make_bot(name, ruleset.settings, 9).act(seen_other, legal_actions(other, seat))
    assert first == second


@pytest.mark.parametrize("name", ["random", "greedy", "strong", "expert"])
def test_the_same_seed_gives_the_same_hand(name):
    ruleset = make_ruleset("wuhan-hongzhong-kaikou")

    def once() -> tuple[Any, ...]:
        bots = [make_bot(name, ruleset.settings, 40 + s) for s in range(4)]
        out = play_hand(ruleset, bots, 1, wall_seed(8, 3))
        return out.payments, out.winner, out.decisions

    assert once() == once()


def test_random_is_uniform_over_legal_actions():
    bot = make_bot("random", WUHAN, 1)
    legal = [Action(0, "discard", t) for t in range(4)]
    picks = [bot.act(table_view("1234m"), legal).tile for _ in range(4000)]
    for t in range(4):
        assert 900 < picks.count(t) < 1100


# --- greedy: tile efficiency within Wuhan's rules (A3–A6, A10) ---------------------------------


def turn_legal(view: dict[str, Any], extra: list[Action] = ()) -> list[Action]:  # type: ignore[assignment]
    return [*discards_of(view), *extra]


def test_greedy_lays_out_a_must_gang_tile_at_once():
    seen = table_view("123m456p789s2255m7z")
    legal = turn_legal(seen, [Action(0, "lay_out", parse_tile("7z"))])
    assert make_bot("greedy", WUHAN).act(seen, legal) == Action(0, "lay_out", parse_tile("7z"))


def test_greedy_discards_the_isolated_honor():
    seen = table_view("123m456p78s2255m1z3p", must_gang=())
    assert make_bot("greedy", WUHAN).act(seen, turn_legal(seen)).tile == parse_tile("1z")


def test_greedy_keeps_the_258_pair_a_small_win_needs():
    # 123m 456p 789s 55m + 33m + 1p: ready either way, but only the 5m pair wins a small win.
    seen = table_view("123m456p789s5533m1p", must_gang=(), laizi="7z", indicator="6z")
    choice = make_bot("greedy", WUHAN).act(seen, turn_legal(seen))
    assert choice.tile in (parse_tile("1p"),)


def test_greedy_lays_out_a_second_laizi():
    # Two laizi forbid a small win (A3): one of them goes out.
    seen = table_view("123m456p789s2m9s9s5p6p", must_gang=())
    legal = turn_legal(seen, [Action(0, "lay_out", parse_tile("9s"))])
    assert make_bot("greedy", WUHAN).act(seen, legal) == Action(0, "lay_out", parse_tile("9s"))


def test_greedy_wins_whenever_it_may():
    seen = table_view("123m456p789s22m55p", phase="claim", claim={"tile": "5p", "from": 2})
    legal = [Action(0, "win"), Action(0, "pung"), Action(0, "pass")]
    assert make_bot("greedy", WUHAN).act(seen, legal).type == "win"


def test_greedy_punges_to_open_when_the_shanten_does_not_suffer():
    # Never opened: a pung that keeps the shanten is the opening a win needs (A5).
    seen = table_view(
        "123m456p78s1z55m33z", phase="claim", claim={"tile": "3z", "from": 2}, must_gang=()
    )
    legal = [Action(0, "pung"), Action(0, "pass")]
    assert make_bot("greedy", WUHAN).act(seen, legal).type == "pung"


def test_greedy_passes_a_pung_that_does_not_help_once_opened():
    # Ready on 5m/1z already; punging 1z leaves it just as ready, and it has opened before.
    seen = table_view(
        "123m456p789s55m11z",
        phase="claim",
        claim={"tile": "1z", "from": 2},
        must_gang=(),
        laizi="7z",
        indicator="6z",
        players={0: {"openings": 1}},
    )
    legal = [Action(0, "pung"), Action(0, "pass")]
    assert make_bot("greedy", WUHAN).act(seen, legal).type == "pass"


# --- strong: value, danger, contracts ------------------------------------------------------------


def test_strong_does_not_feed_a_quanqiuren_while_not_ready():
    # Seat 1 has four openings and one tile: a 2/5/8 discard could pair it, and the discarder,
    # not being ready, would pay for everyone (A9 contract 1).  Greedy does not care.
    opponent = {
        "hand_size": 1,
        "openings": 4,
        "melds": [
            {"kind": "pung", "tiles": "111z", "from": 0},
            {"kind": "pung", "tiles": "222z", "from": 2},
            {"kind": "pung", "tiles": "333z", "from": 3},
            {"kind": "pung", "tiles": "444z", "from": 0},
        ],
    }
    seen = table_view("13m47p258s1469m369p", must_gang=(), players={1: opponent})
    legal = turn_legal(seen)
    strong = make_bot("strong", WUHAN).act(seen, legal).tile
    assert strong is not None and not (strong < 27 and strong % 9 in (1, 4, 7))


def test_strong_keeps_to_a_visible_qingyise():
    # Eleven characters and three strays: 清一色 (base 10) is worth a step of shanten.
    seen = table_view("11234567899m5p58s", must_gang=(), laizi="7z", indicator="6z")
    tile = make_bot("strong", WUHAN).act(seen, turn_legal(seen)).tile
    assert tile is not None and tile // 9 != 0


def test_strong_opens_again_in_koukou_only_to_get_ready():
    # 口口翻: a second opening doubles every loss; from five steps away it is not worth it.
    koukou = preset("wuhan-hongzhong-koukou")
    seen = table_view(
        "159m47p25s33z1z",
        phase="claim",
        claim={"tile": "3z", "from": 2},
        must_gang=(),
        laizi="9s",
        players={0: {"openings": 1, "melds": [{"kind": "pung", "tiles": "999p", "from": 1}]}},
    )
    legal = [Action(0, "pung"), Action(0, "pass")]
    assert make_bot("greedy", koukou).act(seen, legal).type == "pung"
    assert make_bot("strong", koukou).act(seen, legal).type == "pass"


def test_seat_table_counts_what_is_unseen():
    seen = table_view(
        "123m", players={1: {"discards": ["1m", "1m"], "claimed": [1]}, 2: {"laid_out": ["7z"]}}
    )
    table = SeatTable(seen)
    assert table.unseen[parse_tile("1m")] == 4 - 1 - 1  # own tile, one unclaimed discard
    assert table.unseen[parse_tile("7z")] == 3
    assert table.unseen[parse_tile("8s")] == 3  # the indicator is out of play


# --- Baishan (Part B) ---------------------------------------------------------------------------

BAISHAN = preset("baishan")


def baishan_view(concealed: str, **kwargs: Any) -> dict[str, Any]:
    return table_view(concealed, game="baishan", laizi=None, indicator=None, must_gang=(), **kwargs)


def test_greedy_declares_ready_on_a_single_wait():
    # 123m 456p 789s 111z + 5s: after the 9p goes, only 5s wins (单调) — 报听 is allowed.
    seen = baishan_view("123m456p789s111z5s9p")
    legal = [*discards_of(seen), Action(0, "declare_ready", parse_tile("9p"))]
    assert make_bot("greedy", BAISHAN).act(seen, legal) == Action(
        0, "declare_ready", parse_tile("9p")
    )


def test_strong_goes_for_seven_pairs_paid_at_the_cap():
    # Six pairs: 七对 pays the cap (6 fans); strong claims nothing that would open the hand.
    seen = baishan_view("1122m3344p5566s7z", phase="claim", claim={"tile": "1m", "from": 2})
    legal = [Action(0, "pung"), Action(0, "pass")]
    assert make_bot("greedy", BAISHAN).act(seen, legal).type == "pung"
    assert make_bot("strong", BAISHAN).act(seen, legal).type == "pass"


def test_strong_throws_the_single_least_likely_to_pair_in_seven_pairs():
    seen = baishan_view("1122m3344p5566s7z8s", players={2: {"discards": ["8s", "8s"]}})
    assert make_bot("strong", BAISHAN).act(seen, turn_legal(seen)).tile == parse_tile("8s")


def test_strong_chases_no_big_hand_when_a_small_win_already_pays_the_cap():
    # Multiplier 32 against opponents of at least 16: 512 ≥ the cap of 300 on every loser (A9),
    # so 清一色 would pay no more — strong plays for speed like greedy.
    big = {"multiplier": {"total": 16, "factors": []}}
    seen = table_view(
        "11234567899m5p58s",
        must_gang=(),
        laizi="7z",
        indicator="6z",
        players={0: {"multiplier": {"total": 32, "factors": []}}, 1: big, 2: big, 3: big},
    )
    assert make_bot("strong", WUHAN).act(seen, turn_legal(seen)) == make_bot("greedy", WUHAN).act(
        seen, turn_legal(seen)
    )
    assert make_bot("strong", WUHAN).strategy.small_win_capped(SeatTable(seen))
