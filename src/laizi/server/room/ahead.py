"""Claims decided ahead: bots and seats on 托管 decide a claim while the claim window's pause runs.

At a table with people every discard (and added kong) is followed by the same pause, whether
anybody may claim it or not (``room/streams.py``).  The seats the server plays decide their claims
as soon as the pause starts — a built-in bot thinks on a worker thread, off the event loop; a seat
on 托管 plays the safe default — and their decisions are played at once: the events they make are
held with everything else, so the pause's end only releases what it held.  Neither whether a bot
(or a 托管 seat) could claim, nor how long a bot thinks, moves the next event.

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
from typing import Any

from laizi.bots import Bot
from laizi.engine import Action, view
from laizi.server.bot_notes import take_note
from laizi.server.room.base import Prompt, RoomBase
from laizi.server.seats import safe_default

__all__ = ["AHEAD_MS", "BOT_THREADS", "GUARD_MS", "Ahead"]

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


class Ahead(RoomBase):
    """The claims of bots and 托管 seats, decided while the claim window's pause runs."""

    def _decide_during_pause(self, prompt: Prompt) -> None:
        """A bot's or 托管 seat's claim prompt, made while the pause runs: decide it shortly
        after the pause began, and settle it at the latest a little before the pause ends (a
        pause of 0 ms: when it ends, as before)."""
        window = self.table.claim_window
        ends = getattr(self.gate.handle, "when", None) if self.gate is not None else None
        if window <= 0 or ends is None:
            return  # decided when the gate opens (_open_gate)
        prompt.handle = self._later(min(AHEAD_MS, window / 4), self._decide_ahead, prompt)
        due = ends() - min(GUARD_MS, window / 4) / 1000
        self._later(max(0.0, due - self.loop.time()) * 1000, self._due, prompt)

    def _due(self, prompt: Prompt) -> None:
        """Shortly before the pause ends: a claim still undecided is settled now, so that the
        pause's end has nothing left to play — only events to release."""
        if self.live and self.gate is not None and self.prompts.get(prompt.seat) is prompt:
            self._settle(prompt.seat, prompt)

    def _decide_ahead(self, prompt: Prompt) -> None:
        seat = prompt.seat
        state = self.state
        if not self.live or state is None or self.prompts.get(seat) is not prompt:
            return
        s = self.seats[seat]
        bot = s.bot if s.kind == "bot" else None
        if bot is None:  # 托管: the safe default, at once
            self._play_ahead(seat, safe_default(view(state, seat), prompt.legal))
            return
        seat_view, legal = view(state, seat), list(prompt.legal)
        self._when_free(seat, lambda: self._think(prompt, bot, seat_view, legal))

    def _think(
        self, prompt: Prompt, bot: Bot, seat_view: dict[str, Any], legal: Sequence[Action]
    ) -> None:
        if not self.live or self.prompts.get(prompt.seat) is not prompt:
            return
        future = _bot_pool().submit(bot.act, seat_view, legal)
        self.thinking[prompt.seat] = (prompt, future)
        loop = self.loop

        def done(_: concurrent.futures.Future[Action]) -> None:
            loop.call_soon_threadsafe(self._thought, prompt, future)

        future.add_done_callback(done)

    def _thought(self, prompt: Prompt, future: concurrent.futures.Future[Action]) -> None:
        """A bot's claim is decided: played now if its prompt is still pending (its events are
        held until the pause ends); a decision the pause's end settled already is dropped."""
        seat = prompt.seat
        if self.thinking.get(seat, (None, None))[1] is future:
            del self.thinking[seat]
        state = self.state
        if not self.live or self.prompts.get(seat) is not prompt or state is None:
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
            take_note(self, seat, bot)  # explain_bots (laizi.server.bot_notes)
        self._play_ahead(seat, action)

    def _play_ahead(self, seat: int, action: Action) -> None:
        """Play a decision made during the pause: its events — even a hand it ends — wait for
        the pause's end like everything else."""
        self.end_waits = True
        try:
            self._play(seat, action)
        finally:
            self.end_waits = False

    def _bot_busy(self, seat: int) -> concurrent.futures.Future[Action] | None:
        """The search the seat's bot is still running (a claim the pause's end settled without
        it), or None."""
        _, future = self.thinking.get(seat, (None, None))
        return None if future is None or future.done() else future

    def _when_free(self, seat: int, fn: Callable[[], None]) -> None:
        """Run ``fn`` now, or once the seat's bot has finished a search still running: a bot
        is never asked two things at once."""
        future = self._bot_busy(seat)
        if future is None:
            fn()
            return
        loop = self.loop

        def run() -> None:
            if self.live:
                fn()

        def free(_: concurrent.futures.Future[Action]) -> None:
            loop.call_soon_threadsafe(run)

        future.add_done_callback(free)

    def _settle(self, seat: int, prompt: Prompt) -> None:
        """A bot's or 托管 seat's claim is still pending as the pause ends: decide it now —
        with no pause to decide in (0 ms), as before; a bot still thinking passes (the safe
        default), as a person whose clock ran out."""
        state = self.state
        if state is None:
            return
        if prompt.handle is not None:
            prompt.handle.cancel()
            prompt.handle = None
        thought, future = self.thinking.get(seat, (None, None))
        if thought is prompt and future is not None and future.done():
            self._thought(prompt, future)  # decided, its answer not yet taken: take it now
            return
        if self.seats[seat].kind == "bot" and self._bot_busy(seat) is not None:
            log.warning(
                "room %s: the bot at seat %s was still deciding when the pause ended: it passes",
                self.code,
                seat,
            )
            self._play_ahead(seat, safe_default(view(state, seat), prompt.legal))
            return
        self.end_waits = True
        try:
            self._auto_move(seat, prompt.id)
        finally:
            self.end_waits = False
