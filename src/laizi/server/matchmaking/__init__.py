"""Matchmaking (issue 26): queues per preset, kind and tier, tables formed by rating with the
anti-collusion seating rules, the accept phase — pure and deterministic, driven by the server.

:mod:`~laizi.server.matchmaking.tiers` groups the rank ladder into the queue's tiers,
:mod:`~laizi.server.matchmaking.settings` holds every knob, :mod:`~laizi.server.matchmaking.queue`
the :class:`Matchmaker` (docs/server.md, "Matchmaking").
"""

from laizi.server.matchmaking.queue import (
    Bucket,
    History,
    Lapsed,
    Match,
    Matchmaker,
    NoHistory,
    Person,
    RecentTables,
    Status,
    Tick,
    person_data,
    person_of,
)
from laizi.server.matchmaking.settings import KINDS, MatchSettings
from laizi.server.matchmaking.tiers import TIERS, Tier, allowed, find_tier, tier_of

__all__ = [
    "KINDS",
    "TIERS",
    "Bucket",
    "History",
    "Lapsed",
    "Match",
    "MatchSettings",
    "Matchmaker",
    "NoHistory",
    "Person",
    "RecentTables",
    "Status",
    "Tick",
    "Tier",
    "allowed",
    "find_tier",
    "person_data",
    "person_of",
    "tier_of",
]
