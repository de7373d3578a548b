"""``laizi fairplay --db URL [--json]``: the collusion watch's report (docs/fairplay.md).

Reads a server's database and lists the pairs of accounts whose play together is too unlikely
for honest play, with the hands and decisions behind it.  It only reports; it changes nothing in
the database (it never migrates it either: a database the server never wrote is refused).

Exit 0 with the report (no pair flagged is a report too); exit 1 when the database can't be read:
a bad URL, a missing SQLite file, a database without the server's tables.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from laizi.cli.common import LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import Lang, pick

if TYPE_CHECKING:
    from sqlalchemy import Engine

__all__ = ["fairplay_command"]


@app.command("fairplay")
def fairplay_command(
    db: str = typer.Option(
        ...,
        "--db",
        help="The server's database: sqlite:///FILE or postgresql://USER@HOST/DB.",
    ),
    json_output: bool = typer.Option(
        False, "--json", help="Print the report as one JSON object (docs/fairplay.md)."
    ),
    min_matches: int = typer.Option(
        10, "--min-matches", min=1, help="Matches a pair must have played together to be scored."
    ),
    threshold: float = typer.Option(
        6.0,
        "--threshold",
        min=0.0,
        help="Flag a pair whose score (-log10 of its corrected p-value) reaches this.",
    ),
    all_rooms: bool = typer.Option(
        False,
        "--all-rooms",
        help="Read friendly and casual rooms too (by default only ranked matches count: friends"
        " choose their table in a friendly room).",
    ),
    lang: str | None = LangOption,
) -> None:
    """List the pairs of accounts flagged by the collusion watch (伙牌), with the evidence.
    Never bans anyone: it only reports."""
    language = lang_or_exit(lang)
    from laizi.server.fairplay import analyze, report_text

    engine = _engine(db, language)
    try:
        report = analyze(engine, min_matches, threshold, all_rooms)
    except Exception as error:
        fail(_unreadable(db, error, language))
    finally:
        engine.dispose()
    if json_output:
        typer.echo(dumps(report.to_json()))
    else:
        typer.echo(report_text(report, language))


def _engine(db: str, lang: Lang) -> Engine:
    """An engine on ``db`` that has the server's tables, or exit 1 saying why not."""
    from sqlalchemy import create_engine, inspect
    from sqlalchemy.exc import ArgumentError

    from laizi.server.store import database_url

    url = database_url(db)
    if url.startswith("sqlite:///") and url != "sqlite:///:memory:":
        path = Path(url[len("sqlite:///") :])
        if not path.is_file():
            fail(pick(lang, f"--db {db}：没有这个文件", f"--db {db}: no such file"))
    try:
        engine = create_engine(url)
        tables = set(inspect(engine).get_table_names())
    except ArgumentError:
        fail(pick(lang, f"--db {db}：不是数据库地址", f"--db {db}: not a database URL"))
    except Exception as error:
        fail(_unreadable(db, error, lang))
    missing = {"rooms", "hands", "events", "seat_accounts", "accounts"} - tables
    if missing:
        engine.dispose()
        fail(
            pick(
                lang,
                f"--db {db}：不是 laizi 服务器的数据库（缺少表 {', '.join(sorted(missing))}）",
                f"--db {db}: not a laizi server's database (no table {', '.join(sorted(missing))})",
            )
        )
    return engine


def _unreadable(db: str, error: Exception, lang: Lang) -> str:
    first = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
    return pick(lang, f"--db {db}：无法读取：{first}", f"--db {db}: cannot be read: {first}")
