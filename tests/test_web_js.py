"""The web client speaks the server's words, and its JavaScript has unit tests.

The names of every win, fan, factor, cap, contract and refusal reason come from the server
(``GET /api/settings/schema``, ``words``: each game's ``explain`` module through its ruleset); the
client (``laizi/web/static``) declares none and names no game.  ``node --test tests/js/`` runs the
unit tests of ``model.js`` and the helpers the table page is made of (Node, as the example bot
needs; ``scripts/test.sh`` lints them with Biome).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from laizi.engine.hints import refusal_reasons
from laizi.rules.baishan.explain import REASONS as BAISHAN_REASONS
from laizi.rules.baishan.settle import FANS, SHAPE_NAMES
from laizi.rules.registry import game_ids
from laizi.rules.wuhan.explain import CAP_NAMES, CONTRACT_NAMES, FACTOR_NAMES, WIN_NAMES
from laizi.server.schema import game_words
from laizi.web.routes import STATIC

ROOT = Path(__file__).resolve().parent.parent

PROTOCOL_WORDS = frozenset(
    {"dealer", "hard", "cap", "small", "opened", "self_draw", "concealed_kong", "exposed_kong"}
)
"""Ids of the games' words that are also the protocol's (event types and fields: a ``dealer``
seat, a settlement's ``hard`` and ``caps``, ``opened`` counts, a ``small`` tile) or CSS classes
(``small``): the client writes these for their protocol meaning, never as a name to show."""


def _pairs(table: dict[str, tuple[str, ...]]) -> dict[str, dict[str, str]]:
    return {k: {"zh": v[0], "en": v[1]} for k, v in table.items()}


def test_the_schema_carries_every_name_each_games_explain_module_uses() -> None:
    words = game_words()
    assert list(words) == list(game_ids())
    wuhan, baishan = words["wuhan"], words["baishan"]
    assert wuhan["wins"] == _pairs(WIN_NAMES)
    assert wuhan["factors"] == _pairs(FACTOR_NAMES)
    assert wuhan["caps"] == _pairs(CAP_NAMES)
    assert wuhan["contracts"] == _pairs(CONTRACT_NAMES)
    assert wuhan["settlement"] == "multipliers" and wuhan["counts"] is True
    assert wuhan["counted"] == ["opened"]
    assert baishan["wins"] == _pairs(SHAPE_NAMES)
    assert baishan["fans"] == _pairs(FANS)
    assert baishan["settlement"] == "fans" and baishan["counts"] is False
    assert baishan["caps"] == {"cap": {"zh": "封顶", "en": "cap"}}
    assert baishan["reasons"] == {**_pairs(BAISHAN_REASONS), **_pairs(refusal_reasons())}
    for game in words.values():  # every reason a hint may give, in both languages
        assert set(refusal_reasons()) <= set(game["reasons"])
        for kind in ("wins", "fans", "factors", "caps", "contracts", "reasons"):
            for label in game[kind].values():
                assert label["zh"] and label["en"], label


COMMENT = re.compile(r"/\*[\s\S]*?\*/|(?<![:\\])//[^\n]*")
"""A JavaScript comment (not the ``//`` of a URL): prose may say any word."""


def _client_sources(code_only: bool = True) -> dict[str, str]:
    """Each client module's text, its comments left out unless ``code_only`` is false."""
    texts = {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js"))}
    return {k: COMMENT.sub("", v) if code_only else v for k, v in texts.items()}


def test_the_client_declares_no_games_words_and_names_no_game() -> None:
    ids: set[str] = set(game_ids())
    for words in game_words().values():
        for kind in ("wins", "fans", "factors", "caps", "contracts", "reasons", "how"):
            ids |= set(words[kind])
    ids -= PROTOCOL_WORDS
    found = {
        name: hits
        for name, text in _client_sources().items()
        if (hits := sorted(i for i in ids if re.search(rf"\b{re.escape(i)}\b", text)))
    }
    # ids the hints and the server share with the page: the fallback word for any refusal
    assert found == {"hints.js": ["not_allowed"], "i18n.js": ["not_allowed"]}


def test_the_client_has_no_game_branch() -> None:
    """No ``game === …`` nor a name or a preset of a game anywhere in the client."""
    pattern = re.compile(r"\b(game|preset)\s*[!=]==?\s*[\"']|baishan|wuhan", re.IGNORECASE)
    found = {name: pattern.findall(text) for name, text in _client_sources(False).items()}
    assert {name: hits for name, hits in found.items() if hits} == {}


def test_the_table_page_is_made_of_small_modules() -> None:
    sizes = {name: text.count("\n") for name, text in _client_sources(False).items()}
    for part in ("seat", "pond", "hand", "actions", "hints", "tablesettle", "clock", "table"):
        assert f"{part}.js" in sizes, part
    assert sizes["table.js"] < 400, sizes


@pytest.mark.skipif(shutil.which("node") is None, reason="Node is installed by scripts/test.sh")
def test_the_clients_unit_tests_pass_on_node() -> None:
    run = subprocess.run(
        ["node", "--test", "tests/js/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    counts = dict(re.findall(r"^# (tests|pass|fail) (\d+)$", run.stdout, re.MULTILINE))
    assert int(counts["tests"]) >= 20 and counts["pass"] == counts["tests"], counts
    assert counts["fail"] == "0"
