"""Benchmark the engine — ``python benchmarks/bench_engine.py [--json] [--hands N] [--seed S]``.

Whole hands played with uniformly random legal actions, on one core, in this process: for each
preset (the six Wuhan ones and ``baishan``), ``--hands`` hands, each dealt from its own 256-bit
seed (the real SHA-256 shuffle) and played to its end (win, drawn hand) through
``legal_actions`` and ``apply`` with every check on — the settlement included whenever a win
is offered.  The random actions come from a seeded ``random.Random``, so the same ``--seed``
plays the same hands.

Keys printed as the last line with ``--json`` (INTERFACES.md):

``random_hands_per_s``            all presets together
``random_hands_per_s_<preset>``   each preset alone (``random_hands_per_s_baishan`` for Baishan)

For scale (issue 4, measured on the project's machine): the Python/C++ Wuhan environment
PettingZooMahjongRLEnv plays 19 games/s, a Go Wuhan engine 242 games/s.  Goal: ≥ 300.
Each figure is the best of ``--repeat`` timed passes.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from laizi import _native
from laizi.engine import apply, legal_actions, make_ruleset, new_hand
from laizi.rules import PRESETS

PEERS = {"PettingZooMahjongRLEnv": 19, "Go Wuhan engine": 242}
GOAL = 300


def play(preset: str, hands: int, seed: int) -> tuple[float, dict[str, int]]:
    """Seconds to play ``hands`` random hands of ``preset``, and how they ended."""
    ruleset = make_ruleset(preset)
    rng = random.Random(f"{seed}:{preset}")
    seeds = [rng.randbytes(32) for _ in range(hands)]
    endings: dict[str, int] = {}
    start = time.perf_counter()
    for index, wall_seed in enumerate(seeds):
        state, _ = new_hand(ruleset, index % 4, seed=wall_seed)
        while not state.over:
            seat = state.to_act()[0]
            apply(state, rng.choice(legal_actions(state, seat)))
        reason = state.result["reason"]
        endings[reason] = endings.get(reason, 0) + 1
    return time.perf_counter() - start, endings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--hands", type=int, default=300, help="hands per preset (300)")
    parser.add_argument("--seed", type=int, default=4, help="seed of seeds and actions")
    parser.add_argument("--repeat", type=int, default=3, help="timed passes; best kept (3)")
    args = parser.parse_args()
    result: dict[str, object] = {}
    total_time = 0.0
    endings: dict[str, int] = {}
    for preset in sorted(PRESETS):
        play(preset, 2, args.seed + 1)  # warm up: the hand tables load on first use, untimed
    for preset in sorted(PRESETS):
        best = float("inf")
        for _ in range(max(args.repeat, 1)):
            seconds, ends = play(preset, args.hands, args.seed)
            best = min(best, seconds)
        for key, n in ends.items():
            endings[key] = endings.get(key, 0) + n
        total_time += best
        result[f"random_hands_per_s_{preset}"] = round(args.hands / best, 1)
        print(f"{preset:26} {args.hands / best:8.1f} hands/s", file=sys.stderr)
    overall = round(args.hands * len(PRESETS) / total_time, 1)
    result = {"random_hands_per_s": overall, **result}
    result["hands"] = args.hands * len(PRESETS)
    result["build"] = _native.build()
    result["endings"] = endings
    result["goal_hands_per_s"] = GOAL
    result["peers_games_per_s"] = PEERS
    lines = [f"{'laizi (all presets)':26} {overall:8.1f} hands/s   goal ≥ {GOAL}"]
    lines += [f"{name:26} {value:8.1f} games/s (issue 4)" for name, value in PEERS.items()]
    print("\n".join(lines), file=sys.stderr if args.json else sys.stdout)
    if args.json:
        print(json.dumps(result))


if __name__ == "__main__":
    main()
