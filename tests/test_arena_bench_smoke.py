"""CI's short run of the arena benchmark (the documented long run is in docs/bots.md)."""

import subprocess

import pytest

from tests.bench_helpers import run_bench


def test_bench_arena_smoke():
    figures = run_bench("bench_arena.py", "--walls", "1", "--speed-hands", "2", "--budget-ms", "10")
    for rules in ("wuhan-hongzhong-kaikou", "baishan"):
        for pairing in ("strong-greedy", "greedy-random"):
            entry = figures[f"{rules}:{pairing}"]
            assert len(entry["diff_ci95"]) == 2 and entry["hands_per_s"] > 0
        for bot in ("random", "greedy", "strong", "expert"):
            assert figures[f"hands_per_s_{bot}_{rules}"] > 0
        assert 0 < figures[f"expert_ms_p50_{rules}"] <= figures[f"expert_ms_p99_{rules}"]
    assert figures["expert"] == "expert@10"
    for rules in (
        "wuhan-hongzhong-kaikou",
        "wuhan-hongzhong-koukou",
        "wuhan-facai-kaikou",
        "wuhan-facai-koukou",
        "wuhan-qipi-kaikou",
        "wuhan-qipi-koukou",
        "baishan",
    ):
        entry = figures[f"{rules}:expert-strong"]
        assert isinstance(entry["decided"], bool) and "walls_needed" in entry
        # expert's decision times on every preset, not only the two with self-play figures
        assert 0 < figures[f"expert_ms_p50_{rules}"] <= figures[f"expert_ms_p99_{rules}"]


def test_bench_arena_saves_and_resumes_its_walls(tmp_path):
    """``--save DIR``: the second run of the same command plays nothing and reports the same."""
    args = ("--walls", "2", "--speed-hands", "0", "--pairings", "greedy-random")
    args += ("--only", "baishan", "--save", str(tmp_path))
    first = run_bench("bench_arena.py", *args)["baishan:greedy-random"]
    saved = tmp_path / "baishan-greedy-random"
    assert sorted(p.name for p in saved.iterdir()) == ["arena.json", "walls-000000.json"]
    again = run_bench("bench_arena.py", *args)["baishan:greedy-random"]
    assert again["diff_mean"] == first["diff_mean"] and again["diff_ci95"] == first["diff_ci95"]
    assert again["hands_per_s"] == 0  # nothing played


def test_bench_arena_names_a_folder_of_another_arena(tmp_path):
    saved = tmp_path / "baishan-greedy-random"
    saved.mkdir()
    (saved / "arena.json").write_text('{"a": "strong"}')
    args = ("--walls", "2", "--speed-hands", "0", "--pairings", "greedy-random")
    with pytest.raises(subprocess.CalledProcessError) as failed:
        run_bench("bench_arena.py", *args, "--only", "baishan", "--save", str(tmp_path))
    assert failed.value.returncode == 2
    assert "holds the walls of another arena" in failed.value.stderr
    assert "Traceback" not in failed.value.stderr
