"""Quick chat (快捷语, issue 27 item 1) against a real ``laizi serve``: a seated person's phrase
reaches everyone at the table (seats and spectators) as ``chat {seat, phrase}``; what is refused —
a malformed, huge or nested message, an unknown phrase, a spectator, a person at no table, a
flood from one connection or from two tabs of one seat — reaches nobody else, and the connection
stays usable."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from laizi.server.chat import PHRASES, ChatWindow, chat_words
from laizi.server.errors import CATALOGUE
from laizi.server.limits import ServerLimits
from laizi.server.protocol import ProtocolError, decode_client
from tests.server_helpers import Client, ServerProcess

WAITING = {"players": 2, "hands": 1, "bot_delay_ms": 0, "action_seconds": 600}
"""A table for two people (bots take the other seats once both sit): it waits for the second."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    with ServerProcess(tmp_path_factory.mktemp("chat") / "db.sqlite3") as srv:
        yield srv


def run(coro: Any) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 60))


async def seated(server: ServerProcess, code: str, **join: Any) -> Client:
    client = await Client.connect(server.ws)
    await client.expect("welcome")
    await client.join(code, **join)
    return client


async def quiet(client: Client) -> list[dict[str, Any]]:
    """``client``'s ``chat`` messages once the server answered a ``ping`` after them (whatever was
    sent to it before is in by then: the server keeps each connection's order)."""
    await client.send({"type": "ping"})
    await client.expect("pong")
    return [m for m in client.messages if m["type"] == "chat"]


async def error_of(client: Client, message: dict[str, Any] | str) -> dict[str, Any]:
    await client.send(message)
    return await client.expect("error")


# -- the list and the window, without a server -------------------------------------------------
def test_every_phrase_has_both_languages_and_a_plain_id() -> None:
    words = chat_words()["phrases"]
    assert [w["id"] for w in words] == [p.id for p in PHRASES]
    assert len({w["id"] for w in words}) == len(words)
    kinds = [w["kind"] for w in words]
    assert kinds.count("phrase") >= 8 and kinds.count("emote") >= 4
    assert kinds == sorted(kinds, key=lambda k: k == "emote")  # phrases first, then emotes
    for w in words:
        assert w["zh"] and w["en"] and w["zh"] != w["en"], w
        assert decode_client(json.dumps({"type": "chat", "phrase": w["id"]})).phrase == w["id"]
        assert (w["kind"] == "emote") == bool(w.get("face"))


