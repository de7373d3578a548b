"""``laizi export``: hand records in, a training dataset (or mjai-style event logs) out.

Streaming: hands are read one at a time (:mod:`laizi.dataset.sources`), replayed and written; a
Parquet dataset keeps at most one row group in memory (:class:`DatasetWriter`), an event log is
written per hand.  A hand whose record does not check out is skipped and reported (``bad``).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from laizi.dataset.sources import Hand
from laizi.engine.record import RecordError, dumps_event
from laizi.env.encoders import ENCODERS

__all__ = ["FORMATS", "OutputError", "export"]

FORMATS = ("parquet", "events")


class OutputError(ValueError):
    """The output directory can't be used (it holds a dataset already, or can't be written)."""


def _prepare(out: Path, fmt: str) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise OutputError(f"--out {out}: {error.strerror or error}") from None
    pattern = "part-*.parquet" if fmt == "parquet" else "hand-*.mjson"
    if any(out.glob(pattern)):
        raise OutputError(
            f"--out {out}: the directory holds a dataset already ({pattern}); choose another"
        )


def export(
    hands: Iterable[Hand],
    out: Path,
    *,
    fmt: str = "parquet",
    progress: bool = False,
    warn: Callable[[str], None] = lambda message: print(message, file=sys.stderr),
    row_group: int | None = None,
    seat: int | None = None,
    encoder: str = "v1",
) -> dict[str, Any]:
    """Write ``hands`` to ``out``; the report (``hands``, ``rows``, ``rows_per_s`` and more).

    ``seat`` (event logs only): each log is what that seat saw (docs/events.md), not the full log.
    ``encoder``: the observation encoder of the Parquet rows (``"v1"`` or ``"v2"``,
    :mod:`laizi.env.encoders`), recorded in the files' metadata.

    Raises SourceError (a source can't be read) or OutputError; a bad hand is only counted.
    """
    if fmt not in FORMATS:
        raise OutputError(f"--format: one of {', '.join(FORMATS)}, got {fmt!r}")
    if seat is not None and (fmt != "events" or not 0 <= seat <= 3):
        raise OutputError("--seat: a seat 0–3, with --format events only")
    if encoder not in ENCODERS:
        raise OutputError(f"--encoder: one of {', '.join(ENCODERS)}, got {encoder!r}")
    if encoder != "v1" and fmt != "parquet":
        raise OutputError("--encoder: for Parquet rows only (event logs carry no observations)")
    _prepare(out, fmt)
    started = time.perf_counter()
    written = rows = bad = 0
    files: list[Path] = []
    writer: Any = None
    if fmt == "parquet":
        from laizi.dataset.parquet import ROW_GROUP, DatasetWriter

        writer = DatasetWriter(out, row_group=row_group or ROW_GROUP, encoder=encoder)
    bar, task = _bar(progress)
    try:
        for hand in hands:
            try:
                if writer is not None:
                    rows += writer.add(hand)
                else:
                    path = out / f"hand-{written:06d}.mjson"
                    rows += _write_events(hand, path, seat)
                    files.append(path)
            except RecordError as error:
                bad += 1
                warn(f"{hand.source}: skipped, {error}")
                continue
            except (KeyError, TypeError, ValueError, AttributeError, IndexError) as error:
                bad += 1
                warn(f"{hand.source}: skipped, unreadable hand: {error!r}")
                continue
            written += 1
            if bar is not None:
                bar.update(task, advance=1, description=f"{written} hands, {rows} rows")
    finally:
        if writer is not None:
            files = writer.close()  # also when a source fails: the rows so far are a dataset
        if bar is not None:
            bar.stop()
    seconds = max(time.perf_counter() - started, 1e-9)
    size = sum(p.stat().st_size for p in files)
    return {
        "format": fmt,
        "seat": seat,
        **({"encoder": encoder} if fmt == "parquet" else {}),
        "out": str(out),
        "hands": written,
        "rows": rows,
        "rows_per_s": rows / seconds,
        "bad": bad,
        "files": len(files),
        "bytes": size,
        "seconds": seconds,
    }


def _write_events(hand: Hand, path: Path, seat: int | None = None) -> int:
    from laizi.dataset.events import mjai_events

    log = mjai_events(hand.events, seat)
    try:
        path.write_text("".join(dumps_event(e) + "\n" for e in log), encoding="utf-8")
    except OSError as error:
        raise OutputError(f"{path}: {error.strerror or error}") from None
    return len(log)


def _bar(progress: bool) -> tuple[Any, Any]:
    if not progress:
        return None, None
    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    bar = Progress(
        SpinnerColumn(),
        TextColumn("{task.description}"),
        TimeElapsedColumn(),
        console=Console(file=sys.stderr),
        transient=True,
    )
    bar.start()
    return bar, bar.add_task("export", total=None)
