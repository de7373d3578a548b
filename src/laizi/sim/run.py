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
    ray: str | None = None,
    ray_workers: int | None = None,
) -> Iterator[T]:
    """Yield ``work(job)`` for every job, in order; ``progress`` is the bar's label (stderr).

    ``ray``: run the jobs on a Ray cluster instead (its address, or ``"local"``), with
    ``ray_workers`` actors (default: the cluster's CPUs); :mod:`laizi.sim.distributed`.
    """
    total = sum(units(job) for job in jobs)
    bar_context: Any = nullcontext(None)
    if progress is not None:
        from laizi.sim.progress import stderr_bar

        bar_context = stderr_bar()
    with bar_context as bar:
        task = bar.add_task(progress, total=total) if bar is not None else None
        pool = None
        if ray is not None:
            from laizi.sim.distributed import run_jobs_ray

            def advance(job: Any) -> None:
                if bar is not None:
                    bar.advance(task, units(job))

            yield from run_jobs_ray(work, jobs, address=ray, workers=ray_workers, on_done=advance)
            return
        if workers <= 1:
            results: Iterator[T] = (work(job) for job in jobs)
        else:
            context = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
            pool = context.Pool(workers)
            results = pool.imap(work, jobs)
        finished = False
        try:
            for job, result in zip(jobs, results, strict=True):
                if bar is not None:
                    bar.advance(task, units(job))
                yield result
            finished = True
        finally:
            if pool is not None:
                _end(pool, finished)


def _end(pool: Any, finished: bool) -> None:
    """Every job done: the workers are told there is no more work and end by themselves (their
    finalizers stop the bots they hold).  Otherwise (an error, Ctrl-C, a caller that stopped
    early) they are terminated.

    Not terminating finished workers matters: ``Pool.terminate`` takes the task queue's lock
    before its SIGTERM, and an idle worker waits for that lock in a call that only a signal to
    its main thread interrupts.  A worker that hosts a bot has other threads, the signal may go
    to one of them, and the Python handler then never runs: the worker, and the arena joining
    it, waited forever (two-worker arenas, about 1 run in 80)."""
    if finished:
        pool.close()
    else:
        pool.terminate()
    pool.join()
