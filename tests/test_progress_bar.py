"""The one progress bar every long command draws (laizi.sim.progress)."""

from __future__ import annotations

import io

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeRemainingColumn

from laizi.sim.progress import stderr_bar
from laizi.sim.run import run_jobs


def _kinds(bar: object) -> list[str]:
    return [
        column.text_format if isinstance(column, TextColumn) else type(column).__name__
        for column in bar.columns  # type: ignore[attr-defined]
    ]


def test_the_bar_shows_label_bar_count_and_times_and_vanishes() -> None:
    bar = stderr_bar()
    assert _kinds(bar) == [
        "{task.description}",
        BarColumn.__name__,
        MofNCompleteColumn.__name__,
        "TimeElapsedColumn",
        TimeRemainingColumn.__name__,
    ]
    assert bar.live.transient


def test_a_unit_follows_the_count() -> None:
    assert _kinds(stderr_bar("hands"))[2:4] == [MofNCompleteColumn.__name__, "hands"]


def test_the_bar_draws_done_of_total_with_its_unit() -> None:
    bar = stderr_bar("hands")
    out = io.StringIO()
    bar.live.console = Console(file=out, force_terminal=True, no_color=True, width=100)
    bar.live.transient = False
    with bar:
        task = bar.add_task("arena", total=8)
        bar.update(task, completed=3)
    assert "arena" in out.getvalue() and "3/8 hands" in out.getvalue()


def test_jobs_with_a_bar_come_back_in_order() -> None:
    assert list(run_jobs(lambda n: n * n, [3, 1, 2], progress="squares")) == [9, 1, 4]
