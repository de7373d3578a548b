"""Benchmark the training environments — ``python benchmarks/bench_env.py [--json] [--hands N]``.

``env_steps_per_s``: the PettingZoo AEC env exactly as users get it (``laizi.env.wuhan_v0.env``,
PettingZoo's order-enforcing wrapper included), one core, in this process.  Every ``step()``
of a decision is counted — discards, lay-outs, kongs, claims and every ``pass`` in a claim
window; the four ``step(None)`` calls that close a hand are timed but not counted.  The agent
loop is the usual one: ``env.last()`` (the full observation and action mask are built at every
step), then a uniformly random legal index from the mask.  All six Wuhan presets, ``--hands``
hands each, dealt from seeds.

``batch_steps_per_s``: :class:`laizi.env.batch.BatchEnv` with ``--tables`` tables of each
preset, random legal actions drawn for all tables at once from the mask array; table-steps per
second (every table's decision counts one), observations and masks written for every table at
every step.

``vector_steps_per_s``: the Gymnasium vector env as users get it,
``gymnasium.make_vec("laizi/Wuhan-v0", num_envs=--tables, rules=preset)`` (one ``BatchEnv``
inside; observations and masks copied out each step, the default), the same random legal
actions drawn from ``infos["action_mask"]``; table-steps per second, like ``batch_steps_per_s``
(``vector_steps_per_s_nocopy``: with ``copy=False``).

Also printed: ``env_steps_per_s_raw`` (the env without the wrapper), ``env_steps_per_s_baishan``
(``baishan_v0.env()``, the same loop), ``hands_per_s`` (AEC, Wuhan),
``steps_per_hand``, ``vector_vs_batch`` (the best vector pass over the best ``BatchEnv`` pass; the
two run in turn, first one then the other at each repeat), and ``env_steps_per_s_wall`` /
``batch_steps_per_s_wall``.  Goal
(issue 10): ``env_steps_per_s`` ≥ 20,000.  Each figure is the best of ``--repeat`` timed passes.

Time is this process's CPU time (``time.process_time``): the figures are per core, and other
jobs on a shared machine don't count against them.  The ``_wall`` figures use the wall clock
(``time.perf_counter``) instead; on an idle machine the two agree.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

import gymnasium
import numpy as np

from aec_loop import play_random
from laizi import _native
from laizi.env import baishan_v0, wuhan_v0  # registers laizi/Wuhan-v0
from laizi.env.batch import BatchEnv
from laizi.env.wuhan_v0 import WUHAN_PRESETS as PRESETS

GOAL = 20_000


def run_aec(
    make: Any, hands: int, seed: int, presets: tuple[str, ...] = PRESETS
) -> tuple[float, float, int, int]:
    """CPU seconds, wall seconds, decision steps and hands for ``hands`` hands of each preset."""
    rng = random.Random(seed)
    elapsed = 0.0
    wall = 0.0
    steps = 0
    played = 0
    for preset in presets:
        env = make(preset)
        env.reset(seed=seed)
        start = time.process_time()
        wall_start = time.perf_counter()
        steps += play_random(env, hands, rng)
        played += hands
        elapsed += time.process_time() - start
        wall += time.perf_counter() - wall_start
    return elapsed, wall, steps, played


def run_batch(tables: int, rounds: int, seed: int) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and table-steps for ``rounds`` batched steps of each preset."""
    rng = np.random.default_rng(seed)
    elapsed = 0.0
    wall = 0.0
    steps = 0
    for preset in PRESETS:
        batch = BatchEnv(tables, preset, seed=seed)
        batch.reset()
        start = time.process_time()
        wall_start = time.perf_counter()
        for _ in range(rounds):
            batch.step(batch.random_actions(rng))
        elapsed += time.process_time() - start
        wall += time.perf_counter() - wall_start
        steps += tables * rounds
    return elapsed, wall, steps


