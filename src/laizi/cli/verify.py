"""``laizi verify RECORD|-``: check a hand record (commitment, wall, every event replayed).

The whole chain of a deal: ``sha256(seed)`` is the ``start`` event's commitment, the wall is the
one of ``seed`` — or, when ``start`` lists the players' contributions, of
``combined_seed(seed, contributions)`` (docs/engine.md) — and every event replays.  A match's
hands share their rules and the hash chain (``previous``), are numbered in a row from 0, and carry
their running totals exactly (docs/engine.md, "Verifying").

Exit 0 and a one-line verdict, or exit 4 naming the first event that does not match (exit 1
when the file can't be read or a line is not JSON).  A record with a hand that has no commitment
(its wall is listed, so whoever wrote it may have chosen it) is ``unverifiable``: exit 4, or exit
0 with the same verdict under ``--allow-uncommitted``.  Hands are numbered from 0, as in records
and the API.
"""

from __future__ import annotations

import typer

from laizi.cli.common import (
    EXIT_VERIFY_FAILED,
    LangOption,
    app,
    dumps,
    fail,
    lang_or_exit,
    read_text,
)
from laizi.cli.verdict_text import problem_text, verdict_text
from laizi.engine.record import RecordError, parse_record, verify

__all__ = ["verify_command"]


@app.command("verify")
def verify_command(
    record: str = typer.Argument(..., help="A hand record (JSON Lines), or - for standard input."),
    json_output: bool = typer.Option(
        False,
        "--json",
        help="Print the verdict as one JSON line: ok, verdict, hands, first, uncommitted, index,"
        " message.",
    ),
    allow_uncommitted: bool = typer.Option(
        False,
        "--allow-uncommitted",
        help="Exit 0 for a record that replays but has a hand without a commitment (a listed"
        " wall, e.g. from laizi replay); the verdict still says unverifiable.",
    ),
    lang: str | None = LangOption,
) -> None:
    """Check a record: sha256(seed) = commitment, the wall from the seed and the players'
    contributions, every event replayed; across a match's hands the same rules, the hash chain
    (previous), numbers in a row from 0, running totals that start at 0, sum to 0 and carry on
    exactly.  Verdicts: ok (exit 0); unverifiable, a hand without a commitment whose wall may have
    been chosen (exit 4, 0 with --allow-uncommitted); FAILED (exit 4).  Hands count from 0."""
    language = lang_or_exit(lang)
    text = read_text(record)
    try:
        events = parse_record(text)
    except RecordError as error:
        fail(f"{record}: {problem_text(str(error), language)}")
    verdict = verify(events)
    passed = verdict.status == "verified" or (
        verdict.status == "unverifiable" and allow_uncommitted
    )
    if json_output:
        typer.echo(
            dumps(
                {
                    "ok": passed,
                    "verdict": verdict.status,
                    "hands": verdict.hands,
                    "first": verdict.first if verdict.ok else None,
                    "uncommitted": list(verdict.uncommitted),
                    "index": verdict.index,
                    "message": verdict.message,
                }
            )
        )
    else:
        typer.echo(
            verdict_text(
                verdict.status,
                verdict.hands,
                verdict.message_zh if language == "zh" and verdict.message_zh else verdict.message,
                verdict.results,
                language,
            )
        )
    if not passed:
        raise typer.Exit(EXIT_VERIFY_FAILED)
