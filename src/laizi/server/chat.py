"""Quick chat (快捷语): the fixed phrases and emotes a seated player may say at a table, and the
limit on how often a seat says one.

Never free text: a client sends a phrase's id (``chat {phrase}``), the server checks it against
:data:`PHRASES` and tells everyone at the table ``chat {seat, phrase}``; each client shows the
phrase in its reader's language from the list the server gives it (``chat`` in
``GET /api/settings/schema``, :func:`chat_words`).  The table's part that checks and tells is
:class:`laizi.server.room.chat.TableChat`; this module imports nothing of the server, so the schema
can read the list without importing the room.

>>> [p["id"] for p in chat_words()["phrases"]][:3]
['hello', 'hurry', 'nice_hand']
>>> window = ChatWindow(phrases=2, seconds=10.0)
>>> [window.take(t) for t in (0.0, 1.0, 2.0, 10.5)]
[None, None, 8.0, None]
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["PHRASES", "PHRASE_IDS", "ChatWindow", "Phrase", "chat_words"]


@dataclass(frozen=True)
class Phrase:
    """One thing a seat may say: a ``phrase`` (its text in each language) or an ``emote`` (a face
    drawn in text, ``face``, with its name in each language for a screen reader)."""

    id: str
    zh: str
    en: str
    kind: Literal["phrase", "emote"] = "phrase"
    face: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "zh": self.zh, "en": self.en}
        if self.face:
            out["face"] = self.face
        return out


PHRASES: tuple[Phrase, ...] = (
    Phrase("hello", "大家好，很高兴见到各位", "Hello, everyone"),
    Phrase("hurry", "快点吧，等得花儿都谢了", "Hurry up, please"),
    Phrase("nice_hand", "这手牌打得漂亮", "Nicely played"),
    Phrase("lucky", "手气真好", "What luck"),
    Phrase("oops", "哎呀，放炮了", "Oops, I dealt in"),
    Phrase("thinking", "让我想想", "Let me think"),
    Phrase("sorry", "不好意思，网络有点卡", "Sorry, my connection is slow"),
    Phrase("thanks", "谢谢", "Thank you"),
    Phrase("again", "再来一局吧", "One more game?"),
    Phrase("good_game", "打得好，下次再约", "Good game, see you next time"),
    Phrase("smile", "开心", "happy", "emote", "(＾▽＾)"),
    Phrase("cry", "哭了", "crying", "emote", "(╥﹏╥)"),
    Phrase("angry", "生气", "angry", "emote", "(╬ Ò﹏Ó)"),
    Phrase("shock", "吃惊", "shocked", "emote", "Σ(°△°)"),
    Phrase("cheer", "加油", "cheering", "emote", "ヾ(≧▽≦)ノ"),
    Phrase("sweat", "尴尬", "awkward", "emote", "(^_^;)"),
)
"""Everything a seat may say, in the order the picker shows it (phrases, then emotes)."""

PHRASE_IDS: frozenset[str] = frozenset(p.id for p in PHRASES)


def chat_words() -> dict[str, Any]:
    """The list for clients: ``{"phrases": [{"id", "kind", "zh", "en", "face"?}, …]}``."""
    return {"phrases": [p.to_json() for p in PHRASES]}


class ChatWindow:
    """One seat's limit: at most ``phrases`` said within any ``seconds`` (a sliding window of the
    times of the phrases it was let say; a refused one is not counted)."""

    __slots__ = ("phrases", "said", "seconds")

    def __init__(self, phrases: int, seconds: float) -> None:
        self.phrases = phrases
        self.seconds = seconds
        self.said: deque[float] = deque(maxlen=max(1, phrases))

    def take(self, now: float) -> float | None:
        """None if the seat may say one more now (it is counted); else the seconds until it may."""
        while self.said and now - self.said[0] >= self.seconds:
            self.said.popleft()
        if len(self.said) >= self.phrases:
            return self.said[0] + self.seconds - now
        self.said.append(now)
        return None
