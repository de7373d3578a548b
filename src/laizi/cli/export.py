"""``laizi export RECORDS… --out DIR [--format parquet|events] [--seat K] [--db URL] [--json]``.

Hand records (files, directories such as a ``laizi simulate --records DIR`` run, ``-`` for
standard input, or a server's database with ``--db``) become a training dataset: Parquet files of
one row per decision (``docs/dataset.md``), or an mjai-style event log per hand
(``--format events``, ``docs/events.md``; with ``--seat K`` what seat K saw, others' concealed
tiles as ``"?"``).  Exit 1 for a source that can't be read or an output
directory that can't be used; a hand that fails verification is skipped and named on stderr, and
the command ends with exit 4 after writing the rest.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import typer

from laizi.cli.common import EXIT_VERIFY_FAILED, LangOption, app, dumps, fail, lang_or_exit
from laizi.i18n import pick

__all__ = ["export_command"]


RecordsArgument = typer.Argument(
    None, help="Record files or directories of *.jsonl records; - for standard input."
)


@app.command("export")
def export_command(
    records: list[str] | None = RecordsArgument,
    out: str = typer.Option(..., "--out", metavar="DIR", help="Directory to write into."),
    fmt: str = typer.Option(
        "parquet", "--format", help="parquet (decision rows) or events (mjai-style logs)."
    ),
    seat: int | None = typer.Option(
        None, "--seat", metavar="K", help="events: what seat K (0–3) saw, others' tiles as ?."
    ),
    db: str | None = typer.Option(
        None, "--db", metavar="URL", help="Also read a server's database (its finished hands)."
    ),
    encoder: str = typer.Option(
        "v1", "--encoder", help="Parquet observation encoder: v1 or v2 (docs/env.md)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    lang: str | None = LangOption,
) -> None:
    """Turn hand records into a training dataset (Parquet) or mjai-style event logs."""
    language = lang_or_exit(lang)
    if fmt not in ("parquet", "events"):
        fail(f"--format: parquet or events, got {fmt!r}")
    if seat is not None and (fmt != "events" or not 0 <= seat <= 3):
        fail("--seat: a seat 0–3, with --format events only")
    if not records and db is None:
        fail("RECORDS: name record files or directories, or a database with --db")
    try:
        from laizi.dataset.export import OutputError, export
        from laizi.dataset.sources import SourceError, hands_from_db, hands_from_paths
    except ImportError as error:
        fail(
            f"export needs numpy (and pyarrow for Parquet): pip install 'laizi[dataset]' ({error})"
        )
    sources = [hands_from_paths(records or [])]
    if db is not None:
        sources.append(hands_from_db(db))
    try:
        report = export(
            itertools.chain.from_iterable(sources),
            Path(out),
            fmt=fmt,
            progress=True,
            seat=seat,
            encoder=encoder,
        )
    except (SourceError, OutputError) as error:
        fail(str(error))
    except RuntimeError as error:  # pyarrow missing
        fail(str(error))
    if as_json:
        typer.echo(dumps(report))
    else:
        typer.echo(
            pick(
                language,
                f"已导出 {report['hands']} 局、{report['rows']} 行到 {out}"
                f"（{report['files']} 个文件，{report['bytes']:,} 字节，"
                f"{report['rows_per_s']:,.0f} 行/秒）",
                f"exported {report['hands']} hands, {report['rows']} rows to {out} "
                f"({report['files']} files, {report['bytes']:,} bytes, "
                f"{report['rows_per_s']:,.0f} rows/s)",
            )
        )
        if report["bad"]:
            typer.echo(
                pick(
                    language,
                    f"{report['bad']} 局记录核对不通过，已跳过",
                    f"{report['bad']} hand(s) failed verification and were skipped",
                )
            )
    if report["bad"]:
        raise typer.Exit(EXIT_VERIFY_FAILED)
