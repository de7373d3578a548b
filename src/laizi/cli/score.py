"""``laizi score FILE|-``: settle one finished Wuhan or Baishan hand (INTERFACES.md).

Reads the input object, prints the readable settlement (Chinese or English), or with ``--json``
only the JSON object on one line.  Bad input exits 1 with a message naming the field.
"""

from __future__ import annotations

import typer

from laizi.cli.common import LangOption, app, dumps, fail, lang_or_exit, load_json
from laizi.scoring import InputError, score, situation_from_json


@app.command("score")
def score_command(
    source: str = typer.Argument(
        ..., metavar="FILE|-", help="The finished hand as JSON; - for stdin."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print only the JSON result."),
    lang: str | None = LangOption,
) -> None:
    """Settle a win: who pays whom, how much, and why (Wuhan A7–A10, Baishan Part B)."""
    language = lang_or_exit(lang)
    data = load_json(source)
    try:
        settlement = score(situation_from_json(data))
    except InputError as error:
        fail(str(error))
    if as_json:
        typer.echo(dumps(settlement.to_json()))
    else:
        typer.echo(settlement.explain(language))
