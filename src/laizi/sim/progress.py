"""The project's progress bar for long work: rich, on stderr, gone once the work is done.

Every long command draws the same bar — its label, the bar, done of total (and the unit, if
the count is not self-evident), time spent and time left — so ``laizi arena``, ``tournament``,
``dataset build`` and ``train`` look alike.  rich is imported on first use: a bot that never
shows a bar never loads it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.progress import Progress

__all__ = ["stderr_bar"]


def stderr_bar(unit: str | None = None) -> Progress:
    """A transient bar on stderr, not yet started (use it as a context manager, or call
    ``start``/``stop``); ``unit`` is shown after the count ("hands")."""
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.progress import Progress as Bar

    columns: list[str | ProgressColumn] = [
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
    ]
    if unit is not None:
        columns.append(TextColumn(unit))
    columns += [TimeElapsedColumn(), TimeRemainingColumn()]
    return Bar(*columns, console=Console(file=sys.stderr), transient=True)
