"""The bot ladder (``laizi serve --bot-ladder``): registered outside bots meet at bots-only
tables the server schedules, and each bot's rating moves (``laizi.server.botratings``).

A bot connects to ``/ws/bot`` with its token, says ``hello`` without a room and then asks for a
table: ``{"type": "ladder", "preset": P}`` (one of the ladder's presets).  It is told
``ladder_wait`` and waits in the pool of that preset.  Every ``interval_s`` the server takes the
four longest-waiting bots of each preset — four distinct bot tokens: a token is in the pool once
and sits at one unfinished ladder table at most — checks their tokens are still live, opens a
``ladder`` room whose four seats are kept for those tokens (seat order drawn at random) and
seats them: each gets ``joined`` and plays the match as any bot at a live table does.  The
four are of four different owners (accounts) unless ``--ladder-same-owner`` says otherwise.  Nothing
else sits down there; spectators may watch.  When the match ends the bots' ratings are booked
from the placings; each bot is told ``match_end`` and ``bye`` and may ask again.

Fewer than four bots waiting for a preset simply wait: no house bot fills a seat, so every
rating on the ladder comes from matches between registered bots only (docs/server.md).
A waiting bot may ``ping`` (``pong``) or ``leave`` (out of the pool, ``bye``); a revoked token's
bot is told ``token_revoked`` and let go.  Every frame costs from the connection's message
bucket as at a table, so a flood of ladder requests is refused (``rate_limited``) and then
closed for abuse.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Engine, select

from laizi.rules import PRESETS
from laizi.server.bottokens import BotIdentity, bot_tokens
from laizi.server.matched import RoomKind, SeatClaim
from laizi.server.room import Conn, Room
from laizi.server.store import Store
from laizi.server.table import TableSettings

__all__ = ["DEFAULT_PRESETS", "Ladder", "LadderRefused", "LadderSettings", "live_tokens"]

log = logging.getLogger("laizi.server")

DEFAULT_PRESETS = ("wuhan-hongzhong-kaikou", "baishan")
"""The ladder's presets unless ``--ladder-presets`` names others: one of each game."""


@dataclass(frozen=True)
class LadderSettings:
    """The ladder's knobs (``laizi serve --ladder-…``; docs/server.md)."""

    presets: tuple[str, ...] = DEFAULT_PRESETS
    """The presets a bot may ask for; each has its own pool and its own tables."""
    interval_s: float = 5.0
    """How often the pools are matched into tables."""
    hands: int = 4
    """Hands per ladder match (an escape ends it early)."""
    action_seconds: float = 10.0
    """Each decision's time before the bank is used (then 托管 plays it, as at any table)."""
    bank_seconds: float = 30.0
    """Each seat's time bank per hand."""
    escape_grace_seconds: float = 30.0
    """A bot that drops mid-match has this long to come back (``seat_token``) before its seat
    escapes — the escape rule of any table."""
    owners_apart: bool = True
    """At most one bot of an owner (account) at a table: an owner's three bots cannot feed the
    fourth a rating.  ``--ladder-same-owner`` lifts it (a private ladder of one's own bots)."""

    def __post_init__(self) -> None:
        if not self.presets:
            raise ValueError("ladder_presets must name one preset at least")
        for preset in self.presets:
            if preset not in PRESETS:
                known = ", ".join(PRESETS)
                raise ValueError(f"ladder_presets: unknown preset {preset!r} (one of {known})")
        if len(set(self.presets)) != len(self.presets):
            raise ValueError("ladder_presets: a preset is named twice")
        ranges = {  # the flag each is set by, and the table settings' own ranges
            "ladder_interval_seconds": (self.interval_s, 0.0, 3600.0),
            "ladder_hands": (self.hands, 1, 64),
            "ladder_action_seconds": (self.action_seconds, 0.0, 600.0),
            "ladder_bank_seconds": (self.bank_seconds, 0.0, 3600.0),
            "ladder_grace_seconds": (self.escape_grace_seconds, 0.0, 3600.0),
        }
        for name, (value, low, high) in ranges.items():
            positive = name in ("ladder_interval_seconds", "ladder_action_seconds")
            if not (low < value if positive else low <= value) or value > high:
                lowest = f"above {low:g}" if positive else f"at least {low:g}"
                raise ValueError(f"{name} must be {lowest} and at most {high:g}")

    def table(self) -> TableSettings:
        """A ladder table's settings: four seats for bots, no pauses made for people to read."""
        return TableSettings.from_json(
            {
                "players": 4,
                "hands": self.hands,
                "action_seconds": self.action_seconds,
                "bank_seconds": self.bank_seconds,
                "escape_grace_seconds": self.escape_grace_seconds,
                "bot_delay_ms": 0,
                "between_hands_ms": 0,
                "claim_window_ms": 0,
                "entropy_wait_ms": 0,
                "settlement_seconds": 0,
            }
        )


