"""The table's quick chat (快捷语): a seated person's phrase, told to everyone at the table.

A ``chat`` message names one of :data:`laizi.server.chat.PHRASES` by its id; the seat's own
:class:`laizi.server.chat.ChatWindow` bounds how often (``chat_phrases`` within ``chat_seconds``,
the server's limits: every connection of a seat — two tabs — shares it).  What is refused reaches
nobody else: a spectator or a seat that left (``not_seated``), an id that names no phrase
(``bad_phrase``), chat turned off (``chat_off``) or too many (``chat_too_fast``).  Nothing of it
is written to the hand's record.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from laizi.server.chat import PHRASE_IDS, ChatWindow
from laizi.server.protocol import ProtocolError
from laizi.server.room.base import Conn
from laizi.server.room.seating import Seating

__all__ = ["TableChat"]


class TableChat:
    """Who may say a phrase at this table, how often, and telling it to the table."""

    def __init__(self, seating: Seating, now: Callable[[], float] = time.monotonic) -> None:
        self.seating = seating
        self.now = now
        self.windows: dict[int, ChatWindow] = {}
        """Per seat: the phrases it said lately (every tab of the seat counts in one)."""

    def say(self, conn: Conn, phrase: str, phrases: int, seconds: float) -> None:
        """``conn``'s seat says ``phrase`` (at most ``phrases`` within ``seconds``)."""
        seat = conn.seat
        seats = self.seating.seats
        if (
            seat is None
            or conn.spectator
            or conn not in seats[seat].conns
            or seats[seat].kind != "human"
            or seats[seat].leaving
        ):
            raise ProtocolError(
                "not_seated",
                "only a seated player can use quick chat",
                "只有入座的玩家可以发快捷语",
            )
        if phrase not in PHRASE_IDS:
            raise ProtocolError(
                "bad_phrase",
                "no quick-chat phrase has that name",
                "没有这句快捷语",
                {"phrase": phrase},
            )
        if phrases <= 0:
            raise ProtocolError("chat_off", "quick chat is turned off on this server")
        window = self.windows.get(seat)
        if window is None or (window.phrases, window.seconds) != (phrases, seconds):
            window = self.windows[seat] = ChatWindow(phrases, seconds)
        wait = window.take(self.now())
        if wait is not None:
            raise ProtocolError(
                "chat_too_fast",
                f"quick chat: at most {phrases} every {seconds:g} seconds; wait a moment",
                f"快捷语发得太快：每 {seconds:g} 秒最多 {phrases} 句，请稍等",
                {"phrases": phrases, "seconds": seconds, "retry_ms": math.ceil(wait * 1000)},
            )
        self.seating.tell_all({"type": "chat", "seat": seat, "phrase": phrase})
