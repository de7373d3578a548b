"""``laizi verify RECORD|-``: check a hand record (commitment, wall, every event replayed).

The whole chain of a deal: ``sha256(seed)`` is the ``start`` event's commitment, the wall is the
one of ``seed`` — or, when ``start`` lists the players' contributions, of
``combined_seed(seed, contributions)`` (docs/engine.md) — and every event replays.

Exit 0 and a one-line verdict, or exit 4 naming the first event that does not match (exit 1
when the file can't be read or a line is not JSON).
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
    json_output: bool = typer.Option(False, "--json", help="Print the verdict as one JSON line."),
    lang: str | None = LangOption,
) -> None:
    """Check a record: sha256(seed) = commitment, the wall from the seed and the players'
    contributions, every event replayed."""
    language = lang_or_exit(lang)
    text = read_text(record)
    try:
        events = parse_record(text)
    except RecordError as error:
        fail(f"{record}: {problem_text(str(error), language)}")
    verdict = verify(events)
    if json_output:
        typer.echo(
            dumps(
                {
                    "ok": verdict.ok,
                    "hands": verdict.hands,
                    "index": verdict.index,
                    "message": verdict.message,
                }
            )
        )
    else:
        typer.echo(
            verdict_text(
                verdict.ok,
                verdict.hands,
                verdict.message_zh if language == "zh" and verdict.message_zh else verdict.message,
                verdict.results,
                language,
            )
        )
    if not verdict.ok:
        raise typer.Exit(EXIT_VERIFY_FAILED)
