"""The arena's long runs — ``python benchmarks/bench_arena.py [--json] [--walls N] [--workers K]``.

Issue 6 is done when ``strong`` > ``greedy`` > ``random`` on ``wuhan-hongzhong-kaikou`` and on
``baishan``, each with the 95% interval of the difference above zero, over at least 2,000 walls
(every wall played four times: A in each seat against three B's; ``laizi.sim.arena``).  This
script plays the four pairings and each bot's own speed:

``<preset>:<A>-<B>``  ``diff_mean``, ``diff_ci95``, ``hands_per_s``, A's win and deal-in rates
``hands_per_s_<bot>_<preset>``  hands per second of four copies of the bot (one process)

The documented run (docs/bots.md) is ``--walls 2000 --workers 2 --seed 2026``; CI runs
``--walls 2`` as a smoke test.  The last line of ``--json`` is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from laizi.sim import arena, simulate

PRESETS = ("wuhan-hongzhong-kaikou", "baishan")
PAIRINGS = (("strong", "greedy"), ("greedy", "random"))
BOTS = ("random", "greedy", "strong")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--walls", type=int, default=2000, help="walls per pairing (2000)")
    parser.add_argument("--seed", type=int, default=2026, help="run seed (2026)")
    parser.add_argument("--workers", type=int, default=1, help="worker processes (1)")
    parser.add_argument(
        "--speed-hands",
        type=int,
        default=200,
        help="hands of self-play per bot and preset for hands/s (200)",
    )
    parser.add_argument("--only", default="", help="comma list of presets to run (default all)")
    args = parser.parse_args()
    presets = [p for p in PRESETS if not args.only or p in args.only.split(",")]
    figures: dict[str, object] = {"walls": args.walls, "seed": args.seed}
    started = time.perf_counter()
    for rules in presets:
        for a, b in PAIRINGS:
            report = arena(
                a,
                b,
                rules,
                walls=args.walls,
                seed=args.seed,
                workers=args.workers,
                progress=not args.json,
            )
            key = f"{rules}:{a}-{b}"
            figures[key] = {
                "diff_mean": report["diff_mean"],
                "diff_ci95": report["diff_ci95"],
                "hands_per_s": report["hands_per_s"],
                "a_win_rate": report["a_stats"]["win_rate"],
                "b_win_rate": report["b_stats"]["win_rate"],
                "a_deal_in_rate": report["a_stats"]["deal_in_rate"],
                "b_deal_in_rate": report["b_stats"]["deal_in_rate"],
                "a_big_wins": report["a_stats"]["big_wins"],
                "b_big_wins": report["b_stats"]["big_wins"],
            }
            low, high = report["diff_ci95"]
            print(
                f"{key}: {report['diff_mean']:+.2f} per hand (95% {low:+.2f} … {high:+.2f}), "
                f"{'above zero' if low > 0 else 'NOT above zero'}; "
                f"{report['hands_per_s']:.1f} hands/s",
                file=sys.stderr,
            )
        for bot in BOTS:
            report = simulate([bot] * 4, rules, hands=args.speed_hands, seed=args.seed)
            figures[f"hands_per_s_{bot}_{rules}"] = report["hands_per_s"]
            print(
                f"{bot} self-play on {rules}: {report['hands_per_s']:.1f} hands/s", file=sys.stderr
            )
    figures["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
