"""``expert``: search, not rules — it plays for points, not just for a win.

At each decision that matters (a discard with more than one sensible choice, a claim) it samples
the tiles it can't see from its own view (:func:`laizi.bots.search.sample_worlds`: the others'
hands weighted by what they discarded, the wall's order), plays its own hand out on every sample
with a fast policy and values every win with the room's **exact settlement**
(:class:`laizi.bots.search.Evaluator`) — multipliers, caps, the minimum, the hand's real readings.
Against that gain it weighs, in the same points:

* **defence** — for each opponent the chance it is ready (its openings, hand size, 报听, how far
  the hand has gone) times the chance it waits on the tile (its own discards and fully visible
  kinds are safe), times what the seat would pay it: the opponent's multiplier × its own × the
  discarder's ×2, capped; three times that when the discard would make it the contract payer
  (全求人 while not ready, the third opening toward a visible 清一色).  When the expected loss of
  the fastest discard outweighs what it gains, it folds: it throws the safest tile instead;
* **what a claim costs** — every opening (开口翻: the first; 口口翻: each) and every exposed kong
  doubles its multiplier, so what it pays whenever *anyone else* wins doubles too: a claim is taken
  only when the play-outs say the hand gains more than that extra expected loss.

Its time is a budget per decision (``budget_ms``, a bot setting): the budget fixes the number of
sampled worlds, never a clock, so the bot is deterministic given its seed.  Each decision can
leave a one-line reason in both languages (:attr:`ExpertBot.last_note`) for the table's
``explain_bots`` setting.  The game-specific judgement it inherits from ``strong``: plans for big
hands, laying out laizi and must-gang tiles, 报听 and 七对 in Baishan.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from laizi import hand as shapes
from laizi.bots.base import register
from laizi.bots.search import ROUND_HAZARD, Evaluator, World, public_melds, sample_worlds
from laizi.bots.strategy import ruleset_for
from laizi.bots.strong import StrongBot, tile_danger
from laizi.bots.table import Opponent, SeatTable
from laizi.engine.actions import CHOW, KONG, PASS, PUNG, WIN, Action
from laizi.rules.melds import Meld
from laizi.tiles import format_tile

if TYPE_CHECKING:
    from laizi.bots.guide import PolicyGuide

__all__ = ["DEFAULT_BUDGET_MS", "BlindExpertBot", "ExpertBot", "samples_for"]

DEFAULT_BUDGET_MS = 200.0
"""The default time budget of one decision, in milliseconds."""

SAMPLES_PER_MS = 0.5
"""Sampled worlds per millisecond of budget (measured: a world's play-outs of up to eight
candidate hands cost about 2 ms on the project's machine)."""

WORK_PER_MS = 0.4
"""Hand shapes one candidate's play-outs may work out per millisecond of budget (a shanten table
with a laizi in hand costs about 0.5 ms; eight candidates share a decision)."""

WAIT_SHARE = 0.12
"""Chance that a ready opponent waits on a plain middle tile (about 2.5 kinds out of ~20
plausible ones); :func:`~laizi.bots.strong.tile_danger` scales it per tile."""

SEARCH_SHANTEN = 1
"""Hands at most this far from ready are searched; further away a play-out seldom wins before the
wall ends, and tile efficiency (strong's) with the defence below decides."""

POINT_UNITS = 0.3
"""For hands too far to search: units of strong's efficiency score one point of expected loss
is worth."""

POLICY_HORIZON = 2
"""Rounds of each play-out in which the other seats throw the learned policy's choice (after them
they throw their draw): each round costs a policy question per other seat and world."""

POLICY_PRIORS = 0
"""The learned policy's likeliest discards added to the candidates expert searches (0: none —
two of them, measured on 100 walls, lost points: docs/bots.md)."""

UNOPENED = 0.6
"""A hand not yet opened that must still claim before it can win (the ruleset's
``must_open_to_win``, Wuhan): its play-outs count this much."""


POLICY_SAMPLES_PER_MS = 0.16
"""Sampled worlds per millisecond of budget when the learned policy plays the others in them
(measured: a world then costs about three times as much, the policy's questions — an observation,
its look-ahead inputs and a share of a batched network pass — dominating)."""


def samples_for(budget_ms: float, policy: bool = False) -> int:
    """Sampled worlds for a decision budget (at least 4), with the learned policy or without."""
    return max(4, int(budget_ms * (POLICY_SAMPLES_PER_MS if policy else SAMPLES_PER_MS)))


@register("expert")
class ExpertBot(StrongBot):
    """Determinized search valued by the exact settlement, with defence (see the module)."""

    use_danger = False  # its own defence, in points, replaces strong's weights
    budget_ms = DEFAULT_BUDGET_MS
    search_shanten = SEARCH_SHANTEN
    shape_weight = 0.05
    """Points one unit of strong's efficiency score (about one useful tile) is worth."""
    wait_share = WAIT_SHARE
    round_hazard = ROUND_HAZARD
    """Chance per round that an opponent who is surely ready ends the hand (scaled by each
    opponent's readiness in the play-outs)."""
    use_policy = True
    """Search with the game's learned policy (:mod:`laizi.bots.guide`) when it has one: priors,
    the other seats' play in the play-outs, worlds weighted by their discards."""
    policy_horizon = POLICY_HORIZON
    policy_priors = POLICY_PRIORS
    policy_weights = False
    """Weight the sampled worlds by how likely the policy finds the others' latest discards (off:
    measured on 100 walls it lost points even with the slip, docs/bots.md)."""
    policy_play = True
    """Let the policy play the other seats in the play-outs (else the blind play-outs)."""

    def __init__(self, rules: Any, seed: int = 0, budget_ms: float | None = None) -> None:
        super().__init__(rules, seed)
        if budget_ms is not None:
            if not budget_ms > 0:
                raise ValueError(f"budget_ms must be positive, not {budget_ms!r}")
            self.budget_ms = float(budget_ms)
        self.work = max(20, int(self.budget_ms * WORK_PER_MS))
        self.ruleset = ruleset_for(rules)
        self.guide = _guide(rules) if self.use_policy else None
        self.samples = samples_for(self.budget_ms, self.guide is not None)
        self.last_note: dict[str, str] | None = None
        self._evaluator: Evaluator | None = None
        self._decision = 0
        self._values: dict[tuple[Any, ...], float] = {}

    def __repr__(self) -> str:
        return f"ExpertBot(seed={self.seed}, budget_ms={self.budget_ms:g})"

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        self.last_note = None
        self._evaluator = None
        self._decision += 1
        action = super().act(view, legal)
        if self.last_note is None and action.type == WIN:
            self._note("won: the settlement allows it", "胡牌：结算允许")
        return action

    def _note(self, en: str, zh: str) -> None:
        self.last_note = {"en": en, "zh": zh}

    # --- the search -------------------------------------------------------------------------
    def evaluator(self, table: SeatTable) -> Evaluator:
        """This decision's evaluator: its worlds come from a generator seeded by the bot's seed
        and the decision's public position only (so hidden tiles never change the sampling)."""
        if self._evaluator is None:
            rng = random.Random(f"{self.seed}:{self._decision}")
            worlds = sample_worlds(table, self.samples, rng)
            threat = sum(self.ready_chance(table, o) for o in table.opponents)
            hazard = min(0.9, threat * self.round_hazard)
            if self.guide is not None:
                self._guide_worlds(table, worlds)
            self._evaluator = Evaluator(
                self.ruleset, self.strategy, table, worlds, hazard, self._values, self.work
            )
        return self._evaluator

    def _guide_worlds(self, table: SeatTable, worlds: Sequence[World]) -> None:
        """The learned policy's part in the worlds: their weights and the others' play."""
        assert self.guide is not None
        hands = [w.hands for w in worlds]
        kept = self.strategy.kept_out(table)
        if self.policy_weights:
            weights = self.guide.weights(table, hands, kept)
            for world, weight in zip(worlds, weights, strict=True):
                world.weight = weight
        if not self.policy_play:
            return
        rounds = max(1, (table.live + 3) // 4)
        others = self.guide.play_others(
            table, self.strategy, hands, [w.wall for w in worlds], rounds, self.policy_horizon
        )
        for world, played in zip(worlds, others, strict=True):
            world.others = played

    def ready_chance(self, table: SeatTable, other: Opponent) -> float:
        """How likely ``other`` is ready (0–1): the game's threat estimate."""
        return self.strategy.threat(table, other)

    def loss_if(self, table: SeatTable, other: Opponent, *, discarder: bool, mine: float) -> float:
        """What the seat would pay (points) when ``other`` wins; ``mine`` is its own multiplier
        (the ruleset's value model, :meth:`~laizi.rules.ruleset.Ruleset.loss_estimate`)."""
        return self.ruleset.loss_estimate(
            other, table, table.dealer, discarder=discarder, multiplier=mine
        )

    def deal_in_cost(self, table: SeatTable, tile: int, ready: bool) -> tuple[float, int | None]:
        """Expected points lost by discarding ``tile``, and the seat that makes it riskiest."""
        total = 0.0
        worst: tuple[float, int] | None = None
        for other in table.opponents:
            threat = self.ready_chance(table, other)
            if threat <= 0:
                continue
            chance = min(1.0, self.wait_share * tile_danger(table, tile, other.discards))
            # The loss on the discard, and the contracts it may make the seat pay alone.
            cost = self.ruleset.deal_in_loss(
                other, table, table.dealer, tile, ready=ready, threat=threat, chance=chance
            )
            total += cost
            if worst is None or cost > worst[0]:
                worst = (cost, other.seat)
        return total, None if worst is None else worst[1]

    def others_win_loss(self, table: SeatTable, mine: float) -> float:
        """Expected points paid when another seat wins the hand, with own multiplier ``mine``."""
        share = min(1.0, table.live / 80)
        return sum(
            0.22 * share * self.loss_if(table, other, discarder=False, mine=mine)
            for other in table.opponents
        )

    # --- discards ---------------------------------------------------------------------------
    def choose_discard(
        self,
        table: SeatTable,
        discards: list[Action],
        after: list[int | None],
        best: int,
        wild: int | None,
    ) -> Action:
        plans = self.plans(table)
        if plans and self.strategy.special_discard(table, plans[0]) is not None:
            return super().choose_discard(table, discards, after, best, wild)
        options: dict[int, Action] = {}
        for action in discards:
            if action.tile is not None and after[action.tile] is not None:
                options.setdefault(action.tile, action)
        if len(options) <= 1:
            return next(iter(options.values()), discards[0])
        ranked = sorted(
            options,
            key=lambda t: (after[t] or 0, -self.prefer(table, t), t),
        )
        candidates = [t for t in ranked if after[t] == best][:6]
        candidates += [t for t in ranked if after[t] == best + 1][:2]
        if self.guide is not None and best <= self.search_shanten:
            liked = [a.tile for _, a in self.guide.priors(table.view, list(options.values()))]
            candidates += [t for t in liked if t is not None][: self.policy_priors]
        threatened = any(self.ready_chance(table, o) >= 0.3 for o in table.opponents)
        risks = {t: self.deal_in_cost(table, t, after[t] == 0) for t in options}
        if threatened:
            candidates += sorted(options, key=lambda t: (risks[t][0], t))[:3]
        candidates = list(dict.fromkeys(candidates))
        scored: list[tuple[float, int]] = []
        gains: dict[int, float] = {}
        search = best <= self.search_shanten
        for tile in candidates:
            shanten = after[tile]
            assert shanten is not None
            shape = StrongBot.discard_value(self, table, tile, shanten, wild)
            if search:
                counts = table.counts[:]
                counts[tile] -= 1
                gain = self.evaluator(table).value(counts) * self._unopened(table)
                gains[tile] = gain
                scored.append((gain - risks[tile][0] + self.shape_weight * shape, tile))
            else:
                gains[tile] = 0.0
                scored.append((shape - POINT_UNITS * risks[tile][0], tile))
        scored.sort(key=lambda item: (item[0], -item[1]), reverse=True)
        choice = scored[0][1]
        fastest = max(
            (t for t in candidates if after[t] == best), key=lambda t: (gains[t], -t), default=None
        )
        if fastest is not None and choice != fastest and after[choice] != best:
            seat = risks[fastest][1]
            other = next((o for o in table.opponents if o.seat == seat), None)
            if other is not None:
                self._note(
                    f"folded: seat {seat} has ×{other.multiplier} and looks ready; "
                    f"threw {format_tile(choice)} instead of {format_tile(fastest)}",
                    f"弃和：{seat}号位×{other.multiplier}且像已听牌；"
                    f"打{format_tile(choice)}不打{format_tile(fastest)}",
                )
        elif fastest is not None and choice != fastest and risks[fastest][0] > risks[choice][0]:
            self._note(
                f"held the dangerous {format_tile(fastest)}, threw {format_tile(choice)} "
                f"(expected loss {risks[fastest][0]:.0f} against {risks[choice][0]:.0f})",
                f"扣住危险的{format_tile(fastest)}，打{format_tile(choice)}"
                f"（预计损失 {risks[fastest][0]:.0f} 对 {risks[choice][0]:.0f}）",
            )
        elif search and gains[choice] > 0:
            self._note(
                f"threw {format_tile(choice)}: the hand left is worth {gains[choice]:+.1f} "
                "points in the play-outs",
                f"打{format_tile(choice)}：模拟中剩下的牌值 {gains[choice]:+.1f} 分",
            )
        return options[choice]

    def _unopened(self, table: SeatTable) -> float:
        return UNOPENED if table.openings == 0 and self.ruleset.must_open_to_win() else 1.0

    # --- claims -----------------------------------------------------------------------------
    def claim(self, table: SeatTable, legal: Sequence[Action]) -> Action:
        win = next((a for a in legal if a.type == WIN), None)
        if win is not None:
            if self.take_win(table, win):
                self._note("won on the discard: the settlement allows it", "点炮胡：结算允许")
                return win
            self._note(
                "passed a small win: a big hand is one tile away with a long wall",
                "放过小胡：大胡只差一张，牌墙还长",
            )
        passing = next((a for a in legal if a.type == PASS), legal[-1])
        tile = table.claim_tile
        claims = [a for a in legal if a.type in (PUNG, KONG, CHOW)]
        if tile is None or not claims:
            return passing
        plans = self.plans(table)
        if plans and plans[0].name == "qidui":
            return passing  # seven pairs stays concealed (strong's judgement)
        wild = self.strategy.wild(table)
        if shapes.shanten(table.counts, wild) > self.search_shanten + 1:
            return super().claim(table, legal)  # far from ready: strong's judgement
        evaluator = self.evaluator(table)
        now_value = evaluator.value(table.counts) * self._unopened(table)
        mine = float(table.multiplier)
        base_loss = self.others_win_loss(table, mine)
        best: tuple[float, Action, float] | None = None
        for action in claims:
            outcome = self._after_claim(table, action, tile, wild)
            if outcome is None:
                continue
            counts, meld, throw = outcome
            melds = (*public_melds(table.view["players"][table.seat]), meld)
            gain = evaluator.value(counts, melds)
            new_mine = mine * self._claim_factor(table, action)
            cost = self.others_win_loss(table, new_mine) - base_loss
            risk = self.deal_in_cost(table, throw, False)[0] if throw is not None else 0.0
            net = gain - cost - risk
            if best is None or net > best[0]:
                best = (net, action, cost)
        if best is None or best[0] <= now_value:
            if now_value <= 0.0 and self.ruleset.must_open_to_win():
                # The play-outs find no win for the hand as it stands (closed, or short of the
                # minimum): passing keeps nothing to weigh the claim's cost against, and they
                # do not model the later claims that reach it.  Strong's judgement.
                action = super().claim(table, legal)
                if action.type != PASS:
                    self._note(
                        f"{action.type} on {format_tile(tile)}: without it the hand cannot "
                        "reach the minimum in the play-outs",
                        f"{_claim_zh(action.type)}{format_tile(tile)}：不这样，模拟中够不到起胡",
                    )
                    return action
            if best is not None and best[2] > 0:
                self._note(
                    f"passed the {best[1].type}: its multiplier would double every loss "
                    f"(about {best[2]:.0f} points) for too little gain",
                    f"不{_claim_zh(best[1].type)}：番数翻倍会让每次输分翻倍"
                    f"（约 {best[2]:.0f} 分），得不偿失",
                )
            return passing
        self._note(
            f"{best[1].type} on {format_tile(tile)}: worth {best[0] - now_value:+.1f} points "
            "more than passing",
            f"{_claim_zh(best[1].type)}{format_tile(tile)}："
            f"比不要多值 {best[0] - now_value:+.1f} 分",
        )
        return best[1]

    def _claim_factor(self, table: SeatTable, action: Action) -> float:
        """How much a claim multiplies what the seat pays when another wins (the ruleset's
        :meth:`~laizi.rules.ruleset.Ruleset.claim_loss_factor`)."""
        return self.ruleset.claim_loss_factor(table.openings, action.type == KONG)

    def _after_claim(
        self, table: SeatTable, action: Action, tile: int, wild: int | None
    ) -> tuple[list[int], Meld, int | None] | None:
        """The 3n+1 hand after the claim and its best discard, the new meld, the discard."""
        counts = table.counts[:]
        source = table.claim_from
        if action.type == KONG:
            counts[tile] -= 3
            return counts, Meld("exposed_kong", (tile,) * 4, source), None
        if action.type == PUNG:
            counts[tile] -= 2
            meld = Meld("pung", (tile,) * 3, source)
        else:
            assert action.tiles is not None
            rest = list(action.tiles)
            rest.remove(tile)
            for t in rest:
                counts[t] -= 1
            meld = Meld("chow", tuple(sorted(action.tiles)), source)
        kept = self.strategy.kept_out(table)
        after = shapes.shanten_after_discard(counts, wild)
        options = [(s, t) for t, s in enumerate(after) if s is not None and t not in kept]
        if not options:
            return None
        low = min(s for s, _ in options)
        choices = [t for s, t in options if s == low]
        throw = max(choices, key=lambda t: (self.prefer(table, t), -t))
        counts[throw] -= 1
        return counts, meld, throw


@register("expert-blind")
class BlindExpertBot(ExpertBot):
    """``expert``'s search without the learned policy: issue 17's bot, 100 blind worlds at 200
    ms.  The recipes that were made with it name it (``expert-blind@100`` taught the shipped
    ``learned`` models, ``expert-blind@200`` plays the ``expert-selfplay-v1`` dataset), so
    expert's default never changes their data."""

    use_policy = False


def _guide(rules: Any) -> PolicyGuide | None:
    """The game's learned policy for the search; None without one (or without numpy)."""
    try:
        from laizi.bots.guide import PolicyGuide
    except ImportError:
        return None
    return PolicyGuide.for_rules(rules)


def _claim_zh(kind: str) -> str:
    return {PUNG: "碰", KONG: "杠", CHOW: "吃"}.get(kind, kind)
