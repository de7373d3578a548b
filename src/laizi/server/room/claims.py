"""The claim window's pause, in one place: when it starts, what it holds, what is decided during
it, and its end.

At a table with people every discard (and added kong others might claim) is followed by the same
pause, ``TableSettings.claim_window``, whether anybody may claim it or not.  Until it ends, the
events that follow wait (:meth:`ClaimWindow.hold`), the next turn is not asked, a connection
catching up waits, and bots do not claim.

The seats the server plays decide their claims as soon as the pause starts — a built-in bot thinks
on a worker thread, off the event loop; a seat on 托管 plays the safe default — and their decisions
are played at once: the events they make are held with everything else, so the pause's end only
releases what it held.  Neither whether a bot (or a 托管 seat) could claim, nor how long a bot
thinks, moves the next event.

A bot's claim has the pause to be decided — ``claim_window_ms``, 600 ms by default, longer than
the expert bot's search (its budget: 200 ms) — less a moment (``GUARD_MS``) before its end, when
whatever is still undecided is settled, so that its end has nothing left to play.  A bot still
thinking then passes, as a person whose clock runs out does (the table never waits for a bot:
that would tell that it could claim); its search finishes on its thread and is dropped, and the
bot's next decision waits for it.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from laizi.bots import Bot
from laizi.engine import Action, seat_event, view
from laizi.engine.events import AddedKong, Discard
from laizi.server.protocol import stream_event
from laizi.server.room.base import VIEWERS, Clock, Hand, Prompt, Seat, Timer
from laizi.server.seats import safe_default
from laizi.server.table import TableSettings

__all__ = ["AHEAD_MS", "BOT_THREADS", "GUARD_MS", "ClaimHooks", "ClaimWindow"]

log = logging.getLogger("laizi.server")

AHEAD_MS = 10.0
"""How far into the pause the claims are decided (at most a quarter of it): the discard has left
by then, so no seat's thinking delays it either."""

GUARD_MS = 50.0
"""How long before the pause ends (at most a quarter of it) a claim still undecided is settled:
playing it takes the event loop a moment, which must not delay the pause's end."""

BOT_THREADS = 4
"""Worker threads shared by every room's bots for their claims."""

_pool: concurrent.futures.ThreadPoolExecutor | None = None


def _bot_pool() -> concurrent.futures.ThreadPoolExecutor:
    global _pool
    if _pool is None:
        _pool = concurrent.futures.ThreadPoolExecutor(BOT_THREADS, thread_name_prefix="laizi-bot")
    return _pool


@dataclass(frozen=True)
class ClaimHooks:
    """What the claim window asks of the rest of the room."""

    stream: Callable[[list[dict[str, Any]]], None]
    """Send events to their viewers now (``Streams.stream``)."""
    pending: Callable[[int], Prompt | None]
    """The seat's pending prompt (``Prompts.pending``)."""
    all_pending: Callable[[], list[Prompt]]
    """Every pending prompt, in the order they were asked."""
    play: Callable[[int, Action], None]
    """Play a seat's decision (``MatchFlow.play``)."""
    auto_move: Callable[[int, int], None]
    """Decide a bot's or 托管 seat's prompt now (``Prompts.auto_move``)."""
    after: Callable[[], None]
    """Play on (``MatchFlow.after``)."""
    take_note: Callable[[int, Bot], None]
    """A bot's decision is about to be played: keep its reason (``BotNotes.take``)."""