class LadderRefused(Exception):
    """A ladder request refused: a code, and the reason in English and Chinese."""

    def __init__(self, code: str, en: str, zh: str) -> None:
        super().__init__(en)
        self.code, self.en, self.zh = code, en, zh

    def message(self) -> dict[str, Any]:
        return {"type": "error", "code": self.code, "message": self.en, "message_zh": self.zh}


class Hub(Protocol):
    """What the ladder needs of the hub (``laizi.server.hub.Hub``, which imports this module)."""

    rooms: dict[str, Room]
    halting: bool
    store: Store

    def open_matched_room(
        self,
        rules: Any,
        claims: Sequence[SeatClaim],
        kind: RoomKind = ...,
        table: TableSettings | None = ...,
        code: str | None = ...,
    ) -> str: ...

    def handle(self, conn: Conn, text: str | bytes) -> bool: ...

    def close_waiting(self, room: Room) -> None: ...


class BotSeat(Protocol):
    """What the ladder needs of a bot's connection (``laizi.server.botseat.BotSeat``, which
    imports this module)."""

    identity: BotIdentity
    conn: Conn
    out: asyncio.Queue[str | None]
    ladder: Ladder | None

    def say(self, message: dict[str, Any]) -> None: ...


@dataclass
class Waiting:
    """A bot in a pool: its connection and the preset it asked for."""

    seat: BotSeat
    preset: str


def live_tokens(engine: Engine, token_ids: list[int]) -> set[int]:
    """Those of ``token_ids`` not revoked (blocks: run in a thread)."""
    with engine.connect() as c:
        return set(
            c.execute(
                select(bot_tokens.c.id).where(
                    bot_tokens.c.id.in_(token_ids) & bot_tokens.c.revoked.is_(None)
                )
            ).scalars()
        )


