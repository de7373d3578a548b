"""A deal waiting for the players' entropy: the server's secret, its commitment, what came in.

Before each hand at a table with people the server draws its secret seed and sends every seat's
client (protocol 1.1) ``{"type": "commit", "hand", "commitment"}`` — the SHA-256 of the secret.
Only then does each client send its own 32 random bytes (``ready``); the wall is the one of
:func:`laizi.engine.wall.combined_seed` of the secret and every contribution.  The server can no
longer choose a wall: any secret it picks is fixed by the commitment before it sees a
contribution, and one changed contribution changes the whole wall.  A client cannot either: it
does not know the secret when it sends its value.

>>> pending = PendingDeal(hand=2, secret=bytes(32))
>>> pending.message()["commitment"][:16], pending.contributed()
('66687aadf862bd77', None)
>>> pending.contributions[1] = bytes(range(32))
>>> [None if c is None else len(c) for c in pending.contributed()]
[None, 32, None, None]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from laizi.engine.wall import commitment

__all__ = ["PendingDeal"]


@dataclass
class PendingDeal:
    """The next hand's secret, committed to and not yet dealt, and the contributions so far."""

    hand: int
    secret: bytes
    contributions: list[bytes | None] = field(default_factory=lambda: [None] * 4)
    timer: Any = None
    """The room's timer that deals with what arrived once ``entropy_wait_ms`` have passed."""

    def message(self) -> dict[str, Any]:
        """The ``commit`` message every contributing client gets before it contributes."""
        return {"type": "commit", "hand": self.hand, "commitment": commitment(self.secret)}

    def contributed(self) -> tuple[bytes | None, ...] | None:
        """The contributions for the deal, or None when nobody gave one (dealt from the secret
        alone, as a bots-only table is)."""
        if all(part is None for part in self.contributions):
            return None
        return tuple(self.contributions)
