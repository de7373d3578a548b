"""The arena: bot A against three copies of bot B on the same walls (duplicate play).

Every wall is played four times, A sitting in each seat in turn with B in the other three, so the
luck of the deal cancels out: the figure of merit of a wall is A's mean result over its four
tables minus the mean result of the B's at the same tables.  ``diff_mean`` is its mean over the
walls and ``diff_ci95`` the 95% interval of that mean (walls are independent; the four tables of
one wall are not, which is why the wall is the unit).  ``decided`` says whether the interval
excludes zero and ``walls_needed`` how many walls would likely make it do so
(:mod:`laizi.sim.verdict`).

What the bots see of the walls: their seats' events and prompts, never a wall's seed before the
wall's fourth table is over (the ``end`` event of its first three tables has ``"seed": null``).
The walls derive from the run seed alone, so they are exactly as secret as the run seed: a bot
that can guess it (this function's default 0, any small number) knows every wall; ``laizi arena``
without ``--seed`` draws a secret 63-bit one and reports it (docs/bot-protocol.md).

A long run can keep its finished walls in a folder (``save``): each slice of walls is written
when it is done, and the same arena run again with the same folder plays only the walls not yet
there — a run of hours survives a stopped session.  The folder is for one arena (its bots, rules
and seed are written in it and checked) and one version of the bots' code: a change to a bot
between the parts would mix two bots in one figure, which nothing here can see.

>>> report = arena("greedy", "random", "wuhan-hongzhong-kaikou", walls=2, seed=1)
>>> report["hands"], len(report["diff_ci95"])
(2, 2)
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

from laizi.bots.base import make_bot
from laizi.engine import make_ruleset
from laizi.sim.hand import derive_seed, play_hand, wall_seed
from laizi.sim.run import run_jobs
from laizi.sim.stats import SeatStats, mean_ci95
from laizi.sim.verdict import decided, spread, walls_needed

__all__ = ["ArenaJob", "ArenaTally", "arena", "arena_jobs", "play_walls"]

CHUNK = 4
"""Walls per job sent to a worker."""


@dataclass(frozen=True)
class ArenaJob:
    """Some walls of one arena, for one worker."""

    a: str
    b: str
    rules: Any
    seed: int
    walls: tuple[int, ...]


WallsPlayed = tuple[list[Fraction], SeatStats, SeatStats, int, int]
"""A job's result: per-wall differences, A's and the B's statistics, drawn hands, decisions."""


def play_walls(job: ArenaJob) -> WallsPlayed:
    """Play a job's walls four times each, A in every seat in turn."""
    ruleset = make_ruleset(job.rules)
    settings = ruleset.settings
    diffs: list[Fraction] = []
    a_stats, b_stats = SeatStats(), SeatStats()
    drawn = decisions = 0
    for index in job.walls:
        seed = wall_seed(job.seed, index)
        dealer = index % 4
        diff = Fraction(0)
        for a_seat in range(4):
            bots = [
                make_bot(
                    job.a if s == a_seat else job.b,
                    settings,
                    derive_seed(job.seed, index, a_seat, s),
                )
                for s in range(4)
            ]
            # The wall is played again until A has sat in every seat: its seed (the whole
            # wall) is shown to the bots only at the end of its last table.
            out = play_hand(ruleset, bots, dealer, seed, reveal_seed=a_seat == 3)
            decisions += out.decisions
            drawn += out.winner is None
            b_sum = Fraction(0)
            for s in range(4):
                stats = a_stats if s == a_seat else b_stats
                won = out.winner == s
                stats.add(
                    out.payments[s],
                    won,
                    won and out.how == "self_draw",
                    out.dealt_in == s,
                    out.wins if won else (),
                )
                if s != a_seat:
                    b_sum += out.payments[s]
            diff += out.payments[a_seat] - b_sum / 3
        diffs.append(diff / 4)
    return diffs, a_stats, b_stats, drawn, decisions


def arena_jobs(a: str, b: str, rules: Any, seed: int, walls: int) -> list[ArenaJob]:
    """The jobs of an arena of A against three B's: its walls in slices of :data:`CHUNK`, in
    order (``laizi tournament`` runs the jobs of every pair in one pool)."""
    return [
        ArenaJob(a, b, rules, seed, tuple(range(start, min(start + CHUNK, walls))))
        for start in range(0, walls, CHUNK)
    ]


@dataclass
class ArenaTally:
    """What an arena's finished jobs add up to; :meth:`report` is the arena's report."""

    diffs: list[Fraction] = field(default_factory=list)
    """Per wall, in wall order: A's mean points per hand minus the B's (exact)."""
    a_stats: SeatStats = field(default_factory=SeatStats)
    b_stats: SeatStats = field(default_factory=SeatStats)
    drawn: int = 0
    decisions: int = 0

    def add(self, part: WallsPlayed) -> None:
        self.diffs += part[0]
        self.a_stats.merge(part[1])
        self.b_stats.merge(part[2])
        self.drawn += part[3]
        self.decisions += part[4]

    def margin(self) -> dict[str, Any]:
        """The margin of A over B: its mean over the walls, 95% interval, spread and verdict."""
        walls = len(self.diffs)
        mean, low, high = mean_ci95(self.diffs)
        stdev = spread(self.diffs)
        return {
            "diff_mean": mean,
            "diff_ci95": [low, high],
            "diff_stdev": stdev,
            "decided": decided(low, high, walls),
            "walls_needed": walls_needed(mean, stdev, walls),
        }

    def report(self, a: str, b: str, preset: str, seed: int, seconds: float) -> dict[str, Any]:
        walls = len(self.diffs)
        played = 4 * walls
        return {
            "a": a,
            "b": b,
            "rules": preset,
            "seed": seed,
            "hands": walls,
            "hands_played": played,
            **self.margin(),
            "hands_per_s": played / seconds,
            "seconds": seconds,
            "drawn_rate": self.drawn / max(played, 1),
            "decisions": self.decisions,
            "a_stats": self.a_stats.to_json(),
            "b_stats": self.b_stats.to_json(),
        }


