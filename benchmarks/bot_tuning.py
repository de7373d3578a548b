"""Tuning a bot against the arena's walls — ``python benchmarks/bot_tuning.py paired|breakdown``.

``paired A1 A2 --against B``
    Plays A1 against three B's and A2 against three B's on the *same* walls (the arena's duplicate
    play, :mod:`laizi.sim.arena`) and reports, besides each one's margin over B, the per-wall
    difference of the two margins with its 95% interval.  Two versions of one bot decide most
    walls alike, so this interval is far narrower than the two arena intervals: it is how a change
    to a bot is judged in a few hundred walls.  ``--set module.attr=value`` (repeatable) changes a
    constant or class attribute for A2 only (``--set laizi.bots.expert.ExpertBot.wait_share=0.18``)
    — A1 and A2 are then played in separate worker processes.

``breakdown A B``
    Where A's points come from against three B's, and B's: for each kind of hand end (its own
    self-drawn win, its win on a discard, its deal-in, another seat's self-drawn win, another
    seat's win on someone else's discard, a drawn hand) how often, the mean points and the share of
    the points per hand; and how often it opened and declared ready.

Both print one JSON object last with ``--json``.  The figures quoted in docs/bots.md (issue 17,
"what was tried") were measured with this script.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import statistics
import sys
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from laizi.bots.base import make_bot
from laizi.engine import make_ruleset
from laizi.sim.arena import ArenaJob, play_walls
from laizi.sim.hand import derive_seed, play_hand, wall_seed

CHUNK = 4
ENDS = ("win_self_draw", "win_discard", "deal_in", "other_self_draw", "other_discard", "drawn")


def apply_settings(settings: list[str]) -> None:
    """``module.attr=value`` or ``module.Class.attr=value``: the value takes the type of the
    attribute it replaces."""
    for setting in settings:
        target, _, text = setting.partition("=")
        path, _, attr = target.rpartition(".")
        try:
            owner: Any = importlib.import_module(path)
        except ImportError:
            module, _, name = path.rpartition(".")
            owner = getattr(importlib.import_module(module), name)
        old = getattr(owner, attr)
        value = (text == "1") if isinstance(old, bool) else type(old)(text)
        setattr(owner, attr, value)


def _margins(job: tuple[ArenaJob, list[str]]) -> dict[int, float]:
    walls, settings = job
    apply_settings(settings)
    diffs = play_walls(walls)[0]
    return {index: float(d) for index, d in zip(walls.walls, diffs, strict=True)}


def margins(
    a: str, b: str, rules: str, walls: range, seed: int, workers: int, settings: list[str]
) -> dict[int, float]:
    """A's margin over B on each wall (the arena's figure of merit of a wall)."""
    jobs = [
        (ArenaJob(a, b, rules, seed, tuple(walls[i : i + CHUNK])), settings)
        for i in range(0, len(walls), CHUNK)
    ]
    out: dict[int, float] = {}
    with ProcessPoolExecutor(workers) as pool:  # a fresh pool: settings never leak
        for part in pool.map(_margins, jobs):
            out.update(part)
    return out


def interval(values: list[float]) -> tuple[float, float, float]:
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else 0.0
    return mean, mean - half, mean + half


def paired(args: argparse.Namespace) -> dict[str, Any]:
    walls = range(args.start, args.start + args.walls)
    first = margins(args.a1, args.against, args.rules, walls, args.seed, args.workers, [])
    second = margins(args.a2, args.against, args.rules, walls, args.seed, args.workers, args.set)
    deltas = [second[w] - first[w] for w in walls]
    report = {
        "rules": args.rules,
        "walls": args.walls,
        "seed": args.seed,
        "a1": args.a1,
        "a2": args.a2,
        "set": args.set,
        "against": args.against,
        "a1_margin": interval([first[w] for w in walls]),
        "a2_margin": interval([second[w] for w in walls]),
        "delta": interval(deltas),
        "walls_changed": sum(1 for d in deltas if d != 0),
    }
    mean, low, high = report["delta"]
    print(
        f"{args.a2}{' ' + ' '.join(args.set) if args.set else ''} − {args.a1} on {args.rules}: "
        f"{mean:+.2f} per hand (95% {low:+.2f} … {high:+.2f}) over {args.walls} walls "
        f"({report['walls_changed']} played differently); margins over {args.against}: "
        f"{report['a1_margin'][0]:+.2f} → {report['a2_margin'][0]:+.2f}",
        file=sys.stderr,
    )
    return report


def _breakdown(job: tuple[str, str, str, int, tuple[int, ...]]) -> dict[str, dict[str, float]]:
    a, b, rules, seed, walls = job
    ruleset = make_ruleset(rules)
    totals: dict[str, dict[str, float]] = {"a": defaultdict(float), "b": defaultdict(float)}
    for index in walls:
        for a_seat in range(4):
            bots = [
                make_bot(
                    a if s == a_seat else b, ruleset.settings, derive_seed(seed, index, a_seat, s)
                )
                for s in range(4)
            ]
            out = play_hand(ruleset, bots, index % 4, wall_seed(seed, index), record=True)
            claims: dict[int, int] = defaultdict(int)
            declared: set[int] = set()
            for event in out.events or ():
                if event["type"] in ("pung", "chow", "kong") and event.get("from") is not None:
                    claims[event["seat"]] += 1
                if event["type"] == "discard" and event.get("declare_ready"):
                    declared.add(event["seat"])
            for seat in range(4):
                into = totals["a" if seat == a_seat else "b"]
                points = float(out.payments[seat])
                if out.winner == seat:
                    end = "win_self_draw" if out.how == "self_draw" else "win_discard"
                elif out.winner is None:
                    end = "drawn"
                elif out.dealt_in == seat:
                    end = "deal_in"
                else:
                    end = "other_self_draw" if out.how == "self_draw" else "other_discard"
                into["hands"] += 1
                into["points"] += points
                into["opened"] += claims[seat] > 0
                into["declared"] += seat in declared
                into[f"n_{end}"] += 1
                into[f"p_{end}"] += points
    return totals


def breakdown(args: argparse.Namespace) -> dict[str, Any]:
    walls = list(range(args.start, args.start + args.walls))
    jobs = [
        (args.a, args.b, args.rules, args.seed, tuple(walls[i : i + CHUNK]))
        for i in range(0, len(walls), CHUNK)
    ]
    totals: dict[str, dict[str, float]] = {"a": defaultdict(float), "b": defaultdict(float)}
    with ProcessPoolExecutor(args.workers) as pool:
        for part in pool.map(_breakdown, jobs):
            for side in totals:
                for key, value in part[side].items():
                    totals[side][key] += value
    report: dict[str, Any] = {"rules": args.rules, "walls": args.walls, "seed": args.seed}
    for side, name in (("a", args.a), ("b", args.b)):
        t = totals[side]
        hands = max(t["hands"], 1)
        ends = {
            end: {
                "rate": t[f"n_{end}"] / hands,
                "mean": t[f"p_{end}"] / t[f"n_{end}"] if t[f"n_{end}"] else 0.0,
                "per_hand": t[f"p_{end}"] / hands,
            }
            for end in ENDS
        }
        report[side] = {
            "bot": name,
            "hands": int(t["hands"]),
            "points_per_hand": t["points"] / hands,
            "opened": t["opened"] / hands,
            "declared": t["declared"] / hands,
            "ends": ends,
        }
        print(
            f"{name}: {t['points'] / hands:+.2f} per hand over {int(t['hands'])} hands; "
            f"opened {t['opened'] / hands:.1%}, declared ready {t['declared'] / hands:.1%}",
            file=sys.stderr,
        )
        for end, figures in ends.items():
            print(
                f"  {end:16} {figures['rate']:6.1%}  mean {figures['mean']:+9.2f}  "
                f"per hand {figures['per_hand']:+8.2f}",
                file=sys.stderr,
            )
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    one = commands.add_parser("paired", help="two versions of a bot on the same walls")
    one.add_argument("a1")
    one.add_argument("a2")
    one.add_argument("--against", default="strong")
    one.add_argument(
        "--set", action="append", default=[], help="module.attr=value, for A2 only (repeatable)"
    )
    two = commands.add_parser("breakdown", help="where A's and B's points come from")
    two.add_argument("a")
    two.add_argument("b")
    for sub in (one, two):
        sub.add_argument("--rules", default="wuhan-hongzhong-kaikou")
        sub.add_argument("--walls", type=int, default=200)
        sub.add_argument("--start", type=int, default=0, help="first wall's number (0)")
        sub.add_argument("--seed", type=int, default=2026)
        sub.add_argument("--workers", type=int, default=1)
        sub.add_argument("--json", action="store_true", help="print one JSON object last")
    args = parser.parse_args()
    report = paired(args) if args.command == "paired" else breakdown(args)
    if args.json:
        print(json.dumps(report))


if __name__ == "__main__":
    main()
