"""Behaviour cloning on the CPU, numpy only: imitate ``strong`` self-play, then beat ``random``.

    PYTHONPATH=src:examples/train python3 examples/train/bc_train.py [--hands 300] [--epochs 8]
    PYTHONPATH=src:examples/train python3 examples/train/bc_train.py --dataset DIR

1. Data: a training dataset as ``laizi export`` writes it (docs/dataset.md): one Parquet row per
   decision with the deciding seat's observation and mask (the environment's encoding) and the
   index of the action taken.  ``--dataset DIR`` reads one (say, ``laizi simulate --bots
   strong,strong,strong,strong --records runs`` then ``laizi export runs --out DIR``); without
   it, four ``strong`` bots (issue 6) play ``--hands`` hands with their records kept, and those
   are exported first, in a temporary directory.  Decisions with a single legal action are left
   out (a forced move teaches nothing).
2. Training: a one-hidden-layer policy (``policy.py``) fits the labels by masked softmax
   cross-entropy with Adam; the weights go to ``examples/train/bc_policy.npz``.
   (``--out`` writes them elsewhere; the bot reads ``LAIZI_BC_WEIGHTS`` when it is set.)
   The last tenth of the dataset's hands is held out.
3. Evaluation: the arena (issue 6, the function behind ``laizi arena``) plays the trained policy,
   registered as the outside bot ``bc_bot:BCBot``, against ``random`` on duplicate walls.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from policy import WEIGHTS, Policy, features

from laizi.dataset.export import export
from laizi.dataset.parquet import read_rows
from laizi.dataset.sources import hands_from_paths
from laizi.sim.arena import arena
from laizi.sim.simulate import simulate


def make_dataset(rules: str, hands: int, seed: int, out: Path) -> None:
    """``strong`` self-play with records kept, exported as a dataset into ``out``."""
    records = out.parent / "records"
    simulate(["strong"] * 4, rules, hands=hands, seed=seed, records=records)
    report = export(hands_from_paths([str(records)]), out)
    print(
        f"{report['rows']} decisions from {report['hands']} strong self-play hands",
        file=sys.stderr,
    )


def load(dataset: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks, the action indices and the hand numbers of every decision with a
    choice (more than one legal action)."""
    parts: dict[str, list[np.ndarray]] = {"obs": [], "mask": [], "action": [], "hand": []}
    for batch in read_rows(dataset, columns=["hand", "obs", "mask", "action", "legal"]):
        keep = batch["legal"] > 1
        for name, column in parts.items():
            column.append(batch[name][keep])
    if not parts["action"]:
        raise SystemExit(f"{dataset}: no dataset rows (laizi export writes part-*.parquet)")
    obs, mask, action, hand = (np.concatenate(parts[k]) for k in ("obs", "mask", "action", "hand"))
    return obs, mask, action.astype(np.int64), hand


def agreement(policy: Policy, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> float:
    """How often the policy's most likely legal action is the teacher's."""
    return float((policy.best(x, mask) == y).mean()) if len(y) else float("nan")


def train(
    x: np.ndarray,
    mask: np.ndarray,
    y: np.ndarray,
    *,
    epochs: int,
    seed: int,
    hidden: int,
    held_out: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> Policy:
    """Masked softmax cross-entropy, Adam, minibatches of 256."""
    policy = Policy(hidden=hidden, seed=seed)
    policy.mean = x.mean(axis=0)
    policy.std = np.maximum(x.std(axis=0), 1.0).astype(np.float32)
    params = policy.params()
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, beta1, beta2, eps = 1e-3, 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(len(x))
        total = 0.0
        for start in range(0, len(x), 256):
            batch = order[start : start + 256]
            xb, mb, yb = x[batch], mask[batch], y[batch]
            z = (xb - policy.mean) / policy.std
            h, logits = policy.forward(xb)
            logits = np.where(mb > 0, logits, -1e9)
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            total += -np.log(p[np.arange(len(yb)), yb] + 1e-12).sum()
            grad = p
            grad[np.arange(len(yb)), yb] -= 1
            grad /= len(yb)
            gw2 = h.T @ grad
            gb2 = grad.sum(axis=0)
            gh = grad @ policy.w2.T
            gh[h <= 0] = 0
            gw1 = z.T @ gh
            gb1 = gh.sum(axis=0)
            step += 1
            for i, g in enumerate((gw1, gb1, gw2, gb2)):
                m[i] = beta1 * m[i] + (1 - beta1) * g
                v[i] = beta2 * v[i] + (1 - beta2) * g * g
                mhat = m[i] / (1 - beta1**step)
                vhat = v[i] / (1 - beta2**step)
                params[i] -= (lr * mhat / (np.sqrt(vhat) + eps)).astype(np.float32)
        print(
            f"epoch {epoch + 1}: loss {total / len(x):.3f}, agreement with strong "
            f"{agreement(policy, x, mask, y):.1%} (training), "
            f"{agreement(policy, *held_out):.1%} (held-out hands)",
            file=sys.stderr,
        )
    return policy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rules", default="wuhan-hongzhong-kaikou")
    parser.add_argument(
        "--dataset", type=Path, default=None, help="train from this dataset (laizi export)"
    )
    parser.add_argument(
        "--hands", type=int, default=300, help="self-play hands without --dataset (300)"
    )
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--walls", type=int, default=100, help="arena walls vs random (100)")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="where the weights go")
    args = parser.parse_args()
    if min(args.hands, args.epochs, args.hidden, args.walls) < 1:
        parser.error("--hands, --epochs, --hidden and --walls must be at least 1")

    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as scratch:
        dataset = args.dataset
        if dataset is None:
            dataset = Path(scratch) / "dataset"
            make_dataset(args.rules, args.hands, args.seed, dataset)
        obs, mask, labels, hands = load(dataset)
    collected = time.perf_counter()
    print(
        f"{len(labels)} decisions with a choice from {len(np.unique(hands))} hands "
        f"({collected - started:.0f} s)",
        file=sys.stderr,
    )
    x = features(obs)
    # The last tenth of the hands is held out (the rows are in hand order).
    ids = np.unique(hands)
    cut = int(np.searchsorted(hands, ids[int(len(ids) * 0.9)])) if len(ids) > 1 else len(hands)
    held_out = (x[cut:], mask[cut:], labels[cut:])
    policy = train(
        x[:cut],
        mask[:cut],
        labels[:cut],
        epochs=args.epochs,
        seed=args.seed,
        hidden=args.hidden,
        held_out=held_out,
    )
    policy.save(args.out)
    os.environ["LAIZI_BC_WEIGHTS"] = str(args.out)  # the bot the arena loads plays these
    trained = time.perf_counter()
    print(f"trained in {trained - collected:.0f} s; weights in {args.out}", file=sys.stderr)
    report = arena("bc_bot:BCBot", "random", args.rules, walls=args.walls, seed=args.seed + 1000)
    summary = {
        "decisions": len(labels),
        "hands": len(np.unique(hands)),
        "agreement": round(agreement(policy, x[:cut], mask[:cut], labels[:cut]), 4),
        "agreement_held_out": round(agreement(policy, *held_out), 4),
        "arena_vs_random": {k: report[k] for k in ("hands", "diff_mean", "diff_ci95")},
        "bc_win_rate": report["a_stats"]["win_rate"],
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
