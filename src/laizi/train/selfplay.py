"""Stage ``selfplay``: improve a policy by playing — REINFORCE on duplicate walls.

Each iteration plays ``walls`` new walls of one preset (the presets taken in turn), every wall
four times with the learner in each seat and the opponent in the other three — the arena's
duplicate set (:mod:`laizi.sim.arena`), so the luck of the wall cancels.  The learner samples its
actions from its policy (``softmax(logits / temperature)`` over the legal actions) and keeps
each decision that had a choice; its reward at a table is its points there, and the wall's
baseline is the mean of its four tables, so a decision's advantage is how much better that
seat's play did than the learner did on the same wall from the other seats.  Advantages are
scaled by their spread in the iteration; the loss is ``−A · log π(a | s)`` minus a small entropy
bonus, one pass of Adam over the iteration's rows.

The opponent is ``best`` — the starting policy, frozen, played by its argmax like the
``learned`` bot — or any bot name (``strong``).  Rollouts run in worker processes on numpy
(:class:`~laizi.bots.learned.PolicyModel`), the update in torch.  After every iteration the
state goes to ``OUT/checkpoint.pt``; ``resume=True`` continues it, ending with exactly the
weights of an unbroken run (the walls, the samples and the batches depend on the seed and the
iteration only).  The result is a ``learned-<game>.npz`` with a model card (stage ``selfplay``)
naming the starting model and every iteration's margin.
"""

from __future__ import annotations

import datetime
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

from laizi.bots.base import Bot, make_bot
from laizi.bots.learned import LearnedBot, PolicyModel, legal_by_index
from laizi.engine import make_ruleset
from laizi.engine.actions import Action
from laizi.env.views import mask_from_view
from laizi.sim.hand import derive_seed, play_hand, wall_seed
from laizi.sim.run import run_jobs
from laizi.sim.stats import mean_ci95
from laizi.train.bc import build_net, require_torch, to_model
from laizi.train.checkpoint import checkpoint_path, load_checkpoint, save_checkpoint, write_model
from laizi.train.data import TrainError
from laizi.train.progress import Progress

__all__ = [
    "Rollout",
    "RolloutJob",
    "SamplingBot",
    "SelfPlayConfig",
    "net_from_model",
    "rollout",
    "train_selfplay",
]

WALLS_PER_JOB = 4


@dataclass
class SelfPlayConfig:
    """What a self-play run is: everything but ``iterations``, ``workers`` and ``threads`` must
    match for ``resume`` to continue a checkpoint."""

    game: str
    rules: tuple[str, ...]
    iterations: int = 20
    walls: int = 64
    lr: float = 3e-5
    temperature: float = 1.0
    entropy: float = 0.01
    batch: int = 1024
    opponent: str = "best"
    seed: int = 0
    workers: int = 1
    threads: int = 1
    start: str = ""
    """The starting model's fingerprint (:meth:`PolicyModel.fingerprint`, filled in by
    :func:`train_selfplay`)."""

    def identity(self) -> dict[str, Any]:
        own = asdict(self)
        for name in ("iterations", "workers", "threads"):
            own.pop(name)
        own["rules"] = list(self.rules)
        return own


class SamplingBot(Bot):
    """A policy that samples its actions and remembers each decision with a choice."""

    name = "learned-sampling"

    def __init__(self, rules: Any, model: PolicyModel, seed: int, temperature: float) -> None:
        super().__init__(rules, seed)
        self.model = model
        self.preset = model.preset_index(rules.preset)
        self.temperature = temperature
        self.draws = np.random.default_rng(seed)
        self.rows: list[tuple[np.ndarray, np.ndarray, int]] = []

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        by_index = legal_by_index(view, legal)
        if len(by_index) == 1:
            return next(iter(by_index.values()))
        mask = mask_from_view(view, legal)
        x = self.model.view_features(view, self.preset)
        logits = self.model.logits(x)[0].astype(np.float64) / self.temperature
        logits = np.where(mask > 0, logits, -np.inf)
        p = np.exp(logits - logits.max())
        p /= p.sum()
        choice = int(self.draws.choice(len(p), p=p))
        self.rows.append((x[0], mask, choice))
        return by_index[choice]


@dataclass(frozen=True)
class RolloutJob:
    """Some walls of one iteration, for one worker: the models travel as ``.npz`` bytes."""

    learner: bytes
    opponent: bytes | str
    preset: str
    run_seed: int
    walls: tuple[int, ...]
    temperature: float


@dataclass
class Rollout:
    """A job's decisions (inputs, masks, actions), each row's advantage, and per wall the
    learner's margin over the opponents (the arena's measure, points per hand)."""

    x: np.ndarray
    mask: np.ndarray
    action: np.ndarray
    advantage: np.ndarray
    margins: list[Fraction]


