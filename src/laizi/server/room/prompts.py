"""Prompts, their timers and the time bank; 托管 (auto-play) and timeouts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from laizi.bots import Bot
from laizi.engine import Action, ActionError, legal_actions, view
from laizi.engine.state import FINAL, TURN
from laizi.server.protocol import Act, ProtocolError
from laizi.server.room.base import Clock, Conn, Hand, Prompt
from laizi.server.room.claims import ClaimWindow
from laizi.server.room.seating import Seating
from laizi.server.seats import safe_default
from laizi.server.table import TableSettings


@dataclass(frozen=True)
class PromptHooks:
    """What the prompts ask of the rest of the room."""

    play: Callable[[int, Action], None]
    """Play a seat's decision (``MatchFlow.play``)."""
    leave: Callable[[Conn], None]
    """The player abandons: it leaves (``Seating.leave``)."""
    seq: Callable[[int], int]
    """How many events the seat has been shown (``Streams``): a prompt's id."""
    update_hints: Callable[[], None]
    take_note: Callable[[int, Bot], None]
    """A bot's decision is about to be played: keep its reason (``BotNotes.take``)."""


class Prompts:
    """Who is asked to decide, their clock and time bank, 托管 (auto-play) and timeouts."""

    def __init__(
        self,
        table: TableSettings,
        clock: Clock,
        hand: Hand,
        seating: Seating,
        window: ClaimWindow,
        post: Callable[[Conn, dict[str, Any]], None],
        hooks: PromptHooks,
    ) -> None:
        self.table = table
        self.clock = clock
        self.hand = hand
        self.seating = seating
        self.seats = seating.seats
        self.window = window
        self.post = post
        self.hooks = hooks
        self.prompts: dict[int, Prompt] = {}
        """Per seat: the decision it is asked for."""

    def pending(self, seat: int) -> Prompt | None:
        return self.prompts.get(seat)

    def all_pending(self) -> list[Prompt]:
        return list(self.prompts.values())

    def asked(self, seat: int) -> bool:
        return seat in self.prompts

    def take(self, seat: int) -> Prompt | None:
        """The seat decided: its prompt is no longer pending (its clock stops)."""
        prompt = self.prompts.pop(seat, None)
        if prompt is not None and prompt.handle is not None:
            prompt.handle.cancel()
        return prompt

    def clear(self) -> None:
        """The hand is over: nobody is asked anything."""
        for prompt in self.prompts.values():
            if prompt.handle is not None:
                prompt.handle.cancel()
        self.prompts.clear()

    def resend(self, seat: int) -> None:
        """A connection of the seat (re)joined: its pending prompt again."""
        prompt = self.prompts.get(seat)
        if prompt is not None:
            self._send_prompt(prompt)

    def switch(self, seat: int, on: bool) -> None:
        """托管 on or off, shown to everyone; the prompts are asked again."""
        self._set_auto(seat, on, shown=True)
        self.refresh()

    def act(self, conn: Conn, msg: Act) -> None:
        seat = conn.seat
        if seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators can't act")
        if msg.action.type == "abandon":
            self.hooks.leave(conn)
            return
        fields: dict[str, Any] = {"seat": seat, "type": msg.action.type}
        if msg.action.tile is not None:
            fields["tile"] = msg.action.tile
        if msg.action.tiles is not None:
            fields["tiles"] = msg.action.tiles
        try:
            action = Action.from_json(fields)
        except ActionError as error:
            raise ProtocolError("bad_action", str(error)) from None
        prompt = self.prompts.get(seat)
        if prompt is None:
            raise ProtocolError("not_your_turn", "there is no decision pending for your seat")
        if prompt.id != msg.prompt:
            raise ProtocolError(
                "stale_prompt", f"prompt {msg.prompt} is not the pending one ({prompt.id})"
            )
        if action not in prompt.legal:
            legal = ", ".join(a.notation() for a in prompt.legal)
            raise ProtocolError("illegal", f"{action.notation()} is not legal now; legal: {legal}")
        s = self.seats[seat]
        used = self.clock.now() - prompt.started
        over = used - self.table.action_seconds
        if over > 0 and s.bank > 0:
            s.bank = max(0.0, s.bank - over)
            self.seating.save_seat(seat)
        self.hooks.play(seat, action)

    def set_auto(self, conn: Conn, on: bool) -> None:
        if conn.seat is None or conn.spectator:
            raise ProtocolError("not_seated", "spectators have no seat to put on auto-play")
        seat = conn.seat
        self.seats[seat].away_auto = False  # the player's own choice from now on
        if not on:
            self._decide_if_spent(seat)
        self.switch(seat, on)

    def _decide_if_spent(self, seat: int) -> None:
        """The player takes the seat back from 托管: a pending decision whose time — counted
        from when it was asked, with the bank — is already spent gets the safe default now, as
        a time-out would, but 托管 stays off: the player's next decision is theirs.  (Time
        spent never comes back; nor does it put the seat straight back on 托管.)"""
        prompt = self.prompts.get(seat)
        state = self.hand.state
        if prompt is None or state is None:
            return
        s = self.seats[seat]
        if self.clock.now() < prompt.started + self.table.action_seconds + s.bank:
            return
        s.bank = 0.0
        self.hooks.play(seat, safe_default(view(state, seat), prompt.legal))

    def _set_auto(self, seat: int, on: bool, shown: bool = True) -> None:
        s = self.seats[seat]
        changed = s.auto != on
        s.auto = on
        if shown and s.auto_shown != on:
            s.auto_shown = on
            self.seating.broadcast_info()
        self.seating.save_seat(seat)
        for conn in s.conns:  # before the prompt a taken-back decision sends again
            self.post(conn, {"type": "auto", "on": on})
        prompt = self.prompts.get(seat)
        if changed and prompt is not None:
            # The pending decision passes between the player and the auto-player; its clock
            # runs on from when it was asked (never a fresh prompt, never a fresh clock).
            self._schedule(prompt)

    def refresh(self) -> None:
        """Ask whoever decides now (and stop asking who no longer does)."""
        state = self.hand.state
        if state is None or state.over or not self.clock.live:
            return
        deciding = state.to_act()
        for seat in list(self.prompts):
            if seat not in deciding:
                prompt = self.prompts.pop(seat)
                if prompt.handle is not None:
                    prompt.handle.cancel()
        for seat in deciding:
            if seat in self.prompts:
                continue
            if self.window.pausing() and state.phase in (TURN, FINAL):
                continue  # the next turn is asked when the claim window's pause ends
            s = self.seats[seat]
            legal = legal_actions(state, seat)
            # The id is how many events this seat has been shown: it depends on nothing the
            # seat may not see (a count of every seat's events told who could claim).
            prompt = Prompt(self.hooks.seq(seat), seat, legal, self.clock.now())
            self.prompts[seat] = prompt
            if s.auto and state.phase in (TURN, FINAL) and not s.auto_shown:
                s.auto_shown = True
                self.seating.save_seat(seat)
                self.seating.broadcast_info()
            self._schedule(prompt)
            if s.kind == "human" and state.phase in (TURN, FINAL):
                self._tell_clock(seat, s.bank)
        self.hooks.update_hints()

    def _tell_clock(self, seat: int, bank: float) -> None:
        """A person's turn began: everyone else (spectators too) sees its clock.  Never in a
        claim window: who may claim is private."""
        message = {
            "type": "clock",
            "seat": seat,
            "seconds": self.table.action_seconds,
            "bank": round(bank, 3),
            "elapsed": 0,
        }
        for conn, viewer in self.seating.conns():
            if viewer != seat:
                self.post(conn, message)

    def _schedule(self, prompt: Prompt) -> None:
        """Run a prompt's clock: the auto-player's delay, or the player's time — counted from
        when the prompt was made, so asking again never gives more time."""
        if prompt.handle is not None:
            prompt.handle.cancel()
            prompt.handle = None
        seat = prompt.seat
        s = self.seats[seat]
        if s.kind == "bot" or s.auto:
            if not self.window.pausing():
                prompt.handle = self.clock.later(
                    self.table.bot_delay_ms, self.auto_move, seat, prompt.id
                )
            else:  # a claim: decided while the claim window's pause runs (room/claims.py)
                self.window.decide_during_pause(prompt)
            return
        deadline = prompt.started + self.table.action_seconds + s.bank
        left = max(0.0, deadline - self.clock.now())
        prompt.handle = self.clock.later(left * 1000, self._timeout, seat, prompt.id)
        self._send_prompt(prompt)

    def _send_prompt(self, prompt: Prompt) -> None:
        s = self.seats[prompt.seat]
        if s.auto or s.kind != "human":
            return
        state = self.hand.state
        message = {
            "type": "prompt",
            "id": prompt.id,
            "phase": None if state is None else state.phase,
            "legal": [_action_json(a) for a in prompt.legal],
            "seconds": self.table.action_seconds,
            "bank": round(s.bank, 3),
            "elapsed": round(self.clock.now() - prompt.started, 3),
        }
        for conn in s.conns:
            self.post(conn, message)

    def auto_move(self, seat: int, pid: int) -> None:
        """A bot's or 托管 seat's decision, now."""
        prompt = self.prompts.get(seat)
        state = self.hand.state
        if prompt is None or prompt.id != pid or state is None:
            return
        s = self.seats[seat]
        if s.kind == "bot" and self.window.bot_busy(seat) is not None:
            # still on a claim the pause's end settled without it: one decision at a time
            self.window.when_free(seat, lambda: self.auto_move(seat, pid))
            return
        seat_view = view(state, seat)
        if s.kind == "bot" and s.bot is not None:
            action = s.bot.act(seat_view, prompt.legal)
            self.hooks.take_note(seat, s.bot)  # explain_bots (laizi.server.bot_notes)
        else:
            action = safe_default(seat_view, prompt.legal)
        self.hooks.play(seat, action)

    def _timeout(self, seat: int, pid: int) -> None:
        prompt = self.prompts.get(seat)
        state = self.hand.state
        if prompt is None or prompt.id != pid or state is None:
            return
        s = self.seats[seat]
        s.bank = 0.0
        on_turn = state.phase in (TURN, FINAL)
        self._set_auto(seat, True, shown=on_turn)
        action = safe_default(view(state, seat), prompt.legal)
        self.hooks.play(seat, action)


def _action_json(action: Action) -> dict[str, Any]:
    """An action as a prompt offers it: the engine's JSON without the seat."""
    out = action.to_json()
    del out["seat"]
    return out
