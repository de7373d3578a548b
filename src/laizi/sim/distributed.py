"""Self-play spread over a Ray cluster (``laizi arena … --ray [ADDRESS]``, ``laizi simulate …``).

The jobs are the same as with worker processes (:func:`laizi.sim.run.run_jobs`): independent,
deterministic slices of walls or hands.  Here they go to Ray actors — one per worker, each a
long-lived Python process on some node of the cluster — and their results are handed back **in
job order**, so every figure computed from them is the one a single process computes for the same
seed.  Each actor has at most two jobs queued (one running, one waiting), and the next job goes to
the actor that finished first, so a slow node takes fewer jobs and none sits idle waiting for the
driver.  Jobs are pure (a seed in, statistics out): an actor that dies is restarted and its jobs
are run again, with the same result.

``ADDRESS`` is what :func:`ray.init` takes (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``);
without one (or with ``local``) a local cluster is started for the run and shut down after it.
When connecting to a cluster, the driver's own ``laizi`` package is shipped to the workers
(Ray's ``py_modules``), so they run exactly the driver's code.  Ray is an optional extra:
``pip install 'laizi[cluster]'``.
"""

from __future__ import annotations

import logging
import re
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "LOCAL",
    "RayUnavailable",
    "cluster_cpus",
    "is_ray_address",
    "make_workers",
    "ray_session",
    "run_jobs_ray",
    "task_overhead_ms",
    "worker_pool",
]

T = TypeVar("T")

LOCAL = "local"
"""The address meaning: start a local cluster for this run."""

LOCAL_OBJECT_STORE = 128 * 1024 * 1024
"""Object store of a local cluster (bytes): results are small, the machine's memory is not ours."""

QUEUED_PER_WORKER = 2
"""Jobs sent to one actor at a time: one running, one waiting (hides the round trip)."""

_ADDRESS = re.compile(r"^(ray://)?[\w.\-]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$")


class RayUnavailable(RuntimeError):
    """Ray is not installed, or the cluster can't be reached; the message says which."""


def is_ray_address(text: str) -> bool:
    """Whether ``text`` reads as a Ray address rather than the next argument (a bot name).

    >>> [is_ray_address(t) for t in ("auto", "local", "10.0.0.5:6379", "ray://head:10001")]
    [True, True, True, True]
    >>> [is_ray_address(t) for t in ("greedy", "bc_bot:BCBot", "cmd:python bot.py", "--json")]
    [False, False, False, False]
    """
    return text in ("auto", LOCAL) or bool(_ADDRESS.match(text))


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as error:
        raise RayUnavailable(
            f"--ray needs the ray package ({error}): pip install 'laizi[cluster]'"
        ) from None
    return ray


def _reachable(address: str, timeout: float = 5.0) -> None:
    """Fail fast on a HOST:PORT nobody listens on (Ray itself retries for minutes)."""
    import socket

    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto": Ray finds the cluster itself
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout):
            pass
    except OSError as error:
        raise RayUnavailable(
            f"--ray: cannot reach a Ray cluster at {address}: {error.strerror or error}"
        ) from None


@contextmanager
def ray_session(address: str | None) -> Iterator[Any]:
    """Ray, connected: to ``address``, or to a new local cluster when it is None or ``local``.

    A Ray already initialised in this process (a notebook, a test's cluster) is used as it is and
    left running; a connection made here is closed at the end.
    """
    ray = _import_ray()
    if ray.is_initialized():
        yield ray
        return
    options: dict[str, Any] = {
        "include_dashboard": False,
        "logging_level": logging.WARNING,
        "log_to_driver": False,
    }
    try:
        if address in (None, LOCAL):
            ray.init(object_store_memory=LOCAL_OBJECT_STORE, **options)
        else:
            _reachable(address)
            import laizi

            package = Path(laizi.__file__).resolve().parent
            ray.init(address=address, runtime_env={"py_modules": [str(package)]}, **options)
    except RayUnavailable:
        raise
    except Exception as error:  # ray raises ConnectionError, RuntimeError, ValueError …
        where = "a local Ray cluster" if address in (None, LOCAL) else f"Ray at {address}"
        raise RayUnavailable(f"--ray: cannot start or reach {where}: {error}") from None
    try:
        yield ray
    finally:
        ray.shutdown()


