"""Per-viewer event streams: sequence numbers, what each viewer is sent, catching up."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from laizi.engine import seat_event, view
from laizi.engine.view import as_streamed
from laizi.server.room.base import VIEWERS, Clock, Conn, Hand
from laizi.server.room.claims import ClaimWindow
from laizi.server.room.seating import Seating


@dataclass(frozen=True)
class CatchUpHooks:
    """What a catch-up sends besides the events: each from the part that keeps it."""

    info: Callable[[], dict[str, Any]]
    """The room's public state."""
    pending_deal: Callable[[Conn], None]
    """A deal waiting for contributions (``MatchFlow``)."""
    prompt: Callable[[int], None]
    """The seat's pending prompt, if any (``Prompts``)."""
    hints: Callable[[Conn], None]
    """The seat's hints (``Hints``)."""
    pause: Callable[[Conn], None]
    """A settlement's pause (``SettlementPause``)."""
    shown: Callable[[list[dict[str, Any]]], None]
    """Events were just sent to the connected viewers (``Hints`` may change)."""


class Streams:
    """Every viewer's numbered stream of events, and catching a connection up."""

    def __init__(
        self,
        clock: Clock,
        hand: Hand,
        seating: Seating,
        window: ClaimWindow,
        post: Callable[[Conn, dict[str, Any]], None],
        hooks: CatchUpHooks,
    ) -> None:
        self.clock = clock
        self.hand = hand
        self.seating = seating
        self.window = window
        self.post = post
        self.hooks = hooks
        self.streams: dict[int | None, list[dict[str, Any]]] = {v: [] for v in VIEWERS}
        self.hand_starts: dict[int | None, int] = {v: 0 for v in VIEWERS}
        """Each viewer's sequence number before the current hand."""
        self.base: dict[int | None, int] = {v: 0 for v in VIEWERS}
        """Each viewer's sequence number before the first event kept in memory: the current
        and the previous hand are kept (an older ``last_seq`` gets a snapshot)."""
        self.seq: dict[int | None, int] = {v: 0 for v in VIEWERS}
        self.catching: set[Conn] = set()
        """Connections whose catch-up waits for the claim window's pause to end: nothing is
        streamed to them meanwhile (the catch-up sends it, in order)."""

    def forget(self, conn: Conn) -> None:
        self.catching.discard(conn)

    def new_hand(self) -> None:
        """A hand begins: keep the previous hand's events, drop older ones."""
        for v in VIEWERS:
            previous = self.hand_starts[v]
            self.streams[v] = self.streams[v][previous - self.base[v] :]
            self.base[v] = previous
            self.hand_starts[v] = self.seq[v]

    def emit(self, events: list[dict[str, Any]]) -> None:
        """Add one decision's events (just applied to the hand's state) to the hand's record and
        to every viewer's stream; send them — during a claim window's pause, once it ends.

        The streamed copies get their extras (``as_streamed``) here, from the state the decision
        left: the claim window may cut a decision's events in two and hold the second part, and
        the extras must be those of the whole decision, never of either part alone (a 报听
        discard that ran the wall out shows its counts on the ``end`` only, as the record's
        replay does) nor of a later state."""
        self.hand.events += events
        state = self.hand.state
        self.window.emit(events if state is None else as_streamed(state, events))

    def catch_up(self, conn: Conn, last_seq: int | None) -> None:
        """The missed events (or a snapshot), then the room, one's 托管 state, a pending
        ``commit`` and any pending prompt."""
        if self.window.pausing():  # the streams are behind the state until the pause ends
            # Until then a connection catching up on events gets nothing streamed: the catch-up
            # sends it all, in order (the held events included).
            if last_seq is not None:
                self.catching.add(conn)
            self.window.when_open(lambda: self.catch_up(conn, last_seq))
            return
        self.catching.discard(conn)
        viewer = conn.seat
        stream = self.streams[viewer]
        base = self.base[viewer]
        now = self.seq[viewer]
        if last_seq is not None and base <= last_seq <= now:
            for i in range(last_seq, now):
                self.post(conn, {"type": "event", "seq": i + 1, "event": stream[i - base]})
        else:
            state = self.hand.state
            self.post(
                conn,
                {
                    "type": "snapshot",
                    "seq": now,
                    "room": self.hooks.info(),
                    "view": None if state is None else view(state, viewer),
                },
            )
        self.post(conn, {"type": "room", "room": self.hooks.info()})
        if viewer is not None:
            self.post(conn, {"type": "auto", "on": self.seating.seats[viewer].auto})
            self.hooks.pending_deal(conn)
            self.hooks.prompt(viewer)
        self.hooks.hints(conn)
        self.hooks.pause(conn)

    def stream(self, events: list[dict[str, Any]]) -> None:
        """Number streamed events in every viewer's stream and send them to its connections."""
        conns = self.seating.conns() if self.clock.live else []
        for event in events:  # the streamed copies, with their extras (:meth:`emit`)
            for v in VIEWERS:
                shown = seat_event(event, v)
                if shown is None:
                    continue
                self.streams[v].append(shown)
                self.seq[v] += 1
                message = {"type": "event", "seq": self.seq[v], "event": shown}
                for conn, seat in conns:
                    if seat == v and conn not in self.catching:
                        self.post(conn, message)
        if conns:
            self.hooks.shown(events)