def rollout(job: RolloutJob) -> Rollout:
    """Play a job's walls four times each, the learner in every seat in turn."""
    ruleset = make_ruleset(job.preset)
    settings = ruleset.settings
    learner = PolicyModel.from_bytes(job.learner, "learner")
    opponent = (
        PolicyModel.from_bytes(job.opponent, "opponent")
        if isinstance(job.opponent, bytes)
        else None
    )
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    actions: list[int] = []
    advantages: list[float] = []
    margins: list[Fraction] = []
    for index in job.walls:
        seed = wall_seed(job.run_seed, index)
        tables: list[tuple[SamplingBot, Fraction]] = []
        margin = Fraction(0)
        for seat in range(4):
            bots: list[Bot] = []
            for s in range(4):
                bot_seed = derive_seed(job.run_seed, index, seat, s)
                if s == seat:
                    bots.append(SamplingBot(settings, learner, bot_seed, job.temperature))
                elif opponent is not None:
                    bots.append(_ArgmaxBot(settings, opponent))
                else:
                    assert isinstance(job.opponent, str)
                    bots.append(make_bot(job.opponent, settings, bot_seed))
            out = play_hand(ruleset, bots, index % 4, seed, reveal_seed=seat == 3)
            mine = Fraction(out.payments[seat])
            others = sum((Fraction(out.payments[s]) for s in range(4) if s != seat), Fraction(0))
            margin += mine - others / 3
            sampler = bots[seat]
            assert isinstance(sampler, SamplingBot)
            tables.append((sampler, mine))
        margins.append(margin / 4)
        baseline = sum((points for _, points in tables), Fraction(0)) / 4
        for sampler, points in tables:
            for x, mask, action in sampler.rows:
                xs.append(x)
                masks.append(mask)
                actions.append(action)
                advantages.append(float(points - baseline))
    width = learner.inputs
    return Rollout(
        np.asarray(xs, np.float32).reshape(len(xs), width),
        np.asarray(masks, np.uint8).reshape(len(masks), -1),
        np.asarray(actions, np.int64),
        np.asarray(advantages, np.float32),
        margins,
    )


class _ArgmaxBot(LearnedBot):
    """The opponent ``best``: a :class:`PolicyModel` played by its argmax (the ``learned`` bot)."""

    name = "learned-best"

    def __init__(self, rules: Any, model: PolicyModel) -> None:
        super().__init__(rules, 0, model)


def net_from_model(torch: Any, model: PolicyModel) -> Any:
    """The torch twin of a numpy model (the same weights, normaliser and layout)."""
    net = build_net(torch, model.inputs, model.hidden, model.mean, model.std)
    with torch.no_grad():
        for layer, weight, bias in zip(net.layers, model.weights, model.biases, strict=True):
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(weight.T)))
            layer.bias.copy_(torch.from_numpy(bias))
    return net


def _update(
    torch: Any, net: Any, optimiser: Any, played: Rollout, config: SelfPlayConfig, epoch_seed: int
) -> tuple[float, float]:
    """One pass of the policy-gradient step over an iteration's rows; (mean loss, entropy)."""
    n = len(played.action)
    spread = float(played.advantage.std()) or 1.0
    advantage = played.advantage / spread
    order = np.random.default_rng(epoch_seed).permutation(n)
    loss_sum = entropy_sum = 0.0
    for start in range(0, n, config.batch):
        rows = order[start : start + config.batch]
        x = torch.from_numpy(played.x[rows])
        mask = torch.from_numpy(played.mask[rows].astype(bool))
        y = torch.from_numpy(played.action[rows])
        a = torch.from_numpy(advantage[rows])
        logits = net(x).masked_fill(~mask, -1e9) / config.temperature
        logp = torch.log_softmax(logits, dim=1)
        chosen = logp.gather(1, y[:, None])[:, 0]
        p = logp.exp()
        entropy = -(p * logp.masked_fill(~mask, 0.0)).sum(dim=1)
        loss = -(a * chosen).mean() - config.entropy * entropy.mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
        loss_sum += float(loss.detach()) * len(rows)
        entropy_sum += float(entropy.detach().sum())
    return loss_sum / max(n, 1), entropy_sum / max(n, 1)


def _jobs(
    learner: bytes, opponent: bytes | str, config: SelfPlayConfig, iteration: int
) -> list[RolloutJob]:
    preset = config.rules[(iteration - 1) % len(config.rules)]
    run_seed = derive_seed(config.seed, iteration)
    walls = list(range(config.walls))
    return [
        RolloutJob(
            learner,
            opponent,
            preset,
            run_seed,
            tuple(walls[k : k + WALLS_PER_JOB]),
            config.temperature,
        )
        for k in range(0, len(walls), WALLS_PER_JOB)
    ]


def _joined(parts: list[Rollout]) -> Rollout:
    return Rollout(
        np.concatenate([p.x for p in parts]),
        np.concatenate([p.mask for p in parts]),
        np.concatenate([p.action for p in parts]),
        np.concatenate([p.advantage for p in parts]),
        [m for p in parts for m in p.margins],
    )


