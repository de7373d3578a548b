"""``laizi play --rules P [--seat S] [--bots NAME] [--seed N] [--hands N]``: a terminal table
against three bots (:mod:`laizi.terminal`)."""

from __future__ import annotations

import sys

import typer
from rich.console import Console

from laizi.bots.base import BotError
from laizi.cli.common import RULES_HELP, LangOption, app, fail, lang_or_exit, load_json_option
from laizi.i18n import pick
from laizi.rules import SettingsError
from laizi.terminal import TerminalTable

__all__ = ["play"]


def _read_line() -> str | None:
    line = sys.stdin.readline()
    return None if line == "" else line


@app.command("play")
def play(
    rules: str = typer.Option("wuhan-hongzhong-kaikou", "--rules", help=RULES_HELP),
    seat: int = typer.Option(0, "--seat", min=0, max=3, help="Your seat."),
    bots: str = typer.Option("strong", "--bots", help="The three opponents' bot."),
    seed: int | None = typer.Option(
        None, "--seed", help="Reproducible walls (for practice); default: fresh random seeds."
    ),
    hands: int | None = typer.Option(None, "--hands", min=1, help="Stop after this many hands."),
    lang: str | None = LangOption,
) -> None:
    """Sit down at a table with three bots: type the key of your action."""
    language = lang_or_exit(lang)
    try:
        parsed = load_json_option("--rules", rules)
        table = TerminalTable(
            parsed,
            seat=seat,
            bots=bots,
            seed=seed,
            lang=language,
            console=Console(highlight=False),
            read_line=_read_line,
        )
    except (BotError, SettingsError, ValueError) as error:
        fail(str(error))
    totals = table.run(hands)
    typer.echo(pick(language, "比赛总分：", "match totals: ") + table.by_seat(totals))
