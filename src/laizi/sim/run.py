"""Spreading independent jobs over worker processes, in order, with an optional progress bar.

Results come back in job order whatever the number of workers, so everything computed from
them is the same with ``--workers 1`` or ``8``.
"""

from __future__ import annotations

import multiprocessing
import signal
import sys
import threading
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
            pool = context.Pool(workers, initializer=_default_sigterm)
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


NUDGE_SECONDS = 0.5
"""How often a run cut short sends SIGTERM again to a worker that has not ended."""

KILL_AFTER_SECONDS = 15.0
"""After this long a worker that SIGTERM has not ended is sent SIGKILL."""


def _default_sigterm() -> None:
    """In each new worker: SIGTERM ends it by default.  A forked worker inherits its parent's
    handlers; a Python-level one (a process hosting bots has one, :mod:`laizi.botproto.process`)
    runs only when the worker next checks for signals, and a SIGTERM that comes just before the
    worker blocks on the pool's queue lock is never acted on (the next one is).  A worker that
    hosts bots installs its own handler again."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _end(pool: Any, finished: bool) -> None:
    """Every job done: the workers are told there is no more work and end by themselves (their
    finalizers stop the bots they hold).  Otherwise (an error, Ctrl-C, a caller that stopped
    early) they are terminated.

    Not terminating finished workers matters: ``Pool.terminate`` takes the task queue's lock
    before its SIGTERM, and an idle worker waits for that lock in a call that only a signal to
    its main thread interrupts.  A worker that hosts a bot handles SIGTERM in Python (it stops
    its bots first), and a signal that comes between the worker's last check for signals and
    its wait for the lock is handled only when the next signal wakes it: the worker, and the
    arena joining it, waited forever.  So while a pool is terminated its workers are sent
    SIGTERM again every :data:`NUDGE_SECONDS`, and SIGKILL after :data:`KILL_AFTER_SECONDS`."""
    if finished:
        pool.close()
        pool.join()
        return
    done = threading.Event()
    nudger = threading.Thread(
        target=_nudge, args=(pool, done), name="laizi-pool-nudge", daemon=True
    )
    nudger.start()
    try:
        pool.terminate()
        pool.join()
    finally:
        done.set()
        nudger.join()


def _nudge(pool: Any, done: threading.Event) -> None:
    """Send SIGTERM again (then SIGKILL) to the workers of a pool being terminated, until
    ``done``.  Only once the pool's worker handler has ended: ``Pool.terminate`` has then taken
    the task queue's lock, so no worker holds it, and none is started any more (a worker killed
    while holding that lock would leave it held for good)."""
    # The pool's own attributes: multiprocessing lists neither its processes nor its threads.
    handler: threading.Thread = pool._worker_handler
    waited = 0.0
    while not done.wait(NUDGE_SECONDS):
        if handler.is_alive():
            continue
        waited += NUDGE_SECONDS
        for worker in list(pool._pool):
            # Process.terminate and .kill do nothing to a worker already reaped.
            if waited >= KILL_AFTER_SECONDS:
                worker.kill()
            else:
                worker.terminate()
