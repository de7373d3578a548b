"""The arena's long runs — ``python benchmarks/bench_arena.py [--json] [--walls N] [--workers K]``.

Issue 17 adds ``expert`` − ``strong`` on all seven presets (``--pairings expert-strong``,
``--budget-ms`` for expert's time per decision) and expert's decision times
(``expert_ms_p50_<preset>``, ``expert_ms_p99_<preset>``).  Issue 6 is done when
``strong`` > ``greedy`` > ``random`` on ``wuhan-hongzhong-kaikou`` and on ``baishan``, each
with the 95% interval of the difference above zero, over at least 2,000 walls (every wall
played four times: A in each seat against three B's; ``laizi.sim.arena``).  Keys:

``<preset>:<A>-<B>``  ``diff_mean``, ``diff_ci95``, ``decided``, ``walls_needed``, ``hands_per_s``,
A's win and deal-in rates
``hands_per_s_<bot>_<preset>``  hands per second of four copies of the bot (one process)

The documented run (docs/bots.md) is ``--walls 2000 --workers 2 --seed 2026``; CI runs
``--walls 2`` as a smoke test.  The last line of ``--json`` is one JSON object.  ``--save DIR``
keeps every pairing's finished walls (``laizi.sim.arena``'s ``save``): a run of hours stopped
half-way is run again with the same command and plays only the walls it had not finished.
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
ALL_PRESETS = (
    "wuhan-hongzhong-kaikou",
    "wuhan-hongzhong-koukou",
    "wuhan-facai-kaikou",
    "wuhan-facai-koukou",
    "wuhan-qipi-kaikou",
    "wuhan-qipi-koukou",
    "baishan",
)
PAIRINGS = (("strong", "greedy"), ("greedy", "random"))
EXPERT_PAIRING = ("expert", "strong")
"""Issue 17: expert − strong on all seven presets (goals: ≥ +40 on wuhan-hongzhong-kaikou and
wuhan-qipi-koukou, ≥ +3 on baishan, never below zero)."""
BOTS = ("random", "greedy", "strong", "expert")


def pairings(names: str) -> list[tuple[str, str, str]]:
    """(preset, A, B) of every pairing to play, ``names`` a comma list (empty: all)."""
    wanted = {n.strip() for n in names.split(",") if n.strip()}
    out = []
    for rules in ALL_PRESETS:
        if rules in PRESETS:
            out += [(rules, a, b) for a, b in PAIRINGS]
        out.append((rules, *EXPERT_PAIRING))
    return [p for p in out if not wanted or f"{p[1]}-{p[2]}" in wanted]


def decision_times(rules: str, budget: str, hands: int, seed: int) -> list[float]:
    """Seconds per decision of expert (seat 0) against three strong, ``hands`` hands."""
    from laizi.bots import make_bot
    from laizi.engine import make_ruleset
    from laizi.sim.hand import play_hand, wall_seed

    ruleset = make_ruleset(rules)
    bots = [make_bot(budget if s == 0 else "strong", ruleset.settings, s) for s in range(4)]
    times: list[float] = []
    act = bots[0].act

    def timed(view, legal):  # type: ignore[no-untyped-def]
        start = time.perf_counter()
        action = act(view, legal)
        times.append(time.perf_counter() - start)
        return action

    # One untimed hand first: a process's first decisions load the hand tables.
    play_hand(ruleset, [make_bot("strong", ruleset.settings, s) for s in range(4)], 0, bytes(32))
    bots[0].act = timed  # type: ignore[method-assign]
    for index in range(hands):
        play_hand(ruleset, bots, index % 4, wall_seed(seed, index))
    return sorted(times)


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
        help="hands of self-play per bot and preset for hands/s (200; 0: none)",
    )
    parser.add_argument("--only", default="", help="comma list of presets to run (default all)")
    parser.add_argument(
        "--pairings",
        default="",
        help="comma list of pairings, e.g. expert-strong,strong-greedy (default all)",
    )
    parser.add_argument(
        "--budget-ms",
        type=float,
        default=None,
        help="expert's time budget per decision in ms (default: the bot's own, 200)",
    )
    parser.add_argument(
        "--save",
        type=Path,
        default=None,
        metavar="DIR",
        help="keep each pairing's finished walls in DIR/RULES-A-B; run again to play only the rest",
    )
    args = parser.parse_args()
    presets = [p for p in ALL_PRESETS if not args.only or p in args.only.split(",")]
    expert = "expert" if args.budget_ms is None else f"expert@{args.budget_ms:g}"
    figures: dict[str, object] = {"walls": args.walls, "seed": args.seed, "expert": expert}
    started = time.perf_counter()
    for rules, a, b in pairings(args.pairings):
        if rules not in presets:
            continue
        try:
            report = arena(
                expert if a == "expert" else a,
                b,
                rules,
                walls=args.walls,
                seed=args.seed,
                workers=args.workers,
                progress=not args.json,
                save=None if args.save is None else args.save / f"{rules}-{a}-{b}",
            )
        except ValueError as error:  # --save: another arena's folder, a damaged slice
            parser.exit(2, f"bench_arena.py: {error}\n")
        key = f"{rules}:{a}-{b}"
        figures[key] = {
            "diff_mean": report["diff_mean"],
            "diff_ci95": report["diff_ci95"],
            "decided": report["decided"],
            "walls_needed": report["walls_needed"],
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
    for rules in presets:
        # Self-play speed on the two presets of issue 6; expert's decision times on every preset.
        for bot in BOTS if args.speed_hands > 0 and rules in PRESETS else ():
            name = expert if bot == "expert" else bot
            report = simulate([name] * 4, rules, hands=args.speed_hands, seed=args.seed)
            figures[f"hands_per_s_{bot}_{rules}"] = report["hands_per_s"]
            print(
                f"{bot} self-play on {rules}: {report['hands_per_s']:.1f} hands/s", file=sys.stderr
            )
        times = decision_times(rules, expert, max(2, args.speed_hands // 10), args.seed)
        if times:
            p50 = times[len(times) // 2] * 1000
            p99 = times[min(len(times) - 1, int(len(times) * 0.99))] * 1000
            figures[f"expert_ms_p50_{rules}"] = p50
            figures[f"expert_ms_p99_{rules}"] = p99
            print(
                f"expert decisions on {rules}: p50 {p50:.1f} ms, p99 {p99:.1f} ms", file=sys.stderr
            )
    figures["seconds"] = time.perf_counter() - started
    if args.json:
        print(json.dumps(figures))
    else:
        print(json.dumps(figures, indent=2))


if __name__ == "__main__":
    main()
