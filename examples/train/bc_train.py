"""Behaviour cloning on the CPU, numpy only: imitate ``strong`` self-play, then beat ``random``.

    PYTHONPATH=src:examples/train python3 examples/train/bc_train.py [--hands 300] [--epochs 8]

1. Self-play data: four ``strong`` bots (issue 6) play ``--hands`` hands in a
   :class:`laizi.env.table.EnvTable`; at every decision the acting seat's observation and mask
   come from the environment and the label is the index of the bot's action.
2. Training: a one-hidden-layer policy (``policy.py``) fits the labels by masked softmax
   cross-entropy with Adam; the weights go to ``examples/train/bc_policy.npz``.
   (``--out`` writes them elsewhere; the bot reads ``LAIZI_BC_WEIGHTS`` when it is set.)
3. Evaluation: the arena (issue 6, the function behind ``laizi arena``) plays the trained policy,
   registered as the outside bot ``bc_bot:BCBot``, against ``random`` on duplicate walls.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from policy import WEIGHTS, Policy, features

from laizi.bots import make_bot
from laizi.engine import make_ruleset, view
from laizi.env.spaces import NUM_ACTIONS, OBS_SHAPE
from laizi.env.table import EnvTable
from laizi.sim.arena import arena


def collect(rules: str, hands: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations, masks and the teacher's action indices from ``strong`` self-play."""
    ruleset = make_ruleset(rules)
    table = EnvTable(ruleset)
    rng = random.Random(seed)
    bots = [make_bot("strong", ruleset.settings, seed * 4 + s) for s in range(4)]
    obs_rows: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    labels: list[int] = []
    for hand in range(hands):
        table.deal(rng.randbytes(32), hand % 4)
        state = table.state
        assert state is not None
        while not state.over:
            seat = table.current_seat()
            assert seat is not None
            legal = table.legal(seat)
            action = bots[seat].act(view(state, seat), list(legal.values()))
            index = next(i for i, a in legal.items() if a == action)
            if len(legal) > 1:  # a forced move teaches nothing
                obs = np.empty(OBS_SHAPE, np.float32)
                mask = np.zeros(NUM_ACTIONS, np.int8)
                table.write_observation(seat, obs)
                table.write_mask(seat, mask)
                obs_rows.append(obs)
                masks.append(mask)
                labels.append(index)
            table.step(seat, index)
    return np.stack(obs_rows), np.stack(masks), np.array(labels)


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
    parser.add_argument("--hands", type=int, default=300, help="self-play hands (300)")
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--hidden", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--walls", type=int, default=100, help="arena walls vs random (100)")
    parser.add_argument("--out", type=Path, default=WEIGHTS, help="where the weights go")
    args = parser.parse_args()
    if min(args.hands, args.epochs, args.hidden, args.walls) < 1:
        parser.error("--hands, --epochs, --hidden and --walls must be at least 1")

    started = time.perf_counter()
    obs, mask, labels = collect(args.rules, args.hands, args.seed)
    collected = time.perf_counter()
    print(
        f"{len(labels)} decisions from {args.hands} strong self-play hands "
        f"({collected - started:.0f} s)",
        file=sys.stderr,
    )
    x = features(obs)
    cut = int(len(labels) * 0.9)  # the last tenth of the hands is held out
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
        "agreement": round(agreement(policy, x[:cut], mask[:cut], labels[:cut]), 4),
        "agreement_held_out": round(agreement(policy, *held_out), 4),
        "arena_vs_random": {k: report[k] for k in ("hands", "diff_mean", "diff_ci95")},
        "bc_win_rate": report["a_stats"]["win_rate"],
        "seconds": round(time.perf_counter() - started, 1),
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