def run_vector(tables: int, rounds: int, seed: int, copy: bool = True) -> tuple[float, float, int]:
    """CPU seconds, wall seconds and table-steps of ``make_vec`` (``LaiziVectorEnv``)."""
    rng = np.random.default_rng(seed)
    elapsed = 0.0
    wall = 0.0
    steps = 0
    for preset in PRESETS:
        envs = gymnasium.make_vec("laizi/Wuhan-v0", num_envs=tables, rules=preset, copy=copy)
        _, infos = envs.reset(seed=seed)
        start = time.process_time()
        wall_start = time.perf_counter()
        for _ in range(rounds):
            mask = infos["action_mask"]
            actions = np.argmax(rng.random(mask.shape) * mask, axis=1)
            _, _, _, _, infos = envs.step(actions)
        elapsed += time.process_time() - start
        wall += time.perf_counter() - wall_start
        steps += tables * rounds
    return elapsed, wall, steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--hands", type=int, default=60, help="AEC hands per preset (60)")
    parser.add_argument("--tables", type=int, default=64, help="tables in the batch (64)")
    parser.add_argument("--rounds", type=int, default=100, help="batched steps per preset (100)")
    parser.add_argument("--seed", type=int, default=10, help="seed of walls and actions")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; best kept (3)")
    args = parser.parse_args()
    if min(args.hands, args.tables, args.rounds, args.repeat) < 1:
        parser.error("--hands, --tables, --rounds and --repeat must be at least 1")

    best: dict[str, float] = {}
    info: dict[str, Any] = {}

    def keep(key: str, value: float) -> None:
        best[key] = max(best.get(key, 0.0), value)

    def batch_pass() -> None:
        seconds, wall, steps = run_batch(args.tables, args.rounds, args.seed)
        keep("batch_steps_per_s", steps / seconds)
        keep("batch_steps_per_s_wall", steps / wall)

    def vector_pass() -> None:
        seconds, wall, steps = run_vector(args.tables, args.rounds, args.seed)
        keep("vector_steps_per_s", steps / seconds)
        keep("vector_steps_per_s_wall", steps / wall)

    def nocopy_pass() -> None:
        seconds, _, steps = run_vector(args.tables, args.rounds, args.seed, copy=False)
        keep("vector_steps_per_s_nocopy", steps / seconds)

    for n in range(args.repeat):
        seconds, wall, steps, hands = run_aec(wuhan_v0.env, args.hands, args.seed)
        keep("env_steps_per_s", steps / seconds)
        keep("env_steps_per_s_wall", steps / wall)
        keep("hands_per_s", hands / seconds)
        info["steps_per_hand"] = round(steps / hands, 1)
        seconds, wall, steps, _ = run_aec(wuhan_v0.raw_env, args.hands, args.seed)
        keep("env_steps_per_s_raw", steps / seconds)
        seconds, wall, steps, _ = run_aec(baishan_v0.env, args.hands, args.seed, ("baishan",))
        keep("env_steps_per_s_baishan", steps / seconds)
        # The same tables and actions through BatchEnv and the vector env on it, in turn and in
        # the other order at the next pass (what runs first must not be what is favoured).
        passes = [batch_pass, vector_pass, nocopy_pass]
        for run in passes if n % 2 == 0 else passes[::-1]:
            run()

    figures = {key: round(value, 1) for key, value in best.items()}
    out: dict[str, Any] = {
        **figures,
        "vector_vs_batch": round(best["vector_steps_per_s"] / best["batch_steps_per_s"], 3),
        **info,
        "goal_env_steps_per_s": GOAL,
        "presets": list(PRESETS),
        "hands_per_preset": args.hands,
        "tables": args.tables,
        "rounds": args.rounds,
        "python": sys.version.split()[0],
        "build": _native.build(),
    }
    if not args.json:
        for key, value in out.items():
            print(f"{key}: {value}", file=sys.stderr)
    print(json.dumps(out) if args.json else json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