class ClaimWindow:
    """The pause after a discard at a table with people: the events it holds, who waits for its
    end, and the claims bots and 托管 seats decide during it."""

    def __init__(
        self,
        code: str,
        table: TableSettings,
        clock: Clock,
        hand: Hand,
        seats: list[Seat],
        hooks: ClaimHooks,
    ) -> None:
        self.code = code
        self.table = table
        self.clock = clock
        self.hand = hand
        self.seats = seats
        self.hooks = hooks
        self.gate: Timer | None = None
        """The pause's timer while it runs."""
        self.held: list[dict[str, Any]] = []
        self.after_gate: list[Callable[[], None]] = []
        self.thinking: dict[int, tuple[Prompt, concurrent.futures.Future[Action]]] = {}
        """Per seat: the claim its bot is deciding on a worker thread, during the pause."""
        self.end_waits = False
        """A hand that ends now, within the pause, ends when the pause does: it was ended by
        the pause's own discard (the wall ran out) or by a decision made during the pause."""

    # -- the pause ------------------------------------------------------------------------
    def pausing(self) -> bool:
        return self.gate is not None

    def when_open(self, fn: Callable[[], None]) -> None:
        """Run ``fn`` now, or when the pause ends (after what it held went out)."""
        if self.gate is not None:
            self.after_gate.append(fn)
        else:
            fn()

    def ends_with_pause(self) -> bool:
        """Whether the hand that just ended must wait for the pause's end (taken once)."""
        waits, self.end_waits = self.end_waits, False
        return waits and self.gate is not None

    def emit(self, events: list[dict[str, Any]]) -> None:
        """Send events — or, within the pause, hold them; a discard others might claim (at a
        table with people) starts the pause after it."""
        if self.gate is not None:
            self.hold(events)
            return
        cut = self._window_cut(events)
        if cut is None:
            self.hooks.stream(events)
            return
        self.hooks.stream(events[:cut])
        self.held = list(events[cut:])
        self.gate = self.clock.later(self.table.claim_window, self._open_gate)
        self.end_waits = True  # the wall ran out with the discard: the hand ends with the pause

    def hold(self, events: list[dict[str, Any]]) -> None:
        """Keep events for the end of the pause — but a seat's own claim or pass, which only
        that seat is shown, goes to it at once when nothing it may see is held before it."""
        for event in events:
            if event["type"] in ("claim", "pass"):
                viewers = [v for v in VIEWERS if seat_event(event, v) is not None]
                if not any(seat_event(h, v) is not None for h in self.held for v in viewers):
                    self.hooks.stream([event])
                    continue
            self.held.append(event)

    def _window_cut(self, events: list[dict[str, Any]]) -> int | None:
        """Where a claim window's pause starts in ``events`` (after a discard or an added kong
        others might claim), at a table with people; None: no pause."""
        if not self.clock.live or not any(s.kind == "human" for s in self.seats):
            return None
        for k, event in enumerate(stream_event(e) for e in events):
            if (isinstance(event, Discard) and not event.lay_out) or isinstance(event, AddedKong):
                return k + 1
        return None

    def release(self) -> None:
        """End the pause now: send what it held, run what waited for it."""
        if self.gate is not None:
            self.gate.cancel()
            self.gate = None
        held, self.held = self.held, []
        self.hooks.stream(held)
        waiting, self.after_gate = self.after_gate, []
        for fn in waiting:
            fn()

    def _open_gate(self) -> None:
        """The pause is over (as long after every discard, claimable or not): what it held goes
        out — bots and seats on auto-play decided their claims during it; one still pending is
        settled now — then play goes on."""
        self.gate = None
        self.release()
        for prompt in self.hooks.all_pending():
            s = self.seats[prompt.seat]
            if (s.kind == "bot" or s.auto) and self.hooks.pending(prompt.seat) is prompt:
                self._settle(prompt.seat, prompt)
        self.hooks.after()

    # -- the claims decided during it -----------------------------------------------------
    def decide_during_pause(self, prompt: Prompt) -> None:
        """A bot's or 托管 seat's claim prompt, made while the pause runs: decide it shortly
        after the pause began, and settle it at the latest a little before the pause ends (a
        pause of 0 ms: when it ends, as before)."""
        window = self.table.claim_window
        handle = self.gate.handle if self.gate is not None else None
        if window <= 0 or handle is None:
            return  # decided when the gate opens (_open_gate)
        prompt.handle = self.clock.later(min(AHEAD_MS, window / 4), self._decide_ahead, prompt)
        due = handle.when() - min(GUARD_MS, window / 4) / 1000
        self.clock.later(max(0.0, due - self.clock.now()) * 1000, self._due, prompt)

    def _due(self, prompt: Prompt) -> None:
        """Shortly before the pause ends: a claim still undecided is settled now, so that the
        pause's end has nothing left to play — only events to release."""
        if self.clock.live and self.gate is not None and self.hooks.pending(prompt.seat) is prompt:
            self._settle(prompt.seat, prompt)

    def _decide_ahead(self, prompt: Prompt) -> None:
        seat = prompt.seat
        state = self.hand.state
        if not self.clock.live or state is None or self.hooks.pending(seat) is not prompt:
            return
        s = self.seats[seat]
        bot = s.bot if s.kind == "bot" else None
        if bot is None:  # 托管: the safe default, at once
            self._play_ahead(seat, safe_default(view(state, seat), prompt.legal))
            return
        seat_view, legal = view(state, seat), list(prompt.legal)
        self.when_free(seat, lambda: self._think(prompt, bot, seat_view, legal))

    def _think(
        self, prompt: Prompt, bot: Bot, seat_view: dict[str, Any], legal: Sequence[Action]
    ) -> None:
        if not self.clock.live or self.hooks.pending(prompt.seat) is not prompt:
            return
        future = _bot_pool().submit(bot.act, seat_view, legal)
        self.thinking[prompt.seat] = (prompt, future)
        loop = self.clock.loop

        def done(_: concurrent.futures.Future[Action]) -> None:
            loop.call_soon_threadsafe(self._thought, prompt, future)

        future.add_done_callback(done)

    def _thought(self, prompt: Prompt, future: concurrent.futures.Future[Action]) -> None:
        """A bot's claim is decided: played now if its prompt is still pending (its events are
        held until the pause ends); a decision the pause's end settled already is dropped."""
        seat = prompt.seat
        if self.thinking.get(seat, (None, None))[1] is future:
            del self.thinking[seat]
        state = self.hand.state
        if not self.clock.live or self.hooks.pending(seat) is not prompt or state is None:
            return
        bot = self.seats[seat].bot
        try:
            action = future.result()
        except Exception:  # a bot's bug must not stop the table: 托管 plays its decision
            log.exception("room %s: the bot at seat %s failed", self.code, seat)
            action = safe_default(view(state, seat), prompt.legal)
        if action not in prompt.legal:
            log.error("room %s: the bot at seat %s chose %s", self.code, seat, action.notation())
            action = safe_default(view(state, seat), prompt.legal)
        elif bot is not None:
            self.hooks.take_note(seat, bot)  # explain_bots (laizi.server.bot_notes)
        self._play_ahead(seat, action)

    def _play_ahead(self, seat: int, action: Action) -> None:
        """Play a decision made during the pause: its events — even a hand it ends — wait for
        the pause's end like everything else."""
        self.end_waits = True
        try:
            self.hooks.play(seat, action)
        finally:
            self.end_waits = False

    def bot_busy(self, seat: int) -> concurrent.futures.Future[Action] | None:
        """The search the seat's bot is still running (a claim the pause's end settled without
        it), or None."""
        _, future = self.thinking.get(seat, (None, None))
        return None if future is None or future.done() else future

    def when_free(self, seat: int, fn: Callable[[], None]) -> None:
        """Run ``fn`` now, or once the seat's bot has finished a search still running: a bot
        is never asked two things at once."""
        future = self.bot_busy(seat)
        if future is None:
            fn()
            return
        loop = self.clock.loop

        def run() -> None:
            if self.clock.live:
                fn()

        def free(_: concurrent.futures.Future[Action]) -> None:
            loop.call_soon_threadsafe(run)

        future.add_done_callback(free)

    def _settle(self, seat: int, prompt: Prompt) -> None:
        """A bot's or 托管 seat's claim is still pending as the pause ends: decide it now —
        with no pause to decide in (0 ms), as before; a bot still thinking passes (the safe
        default), as a person whose clock ran out."""
        state = self.hand.state
        if state is None:
            return
        if prompt.handle is not None:
            prompt.handle.cancel()
            prompt.handle = None
        thought, future = self.thinking.get(seat, (None, None))
        if thought is prompt and future is not None and future.done():
            self._thought(prompt, future)  # decided, its answer not yet taken: take it now
            return
        if self.seats[seat].kind == "bot" and self.bot_busy(seat) is not None:
            log.warning(
                "room %s: the bot at seat %s was still deciding when the pause ended: it passes",
                self.code,
                seat,
            )
            self._play_ahead(seat, safe_default(view(state, seat), prompt.legal))
            return
        self.end_waits = True
        try:
            self.hooks.auto_move(seat, prompt.id)
        finally:
            self.end_waits = False
