"""docs/dataset.md's forced decisions (issue 28 item 6): rows with ``legal`` = 1 do occur, and
they are exactly the discards with one choice — a Baishan seat after 报听 (it must discard the
tile it drew) or a hand whose concealed tiles are all one kind; the 海底 round asks nobody who
can't win, so it gives no row."""

from __future__ import annotations

import random
from collections import Counter

from laizi.dataset.decisions import DecisionRows, replay_decisions
from laizi.engine import Game, make_ruleset
from laizi.env.table import EnvTable
from laizi.tiles import parse_tiles


def test_forced_rows_are_the_one_choice_discards() -> None:
    why: Counter[str] = Counter()
    for preset in ("wuhan-hongzhong-kaikou", "baishan"):
        for seed in range(60):
            rng = random.Random(seed)
            game = Game.deal(preset, seed=seed.to_bytes(32, "big"))
            forced = 0
            while not game.over:
                seat = game.to_act[0]
                legal = game.legal_actions(seat)
                if len(legal) == 1:
                    forced += 1
                    view = game.view(seat)
                    assert legal[0].type == "discard" and view["phase"] == "turn"
                    if view["players"][seat]["declared_ready"]:
                        assert legal[0].notation().endswith(view["drawn"])
                        why["after 报听"] += 1
                    else:
                        assert len(set(parse_tiles(view["concealed"]))) == 1
                        why["one kind"] += 1
                game.play(rng.choice(legal))
            rows = DecisionRows()
            replay_decisions(game.record, EnvTable(make_ruleset(preset)), rows)
            assert int((rows.legal[: rows.size] == 1).sum()) == forced
    assert why["after 报听"] > 0 and why["one kind"] > 0
