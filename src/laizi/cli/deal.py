"""``laizi deal [--rules P] [--seed N|HEX] [--hands N]``: hands of uniformly random legal actions.

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

from laizi.cli.common import RULES_HELP, app, fail, load_json_option
from laizi.engine.match import Match
from laizi.engine.playout import play_out
from laizi.engine.record import dumps_event
from laizi.engine.wall import SEED_BYTES, parse_seed
from laizi.rules.registry import make_ruleset

__all__ = ["deal"]


def seed_bytes(text: str) -> bytes:
    """``--seed``: 64 hex digits are the wall's seed itself; a whole number (the form ``play``,
    ``arena`` and ``simulate`` take) gives ``SHA-256("laizi-deal:N")``.

    >>> seed_bytes("7") == seed_bytes(" 7 ") != seed_bytes("8")
    True
    >>> seed_bytes("5a" * 32) == bytes.fromhex("5a" * 32)
    True
    """
    cleaned = text.strip()
    if len(cleaned.lower().removeprefix("0x")) == 2 * SEED_BYTES:
        return parse_seed(cleaned)
    try:
        number = int(cleaned, 10)
    except ValueError:
        raise ValueError(
            f"{text!r} is neither a whole number nor {2 * SEED_BYTES} hex digits"
        ) from None
    return hashlib.sha256(f"laizi-deal:{number}".encode()).digest()


@app.command("deal")
def deal(
    rules: str = typer.Option("wuhan-hongzhong-kaikou", "--rules", help=RULES_HELP),
    seed: str | None = typer.Option(
        None,
        "--seed",
        help="A whole number, as for play, arena and simulate (reproducible walls derive from "
        "it), or the wall's own seed as 64 hex digits (as a record reveals it).",
    ),
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
        first = seed_bytes(seed) if seed is not None else secrets.token_bytes(SEED_BYTES)
    except ValueError as error:  # WallError is one
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
        match.finish(events)
        for event in events:
            typer.echo(dumps_event(event))
        if match.over:
            break
