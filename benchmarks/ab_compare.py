"""Before/after in one process — ``python benchmarks/ab_compare.py REV [REV2] [--rounds N]``.

A speed change is judged on a shared, loaded machine by timing both versions in the *same*
process, alternately, many short times: whatever else the machine does then falls on both alike.
Each git revision's ``src/laizi`` is exported into a temporary folder as a package of its own name
(``laizi_a``, ``laizi_b``: every ``laizi`` import rewritten), so the two load side by side; the
working tree (uncommitted changes included) is ``WORKTREE``, the default second revision.

Three loads are timed, CPU time, best of ``--rounds`` interleaved rounds (the best is the run the
machine disturbed least):

``engine``  random hands through ``legal_actions``/``apply`` with every check, three presets
``env``     PettingZoo AEC steps (``wuhan_v0.raw_env``), mask and observation at every step
``batch``   ``BatchEnv`` table-steps over 64 tables

Pure Python on both sides (``LAIZI_PURE=1`` is set), unless ``--compiled`` is given.
"""

from __future__ import annotations

import argparse
import importlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from aec_loop import play_random

ROOT = Path(__file__).resolve().parents[1]
_IMPORT = re.compile(r"\b(from|import) laizi\b")
_DOTTED = re.compile(r"(?<!b)([\"'])laizi\.")  # module paths in strings, not byte strings


def export(rev: str, name: str, into: Path) -> None:
    """``src/laizi`` of ``rev`` (or of the working tree) as the package ``name`` under ``into``."""
    target = into / name
    if rev == "WORKTREE":
        files = {
            str(p.relative_to(ROOT / "src" / "laizi")): p.read_bytes()
            for p in (ROOT / "src" / "laizi").rglob("*")
            if p.is_file()
            and p.suffix in (".py", ".bin", ".json", ".pxd")
            and "__pycache__" not in p.parts
        }
    else:
        raw = subprocess.run(
            ["git", "archive", rev, "src/laizi"], cwd=ROOT, check=True, capture_output=True
        ).stdout
        files = {}
        with tarfile.open(fileobj=io.BytesIO(raw)) as tar:
            for member in tar.getmembers():
                if member.isfile():
                    handle = tar.extractfile(member)
                    assert handle is not None
                    files[member.name.removeprefix("src/laizi/")] = handle.read()
    for rel, data in files.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if rel.endswith(".py"):
            text = data.decode()
            text = _IMPORT.sub(lambda m: f"{m.group(1)} {name}", text)
            text = _DOTTED.sub(lambda m: f"{m.group(1)}{name}.", text)
            data = text.encode()
        path.write_bytes(data)


def engine_load(pkg: str, hands: int) -> float:
    """Hands per CPU second."""
    engine = importlib.import_module(f"{pkg}.engine")
    rulesets = [engine.make_ruleset(p) for p in ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou")]
    rulesets.append(engine.make_ruleset("baishan"))
    rng = random.Random(5)
    seeds = [rng.randbytes(32) for _ in range(hands)]
    start = time.process_time()
    for ruleset in rulesets:
        rng = random.Random(7)
        for i, seed in enumerate(seeds):
            state, _ = engine.new_hand(ruleset, i % 4, seed=seed)
            while not state.over:
                seat = state.to_act()[0]
                engine.apply(state, rng.choice(engine.legal_actions(state, seat)))
    return len(seeds) * len(rulesets) / (time.process_time() - start)


def env_load(pkg: str, hands: int) -> float:
    """AEC steps per CPU second."""
    wuhan_v0 = importlib.import_module(f"{pkg}.env.wuhan_v0")
    env = wuhan_v0.raw_env("wuhan-hongzhong-kaikou")
    env.reset(seed=3)
    start = time.process_time()
    steps = play_random(env, hands, random.Random(3))
    return steps / (time.process_time() - start)


def batch_load(pkg: str, rounds: int) -> float:
    """BatchEnv table-steps per CPU second (64 tables)."""
    import numpy as np

    batch_mod = importlib.import_module(f"{pkg}.env.batch")
    batch = batch_mod.BatchEnv(64, "wuhan-hongzhong-kaikou", seed=3)
    batch.reset()
    rng = np.random.default_rng(3)
    start = time.process_time()
    for _ in range(rounds):
        batch.step(batch.random_actions(rng))
    return 64 * rounds / (time.process_time() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("before", help="git revision of the 'before' side")
    parser.add_argument("after", nargs="?", default="WORKTREE", help="(default: the work tree)")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved rounds (15)")
    parser.add_argument("--hands", type=int, default=6, help="engine hands per preset per round")
    parser.add_argument("--json", action="store_true", help="print one JSON object last")
    parser.add_argument("--compiled", action="store_true", help="do not set LAIZI_PURE=1")
    args = parser.parse_args()
    if not args.compiled:
        os.environ["LAIZI_PURE"] = "1"
    with tempfile.TemporaryDirectory() as tmp:
        export(args.before, "laizi_a", Path(tmp))
        export(args.after, "laizi_b", Path(tmp))
        sys.path.insert(0, tmp)
        loads = {
            "engine": lambda pkg: engine_load(pkg, args.hands),
            "env": lambda pkg: env_load(pkg, max(args.hands // 2, 2)),
            "batch": lambda pkg: batch_load(pkg, 15),
        }
        for pkg in ("laizi_a", "laizi_b"):  # warm up: tables, imports
            for load in loads.values():
                load(pkg)
        best: dict[str, dict[str, float]] = {k: {"laizi_a": 0.0, "laizi_b": 0.0} for k in loads}
        for _ in range(args.rounds):
            for key, load in loads.items():
                for pkg in ("laizi_a", "laizi_b"):
                    best[key][pkg] = max(best[key][pkg], load(pkg))
    out: dict[str, Any] = {"before": args.before, "after": args.after}
    for key, sides in best.items():
        out[f"{key}_before"] = round(sides["laizi_a"], 1)
        out[f"{key}_after"] = round(sides["laizi_b"], 1)
        out[f"{key}_ratio"] = round(sides["laizi_b"] / sides["laizi_a"], 3)
    out["load_average"] = os.getloadavg()[0]
    if not args.json:
        for key in loads:
            print(
                f"{key:7} before {out[key + '_before']:>10}  after {out[key + '_after']:>10}"
                f"  ×{out[key + '_ratio']}",
                file=sys.stderr,
            )
    print(json.dumps(out))


if __name__ == "__main__":
    main()
