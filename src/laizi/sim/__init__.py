"""Self-play: the arena (A against three B's on duplicate walls), the tournament (every pair of
bots in arenas both ways: :mod:`laizi.sim.tournament`) and free simulations.

Deterministic by seed and independent of the number of worker processes; see ``docs/bots.md``.
"""

from laizi.sim.arena import arena
from laizi.sim.hand import HandOutcome, derive_seed, play_hand, wall_seed
from laizi.sim.simulate import simulate
from laizi.sim.stats import SeatStats, mean_ci95

__all__ = [
    "HandOutcome",
    "SeatStats",
    "arena",
    "derive_seed",
    "mean_ci95",
    "play_hand",
    "simulate",
    "wall_seed",
]
