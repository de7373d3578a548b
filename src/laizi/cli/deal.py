"""``laizi deal [--rules P] [--seed HEX]``: one hand of uniformly random legal actions.

The seed is drawn with :mod:`secrets` unless given; the random actions come from a
``random.Random`` seeded with it (randomness lives here, never in the engine), so the same seed
prints the same record.  The record is JSON Lines; pipe it to ``laizi verify -``.
"""

from __future__ import annotations

import json
import random
import secrets

import typer

from laizi.cli.common import app, fail
from laizi.engine.game import new_hand
from laizi.engine.playout import play_out
from laizi.engine.record import dumps_event
from laizi.engine.registry import make_ruleset
from laizi.engine.wall import SEED_BYTES, WallError, parse_seed

__all__ = ["deal"]


@app.command("deal")
def deal(
    rules: str = typer.Option(
        "wuhan-hongzhong-kaikou", "--rules", help="A preset name, or a JSON rules object."
    ),
    seed: str | None = typer.Option(None, "--seed", help="The wall's seed: 64 hex digits."),
    dealer: int = typer.Option(0, "--dealer", min=0, max=3, help="The dealer's seat."),
) -> None:
    """Play one hand with uniformly random legal actions and print its record."""
    try:
        ruleset = make_ruleset(json.loads(rules) if rules.lstrip().startswith("{") else rules)
    except (ValueError, json.JSONDecodeError) as error:
        fail(f"--rules: {error}")
    try:
        seed_bytes = parse_seed(seed) if seed is not None else secrets.token_bytes(SEED_BYTES)
    except WallError as error:
        fail(f"--seed: {error}")
    state, events = new_hand(ruleset, dealer, seed=seed_bytes)
    events += play_out(state, random.Random(seed_bytes).choice)
    for event in events:
        typer.echo(dumps_event(event))
