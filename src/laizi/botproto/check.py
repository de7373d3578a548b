"""``laizi bot-check cmd:COMMAND``: the conformance suite of the bot protocol.

Each case is judged on its own (a bot that died in one case is started again for the next):

* ``handshake`` — the bot answers ``hello`` with ``version`` 1 in time;
* ``random:<preset>`` — whole hands of each game against built-in bots, the bot in a different
  seat each hand: every prompt answered in time with a legal action;
* ``scripted:<situation>`` — fixed positions from replay scripts (a pung or chow to claim, a kong
  to rob, a must-gang tile to lay out, a win after a kong, 报听, a self-drawn win): the bot gets
  the seat's events up to there and must answer the prompt legally;
* ``unknown_messages`` — a message type and fields it has never seen must be ignored;
* ``notice`` — after being told that 托管 played one of its decisions it goes on;
* ``tight_deadline`` — a prompt whose ``seconds`` is 1 is answered within it;
* ``bye`` — it exits by itself after ``bye`` (and its input closing).

A case fails on any incident: a timeout, a line that is not JSON, a malformed or illegal answer,
a line that is too long, the process exiting.  The report says which and why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from importlib import resources
from typing import Any

from laizi.botproto.protocol import VERSION
from laizi.botproto.session import BotSession, Incident
from laizi.bots.base import Bot, make_bot
from laizi.engine import Action, legal_actions, make_ruleset, seat_event, view
from laizi.engine.events import encode_all
from laizi.engine.script import run_script
from laizi.sim.hand import derive_seed, play_hand, wall_seed

__all__ = ["RANDOM_PRESETS", "run_check"]

RANDOM_PRESETS = ("wuhan-hongzhong-kaikou", "wuhan-qipi-koukou", "baishan")
"""The rules of the random hands: both games, both Wuhan modes, two special-tile variants."""
OPPONENTS = ("greedy", "random", "greedy")


def _situations() -> dict[str, Any]:
    text = resources.files("laizi.botproto").joinpath("situations.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


class _Seat(Bot):
    """The bot under test in one seat of one hand, through its session."""

    def __init__(self, session: BotSession, rules: Any, seed: int) -> None:
        super().__init__(rules, seed)
        self.session = session
        self.begun = False

    def observe(self, seat: int, events: Sequence[dict[str, Any]]) -> None:
        if not self.begun:
            self.begun = True
            self.session.begin_hand(seat, self.seed, self.rules.game)
        self.session.send_events(events)

    def act(self, view: dict[str, Any], legal: Sequence[Action]) -> Action:
        return self.session.ask(view, legal)


class _Suite:
    def __init__(self, command: str, timeout: float, hands: int, seed: int) -> None:
        self.command = command
        self.timeout = timeout
        self.hands = hands
        self.seed = seed
        self.session: BotSession | None = None
        self.cases: list[dict[str, Any]] = []
        self.name = ""
        self.shook_hands = False

    def fresh(self) -> BotSession:
        """The session for the next case: the running one, or a new one if it failed."""
        if self.session is None or (not self.session.alive and self.shook_hands):
            # a bot that failed in one case starts again for the next; one that never managed
            # its handshake is not waited for again (each case then fails at once)
            if self.session is not None:
                self.session.close()
            self.session = BotSession(self.command, timeout=self.timeout)
            self.session.start()
            self.shook_hands = self.shook_hands or self.session.gone is None
            self.name = self.name or self.session.name
        return self.session

    def case(self, name: str, about: str, body: Callable[[BotSession], str]) -> None:
        session = self.fresh()
        before = len(session.incidents)
        decisions_before = session.decisions
        started = time.monotonic()
        slowest_before = session.slowest_ms
        session.slowest_ms = 0.0
        try:
            detail = body(session)
        except Exception as error:  # a bug in a case must not hide the others
            detail = f"the suite could not run this case: {type(error).__name__}: {error}"
            session.incidents.append(Incident("suite_error", None, detail, None, 0.0))
        incidents = session.incidents[before:]
        self.cases.append(
            {
                "name": name,
                "about": about,
                "passed": not incidents and not detail.startswith("FAIL"),
                "detail": incidents[0].detail or incidents[0].code if incidents else detail,
                "problems": [i.code for i in incidents][:20],
                "decisions": session.decisions - decisions_before,
                "slowest_ms": round(session.slowest_ms, 1),
                "seconds": round(time.monotonic() - started, 3),
            }
        )
        session.slowest_ms = max(slowest_before, session.slowest_ms)

    def close(self) -> None:
        if self.session is not None:
            self.session.close()


def _handshake(session: BotSession) -> str:
    if session.gone is not None:
        return f"FAIL: {session.incidents[-1].detail if session.incidents else session.gone}"
    return f"hello from {session.name or '(no name)'}, version {VERSION}"


def _random_hands(preset: str, hands: int, seed: int) -> Callable[[BotSession], str]:
    def body(session: BotSession) -> str:
        ruleset = make_ruleset(preset)
        settings = ruleset.settings
        for index in range(hands):
            seat = (3 * index + 1) % 4  # 1, 0, 3, 2, …: every seat, dealer or not
            bots: list[Bot] = []
            for s in range(4):
                bot_seed = derive_seed(seed, index, s)
                if s == seat:
                    bots.append(_Seat(session, settings, bot_seed))
                else:
                    bots.append(make_bot(OPPONENTS[(s - seat) % 4 - 1], settings, bot_seed))
            play_hand(ruleset, bots, index % 4, wall_seed(seed, index))
            if not session.alive:
                break
        seats = sorted({(3 * i + 1) % 4 for i in range(hands)})
        return f"{hands} hands, the bot in seats {seats}"

    return body


def _scripted(situation: dict[str, Any], script: dict[str, Any]) -> Callable[[BotSession], str]:
    def body(session: BotSession) -> str:
        result = run_script(script, stop_after=situation["after"])
        state, seat = result.state, situation["seat"]
        if seat not in state.to_act():
            return f"FAIL: the suite's situation is wrong: seat {seat} is not to act"
        session.begin_hand(seat, 1, state.ruleset.game)
        shown = [e for e in (seat_event(x, seat) for x in result.events) if e is not None]
        session.send_events(shown)
        legal = legal_actions(state, seat)
        action = session.ask(view(state, seat), legal)
        offered = ", ".join(sorted({a.type for a in legal}))
        return f"offered {offered}; answered {action.notation()}"

    return body


def _one_prompt(session: BotSession, before: Sequence[dict[str, Any]]) -> Action:
    """A fresh hand of the first random preset, ``before`` sent ahead of its first prompt."""
    from laizi.engine import new_hand

    state, events = new_hand(make_ruleset(RANDOM_PRESETS[0]), 0, seed=bytes(32))
    session.begin_hand(0, 7, state.ruleset.game)
    session.send_events(
        [e for e in (seat_event(x, 0) for x in encode_all(events)) if e is not None]
    )
    session.send_events(before)
    return session.ask(view(state, 0), legal_actions(state, 0))


def _unknown(session: BotSession) -> str:
    action = _one_prompt(
        session,
        [
            {"type": "x-future-message", "data": {"nested": [1, 2, 3]}},
            {"type": "draw", "seat": 1, "from": "front", "x-new-field": True},
        ],
    )
    return f"ignored both; answered {action.notation()}"


def _notice(session: BotSession) -> str:
    told = {
        "type": "notice",
        "code": "timeout",
        "prompt": 0,
        "message": "no answer in time: 托管 played this decision",
        "message_zh": "没有在时限内回答，已托管这一步",
        "played": {"type": "pass"},
    }
    action = _one_prompt(session, [told])
    return f"went on; answered {action.notation()}"


def _tight(session: BotSession) -> str:
    """A prompt that allows one second (or the suite's time, if shorter)."""
    from laizi.engine import new_hand

    seconds = min(1.0, session.timeout)
    state, events = new_hand(make_ruleset("baishan"), 1, seed=bytes(range(32)))
    session.begin_hand(1, 9, state.ruleset.game)
    session.send_events(
        [e for e in (seat_event(x, 1) for x in encode_all(events)) if e is not None]
    )
    action = session.ask(view(state, 1), legal_actions(state, 1), seconds=seconds)
    return f"answered {action.notation()} within {seconds:g} s"


def _bye(session: BotSession) -> str:
    process = session.process
    if process is None or not session.alive:
        return "FAIL: the bot is not running"
    process.send({"type": "bye"})
    process.writes.put_nowait(None)  # and its input ends
    if process.exited_by_itself(within=3.0):
        return "exited by itself"
    process.stop("stopped")
    return "FAIL: still running 3 s after bye"


def run_check(
    command: str,
    *,
    timeout: float = 5.0,
    hands: int = 4,
    seed: int = 2026,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run the suite on ``cmd:COMMAND`` (``command`` without the prefix); the report."""
    suite = _Suite(command, timeout, hands, seed)
    data = _situations()
    plan: list[tuple[str, str, Callable[[BotSession], str]]] = [
        ("handshake", "answers hello with version 1", _handshake),
    ]
    for preset in RANDOM_PRESETS:
        about = f"{hands} whole hands of {preset} against built-in bots"
        plan.append((f"random:{preset}", about, _random_hands(preset, hands, seed)))
    for situation in data["situations"]:
        script = data["scripts"][situation["script"]]
        plan.append(
            (f"scripted:{situation['name']}", situation["about"], _scripted(situation, script))
        )
    plan += [
        ("unknown_messages", "ignores a message type and a field it does not know", _unknown),
        ("notice", "goes on after a notice that 托管 played for it", _notice),
        ("tight_deadline", "answers a prompt that allows one second in time", _tight),
        ("bye", "exits by itself after bye", _bye),
    ]
    started = time.monotonic()
    try:
        for name, about, body in plan:
            if progress is not None:
                progress(name)
            suite.case(name, about, body)
    finally:
        suite.close()
    passed = sum(case["passed"] for case in suite.cases)
    return {
        "bot": f"cmd:{command}",
        "name": suite.name,
        "protocol": VERSION,
        "timeout": timeout,
        "passed": passed,
        "failed": len(suite.cases) - passed,
        "ok": passed == len(suite.cases),
        "seconds": round(time.monotonic() - started, 3),
        "cases": suite.cases,
    }
