"""Every error the server sends, in one catalogue: a stable ``code``, ``params``, and the text in
English (``message``) and Chinese (``message_zh``).

WebSocket ``error`` messages pass through :func:`normalize` on their way out
(``laizi.server.protocol.encode``); HTTP API errors through :class:`ErrorBodies` (a middleware).
A place that refuses something names its code and, where it has one, a more precise text in both
languages; what it leaves out comes from :data:`CATALOGUE`.  HTTP bodies keep ``error`` (and
``error_zh``) as before, the same texts.

A setting refused when a room is made is ``bad_setting``: :func:`setting_error` names it by its
label in each language (``rules.golden_cap`` → 金顶 / Golden cap), never by its raw key (that
goes in ``params.key``).

>>> e = setting_error("rules", "golden_cap", "must not be below cap (300)")
>>> e["message"], e["message_zh"]
('Golden cap: must not be below Cap (300)', '金顶：不能低于封顶（300）')
>>> normalize({"type": "error", "code": "not_seated", "message": "no seat"})["message_zh"]
'只有入座的玩家可以这样做'
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = ["CATALOGUE", "ErrorBodies", "normalize", "setting_error"]

CATALOGUE: dict[str, tuple[str, str]] = {
    # -- messages and joining (WebSocket) --
    "bad_json": ("消息不是合格的 JSON", "the message is not JSON"),
    "bad_message": ("消息格式不对", "the message is malformed"),
    "too_large": ("消息或请求太长", "the message or request is too long"),
    "bad_version": (
        "客户端版本太旧或太新，请刷新页面",
        "this client speaks another protocol version",
    ),
    "bad_name": ("这个名字不能用", "this name can't be used"),
    "no_room": ("没有这个房间", "no room has that code"),
    "not_joined": ("请先进入一个房间", "join a room first"),
    "already_joined": ("已经在一个房间里了", "this connection is already in a room"),
    "room_full": ("房间已满，可以观战", "the room is full; you can watch"),
    "seat_taken": ("这个座位已有人", "that seat is taken"),
    "bad_seat": ("座位号只能是 0 到 3", "a seat is 0 to 3"),
    "bad_token": ("找不到这个座位，无法重连", "no seat of this room has that token"),
    "already_seated": ("这个账号已在本房间入座", "this account already holds a seat here"),
    "seat_reserved": (
        "这一桌是匹配的，座位只留给匹配到的玩家",
        "this table was matched: its seats are kept for the players matched to it",
    ),
    "not_seated": ("只有入座的玩家可以这样做", "only a seated player can do that"),
    "not_your_turn": ("现在不该你出手", "there is no decision pending for your seat"),
    "stale_prompt": ("这个操作已过时", "that answer is for an earlier decision"),
    "bad_action": ("看不懂这个操作", "the action can't be read"),
    "illegal": ("现在不能这样打", "that move is not allowed now"),
    "no_deal_pending": ("没有等待随机数的发牌", "no deal is waiting for contributions"),
    "already_contributed": (
        "这一局的随机数已经交过了",
        "this seat already contributed to the deal",
    ),
    "room_expired": ("房间等人太久，已关闭", "the room waited too long for its players and closed"),
    "too_many_spectators": ("观众已满", "this room has all the spectators it takes"),
    # -- quick chat (laizi.server.room.chat) --
    "bad_phrase": ("没有这句快捷语", "no quick-chat phrase has that name"),
    "chat_too_fast": ("快捷语发得太快，请稍等", "quick chat: too many at once; wait a moment"),
    "chat_off": ("这个服务器关闭了快捷语", "quick chat is turned off on this server"),
    # -- limits --
    "rate_limited": ("太快了，请稍后再试", "too many requests; slow down"),
    "abuse": ("消息太多，连接已关闭", "too many refused messages: the connection is closed"),
    "too_many_connections": ("同一地址连接太多", "too many connections from this address"),
    "server_full": ("服务器连接已满，请稍后再试", "the server has as many connections as it may"),
    "join_timeout": ("没有及时加入房间，连接已关闭", "no room joined in time: connection closed"),
    "cooling_down": ("请稍后再连", "too many refused messages: connect again later"),
    "too_many_rooms": ("房间太多，请稍后", "too many open rooms; try later"),
    "too_many_bot_rooms": ("纯机器人房间太多", "too many bots-only rooms"),
    "account_required": ("请先登录", "log in first"),
    "busy": ("服务器忙，请稍后再试", "the server is busy; try again soon"),
    # -- the HTTP API --
    "bad_request": ("请求不对", "the request is malformed"),
    "bad_setting": ("设置有误", "a setting is wrong"),
    "not_found": ("没有找到", "not found"),
    "no_record": ("这个房间没有打完的这一局", "no finished hand with that number in that room"),
    "no_player": ("没有这个玩家", "no player has that name"),
    "bad_game": ("没有这个玩法", "no such game"),
    # -- accounts --
    "too_many_tokens": (
        "一个账号最多持有 10 个机器人令牌，请先吊销一个",
        "an account holds at most 10 bot tokens: revoke one first",
    ),
    "no_token": ("没有这个有效的机器人令牌", "you have no live bot token with that id"),
    "bot_name_taken": (
        "你已有一个同名的有效机器人，请换个名字",
        "you already have a live bot of that name: pick another",
    ),
    # -- the bot ladder (laizi.server.ladder; sent over /ws/bot) --
    "ladder_busy": (
        "这个机器人已在排队或在天梯对局中",
        "this bot already waits for or plays at a ladder table",
    ),
    "already_waiting": (
        "本连接已在等待天梯对局",
        "this connection waits for a ladder table already",
    ),
    "token_revoked": (
        "这个机器人的令牌已被吊销，它已离开天梯",
        "this bot's token was revoked: it left the ladder",
    ),
    "bad_password": ("密码长度不对", "the password has the wrong length"),
    "bad_login": ("名字或密码错误", "wrong name or password"),
    "name_taken": ("名字已被占用", "the name is taken"),
    "not_logged_in": ("没有登录（以游客身份在玩）", "not logged in (playing as a guest)"),
    "not_admin": ("只有管理员可以查看", "administrators only"),
    "forbidden": (
        "监控数据只对本机和 --metrics-from 的地址开放",
        "the metrics are for loopback and the --metrics-from addresses only",
    ),
    "login_locked": ("登录失败太多次，请稍后再试", "too many failed logins; try again later"),
    "login_slowed": ("这个账号正被频繁尝试，请稍后再试", "this account is being tried often; wait"),
    # -- matchmaking (laizi.server.matchmaking) --
    "bad_kind": ("匹配类型只能是排位或休闲", "the kind of game is ranked or casual"),
    "bad_preset": ("没有这个预设玩法", "no game has that preset"),
    "bad_tier": ("没有这个段位", "no tier has that name"),
    "tier_too_high": ("你的段位不能在这一级排队", "your rank can't queue in that tier"),
    "at_table": ("你正在牌桌上，不能排队", "you are at a table: no queueing"),
    "in_match": ("已经匹配到对局，请先确认", "a match is waiting for your accept"),
    "match_gone": ("这场匹配已取消或已失效", "that match was cancelled or is no longer yours"),
    "queue_cooldown": ("多次未确认匹配，请稍后再排队", "too many matches not accepted: wait"),
    "no_queue": ("这个服务器没有匹配队列", "this server has no matchmaking queue"),
    "queue_unavailable": (
        "匹配队列暂时不可用，请稍后再试",
        "the matchmaking queue is unavailable for now: try again soon",
    ),
    # -- 再来一局 (laizi.server.again) --
    "not_friendly": (
        "只有友人场可以再来一局；排位和休闲请再次匹配",
        "only a friendly room offers a rematch: queue again for a ranked or casual one",
    ),
    "not_over": ("对局还没结束", "the match is not over yet"),
    "again_unavailable": (
        "这个服务器不能再来一局，请在大厅开房",
        "this server can't open the rematch: make a room in the lobby",
    ),
    "error": ("出错了", "something went wrong"),
}
"""Every error code: (Chinese, English).  Stable: clients key their own texts on the code."""

_PAIR = re.compile(r"^(?P<zh>[^/]*[\u3000-\u9fff][^/]*?) / (?P<en>[^\u3000-\u9fff]+)$")
"""An older message that holds both languages: ``中文 / English``."""


def normalize(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` (a WebSocket ``error`` or an HTTP error body) with ``code``, ``params``,
    ``message`` and ``message_zh``: the sender's own texts where it gave them, the catalogue's
    otherwise."""
    code = body.get("code") or ("not_found" if body.get("error") else "error")
    zh_default, en_default = CATALOGUE.get(code, CATALOGUE["error"])
    en = body.get("message") or body.get("error")
    zh = body.get("message_zh") or body.get("error_zh")
    if isinstance(en, str) and zh is None:
        pair = _PAIR.match(en)
        if pair is not None:
            zh, en = pair["zh"].strip(), pair["en"].strip()
    out = dict(body)
    out["code"] = code
    out["params"] = body.get("params") or {}
    out["message"] = en if isinstance(en, str) and en else en_default
    out["message_zh"] = zh if isinstance(zh, str) and zh else zh_default
    if "error" in body:  # an HTTP body: ``error`` stays, the same text
        out["error"] = out["message"]
        out["error_zh"] = out["message_zh"]
    return out


