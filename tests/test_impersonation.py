"""Issue 24, items 4 and 10, replayed against a real ``laizi serve``: names that look like a
registered name (invisible code points, TR39 confusables), common and blank passwords, and
guessing bot tokens from one address."""

from __future__ import annotations

import asyncio
import json
import re
import unicodedata
from collections.abc import Iterator
from typing import Any

import pytest

from laizi.server.accounts import LOGIN_LIMIT_PER_ADDRESS
from laizi.server.names import DEFAULT_IGNORABLE, is_default_ignorable, name_skeleton
from tests.limits_helpers import http, messages_of, ws_connect
from tests.server_helpers import ServerProcess

INVISIBLE = "a name can't hold invisible, control or format characters"
ATTACKS = ["An\u034fn", "Ann\ufe0f", "Ann\U000e0100", "An\u180bn"]
"""Ann with a combining grapheme joiner, a variation selector, a variation selector from the
supplementary plane and a Mongolian free variation selector: each was shown as "Ann"."""
PASSWORD = "four winds and a red dragon"


@pytest.fixture(scope="module")
def srv(module_db_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    path = tmp_path_factory.mktemp("impersonation") / "db.sqlite3"
    with ServerProcess(path, db_url=module_db_url) as server:
        yield server


def call(
    srv: ServerProcess, method: str, path: str, body: Any, source: str, cookie: str = ""
) -> tuple[int, dict[str, str], Any]:
    headers = {"Cookie": cookie} if cookie else {}
    return asyncio.run(http(srv.port, method, path, body, headers, source))


def register(srv: ServerProcess, name: str, source: str, password: str = PASSWORD) -> Any:
    status, headers, body = call(
        srv, "POST", "/api/register", {"name": name, "password": password}, source
    )
    return status, body, headers.get("set-cookie", "").split(";")[0]


# -- item 4: look-alike names ----------------------------------------------------------------
def test_invisible_code_points_are_refused_in_every_name(srv: ServerProcess) -> None:
    assert register(srv, "Ann", "127.0.4.1")[0] == 201
    for name in ATTACKS:
        status, body, _ = register(srv, name, "127.0.4.2")
        assert status == 400 and body["code"] == "bad_name", (name, body)
        assert body["error"] == INVISIBLE and "不可见字符" in body["error_zh"], body
        # Nor does such a name log in as Ann (the same password).
        status, _, answer = call(
            srv, "POST", "/api/login", {"name": name, "password": PASSWORD}, "127.0.4.3"
        )
        assert status == 401 and answer["code"] == "bad_login", (name, answer)
    # A guest can't sit down under it either.
    code = srv.create_room(players=3)["code"]
    assert asyncio.run(_guest_join(srv, code, ATTACKS)) == [("bad_name", INVISIBLE)] * 4


def test_a_name_that_looks_like_a_registered_one_is_taken(srv: ServerProcess) -> None:
    assert register(srv, "Ace", "127.0.5.1")[0] == 201
    assert register(srv, "Bob", "127.0.5.1")[0] == 201
    taken = {
        "ɑce": "Ace",  # Latin small alpha: the attack of the issue
        "Асе": "Ace",  # all Cyrillic, so not two scripts: the skeleton sees it
        "ɑCE": "Ace",  # looks like "aCE", which is Ace in another case
        "B0b": "Bob",  # a zero for the o
        "ВоЬ": "Bob",  # Cyrillic Ve, o and soft sign
    }
    for name, holder in taken.items():
        status, body, _ = register(srv, name, "127.0.5.2")
        assert status == 409 and body["code"] == "name_taken", (name, body)
        assert holder in body["error"] and "已被占用" in body["error_zh"], body
    # Different names stay different, in any script.
    for good in ["Acer", "Bobby", "张伟", "雀神 Ace", "王芳", "ゆき"]:
        status, body, _ = register(srv, good, "127.0.5.3")
        assert status == 201 and body["name"] == good, (good, body)
    # A guest who picks a look-alike of an account's name is marked as a guest.
    code = srv.create_room(players=3)["code"]
    assert asyncio.run(_guest_join(srv, code, ["ɑce"])) == [("joined", "ɑce (游客)")]


def test_the_attack_names_of_the_issue_against_ann(srv: ServerProcess) -> None:
    """The report's exact case: with "Ann" registered, "ɑnn" is taken, "Anna" is not."""
    register(srv, "Ann", "127.0.6.1")  # registered by the first test when run in order
    status, body, _ = register(srv, "ɑnn", "127.0.6.2")
    assert status == 409 and body["code"] == "name_taken", body
    assert body["error"] == "the name 'ɑnn' looks like 'Ann', which is taken"
    status, body, _ = register(srv, "Anna", "127.0.6.2")
    assert status == 201 and body["name"] == "Anna"


async def _guest_join(srv: ServerProcess, code: str, names: list[str]) -> list[tuple[str, str]]:
    """Each name's answer to a guest's join: ("joined", the name shown) or (code, message)."""
    out = []
    for name in names:
        ws = await ws_connect(srv.ws, "127.0.7.1")
        try:
            await ws.send(json.dumps({"type": "join", "room": code, "name": name}))
            answer: tuple[str, str] | None = None
            while answer is None:
                for message in messages_of(await asyncio.wait_for(ws.recv(), 10)):
                    if message["type"] == "error":
                        answer = (message["code"], message["message"])
                    elif message["type"] == "room" and answer is None:
                        seats = message["room"]["seats"]
                        answer = ("joined", next(s["name"] for s in seats if s["kind"] == "human"))
            out.append(answer)
        finally:
            await ws.close()
    return out


def test_default_ignorable_table_holds_what_unicodedata_derives() -> None:
    """The table is DerivedCoreProperties' ranges: every format character but the documented
    exceptions, and every variation selector, is in it; nothing visible is."""
    exceptions = {0x0600, 0x0601, 0x0602, 0x0603, 0x0604, 0x0605, 0x06DD, 0x070F, 0x0890}
    exceptions |= {0x0891, 0x08E2, 0x110BD, 0x110CD, 0xFFF9, 0xFFFA, 0xFFFB}
    exceptions |= set(range(0x13430, 0x13440))
    for point in range(0x110000):
        ch = chr(point)
        if unicodedata.category(ch) == "Cf" and point not in exceptions:
            assert is_default_ignorable(ch), hex(point)
        if unicodedata.category(ch)[0] in "LNPS" and unicodedata.category(ch) != "Lo":
            assert not is_default_ignorable(ch), hex(point)
    for first, last in [(0xFE00, 0xFE0F), (0xE0100, 0xE01EF), (0x180B, 0x180D), (0x180F, 0x180F)]:
        assert all(is_default_ignorable(chr(p)) for p in range(first, last + 1))
    assert sum(last - first + 1 for first, last in DEFAULT_IGNORABLE) == 4174
    assert not any(is_default_ignorable(ch) for ch in "Ann 雀神_-.0")


def test_skeletons_join_lookalikes_and_keep_names_apart() -> None:
    same = [("ɑnn", "Ann"), ("Ann", "ANN"), ("rn", "m"), ("I1", "ll"), ("Асе", "Ace")]
    assert all(name_skeleton(a) == name_skeleton(b) for a, b in same)
    apart = [("Ann", "Anna"), ("张伟", "张玮"), ("Ann", "An"), ("雀神", "雀")]
    assert all(name_skeleton(a) != name_skeleton(b) for a, b in apart)


# -- item 10: passwords ----------------------------------------------------------------------
REFUSALS = {
    "common": (
        "this password is one of the most common: anyone would guess it; choose another",
        "最常见的密码",
    ),
    "blank": ("a password can't be all blank", "全是空白"),
}


@pytest.mark.parametrize(
    ("password", "kind"),
    [
        ("password1", "common"),
        ("PASSWORD123", "common"),
        ("12345678", "common"),
        (" qwertyuiop ", "common"),
        ("1q2w3e4r", "common"),
        ("5201314520", "common"),
        (" " * 8, "blank"),
        ("\t \u3000\u00a0" * 3, "blank"),
    ],
)
def test_common_and_blank_passwords_are_refused(
    srv: ServerProcess, password: str, kind: str
) -> None:
    source = f"127.0.8.{len(password) + ord(password[-1]) % 200}"
    status, body, _ = register(srv, f"Careful {kind}", source, password)
    assert status == 400 and body["code"] == "bad_password", body
    error, error_zh = REFUSALS[kind]
    assert body["error"] == error and error_zh in body["error_zh"], body


# -- item 10: bot tokens under the login bucket ----------------------------------------------
async def _bot_hello(srv: ServerProcess, source: str, token: str, room: str) -> dict[str, Any]:
    ws = await ws_connect(f"ws://127.0.0.1:{srv.port}/ws/bot", source)
    try:
        await asyncio.wait_for(ws.recv(), 10)  # the server's hello
        await ws.send(json.dumps({"type": "hello", "version": 1, "room": room, "token": token}))
        answer: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 20))
        return answer
    finally:
        await ws.close()


