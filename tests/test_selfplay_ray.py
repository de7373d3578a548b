"""Self-play on a Ray cluster (issue 18): the same results as one process, from the library and
from the command line, connecting to a running cluster by address.

One local cluster for the whole module (2 CPUs, a small object store, no dashboard): Ray's start
is the expensive part, so every test here shares it — under pytest-xdist too, where the module's
tests all go to one worker (the ``xdist_group`` mark and ``tests/conftest.py``).
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest
import typer.main

from laizi.cli import app
from laizi.sim import arena, simulate
from laizi.sim.distributed import LOCAL, ray_session, task_overhead_ms

ray = pytest.importorskip("ray")
pytestmark = pytest.mark.xdist_group("ray")  # one worker, one cluster (tests/conftest.py)

ROOT = Path(__file__).parents[1]
SAME_ARENA = (
    "hands",
    "hands_played",
    "diff_mean",
    "diff_ci95",
    "a_stats",
    "b_stats",
    "drawn_rate",
    "decisions",
)


@pytest.fixture(scope="module")
def cluster() -> str:
    ray.init(
        num_cpus=2,
        include_dashboard=False,
        object_store_memory=80 * 1024 * 1024,
        logging_level=logging.WARNING,
        log_to_driver=False,
    )
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def laizi(*args: str, extra_path: str | None = None) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join(p for p in (extra_path, str(ROOT / "src")) if p)
    env = {**os.environ, "PYTHONPATH": path, "LAIZI_LANG": "en"}
    return subprocess.run(
        [sys.executable, "-c", "from laizi.cli import main; main()", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=ROOT,
    )


def test_the_arena_on_ray_is_the_arena_in_one_process(cluster: str) -> None:
    local = arena("greedy", "random", "wuhan-hongzhong-kaikou", walls=9, seed=5)
    spread = arena("greedy", "random", "wuhan-hongzhong-kaikou", walls=9, seed=5, ray=LOCAL)
    for key in SAME_ARENA:
        assert spread[key] == local[key], key
    assert local["diff_mean"] != 0  # a real result, not two empty ones


def test_simulate_on_ray_gives_the_same_statistics_and_records(cluster: str, tmp_path: Path):
    bots = ["greedy", "random", "random", "greedy"]
    local = simulate(bots, "baishan", hands=20, seed=8, records=tmp_path / "one")
    spread = simulate(
        bots, "baishan", hands=20, seed=8, records=tmp_path / "ray", ray=LOCAL, ray_workers=2
    )
    assert spread["seats"] == local["seats"] and spread["drawn"] == local["drawn"]
    one = sorted((tmp_path / "one").iterdir())
    assert len(one) == 20
    for path in one:
        assert (tmp_path / "ray" / path.name).read_text() == path.read_text()


def test_the_command_line_connects_to_a_cluster_by_address(cluster: str) -> None:
    base = [
        "greedy",
        "random",
        "--rules",
        "wuhan-hongzhong-kaikou",
        "--hands",
        "6",
        "--seed",
        "21",
        "--json",
    ]
    local = laizi("arena", *base)
    # --ray before the bot names: the address is taken, the bots stay bots.
    spread = laizi("arena", "--ray", cluster, *base)
    assert local.returncode == 0, local.stderr
    assert spread.returncode == 0, spread.stderr
    one = json.loads(local.stdout.splitlines()[-1])
    two = json.loads(spread.stdout.splitlines()[-1])
    for key in SAME_ARENA:
        assert two[key] == one[key], key


def test_simulate_cli_on_ray_writes_the_same_records(cluster: str, tmp_path: Path) -> None:
    args = [
        "simulate",
        "--bots",
        "random,greedy,random,greedy",
        "--rules",
        "wuhan-qipi-koukou",
        "--hands",
        "10",
        "--seed",
        "3",
        "--json",
    ]
    local = laizi(*args, "--records", str(tmp_path / "a"))
    spread = laizi(*args, "--records", str(tmp_path / "b"), "--workers", "2", "--ray", cluster)
    assert local.returncode == 0 and spread.returncode == 0, spread.stderr
    assert json.loads(spread.stdout)["seats"] == json.loads(local.stdout)["seats"]
    for path in sorted((tmp_path / "a").iterdir()):
        assert (tmp_path / "b" / path.name).read_bytes() == path.read_bytes()


@pytest.mark.parametrize(
    ("argv", "ray_value", "a", "b"),
    [
        (["greedy", "random", "--ray"], LOCAL, "greedy", "random"),
        (["--ray", "greedy", "random"], LOCAL, "greedy", "random"),
        (["--ray", "bc_bot:BCBot", "random"], LOCAL, "bc_bot:BCBot", "random"),
        (["greedy", "random", "--ray", "--json"], LOCAL, "greedy", "random"),
        (["greedy", "random", "--ray", "10.1.2.3:6379"], "10.1.2.3:6379", "greedy", "random"),
        (["--ray", "auto", "greedy", "random"], "auto", "greedy", "random"),
        (["--ray=ray://head:10001", "greedy", "random"], "ray://head:10001", "greedy", "random"),
        (["greedy", "random"], None, "greedy", "random"),
    ],
)
def test_ray_takes_an_address_only_when_one_follows(argv, ray_value, a, b) -> None:
    command = typer.main.get_command(app).commands["arena"]  # type: ignore[attr-defined]
    context = command.make_context("arena", list(argv))
    assert (context.params["ray"], context.params["a"], context.params["b"]) == (ray_value, a, b)


def test_without_ray_installed_the_flag_says_how_to_get_it(tmp_path: Path) -> None:
    fake = tmp_path / "ray"
    fake.mkdir()
    (fake / "__init__.py").write_text('raise ImportError("No module named ray")\n')
    result = laizi(
        "simulate",
        "--bots",
        "random,random,random,random",
        "--hands",
        "1",
        "--ray",
        extra_path=str(tmp_path),
    )
    assert result.returncode == 1
    assert "pip install 'laizi[cluster]'" in result.stderr and "Traceback" not in result.stderr
    plain = laizi(
        "simulate",
        "--bots",
        "random,random,random,random",
        "--hands",
        "1",
        extra_path=str(tmp_path),
    )
    assert plain.returncode == 0, plain.stderr  # Ray is only needed with --ray


def test_an_unreachable_cluster_is_bad_input_quickly() -> None:
    result = laizi("arena", "random", "random", "--hands", "1", "--ray", "127.0.0.1:1")
    assert result.returncode == 1 and "cannot reach a Ray cluster at 127.0.0.1:1" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bot_error_on_a_worker_is_the_same_error(cluster: str) -> None:
    bad = "tests.outside.illegal:AlwaysPass"
    with pytest.raises(ValueError, match="chose an illegal action") as in_one_process:
        simulate([bad, "random", "random", "random"], "baishan", hands=2)
    with pytest.raises(ValueError, match="chose an illegal action") as on_ray:
        simulate([bad, "random", "random", "random"], "baishan", hands=2, ray=LOCAL)
    # the same message (but for the bot object's address in its repr)
    assert str(on_ray.value).split(">")[1] == str(in_one_process.value).split(">")[1]
    assert type(on_ray.value) is ValueError
    result = laizi("arena", bad, "random", "--hands", "1", "--ray", cluster)
    assert result.returncode == 1 and "chose an illegal action" in result.stderr
    assert "Traceback" not in result.stderr


def test_the_task_overhead_is_measured(cluster: str) -> None:
    with ray_session(LOCAL) as session:
        assert session is ray
        overhead = task_overhead_ms(session, rounds=5)
    assert 0 < overhead < 1000
    assert ray.is_initialized()  # a session of a running Ray leaves it running


def test_bench_selfplay_smoke(cluster: str) -> None:
    result = subprocess.run(
        [
            sys.executable,
            str(ROOT / "benchmarks" / "bench_selfplay.py"),
            "--quick",
            "--json",
            "--ray",
            cluster,
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.splitlines()[-1])
    for key in ("hands_per_s_1", "hands_per_s_2", "task_overhead_ms", "hands_per_s_local"):
        assert figures[key] > 0, key
    assert figures["identical"] is True and figures["hands"] == 16
