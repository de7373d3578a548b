"""The training steps' progress bar (rich, on stderr), shared by the commands and the recipes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["Progress", "progress_bar"]

Progress = Callable[[int, int, str], None]
"""``progress(done_steps, total_steps, label)``."""


@contextmanager
def progress_bar() -> Iterator[Progress]:
    """A transient bar on stderr for the duration of the block; yields its update function."""
    from laizi.sim.progress import stderr_bar

    bar = stderr_bar()
    task = bar.add_task("train", total=None)

    def update(done: int, total: int, label: str) -> None:
        bar.update(task, completed=done, total=total, description=label)

    with bar:
        yield update
