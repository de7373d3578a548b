"""Spreading independent jobs over worker processes, in order, with an optional progress bar.

Results come back in job order whatever the number of workers, so everything computed from
them is the same with ``--workers 1`` or ``8``.
"""

from __future__ import annotations

import multiprocessing
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import nullcontext
from typing import Any, TypeVar

__all__ = ["run_jobs"]

T = TypeVar("T")


def run_jobs(
    work: Callable[[Any], T],
    jobs: Sequence[Any],
    *,
    workers: int = 1,
    progress: str | None = None,
    units: Callable[[Any], int] = lambda job: 1,
) -> Iterator[T]:
    """Yield ``work(job)`` for every job, in order; ``progress`` is the bar's label (stderr)."""
    total = sum(units(job) for job in jobs)
    bar_context: Any = nullcontext(None)
    if progress is not None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        bar_context = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=Console(file=sys.stderr),
            transient=True,
        )
    with bar_context as bar:
        task = bar.add_task(progress, total=total) if bar is not None else None
        if workers <= 1:
            results: Iterator[T] = (work(job) for job in jobs)
            pool = None
        else:
            context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
            pool = context.Pool(workers)
            results = pool.imap(work, jobs)
        try:
            for job, result in zip(jobs, results, strict=True):
                if bar is not None:
                    bar.advance(task, units(job))
                yield result
        finally:
            if pool is not None:
                pool.terminate()
                pool.join()