# -- settings errors --------------------------------------------------------------------------

_DETAILS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (
        re.compile(r"^must not be below (\w+) \((.+)\)$"),
        "must not be below {0} ({1})",
        "不能低于{0}（{1}）",
    ),
    (re.compile(r"^must not be above (.+)$"), "must not be above {0}", "不能大于 {0}"),
    (
        re.compile(r"^must be between (.+) and (.+)$"),
        "must be between {0} and {1}",
        "须在 {0} 到 {1} 之间",
    ),
    (
        re.compile(r"^a doubling factor must be between (.+) and (.+)$"),
        "must be between {0} and {1}",
        "须在 {0} 到 {1} 之间",
    ),
    (re.compile(r"^must be greater than (.+)$"), "must be greater than {0}", "须大于 {0}"),
    (re.compile(r"^must not be negative$"), "must not be negative", "不能是负数"),
    (re.compile(r"^must be a finite number$"), "must be a number", "须为数字"),
    (re.compile(r"^must be a number.*$"), "must be a number", "须为数字"),
    (re.compile(r"^must be a whole number.*$"), "must be a whole number", "须为整数"),
    (re.compile(r"^must be true or false.*$"), "must be yes or no", "须为是或否"),
    (re.compile(r"^must be a string.*$"), "must be one of the choices", "须为可选的一项"),
    (re.compile(r"^.* is not one of .*$"), "must be one of the choices", "须为可选的一项"),
    (re.compile(r"^.* does not go with game .*$"), "does not go with this game", "与此玩法不符"),
    (re.compile(r"^unknown setting$"), "is no setting", "没有这个设置"),
    (re.compile(r"^is fixed by the preset.*$"), "is fixed by the preset", "由预设决定，不能改"),
    (
        re.compile(r"^is a Wuhan setting.*$"),
        "is a Wuhan setting: Baishan has no such rule",
        "是武汉麻将的设置，白山麻将没有",
    ),
    (
        re.compile(r"^must be a decimal with at most (\d+) decimal places$"),
        "must have at most {0} decimal places",
        "最多 {0} 位小数",
    ),
    (re.compile(r"^missing$"), "is missing", "缺少"),
    (re.compile(r"^must be a preset name.*$"), "must be a preset's name", "须为预设玩法的名字"),
    (re.compile(r"^Expected `\w+` >= (.+)$"), "must be at least {0}", "不能小于 {0}"),
    (re.compile(r"^Expected `\w+` > (.+)$"), "must be more than {0}", "须大于 {0}"),
    (re.compile(r"^Expected `\w+` <= (.+)$"), "must be at most {0}", "不能大于 {0}"),
    (re.compile(r"^Expected `(int|float)`.*$"), "must be a number", "须为数字"),
    (re.compile(r"^Expected `bool`.*$"), "must be yes or no", "须为是或否"),
    (re.compile(r"^Invalid enum value.*$"), "must be one of the choices", "须为可选的一项"),
    (re.compile(r"^Expected .*$"), "has the wrong kind of value", "值的类型不对"),
)
"""A settings check's English detail → the same in English without raw keys, and in Chinese."""


