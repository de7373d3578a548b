"""Self-play on Ray — ``python benchmarks/bench_selfplay.py [--json] [--quick] [--ray ADDRESS]``.

Plays the same self-play run (``laizi.sim.simulate``: four ``--bots``, ``--hands`` hands, one
seed) in one process without Ray, then on Ray with 1 and with 2 workers (actors of one CPU),
checks the three results are identical, and reports (INTERFACES.md keys first):

``hands_per_s_1``, ``hands_per_s_2``  hands per second (wall clock) with 1 and 2 Ray workers,
    the workers started and ready before the clock starts (their start is a one-off per run:
    ``worker_start_s``)
``task_overhead_ms``  the mean round trip of an empty job to a ready worker (submit, run, fetch)
``hands_per_s_local``  the same run in this process, no Ray (the reference)
``scaling``  ``hands_per_s_2 / hands_per_s_1``; ``identical``: the three results are equal

Without ``--ray`` a local cluster of 2 CPUs is started (``include_dashboard=False``, a small
object store) and shut down at the end; ``--ray ADDRESS`` uses a running cluster.  ``--quick``
is the smoke test's size (16 hands).  The last line of ``--json`` is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from laizi.sim import simulate
from laizi.sim.distributed import (
    LOCAL,
    LOCAL_OBJECT_STORE,
    ray_session,
    task_overhead_ms,
    worker_pool,
)

SAME = ("hands", "drawn", "seats")
"""The keys of a simulate report that must not depend on where it ran."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--quick", action="store_true", help="smoke-test size (16 hands)")
    parser.add_argument("--hands", type=int, default=800, help="hands per run (800)")
    parser.add_argument("--bots", default="random", help="the bot in all four seats (random)")
    parser.add_argument("--rules", default="wuhan-hongzhong-kaikou")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--ray", default=None, metavar="ADDRESS", help="a running cluster")
    args = parser.parse_args()
    hands = 16 if args.quick else args.hands
    bots = [args.bots] * 4
    figures: dict[str, object] = {"hands": hands, "bots": args.bots, "rules": args.rules}

    started = time.perf_counter()
    local = simulate(bots, args.rules, hands=hands, seed=args.seed)
    figures["hands_per_s_local"] = hands / (time.perf_counter() - started)

    import ray

    if args.ray is None:
        ray.init(
            num_cpus=2,
            include_dashboard=False,
            object_store_memory=LOCAL_OBJECT_STORE,
            logging_level=logging.WARNING,
            log_to_driver=False,
        )
    with ray_session(args.ray) as session:
        figures["task_overhead_ms"] = task_overhead_ms(session, rounds=20 if args.quick else 200)
        identical = True
        for workers in (1, 2):
            begun = time.perf_counter()
            with worker_pool(workers):
                figures[f"worker_start_s_{workers}"] = time.perf_counter() - begun
                started = time.perf_counter()
                report = simulate(
                    bots, args.rules, hands=hands, seed=args.seed, ray=LOCAL, ray_workers=workers
                )
                figures[f"hands_per_s_{workers}"] = hands / (time.perf_counter() - started)
            identical &= all(report[k] == local[k] for k in SAME)
        figures["identical"] = identical
    if args.ray is None:
        ray.shutdown()
    speeds = [float(str(figures[f"hands_per_s_{k}"])) for k in (1, 2)]
    figures["scaling"] = speeds[1] / speeds[0]
    figures["load_average"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(figures))
    else:
        for key, value in figures.items():
            print(f"{key:>20}: {value:.3f}" if isinstance(value, float) else f"{key:>20}: {value}")


if __name__ == "__main__":
    main()