def arena(
    a: str,
    b: str,
    rules: Any,
    *,
    walls: int,
    seed: int = 0,
    workers: int = 1,
    progress: bool = False,
    ray: str | None = None,
    ray_workers: int | None = None,
    save: Path | None = None,
) -> dict[str, Any]:
    """Play ``walls`` walls four times each; the report (INTERFACES.md keys and more).

    ``ray``: spread the walls over a Ray cluster (its address, or ``"local"`` for a local one)
    with ``ray_workers`` actors; the report is the same as in one process.  ``save``: a folder
    that keeps the finished walls, so that the same arena run again plays only the rest
    (ValueError if it holds another arena's walls).  ``seconds`` and ``hands_per_s`` are this
    run's: of the walls it played.
    """
    settings = make_ruleset(rules).settings
    for name in (a, b):
        make_bot(name, settings, 0)  # fail early on a bad name
    jobs = arena_jobs(a, b, rules, seed, walls)
    done = {} if save is None else _saved_parts(save, a, b, settings.preset, seed)
    todo = [job for job in jobs if job.walls not in done]
    started = time.perf_counter()
    running: list[Fraction] = [d for job in jobs if job.walls in done for d in done[job.walls][0]]
    bar = _RunningBar(f"{a} vs {b}", walls) if progress else None
    try:
        if bar is not None:
            bar.update(running)
        parts = run_jobs(
            play_walls,
            todo,
            workers=workers,
            units=lambda job: len(job.walls),
            ray=ray,
            ray_workers=ray_workers,
        )
        for job, part in zip(todo, parts, strict=True):
            done[job.walls] = part
            if save is not None:
                _save_part(save, job.walls, part)
            running += part[0]
            if bar is not None:
                bar.update(running)
    finally:
        if bar is not None:
            bar.close()
    seconds = max(time.perf_counter() - started, 1e-9)
    tally = ArenaTally()
    for job in jobs:
        tally.add(done[job.walls])
    report = tally.report(a, b, settings.preset, seed, seconds)
    played = sum(len(job.walls) for job in todo)
    report["hands_per_s"] = 4 * played / seconds
    return report


_RUN_FILE = "arena.json"


def _saved_parts(
    save: Path, a: str, b: str, preset: str, seed: int
) -> dict[tuple[int, ...], WallsPlayed]:
    """The walls already played into ``save`` (made if missing) by this arena."""
    run = {"a": a, "b": b, "rules": preset, "seed": seed, "chunk": CHUNK}
    save.mkdir(parents=True, exist_ok=True)
    marker = save / _RUN_FILE
    if not marker.exists():
        marker.write_text(json.dumps(run, indent=1) + "\n")
        return {}
    try:
        found = json.loads(marker.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"{marker}: not an arena's folder ({error})") from None
    if found != run:
        raise ValueError(f"{save} holds the walls of another arena: {found}, not {run}")
    parts: dict[tuple[int, ...], WallsPlayed] = {}
    for path in sorted(save.glob("walls-*.json")):
        try:
            walls, part = _part_of(json.loads(path.read_text()))
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise ValueError(f"{path}: not a slice of walls ({error})") from None
        parts[walls] = part
    return parts


def _save_part(save: Path, walls: tuple[int, ...], part: WallsPlayed) -> None:
    diffs, a_stats, b_stats, drawn, decisions = part
    body = {
        "walls": list(walls),
        "diffs": [str(d) for d in diffs],
        "a_stats": _stats_json(a_stats),
        "b_stats": _stats_json(b_stats),
        "drawn": drawn,
        "decisions": decisions,
    }
    path = save / f"walls-{walls[0]:06d}.json"
    partial = path.with_suffix(".tmp")
    partial.write_text(json.dumps(body) + "\n")
    partial.replace(path)  # a stopped run never leaves half a slice


def _stats_json(stats: SeatStats) -> dict[str, Any]:
    out = asdict(stats)
    out["points"] = str(stats.points)
    return out


def _part_of(body: dict[str, Any]) -> tuple[tuple[int, ...], WallsPlayed]:
    def stats(raw: dict[str, Any]) -> SeatStats:
        return SeatStats(**{**raw, "points": Fraction(raw["points"])})

    diffs = [Fraction(d) for d in body["diffs"]]
    walls = tuple(int(w) for w in body["walls"])
    if len(diffs) != len(walls):
        raise ValueError("one difference per wall")
    part = (diffs, stats(body["a_stats"]), stats(body["b_stats"]), body["drawn"], body["decisions"])
    return walls, part


class _RunningBar:
    """A rich progress bar on stderr whose label shows the running mean and 95% interval."""

    def __init__(self, label: str, walls: int) -> None:
        from laizi.sim.progress import stderr_bar

        self.label = label
        self.progress = stderr_bar()
        self.progress.start()
        self.task = self.progress.add_task(label, total=walls)

    def update(self, diffs: list[Fraction]) -> None:
        mean, low, high = mean_ci95(diffs)
        mark = "✓" if decided(low, high, len(diffs)) else "?"
        self.progress.update(
            self.task,
            completed=len(diffs),
            description=f"{self.label}  {mean:+.1f} [{low:+.1f}, {high:+.1f}] {mark}",
        )

    def close(self) -> None:
        self.progress.stop()