def _labels(scope: str, key: str) -> tuple[str, str]:
    from laizi.rules.schema import LABELS
    from laizi.server.schema import TABLE_LABELS

    table = TABLE_LABELS if scope == "table" else LABELS
    zh, en = table.get(key, ("", ""))
    if not zh:
        plain = key.replace("_", " ")
        return plain, plain
    return zh, en


def _number(text: str) -> str:
    """``600.0`` → ``600`` (a whole bound written as a float is shown as the whole number)."""
    try:
        value = float(text)
    except ValueError:
        return text
    return str(int(value)) if value.is_integer() and "." in text else text


def setting_error(scope: str, key: str, detail: str) -> dict[str, Any]:
    """The body of a refused setting (``scope`` ``rules`` or ``table``): ``bad_setting`` with
    the setting named by its label, the detail in both languages."""
    label_zh, label_en = _labels(scope, key) if key else ("设置", "Settings")
    en_detail, zh_detail = detail, "值不对"
    for pattern, en, zh in _DETAILS:
        found = pattern.match(detail)
        if found is not None:
            args = [_number(a) for a in found.groups()]
            named = [
                _labels(scope, a) if re.fullmatch(r"[a-z]+(_[a-z]+)*", a) else (a, a) for a in args
            ]
            en_detail = en.format(*[n[1] for n in named])
            zh_detail = zh.format(*[n[0] for n in named])
            break
    return {
        "code": "bad_setting",
        "params": {
            "key": f"{scope}.{key}" if key else scope,
            "label_zh": label_zh,
            "label_en": label_en,
            "detail": detail,
        },
        "message": f"{label_en}: {en_detail}",
        "message_zh": f"{label_zh}：{zh_detail}",
        "error": f"{label_en}: {en_detail}",
        "error_zh": f"{label_zh}：{zh_detail}",
    }


