"""What docs/bot-protocol.md says of the view holds on real views (issue 28 item 6): ``concealed``
includes the drawn tile, the prompt's ``legal`` is the view's without ``seat``, melds have the
documented shape; and every ``curl`` that POSTs JSON in the docs sends its Content-Type (the
server answers 415 without it)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from laizi.botproto.protocol import prompt_message
from laizi.engine import Game
from laizi.rules.melds import MELD_KINDS
from laizi.tiles import parse_tiles

ROOT = Path(__file__).resolve().parent.parent


def test_views_are_as_documented() -> None:
    turns = 0
    for preset in ("wuhan-hongzhong-kaikou", "baishan"):
        for seed in range(8):
            rng = random.Random(seed)
            game = Game.deal(preset, seed=seed.to_bytes(32, "big"))
            while not game.over:
                seat = game.to_act[0]
                view = game.view(seat)
                legal = game.legal_actions(seat)
                me = view["players"][seat]
                concealed = parse_tiles(view["concealed"])
                if view["phase"] == "turn" and view["drawn"] is not None:
                    turns += 1
                    assert parse_tiles(view["drawn"])[0] in concealed
                    assert len(concealed) == 14 - 3 * len(me["melds"])
                assert me["opened"] == me["openings"]
                assert me["kongs"] == sum(1 for m in me["melds"] if "kong" in m["kind"])
                for player in view["players"]:
                    for meld in player["melds"]:
                        assert meld["kind"] in MELD_KINDS
                        assert ("from" in meld) == (meld["kind"] != "concealed_kong")
                        hidden = meld["kind"] == "concealed_kong" and player["seat"] != seat
                        assert (meld["tiles"] is None) == hidden
                prompt = prompt_message(1, view["phase"], legal, 5.0, view)
                with_seat = [{k: v for k, v in a.items() if k != "seat"} for a in view["legal"]]
                assert prompt["legal"] == with_seat
                assert all(a["seat"] == seat for a in view["legal"])
                game.play(rng.choice(legal))
    assert turns > 100


def test_every_documented_json_post_sends_its_content_type() -> None:
    posts = 0
    for doc in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        text = doc.read_text(encoding="utf-8").replace("\\\n", " ")  # join continued lines
        for command in re.findall(r"curl [^\n]*", text):
            if " -d " in command or "--data" in command:
                posts += 1
                assert "Content-Type: application/json" in command, (doc.name, command)
    assert posts >= 1
