"""The table setting ``explain_bots``: a bot's one-line reason per decision, for the settlement.

A bot that can say why it acted (``expert``: :attr:`laizi.bots.ExpertBot.last_note`, a
``{"en": …, "zh": …}`` dict) leaves a note after each decision.  With ``explain_bots`` on, the
room collects them during the hand and, once the hand is over, sends every viewer one message
per note (docs/protocol.md):

``{"type": "bot_note", "hand": h, "seat": s, "seq": n, "en": "…", "zh": "…"}``

``hand`` is the hand's number in the match (as ``/api/rooms/{code}/hands/{h}`` names its record)
and ``seq`` the index in that record of the first event the decision produced, so a settlement or
a replay can put each reason beside the move.  Nothing is sent during the hand: a reason tells
what the bot holds (and what it passed), which the other players must not learn while it
matters.  The room keeps the notes of its last :data:`KEPT_HANDS` hands (:meth:`BotNotes.of`) for a
viewer who comes back after the hand, and ``GET /api/rooms/{code}/hands/{h}/notes``
(``laizi.server.routes``) gives them to the web replay, which shows each at its step.

>>> class _Bot:
...     last_note = {"en": "folded", "zh": "弃和"}
>>> clean_note(_Bot())
{'en': 'folded', 'zh': '弃和'}
>>> clean_note(object()) is None
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["KEPT_HANDS", "MAX_NOTE", "BotNotes", "clean_note"]

KEPT_HANDS = 16
"""Hands whose notes a room keeps in memory."""

MAX_NOTE = 200
"""Characters of one language's text kept of a note."""


def clean_note(bot: Any) -> dict[str, str] | None:
    """The bot's last note as two short strings, or None (no note, or not a well-formed one —
    an outside bot's attribute is not trusted)."""
    note = getattr(bot, "last_note", None)
    if not isinstance(note, dict):
        return None
    en, zh = note.get("en"), note.get("zh")
    if not isinstance(en, str) or not isinstance(zh, str) or not en or not zh:
        return None
    return {"en": en[:MAX_NOTE], "zh": zh[:MAX_NOTE]}


class BotNotes:
    """A room's bot notes: the current hand's, sent when it is over, and the last hands' kept."""

    def __init__(
        self,
        explain: bool,
        live: Callable[[], bool],
        hand: Callable[[], int],
        seq: Callable[[], int],
        tell: Callable[[list[dict[str, Any]]], None],
    ) -> None:
        """``explain``: the table's ``explain_bots``; ``live``: whether the room runs (not being
        rebuilt); ``hand``: the number of the hand in play; ``seq``: how many events its record
        holds; ``tell``: send messages to every viewer of the room."""
        self.explain = explain
        self.live = live
        self.hand = hand
        self.seq = seq
        self.tell = tell
        self.pending: list[dict[str, Any]] = []
        """The notes of the hand in play."""
        self.kept: dict[int, list[dict[str, Any]]] = {}
        """Hand number → the notes sent after it (the last :data:`KEPT_HANDS`)."""

    def take(self, seat: int, bot: Any) -> None:
        """Called just before a bot's action is played: keep its reason (``explain_bots`` only)."""
        if not self.explain or not self.live():
            return
        note = clean_note(bot)
        if note is None:
            return
        self.pending.append(
            {"type": "bot_note", "hand": self.hand(), "seat": seat, "seq": self.seq(), **note}
        )

    def flush(self) -> None:
        """Called once the hand is over: send every viewer the hand's notes, and keep them."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        self.kept[pending[0]["hand"]] = pending
        for old in sorted(self.kept)[:-KEPT_HANDS]:
            del self.kept[old]
        self.tell(pending)

    def of(self, hand: int) -> list[dict[str, Any]]:
        """The notes kept of one finished hand ([] when none)."""
        return list(self.kept.get(hand, []))
