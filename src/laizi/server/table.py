"""Table settings: how a room is run, not which rules it plays (they are not in the rules hash).

>>> t = TableSettings.from_json({"hands": 8, "action_seconds": 15})
>>> t.hands, t.action_seconds, t.bank_seconds, t.bot_level, t.settlement_seconds
(8, 15.0, 60.0, 'greedy', 20.0)
>>> TableSettings.from_json({"grace_seconds": 30}).escape_grace_seconds  # the old name
30.0
>>> try:
...     TableSettings.from_json({"hands": 0})
... except TableSettingsError as error:
...     print(error)
table.hands: Expected `int` >= 1
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

__all__ = ["TableSettings", "TableSettingsError"]


class TableSettingsError(ValueError):
    """A table setting that is unknown or out of range; the message names it."""


class TableSettings(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """A room's table settings (docs/server.md lists them)."""

    players: Annotated[int, msgspec.Meta(ge=0, le=4)] = 1
    """How many seats people take; the match starts when they are all seated, bots take the rest."""
    hands: Annotated[int, msgspec.Meta(ge=1, le=64)] = 4
    """Hands in the match (an escape ends it early)."""
    action_seconds: Annotated[float, msgspec.Meta(gt=0, le=600)] = 15.0
    """Time for each decision before the time bank is used."""
    bank_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 60.0
    """Each seat's time bank for a hand: full again at every deal."""
    escape_grace_seconds: Annotated[float, msgspec.Meta(ge=0, le=3600)] = 120.0
    """How long a disconnected player's seat is played by 托管 before the escape rule applies
    (formerly ``grace_seconds``, still accepted)."""
    bot_level: Literal["random", "greedy", "learned", "strong", "expert"] = "greedy"
    bot_delay_ms: Annotated[int, msgspec.Meta(ge=0, le=10_000)] = 600
    """How long bots (and seats on auto-play) wait before acting, so people can follow."""
    between_hands_ms: Annotated[int, msgspec.Meta(ge=0, le=60_000)] = 3000
    """Pause between a hand's end and the next deal."""
    claim_window_ms: Annotated[int, msgspec.Meta(ge=0, le=10_000)] | None = None
    """With a person at the table: how long every discard (and added kong) waits before play
    goes on, whether anybody may claim it or not; bots and seats on auto-play decide their claims
    while it runs (``room/claims.py``), and its end only releases the events.  None (the
    default): ``bot_delay_ms``, so a bot's claim comes when it always did."""
    entropy_wait_ms: Annotated[int, msgspec.Meta(ge=0, le=60_000)] = 3000
    """How long a deal waits for the contributions of the clients that give one (protocol 1.1);
    then it is dealt with what arrived."""
    settlement_seconds: Annotated[float, msgspec.Meta(ge=0, le=600)] = 20.0
    """At a table with people: how long a hand's settlement stays before the next deal unless
    every connected person pressed Continue sooner (0: ``between_hands_ms`` as at a bots-only
    table)."""
    explain_bots: bool = False
    """Bots that can say why (``expert``) leave a one-line reason per decision; at the hand's end
    every viewer gets them as ``bot_note`` messages (docs/protocol.md) for the settlement."""

    @property
    def claim_window(self) -> int:
        """The claim window's pause in milliseconds (``claim_window_ms`` or ``bot_delay_ms``)."""
        return self.bot_delay_ms if self.claim_window_ms is None else self.claim_window_ms

    @property
    def grace_seconds(self) -> float:
        """The old name of :attr:`escape_grace_seconds`."""
        return self.escape_grace_seconds

    @classmethod
    def from_json(cls, obj: Any) -> TableSettings:
        if isinstance(obj, dict) and "grace_seconds" in obj:
            # the setting's old name (rooms stored before it was renamed, older clients)
            obj = dict(obj)
            old = obj.pop("grace_seconds")
            obj.setdefault("escape_grace_seconds", old)
        try:
            return msgspec.convert(obj if obj is not None else {}, cls)
        except msgspec.ValidationError as error:
            text = str(error)
            # msgspec writes "… - at `$.hands`": name the field the way the API does.
            if " - at `$." in text:
                message, _, where = text.rpartition(" - at `$.")
                text = f"table.{where.rstrip('`')}: {message}"
            else:
                text = f"table: {text}"
            raise TableSettingsError(text) from None

    def to_json(self) -> dict[str, Any]:
        return msgspec.to_builtins(self)