class _Worker:
    """The actor: runs one job (a module-level function and its argument) at a time."""

    def run(self, work: Callable[[Any], Any], job: Any) -> Any:
        return work(job)

    def ping(self) -> int:
        return 0


def cluster_cpus(ray: Any) -> int:
    """The cluster's CPUs (at least 1): the default number of workers."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


def make_workers(ray: Any, count: int) -> list[Any]:
    """``count`` actors of one CPU each, restarted (and their jobs re-run) if they die."""
    actor = ray.remote(num_cpus=1, max_restarts=2, max_task_retries=2)(_Worker)
    return [actor.remote() for _ in range(count)]


_POOL: list[Any] = []
"""The actors of the innermost :func:`worker_pool` block, if any."""


@contextmanager
def worker_pool(workers: int | None = None, address: str | None = None) -> Iterator[list[Any]]:
    """Keep Ray workers between runs: every run inside the block that asks for this many
    workers (or for the default) uses these actors instead of starting its own (a benchmark that
    times the play and not the workers' start, a notebook running many arenas)."""
    with ray_session(address) as ray:
        actors = make_workers(ray, workers or cluster_cpus(ray))
        ray.get([actor.ping.remote() for actor in actors])  # started and ready
        saved = list(_POOL)
        _POOL[:] = actors
        try:
            yield actors
        finally:
            _POOL[:] = saved
            for actor in actors:
                ray.kill(actor)


def run_jobs_ray(
    work: Callable[[Any], T],
    jobs: Sequence[Any],
    *,
    address: str | None = None,
    workers: int | None = None,
    on_done: Callable[[Any], None] | None = None,
) -> Iterator[T]:
    """Yield ``work(job)`` for every job, in job order, computed by Ray actors.

    ``workers``: actors to use (default: the cluster's CPUs).  ``on_done(job)`` is called as each
    job finishes (in whatever order they finish): the progress bar.
    """
    with ray_session(address) as ray:
        if _POOL and workers in (None, len(_POOL)):
            yield from _dispatch(ray, list(_POOL), work, jobs, on_done)
            return
        count = min(workers or cluster_cpus(ray), max(len(jobs), 1))
        actors = make_workers(ray, count)
        try:
            yield from _dispatch(ray, actors, work, jobs, on_done)
        finally:
            for actor in actors:
                ray.kill(actor)


def _dispatch(
    ray: Any,
    actors: list[Any],
    work: Callable[[Any], T],
    jobs: Sequence[Any],
    on_done: Callable[[Any], None] | None,
) -> Iterator[T]:
    pending = deque(enumerate(jobs))
    running: dict[Any, tuple[int, int]] = {}  # object ref → (job index, actor index)
    work_ref = ray.put(work)
    done: dict[int, T] = {}
    next_out = 0

    def submit(actor_index: int) -> None:
        if pending:
            index, job = pending.popleft()
            ref = actors[actor_index].run.remote(work_ref, job)
            running[ref] = (index, actor_index)

    for actor_index in range(len(actors)):
        for _ in range(QUEUED_PER_WORKER):
            submit(actor_index)
    while running:
        ready, _ = ray.wait(list(running), num_returns=1)
        for ref in ready:
            index, actor_index = running.pop(ref)
            try:
                done[index] = ray.get(ref)
            except ray.exceptions.RayTaskError as error:
                cause = getattr(error, "cause", None)
                if isinstance(cause, BaseException):
                    raise cause from None
                raise
            if on_done is not None:
                on_done(jobs[index])
            submit(actor_index)
        while next_out in done:
            yield done.pop(next_out)
            next_out += 1


def task_overhead_ms(ray: Any, rounds: int = 100) -> float:
    """The mean round trip of an empty job to one actor (submit, run, fetch), in milliseconds."""
    import time

    (actor,) = make_workers(ray, 1)
    try:
        ray.get(actor.ping.remote())  # the actor's start is not a task's overhead
        started = time.perf_counter()
        for _ in range(rounds):
            ray.get(actor.ping.remote())
        return (time.perf_counter() - started) / rounds * 1000
    finally:
        ray.kill(actor)