class Ladder:
    """The pools of waiting bots and the task that seats them (one per server process)."""

    def __init__(self, hub: Hub, settings: LadderSettings) -> None:
        self.hub = hub
        self.settings = settings
        self.pool: dict[int, Waiting] = {}
        """Bot token → the bot waiting (insertion order: the longest-waiting first)."""
        self.task: asyncio.Task[None] | None = None
        self.tables = 0
        """Ladder tables opened by this process (``info``)."""

    # -- the bots' requests ------------------------------------------------------------------
    def request(self, seat: BotSeat, message: Any) -> None:
        """A bot's ladder request: into the pool (``ladder_wait``), or :class:`LadderRefused`."""
        if not isinstance(message, dict) or message.get("type") != "ladder":
            raise LadderRefused(
                "bad_message",
                'after a hello without a room, ask for a ladder table: {"type": "ladder", '
                '"preset": …}',
                '不带房间号的 hello 之后须申请天梯对局：{"type": "ladder", "preset": …}',
            )
        preset = message.get("preset")
        if preset not in self.settings.presets:
            names = ", ".join(self.settings.presets)
            raise LadderRefused(
                "bad_preset",
                f"preset: the ladder plays {names}",
                f"preset：天梯只打 {names}",
            )
        token = seat.identity.token_id
        busy = self.busy(token)
        if busy is not None:
            raise LadderRefused(
                "ladder_busy",
                f"this bot {busy} already: one ladder seat per bot token at a time",
                "这个机器人已在排队或在天梯对局中：每个令牌同时只能占一个天梯座位",
            )
        self.pool[token] = Waiting(seat, preset)
        seat.ladder = self
        waiting = sum(w.preset == preset for w in self.pool.values())
        seat.say(
            {
                "type": "ladder_wait",
                "preset": preset,
                "waiting": waiting,
                "interval": self.settings.interval_s,
            }
        )

    def busy(self, token: int) -> str | None:
        """Why the token may not ask for a ladder table now (None: it may)."""
        if token in self.pool:
            return "waits for a ladder table"
        for room in self.hub.rooms.values():
            kept = room.seating.reserved.values()
            live = room.kind == "ladder" and room.status in ("waiting", "playing")
            if live and any(c.bot_token == token for c in kept):
                return f"plays at ladder table {room.code}"
        return None

    def message(self, seat: BotSeat, data: bytes) -> None:
        """A frame from a bot waiting in a pool: ``ping``, ``leave``; anything else refused."""
        try:
            obj = json.loads(data)
        except ValueError:
            obj = None
        kind = obj.get("type") if isinstance(obj, dict) else None
        if kind == "ping":
            seat.say({"type": "pong"})
        elif kind == "leave":
            self.leave(seat)
            seat.say({"type": "bye"})
            seat.out.put_nowait(None)
        elif kind == "ladder":
            seat.say(
                {
                    "type": "error",
                    "code": "already_waiting",
                    "message": "this connection waits for a ladder table already",
                    "message_zh": "本连接已在等待天梯对局",
                }
            )
        else:
            seat.say(
                {
                    "type": "error",
                    "code": "bad_message",
                    "message": "waiting for a ladder table: ping or leave",
                    "message_zh": "正在等待天梯对局：只可发送 ping 或 leave",
                }
            )

    def leave(self, seat: BotSeat) -> None:
        """The bot leaves its pool (it left, or its connection closed)."""
        token = seat.identity.token_id
        waiting = self.pool.get(token)
        if waiting is not None and waiting.seat is seat:
            del self.pool[token]

    def revoked(self, token: int) -> None:
        """The token was revoked: its bot leaves the pool and is let go."""
        waiting = self.pool.pop(token, None)
        if waiting is not None:
            _let_go(waiting.seat)

    def info(self) -> dict[str, Any]:
        """The ladder's settings and how many bots wait for each preset (``GET`` answers)."""
        return {
            "presets": list(self.settings.presets),
            "waiting": {
                p: sum(w.preset == p for w in self.pool.values()) for p in self.settings.presets
            },
            "interval": self.settings.interval_s,
            "hands": self.settings.hands,
            "tables": self.tables,
        }

    # -- the schedule ------------------------------------------------------------------------
    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._run())

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            self.task = None

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(self.settings.interval_s)
            try:
                await self.tick()
            except Exception:  # never let the schedule die
                log.exception("the bot ladder could not seat a table")

    async def tick(self) -> int:
        """Seat every table the pools fill now; returns how many were opened."""
        opened = 0
        for preset in self.settings.presets:
            while not self.hub.halting:
                four = self._four(preset)
                if four is None:
                    break
                live = await asyncio.to_thread(live_tokens, self.hub.store.engine, four)
                for token in four:
                    if token not in live:
                        self.revoked(token)
                waiting = [self.pool.get(t) for t in four]
                if any(w is None or w.preset != preset for w in waiting):
                    continue  # one was revoked or left meanwhile: take the next four
                if not self._seat(preset, [w for w in waiting if w is not None]):
                    break  # the room could not be made (logged): tried again next tick
                opened += 1
        return opened

    def _four(self, preset: str) -> list[int] | None:
        """The four longest-waiting bots of ``preset`` that may share a table (one per owner
        unless ``owners_apart`` is off), or None while there are not four."""
        chosen: list[int] = []
        owners: set[int] = set()
        for token, waiting in self.pool.items():
            owner = waiting.seat.identity.account.id
            if waiting.preset != preset or (self.settings.owners_apart and owner in owners):
                continue
            chosen.append(token)
            owners.add(owner)
            if len(chosen) == 4:
                return chosen
        return None

    def _seat(self, preset: str, four: list[Waiting]) -> bool:
        """Open the table for these four bots (in a random seat order) and seat them."""
        secrets.SystemRandom().shuffle(four)
        claims = [SeatClaim.for_bot_token(w.seat.identity.token_id) for w in four]
        try:
            code = self.hub.open_matched_room(preset, claims, "ladder", self.settings.table())
        except Exception:
            log.exception("the bot ladder could not open a %s table", preset)
            return False
        self.tables += 1
        for seat, waiting in enumerate(four):
            del self.pool[waiting.seat.identity.token_id]
            join = {"type": "join", "room": code, "seat": seat}
            self.hub.handle(waiting.seat.conn, json.dumps(join))
        room = self.hub.rooms.get(code)
        if room is not None and room.status == "waiting":
            # a bot's join was refused (its connection closing as it was chosen): the table
            # would wait for it in vain — closed now, the others told (room_expired) and let go
            log.warning("ladder table %s: a bot could not be seated; closed", code)
            self.hub.close_waiting(room)
            return True
        shown = ", ".join(w.seat.identity.shown for w in four)
        log.info("ladder table %s (%s): %s", code, preset, shown)
        return True


def _let_go(seat: BotSeat) -> None:
    seat.say(
        {
            "type": "error",
            "code": "token_revoked",
            "message": "this bot's token was revoked: it left the ladder",
            "message_zh": "这个机器人的令牌已被吊销：它已离开天梯",
        }
    )
    with contextlib.suppress(Exception):
        seat.out.put_nowait(None)