def table_setting_error(text: str) -> dict[str, Any]:
    """:func:`setting_error` from a ``TableSettingsError``'s text (``table.hands: …``)."""
    unknown = re.search(r"unknown field `(\w+)`", text)
    if unknown is not None:
        return setting_error("table", unknown[1], "unknown setting")
    key, _, detail = text.partition(": ")
    return setting_error("table", key.removeprefix("table.").removeprefix("table"), detail)


# -- HTTP -------------------------------------------------------------------------------------


class ErrorBodies:
    """ASGI middleware: every JSON error answer (status ≥ 400) of the API gets its ``code``,
    ``params``, ``message`` and ``message_zh`` (:func:`normalize`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start: dict[str, Any] | None = None
        chunks: list[bytes] = []

        async def wrapped(message: dict[str, Any]) -> None:
            nonlocal start
            if message["type"] == "http.response.start":
                headers = dict(message.get("headers", []))
                json_body = headers.get(b"content-type", b"").startswith(b"application/json")
                if message["status"] >= 400 and json_body:
                    start = message
                    return
                await send(message)
                return
            if start is None or message["type"] != "http.response.body":
                await send(message)
                return
            chunks.append(message.get("body", b""))
            if message.get("more_body"):
                return
            body = b"".join(chunks)
            try:
                obj = json.loads(body)
                if isinstance(obj, dict) and ("error" in obj or "code" in obj):
                    body = json.dumps(normalize(obj), ensure_ascii=False).encode("utf-8")
            except ValueError:
                pass
            kept = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
            kept.append((b"content-length", str(len(body)).encode()))
            await send({**start, "headers": kept})
            await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, wrapped)
