"""The bot protocol's messages (docs/bot-protocol.md): one JSON object per line.

The host (the arena, ``bot-check``, a live table) writes ``hello``, then for each hand ``hand``
(the seat the bot plays and a seed for its randomness) and the hand's events exactly as that seat
may see them (``laizi.engine.seat_event``), a ``prompt`` whenever the seat must decide, a
``notice`` when an answer was replaced by 托管, and ``bye``.  The bot writes a ``hello`` back and
one ``act`` per prompt.

>>> from laizi.engine import Action
>>> legal = [Action(1, "pung"), Action(1, "pass")]
>>> read_answer('{"type":"act","prompt":7,"action":{"type":"pung"}}', 7, 1, legal)
Answer(action=Action('1 pung'), code=None, detail='')
>>> read_answer('{"type":"act","prompt":7,"action":{"type":"kong"}}', 7, 1, legal).code
'illegal'
>>> read_answer('{"type":"act","prompt":6,"action":{"type":"pass"}}', 7, 1, legal).code
'stale'
>>> read_answer('hello?', 7, 1, legal).code
'bad_json'
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgspec

import laizi.botproto.messages as messages
from laizi.engine import Action, ActionError

__all__ = [
    "MAX_LINE_BYTES",
    "PROTOCOL",
    "VERSION",
    "Answer",
    "action_for_prompt",
    "bye",
    "hand_message",
    "hello",
    "notice",
    "prompt_message",
    "read_answer",
    "read_hello",
]

PROTOCOL = "laizi-bot"
VERSION = 1
"""The protocol's version: a host refuses a bot whose ``hello`` names another."""
MAX_LINE_BYTES = 65_536
"""The longest line a bot may write (bytes, newline excluded); a longer one is not read."""

NOTICE_TEXT = {
    "timeout": ("没有在时限内回答，已托管这一步", "no answer in time: 托管 played this decision"),
    "bad_json": ("回答不是一行 JSON，已托管这一步", "the answer is not one JSON line: 托管 played"),
    "bad_message": ("回答缺少字段或类型不对，已托管这一步", "the answer is malformed: 托管 played"),
    "illegal": ("回答的动作不合法，已托管这一步", "the answer is not a legal action: 托管 played"),
    "too_long": ("回答太长，已托管这一步", "the answer's line is too long: 托管 played"),
    "exited": ("机器人进程已退出，由托管代打", "the bot's process has exited: 托管 plays"),
    "unresponsive": (
        "机器人连续超时，本局余下由托管代打",
        "the bot timed out repeatedly: 托管 plays the rest of this hand",
    ),
}


def _built(message: Any) -> dict[str, Any]:
    """A typed message (:mod:`laizi.botproto.messages`, the schema's source) as its JSON object."""
    out: dict[str, Any] = msgspec.to_builtins(message)
    return out


def hello() -> dict[str, Any]:
    """The host's first line."""
    return _built(messages.HostHello(protocol=PROTOCOL, version=VERSION))


def hand_message(seat: int, seed: int, game: str) -> dict[str, Any]:
    """Before each hand's events: the seat this bot plays and a seed for its own randomness."""
    return _built(messages.Hand(seat=seat, seed=seed, game=game))


def prompt_message(
    pid: int, phase: str, legal: Sequence[Action], seconds: float, view: dict[str, Any]
) -> dict[str, Any]:
    """A decision: the legal actions (without the seat), the time allowed, the seat's view (the
    engine's dict, passed through as it is: :class:`laizi.botproto.messages.View` describes it)."""
    shown: Any = view
    prompt = messages.Prompt(
        id=pid, phase=phase, legal=[_action_out(a) for a in legal], seconds=seconds, view=shown
    )
    return _built(prompt)


def _action_out(action: Action) -> messages.ActionOut:
    obj = action_json(action)
    return messages.ActionOut(type=obj["type"], tile=obj.get("tile"), tiles=obj.get("tiles"))


def action_json(action: Action) -> dict[str, Any]:
    out = action.to_json()
    del out["seat"]
    return out


def notice(code: str, pid: int | None, played: Action | None, detail: str = "") -> dict[str, Any]:
    """Told to the bot when 托管 played one of its decisions (``code`` says why)."""
    zh, en = NOTICE_TEXT.get(code, (code, code))
    return _built(
        messages.Notice(
            code=code,
            prompt=pid,
            message=en,
            message_zh=zh,
            played=None if played is None else _action_out(played),
            detail=detail[:200] if detail else None,
        )
    )


def bye() -> dict[str, Any]:
    return _built(messages.Bye())


@dataclass(frozen=True, slots=True)
class Answer:
    """A bot's line read against the pending prompt: the legal action, or why not (``code``:
    ``bad_json``, ``bad_message``, ``illegal``, or ``stale`` — an answer to an older prompt,
    skipped)."""

    action: Action | None
    code: str | None = None
    detail: str = ""


def action_for_prompt(obj: Any, seat: int) -> Action:
    """The ``action`` object of an ``act`` (no seat in it) as the engine's action of ``seat``."""
    if not isinstance(obj, dict):
        raise ActionError("action", "must be an object")
    fields = {k: obj[k] for k in ("type", "tile", "tiles") if k in obj}
    return Action.from_json({"seat": seat, **fields})


def read_answer(line: str | bytes, pid: int, seat: int, legal: Sequence[Action]) -> Answer:
    """Read one line written by the bot while prompt ``pid`` is pending."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        text = line if isinstance(line, str) else line[:80].decode("utf-8", "replace")
        return Answer(None, "bad_json", f"not JSON: {text[:80]!r}")
    if not isinstance(obj, dict) or obj.get("type") != "act":
        return Answer(None, "bad_message", 'expected {"type": "act", "prompt": ID, "action": …}')
    answered = obj.get("prompt")
    if isinstance(answered, bool) or not isinstance(answered, int):
        return Answer(None, "bad_message", "prompt: must be the prompt's id")
    if answered != pid:
        return Answer(None, "stale", f"answer to prompt {answered}, {pid} is pending")
    try:
        action = action_for_prompt(obj.get("action"), seat)
    except ActionError as error:
        return Answer(None, "bad_message", str(error))
    if action not in legal:
        shown = ", ".join(a.notation() for a in legal)
        return Answer(None, "illegal", f"{action.notation()} is not legal; legal: {shown}")
    return Answer(action)


def read_hello(line: str | bytes) -> tuple[str, str | None]:
    """The bot's ``hello``: its name, and None when it is acceptable, else why not."""
    try:
        obj = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return "", "the first line is not JSON"
    if not isinstance(obj, dict) or obj.get("type") != "hello":
        return "", 'the first line must be {"type": "hello", "version": 1, …}'
    name = obj.get("name")
    name = name[:64] if isinstance(name, str) else ""
    if obj.get("version") != VERSION:
        return name, f"version: this host speaks version {VERSION}, the bot {obj.get('version')!r}"
    return name, None