def test_the_window_lets_a_seat_say_n_within_the_seconds_and_slides() -> None:
    window = ChatWindow(phrases=3, seconds=10.0)
    assert [window.take(t) for t in (0.0, 0.1, 0.2)] == [None, None, None]
    assert window.take(0.3) == pytest.approx(9.7)  # the first one said leaves the window at 10
    assert window.take(9.9) == pytest.approx(0.1)  # a refused one does not count
    assert window.take(10.0) is None  # the first left: one more
    assert window.take(10.05) == pytest.approx(0.05)
    assert [window.take(t) for t in (20.3, 20.3, 20.3, 20.3)] == [None, None, None, 10.0]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ('{"type": "chat"}', "bad_message"),
        ('{"type": "chat", "phrase": 7}', "bad_message"),
        ('{"type": "chat", "phrase": null}', "bad_message"),
        ('{"type": "chat", "phrase": "hello", "text": "free text"}', "bad_message"),
        ('{"type": "chat", "phrase": "Hello!"}', "bad_message"),
        ('{"type": "chat", "phrase": "' + "a" * 33 + '"}', "bad_message"),
        ('{"type": "chat", "phrase": ' + "[" * 1500 + "]" * 1500 + "}", "bad_message"),
        ('{"type": "chat", "phrase": {"id": {"id": {"id": "hello"}}}}', "bad_message"),
        ('{"type": "chat", "phrase": "' + "a" * 5000 + '"}', "too_large"),
    ],
)
def test_a_malformed_chat_is_refused_by_the_decoder(text: str, code: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        decode_client(text)
    assert refused.value.code == code


def test_the_chat_limits_have_defaults_and_refuse_nonsense() -> None:
    limits = ServerLimits()
    assert (limits.chat_phrases, limits.chat_seconds) == (3, 10.0)
    for bad in ({"chat_seconds": 0}, {"chat_seconds": 4000}, {"chat_phrases": -1}):
        with pytest.raises(ValueError, match="chat_"):
            ServerLimits(**bad)  # type: ignore[arg-type]
    for code in ("bad_phrase", "chat_too_fast", "chat_off"):
        assert CATALOGUE[code][0] and CATALOGUE[code][1]


# -- a real server -------------------------------------------------------------------------------
def test_the_schema_gives_the_client_the_phrases(server: ServerProcess) -> None:
    status, body = server.get("/api/settings/schema")
    assert status == 200
    assert json.loads(body)["chat"] == chat_words()


def test_a_phrase_reaches_every_seat_and_spectator_and_nothing_else(
    server: ServerProcess,
) -> None:
    code = server.create_room(**WAITING)["code"]

    async def main() -> None:
        ann = await seated(server, code, name="Ann")
        watcher = await seated(server, code, spectate=True)
        await ann.send({"type": "chat", "phrase": "hello"})
        bob = await seated(server, code, name="Bob")  # the match starts: bots sit down
        await bob.send({"type": "chat", "phrase": "smile"})
        for client in (ann, bob, watcher):
            said = await quiet(client)
            expected = [{"type": "chat", "seat": 1, "phrase": "smile"}]
            if client is not bob:  # Bob came after Ann's phrase: a phrase is not kept
                expected.insert(0, {"type": "chat", "seat": 0, "phrase": "hello"})
            assert said == expected
        # The spectator may read, never say; nor may a connection at no table.
        refused = await error_of(watcher, {"type": "chat", "phrase": "hello"})
        assert refused["code"] == "not_seated" and refused["message_zh"]
        nobody = await Client.connect(server.ws)
        await nobody.expect("welcome")
        assert (await error_of(nobody, {"type": "chat", "phrase": "hello"}))["code"] == (
            "not_joined"
        )
        for client in (ann, bob, watcher):
            assert len(await quiet(client)) == 2 - (client is bob)
        for client in (ann, bob, watcher, nobody):
            await client.close()

    run(main())


def test_an_attacker_gets_errors_that_reach_nobody_and_keeps_a_usable_connection(
    server: ServerProcess,
) -> None:
    code = server.create_room(**WAITING)["code"]
    attacks: list[tuple[str, str]] = [
        ('{"type": "chat", "phrase": "free text here"}', "bad_message"),
        ('{"type": "chat", "phrase": "hello", "seat": 2}', "bad_message"),
        ('{"type": "chat", "phrase": ["hello"]}', "bad_message"),
        ('{"type": "chat", "phrase": ' + "[" * 1900 + "]" * 1900 + "}", "bad_message"),
        ('{"type": "chat", "phrase": "' + "z" * 5000 + '"}', "too_large"),
        ('{"type": "chat", "phrase": "no_such_phrase"}', "bad_phrase"),
    ]

    async def main() -> None:
        mallory = await seated(server, code, name="Mallory")
        ann = await seated(server, code, name="Ann")
        for text, want in attacks:
            error = await error_of(mallory, text)
            assert error["code"] == want, (text[:50], error)
            assert error["message"] and error["message_zh"]
            if want == "bad_phrase":
                assert error["params"] == {"phrase": "no_such_phrase"}
        assert await quiet(ann) == []
        # The connection is still good for a real phrase, and the attacks cost no phrase.
        await mallory.send({"type": "chat", "phrase": "lucky"})
        assert await quiet(ann) == [{"type": "chat", "seat": 0, "phrase": "lucky"}]
        for client in (mallory, ann):
            await client.close()

    run(main())


def test_a_flood_from_one_seat_is_cut_at_the_limit_even_from_two_tabs(
    server: ServerProcess,
) -> None:
    code = server.create_room(**WAITING)["code"]

    async def main() -> None:
        ann = await seated(server, code, name="Ann")
        bob = await seated(server, code, name="Bob")
        assert ann.token is not None
        # A flood from one connection: 3 phrases within 10 s, the rest refused.
        for _ in range(12):
            await ann.send({"type": "chat", "phrase": "hurry"})
        await quiet(ann)
        errors = [m for m in ann.messages if m["type"] == "error"]
        assert len(errors) == 9 and {e["code"] for e in errors} == {"chat_too_fast"}
        first = errors[0]
        assert first["params"]["phrases"] == 3 and first["params"]["seconds"] == 10
        assert 0 < first["params"]["retry_ms"] <= 10_000
        assert "10" in first["message"] and "10" in first["message_zh"]
        assert len(await quiet(bob)) == 3
        # A second tab of Bob's seat shares the seat's window: two and one make three.
        tab = await seated(server, code, token=bob.token)
        assert tab.seat == bob.seat == 1
        for client in (bob, tab, bob, tab):
            await client.send({"type": "chat", "phrase": "thanks"})
            await quiet(client)
        refused = [m for c in (bob, tab) for m in c.messages if m["type"] == "error"]
        assert [e["code"] for e in refused] == ["chat_too_fast"]
        heard = [m for m in await quiet(ann) if m["seat"] == 1]
        assert heard == [{"type": "chat", "seat": 1, "phrase": "thanks"}] * 3
        # Both tabs see every phrase of the table, their own seat's included.
        assert len(await quiet(tab)) == 3
        for client in (ann, bob, tab):
            await client.close()

    run(main())


def test_quick_chat_can_be_turned_off(tmp_path: Path) -> None:
    with ServerProcess(tmp_path / "db.sqlite3", args=("--chat-phrases", "0")) as srv:
        code = srv.create_room(**WAITING)["code"]

        async def main() -> None:
            ann = await seated(srv, code, name="Ann")
            error = await error_of(ann, {"type": "chat", "phrase": "hello"})
            assert error["code"] == "chat_off" and error["message_zh"] == CATALOGUE["chat_off"][0]
            await ann.close()

        run(main())
