"""Where hand records come from: files, directories (a ``laizi simulate --records`` run), standard
input, or a server's database — one hand at a time, never all of them at once.

A record file holds one hand or the hands of a match one after the other (each begins with
``start``); every hand is its own :class:`Hand`.  A directory means every ``*.jsonl`` file under
it, in name order.  A database is read hand by hand: the finished hands in the order they were
played (the server's ``hands`` and ``events`` tables, ``laizi.server.store``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from laizi import jsonsafe

__all__ = ["Hand", "SourceError", "hands_from_db", "hands_from_paths", "hands_from_text"]


@dataclass(frozen=True)
class Hand:
    """One hand's record: its events and where it was read (``file#k`` or ``db:ROOM/N``)."""

    source: str
    events: list[dict[str, Any]]


class SourceError(ValueError):
    """A source that can't be read at all (a missing file, a line that is not JSON …)."""


def hands_from_text(lines: Iterable[str], name: str) -> Iterator[Hand]:
    """The hands of one record's lines: a new hand at each ``start`` event."""
    events: list[dict[str, Any]] = []
    count = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = jsonsafe.loads(line)
        except jsonsafe.JSONInputError as error:
            raise SourceError(f"{name}: line {number} is not JSON: {error}") from None
        if not isinstance(event, dict) or not isinstance(event.get("type"), str):
            raise SourceError(f"{name}: line {number} is not an event object")
        if event["type"] == "start" and events:
            yield Hand(f"{name}#{count}", events)
            count += 1
            events = []
        events.append(event)
    if events:
        yield Hand(f"{name}#{count}", events)


def _record_files(path: Path) -> list[Path]:
    if path.is_dir():
        return sorted(p for p in path.rglob("*.jsonl") if p.is_file())
    if not path.exists():
        raise SourceError(f"{path}: no such file or directory")
    return [path]


def hands_from_paths(paths: Iterable[str]) -> Iterator[Hand]:
    """The hands of record files and directories, in order; ``-`` reads standard input."""
    for text in paths:
        if text == "-":
            yield from hands_from_text(_lines(sys.stdin), "-")
            continue
        for path in _record_files(Path(text)):
            try:
                with path.open(encoding="utf-8") as stream:
                    yield from hands_from_text(_lines(stream), str(path))
            except OSError as error:
                raise SourceError(f"{path}: {error.strerror or error}") from None
            except UnicodeDecodeError:
                raise SourceError(f"{path}: not UTF-8 text") from None


def _lines(stream: IO[str]) -> Iterator[str]:
    yield from stream


def hands_from_db(url: str, batch: int = 500) -> Iterator[Hand]:
    """The finished hands of a server's database (``laizi serve --db URL``), in playing order.

    Read only: the hand ids are fetched ``batch`` at a time and each hand's events on their own,
    so memory holds one batch of ids and one hand.
    """
    from sqlalchemy import create_engine, select
    from sqlalchemy.exc import SQLAlchemyError

    from laizi.server.store import database_url, events, hands, rooms

    try:
        engine = create_engine(database_url(url))
    except (SQLAlchemyError, ValueError) as error:
        raise SourceError(f"--db: {error}") from None
    try:
        last = 0
        while True:
            with engine.connect() as c:
                rows = c.execute(
                    select(hands.c.id, hands.c.number, rooms.c.code)
                    .join(rooms, rooms.c.id == hands.c.room_id)
                    .where(hands.c.finished & (hands.c.id > last))
                    .order_by(hands.c.id)
                    .limit(batch)
                ).all()
                for hand_id, number, code in rows:
                    bodies = c.execute(
                        select(events.c.body)
                        .where(events.c.hand_id == hand_id)
                        .order_by(events.c.idx)
                    ).scalars()
                    yield Hand(f"db:{code}/{number}", [json.loads(b) for b in bodies])
            if len(rows) < batch:
                return
            last = rows[-1][0]
    except SQLAlchemyError as error:
        raise SourceError(f"--db: {str(error).splitlines()[0]}") from None
    finally:
        engine.dispose()