def train_selfplay(
    start: PolicyModel,
    config: SelfPlayConfig,
    out: Path,
    *,
    resume: bool = False,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """Improve ``start`` by self-play (the module's notes); write weights and card to ``out``."""
    if start.game != config.game:
        raise TrainError(f"--model: a {start.game} model, not {config.game}")
    for preset in config.rules:
        start.preset_index(preset)  # BotError for a preset the model was not made for
    if config.opponent != "best":
        make_bot(config.opponent, make_ruleset(config.rules[0]).settings, 0)  # a known bot?
    torch = require_torch()
    path = checkpoint_path(out, resume)
    start_bytes = start.to_bytes()
    config.start = start.fingerprint()
    torch.set_num_threads(config.threads)
    torch.manual_seed(config.seed)
    net = net_from_model(torch, start)
    optimiser = torch.optim.Adam(net.parameters(), lr=config.lr)
    run = load_checkpoint(
        torch, path, config.identity(), net, optimiser, step="iteration", made_from="model"
    )
    opponent: bytes | str = start_bytes if config.opponent == "best" else config.opponent
    for iteration in range(run.step + 1, config.iterations + 1):
        started = time.perf_counter()
        learner = to_model(net, start.game, start.presets, {}, look=start.look).to_bytes()
        jobs = _jobs(learner, opponent, config, iteration)
        parts = []
        for k, part in enumerate(run_jobs(rollout, jobs, workers=config.workers)):
            parts.append(part)
            if progress is not None:
                done = (iteration - 1) * len(jobs) + k + 1
                progress(done, config.iterations * len(jobs), f"iteration {iteration}")
        played = _joined(parts)
        played_seconds = time.perf_counter() - started
        loss, entropy = _update(
            torch, net, optimiser, played, config, derive_seed(config.seed, iteration, 1)
        )
        mean, low, high = mean_ci95(played.margins)
        spent = time.perf_counter() - started
        run.seconds += spent
        run.history.append(
            {
                "iteration": iteration,
                "rules": jobs[0].preset,
                "walls": len(played.margins),
                "decisions": len(played.action),
                "margin": round(mean, 3),
                "margin_ci95": [round(low, 3), round(high, 3)],
                "loss": round(loss, 5),
                "entropy": round(entropy, 4),
                "play_seconds": round(played_seconds, 2),
                "seconds": round(spent, 2),
            }
        )
        run.step = iteration
        save_checkpoint(torch, path, config.identity(), net, optimiser, run, step="iteration")
    card = _card(start, config, run.history, run.seconds, torch.__version__)
    model = to_model(net, start.game, start.presets, card, look=start.look)
    card["parameters"] = model.parameters
    write_model(out, model, card, _markdown(card))
    return card


def _card(
    start: PolicyModel,
    config: SelfPlayConfig,
    history: list[dict[str, Any]],
    seconds: float,
    torch: str,
) -> dict[str, Any]:
    from laizi import __version__

    before = start.card
    return {
        "name": f"learned-{config.game}",
        "stage": "selfplay",
        "game": config.game,
        "presets": list(start.presets),
        "encoder": "v1",
        "look": start.look,
        "inputs": before.get("inputs", ""),
        "hidden": list(start.hidden),
        "start": {
            "fingerprint": config.start,
            "stage": before.get("stage"),
            "recipe": before.get("recipe"),
            "metrics": before.get("metrics"),
            "data": {k: v for k, v in (before.get("data") or {}).items() if k != "files"},
            "training": before.get("training"),
        },
        "selfplay": {
            **{k: v for k, v in config.identity().items() if k != "start"},
            "iterations": len(history),
            "walls_per_job": WALLS_PER_JOB,
            "workers": config.workers,
            "threads": config.threads,
            "wall_seconds": round(seconds, 3),
            "torch": torch,
            "laizi": __version__,
            "created": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        },
        "metrics": history[-1] if history else {},
        "history": history,
    }


def _markdown(card: dict[str, Any]) -> str:
    run = card["selfplay"]
    lines = [
        f"# Model card: {card['name']} (stage {card['stage']})",
        "",
        f"- game: {card['game']}; presets (one-hot inputs): {', '.join(card['presets'])}",
        f"- inputs: {card['inputs']}; hidden layers: {card['hidden']}; "
        f"parameters: {card.get('parameters', '?')}",
        f"- started from: fingerprint {card['start']['fingerprint'][:12]}… "
        f"(stage {card['start']['stage']}, recipe `{card['start']['recipe']}`)",
        f"- self-play: {run['iterations']} iterations of {run['walls']} walls ({run['rules']} in "
        f"turn), opponent {run['opponent']}, temperature {run['temperature']}, entropy "
        f"{run['entropy']}, Adam lr {run['lr']}, batch {run['batch']}, seed {run['seed']}; "
        f"{run['wall_seconds']} s on {run['workers']} worker(s), torch {run['torch']}, laizi "
        f"{run['laizi']}, {run['created']}",
        "",
        "| iteration | rules | walls | decisions | margin (points per hand) | 95% interval "
        "| entropy | s |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for entry in card["history"]:
        low, high = entry["margin_ci95"]
        lines.append(
            f"| {entry['iteration']} | {entry['rules']} | {entry['walls']} | "
            f"{entry['decisions']} | {entry['margin']} | [{low}, {high}] | {entry['entropy']} | "
            f"{entry['seconds']} |"
        )
    return "\n".join(lines) + "\n"
