"""``laizi deal [--rules P] [--seed HEX] [--hands N]``: hands of uniformly random legal actions.

Each hand's seed is drawn with :mod:`secrets` unless ``--seed`` is given; the random actions come
from a ``random.Random`` seeded with the first seed (randomness lives here, never in the engine),
so the same ``--seed`` prints the same record.  With ``--hands N`` the hands are a match (dealer
rule, running totals); with ``--seed`` hand *i* then uses ``SHA-256(seed ‖ i)`` — reproducible
for testing, and therefore not a fair deal: real tables draw every seed fresh.  The record is
JSON Lines; pipe it to ``laizi verify -``.
"""

from __future__ import annotations

import hashlib
import random
import secrets

import typer

from laizi.cli.common import app, fail, load_json_option
from laizi.engine.match import Match
from laizi.engine.playout import play_out
from laizi.engine.record import dumps_event
from laizi.engine.wall import SEED_BYTES, WallError, parse_seed
from laizi.rules.registry import make_ruleset

__all__ = ["deal"]


@app.command("deal")
def deal(
    rules: str = typer.Option(
        "wuhan-hongzhong-kaikou", "--rules", help="A preset name, or a JSON rules object."
    ),
    seed: str | None = typer.Option(None, "--seed", help="The wall's seed: 64 hex digits."),
    dealer: int = typer.Option(0, "--dealer", min=0, max=3, help="The first dealer's seat."),
    hands: int = typer.Option(1, "--hands", min=1, help="Hands to play as one match."),
    json_output: bool = typer.Option(
        False, "--json", help="Accepted for uniformity: the output is always JSON lines."
    ),
) -> None:
    """Play hands with uniformly random legal actions and print their record."""
    parsed = load_json_option("--rules", rules)
    try:
        ruleset = make_ruleset(parsed)
    except ValueError as error:
        fail(f"--rules: {error}")
    try:
        first = parse_seed(seed) if seed is not None else secrets.token_bytes(SEED_BYTES)
    except WallError as error:
        fail(f"--seed: {error}")
    choose = random.Random(first).choice
    match = Match(ruleset, dealer=dealer)
    for index in range(hands):
        if index == 0:
            hand_seed = first
        elif seed is not None:
            hand_seed = hashlib.sha256(first + index.to_bytes(4, "big")).digest()
        else:
            hand_seed = secrets.token_bytes(SEED_BYTES)
        state, events = match.deal(hand_seed)
        events += play_out(state, choose)
        match.finish()
        for event in events:
            typer.echo(dumps_event(event))
        if match.over:
            break
