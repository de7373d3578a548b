"""``laizi bot-check cmd:COMMAND [--json]``: the bot protocol's conformance suite.

Exit 0 when every case passes, 4 when one fails (INTERFACES.md), 1 for a bad bot name; the
report is a table, or with ``--json`` one JSON line with ``passed``, ``failed`` and ``cases``.
"""

from __future__ import annotations

import sys
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from laizi.botproto.check import run_check
from laizi.botproto.process import BotStartError
from laizi.cli.common import EXIT_VERIFY_FAILED, LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import Lang, pick

__all__ = ["bot_check"]


@app.command("bot-check")
def bot_check(
    bot: str = typer.Argument(..., help='The bot: "cmd:COMMAND", e.g. "cmd:python3 mybot.py".'),
    timeout: float = typer.Option(
        5.0, "--timeout", min=0.1, max=600, help="Seconds the bot has for each decision."
    ),
    hands: int = typer.Option(4, "--hands", min=1, max=200, help="Random hands per game."),
    seed: int = typer.Option(2026, "--seed", help="Seed of the random hands."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as one JSON line."),
    lang: str | None = LangOption,
) -> None:
    """Run the conformance suite on a bot-protocol process and report (exit 0 pass, 4 fail)."""
    language = lang_or_exit(lang)
    if not bot.startswith("cmd:") or not bot[4:].strip():
        fail(pick(language, '机器人要写成 "cmd:命令"', 'the bot must be given as "cmd:COMMAND"'))
    err = Console(file=sys.stderr)
    try:
        with err.status(pick(language, "检查中…", "checking…")) as status:
            report = run_check(
                bot[4:],
                timeout=timeout,
                hands=hands,
                seed=seed,
                progress=lambda name: status.update(f"bot-check: {name}"),
            )
    except (BotStartError, ValueError) as error:  # a bad command or LAIZI_BOT_* setting
        fail(str(error))
    if as_json:
        typer.echo(dumps(report))
    else:
        _print(report, language)
    if report["failed"]:
        raise typer.Exit(EXIT_VERIFY_FAILED)


@app.command("bot-connect")
def bot_connect(
    bot: str = typer.Argument(..., help='The bot: "cmd:COMMAND".'),
    room: str | None = typer.Option(None, "--room", help="The room's code."),
    ladder: str | None = typer.Option(
        None,
        "--ladder",
        metavar="PRESET",
        help="Instead of --room: wait for a table of PRESET on the server's bot ladder "
        "(laizi serve --bot-ladder); the bot is rated as owner/name.",
    ),
    url: str = typer.Option(
        "ws://127.0.0.1:8000/ws/bot", "--url", help="The server's bot WebSocket (/ws/bot)."
    ),
    seat: int | None = typer.Option(
        None, "--seat", min=0, max=3, help="A seat (else the first free)."
    ),
    token: str | None = typer.Option(
        None, "--token", envvar="LAIZI_BOT_TOKEN", help="A bot token (else $LAIZI_BOT_TOKEN)."
    ),
    lang: str | None = LangOption,
) -> None:
    """Seat a cmd: bot at a live table through the server's /ws/bot and play the match."""
    import asyncio

    from laizi.botproto.bridge import BridgeError, connect

    language = lang_or_exit(lang)
    if not bot.startswith("cmd:") or not bot[4:].strip():
        fail(pick(language, '机器人要写成 "cmd:命令"', 'the bot must be given as "cmd:COMMAND"'))
    if not token:
        fail(
            pick(
                language,
                "需要机器人令牌：--token 或 LAIZI_BOT_TOKEN",
                "a bot token is needed: --token or LAIZI_BOT_TOKEN",
            )
        )
    if (room is None) == (ladder is None):
        fail(
            pick(
                language,
                "请给出 --room（房间号）或 --ladder（天梯的预设）之一",
                "give one of --room (a room's code) or --ladder (a ladder preset)",
            )
        )
    try:
        summary = asyncio.run(
            connect(url, bot[4:], room=room, token=token, seat=seat, ladder=ladder)
        )
    except (BridgeError, BotStartError, OSError) as error:
        fail(str(error))
    except Exception as error:  # the websockets library's own (refused handshake, closed …)
        fail(f"{type(error).__name__}: {error}")
    typer.echo(dumps(summary))


def _print(report: dict[str, Any], lang: Lang) -> None:
    console = Console()
    table = Table(title=f"bot-check {report['bot']} ({report['name'] or '—'})")
    for header in (
        pick(lang, "项目", "case"),
        pick(lang, "结果", "result"),
        pick(lang, "决定数", "decisions"),
        pick(lang, "最慢 ms", "slowest ms"),
        pick(lang, "说明", "detail"),
    ):
        table.add_column(header)
    for case in report["cases"]:
        verdict = pick(lang, "通过", "pass") if case["passed"] else pick(lang, "失败", "FAIL")
        table.add_row(
            case["name"],
            verdict,
            str(case["decisions"]),
            f"{case['slowest_ms']:.1f}",
            str(case["detail"]),
        )
    console.print(table)
    console.print(
        pick(
            lang,
            f"通过 {report['passed']} 项，失败 {report['failed']} 项（{report['seconds']:.1f} 秒）",
            f"{report['passed']} passed, {report['failed']} failed ({report['seconds']:.1f} s)",
        )
    )
