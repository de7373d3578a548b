"""An arena that keeps its finished walls in a folder and, run again, plays only the rest."""

from __future__ import annotations

import importlib
import json
from pathlib import Path

import pytest

from laizi.sim.arena import arena
from tests.cli_helpers import run

arena_module = importlib.import_module("laizi.sim.arena")  # laizi.sim.arena is also the function

RULES = "wuhan-hongzhong-kaikou"
SAME = ("diff_mean", "diff_ci95", "decided", "walls_needed", "hands", "a_stats", "b_stats")


def _figures(report: dict) -> dict:
    return {key: report[key] for key in SAME}


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, ...]]:
    played: list[tuple[int, ...]] = []
    real = arena_module.play_walls

    def play(job):  # type: ignore[no-untyped-def]
        played.append(job.walls)
        return real(job)

    monkeypatch.setattr(arena_module, "play_walls", play)
    return played


def test_a_saved_run_resumed_equals_one_unbroken_run(tmp_path: Path, monkeypatch) -> None:
    whole = arena("greedy", "random", RULES, walls=10, seed=5)
    played = _counting(monkeypatch)
    first = arena("greedy", "random", RULES, walls=6, seed=5, save=tmp_path)
    assert played == [(0, 1, 2, 3), (4, 5)]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "arena.json",
        "walls-000000.json",
        "walls-000004.json",
    ]
    assert first["hands"] == 6
    played.clear()
    resumed = arena("greedy", "random", RULES, walls=10, seed=5, save=tmp_path)
    # 4 and 5 were a slice of their own: played again as the slice (4, 5, 6, 7) of 10 walls
    assert played == [(4, 5, 6, 7), (8, 9)]
    assert _figures(resumed) == _figures(whole)
    played.clear()
    again = arena("greedy", "random", RULES, walls=10, seed=5, save=tmp_path)
    assert played == [] and _figures(again) == _figures(whole) and again["hands_per_s"] == 0


def test_the_saved_slices_keep_exact_points(tmp_path: Path) -> None:
    arena("greedy", "random", RULES, walls=4, seed=5, save=tmp_path)
    body = json.loads((tmp_path / "walls-000000.json").read_text())
    assert body["walls"] == [0, 1, 2, 3] and len(body["diffs"]) == 4
    assert all("." not in d for d in body["diffs"])  # fractions, never floats
    assert body["a_stats"]["hands"] == 16 and body["b_stats"]["hands"] == 48  # 4 tables a wall


def test_another_arenas_folder_is_refused(tmp_path: Path) -> None:
    arena("greedy", "random", RULES, walls=2, seed=5, save=tmp_path)
    with pytest.raises(ValueError, match="holds the walls of another arena"):
        arena("greedy", "random", RULES, walls=2, seed=6, save=tmp_path)
    with pytest.raises(ValueError, match="holds the walls of another arena"):
        arena("random", "greedy", RULES, walls=2, seed=5, save=tmp_path)


def test_a_damaged_slice_is_named(tmp_path: Path) -> None:
    arena("greedy", "random", RULES, walls=2, seed=5, save=tmp_path)
    (tmp_path / "walls-000000.json").write_text('{"walls": [0, 1], "diffs": ["1/2"]}')
    with pytest.raises(ValueError, match=r"walls-000000\.json: not a slice of walls"):
        arena("greedy", "random", RULES, walls=2, seed=5, save=tmp_path)


def test_laizi_arena_save_resumes_from_the_command_line(tmp_path: Path) -> None:
    base = ("arena", "greedy", "random", "--rules", RULES, "--seed", "5", "--json")
    first = run(*base, "--hands", "4", "--save", str(tmp_path))
    assert first.returncode == 0, first.stderr
    assert (tmp_path / "walls-000000.json").exists()
    resumed = run(*base, "--hands", "6", "--save", str(tmp_path))
    unbroken = run(*base, "--hands", "6")
    assert resumed.returncode == 0 and unbroken.returncode == 0, resumed.stderr
    got = json.loads(resumed.stdout.splitlines()[-1])
    want = json.loads(unbroken.stdout.splitlines()[-1])
    assert {k: got[k] for k in SAME} == {k: want[k] for k in SAME}
    assert sorted(p.name for p in tmp_path.glob("walls-*.json")) == [
        "walls-000000.json",
        "walls-000004.json",
    ]


def test_laizi_arena_save_refuses_another_arenas_folder_without_a_traceback(
    tmp_path: Path,
) -> None:
    base = ("arena", "greedy", "random", "--rules", RULES, "--hands", "2", "--json")
    assert run(*base, "--seed", "5", "--save", str(tmp_path)).returncode == 0
    other = run(*base, "--seed", "6", "--save", str(tmp_path))
    assert other.returncode == 1, other.stdout
    assert "holds the walls of another arena" in other.stderr and "'seed': 5" in other.stderr
    assert "Traceback" not in other.stderr
    (tmp_path / "walls-000000.json").write_text("{")
    damaged = run(*base, "--seed", "5", "--save", str(tmp_path))
    assert damaged.returncode == 1 and "walls-000000.json: not a slice of walls" in damaged.stderr