def test_wrong_bot_tokens_from_one_address_are_rate_limited(srv: ServerProcess) -> None:
    status, _, cookie = register(srv, "Tokenholder", "127.0.9.1")
    assert status == 201
    status, _, issued = call(srv, "POST", "/api/bot-tokens", {"name": "mine"}, "127.0.9.1", cookie)
    assert status == 201
    right = issued["token"]
    room = srv.create_room(players=1, bot_delay_ms=0, claim_window_ms=0)["code"]
    guesser = "127.0.9.2"
    answers = [
        asyncio.run(_bot_hello(srv, guesser, f"lzb_guess{n:040d}", room))["code"] for n in range(24)
    ]
    limited = answers.index("rate_limited")
    assert limited == LOGIN_LIMIT_PER_ADDRESS, answers
    assert answers == ["bad_token"] * limited + ["rate_limited"] * (24 - limited)
    # The answer is the one a login from that address now gets too: one bucket per address.
    refused = asyncio.run(_bot_hello(srv, guesser, right, room))
    status, headers, login = call(
        srv, "POST", "/api/login", {"name": "Tokenholder", "password": PASSWORD}, guesser
    )
    assert status == 429 and login["code"] == refused["code"] == "rate_limited", (login, refused)
    assert 0 < refused["retry_after"] <= 15 * 60 and 0 < int(headers["retry-after"]) <= 15 * 60
    for text in (refused["message"], login["error"]):
        assert re.fullmatch(r"too many tries; try again in \d+ s", text), text
    for text in (refused["message_zh"], login["error_zh"]):
        assert re.fullmatch(r"尝试次数过多，请 \d+ 秒后再试", text), text
    # The right token from another address still seats its bot.
    joined = asyncio.run(_bot_hello(srv, "127.0.9.3", right, room))
    assert joined["type"] == "joined" and joined["room"] == room, joined
