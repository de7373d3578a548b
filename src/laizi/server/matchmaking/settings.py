"""Every knob of the matchmaker, with defaults that follow RULES.md and issue 26.

>>> s = MatchSettings()
>>> s.casual_wait_s, s.accept_s, s.no_show_limit, s.no_show_window_s, s.no_show_penalty_s
(20.0, 10.0, 2, 600.0, 300.0)
>>> s.band(0.0), s.band(10.0), s.band(10_000.0)
(2.0, 4.5, 60.0)
>>> MatchSettings(accept_s=0)
Traceback (most recent call last):
...
ValueError: accept_s must be greater than 0
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from laizi.server.matchmaking.tiers import TIERS, Tier

__all__ = ["KINDS", "MatchSettings"]

KINDS = ("ranked", "casual")
"""The kinds of queue: ``ranked`` (four people, ranks move) and ``casual`` (bots fill in)."""


@dataclass(frozen=True, slots=True)
class MatchSettings:
    """The matchmaker's settings (seconds are seconds of the ``now`` the server passes in)."""

    casual_wait_s: float = 20.0
    """A casual table with fewer than four people starts, bots in the empty seats, once its
    longest-waiting person has waited this long (issue 26 item 1)."""
    accept_s: float = 10.0
    """Each person of a match must ``accept`` within this window."""
    no_show_limit: int = 2
    """This many no-shows within ``no_show_window_s`` cost ``no_show_penalty_s`` out of the
    queue."""
    no_show_window_s: float = 600.0
    no_show_penalty_s: float = 300.0
    disconnect_grace_s: float = 30.0
    """A queued person whose connection dropped keeps their place this long (a reload, a
    network blip); then they leave the queue.  Shorter than a table's escape grace
    (120 s): a queue has nothing to lose, and a vanished person would no-show a match."""
    band_start: float = 2.0
    """A ranked table's allowed rating spread (max − min OpenSkill ordinal, μ − 3σ) at once."""
    band_per_s: float = 0.25
    """How much the band widens per second its longest-waiting member has waited."""
    band_max: float = 60.0
    """The widest band: about the whole range of ordinals players reach, so after
    (60 − 2) / 0.25 = 232 s anyone in a tier can be seated with anyone else in it."""
    together_k: int = 3
    """Anti-collusion: two accounts are not seated together when they already sat at more than
    ``together_k`` of either one's last ``together_n`` ranked tables."""
    together_n: int = 20
    shared_address_rule: bool = True
    """Two accounts queued from one address (as the server sees it) are never seated together
    at a ranked table."""
    neighbours: int = 6
    """How many nearest waiting players on each side of a rating the pairing looks at for a
    table (a constant: it keeps a tick's work O(n log n))."""
    first_estimate_s: float = 30.0
    """The wait a ranked queue announces before it has seated anyone (then: recent waits)."""
    tiers: tuple[Tier, ...] = TIERS

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, int | float):
                continue
            if value < 0:
                raise ValueError(f"{f.name} must not be negative")
        for name in ("accept_s", "no_show_window_s", "together_n", "neighbours", "no_show_limit"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be greater than 0")
        if self.band_max < self.band_start:
            raise ValueError("band_max must not be below band_start")
        if not self.tiers:
            raise ValueError("there must be a tier")

    def band(self, waited: float) -> float:
        """The rating band of a table whose longest-waiting member has waited ``waited`` s."""
        return min(self.band_max, self.band_start + self.band_per_s * max(waited, 0.0))
