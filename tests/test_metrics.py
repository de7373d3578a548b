"""``GET /metrics``: the server's own measurements in the Prometheus text format (issue 31)."""

from __future__ import annotations

import asyncio
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from laizi.server.app import create_app
from laizi.server.metrics import ServerMetrics, metrics_networks
from tests.cli_helpers import run as laizi
from tests.server_helpers import Client, InProcessServer, ServerProcess, Servers

FAST = {"bot_delay_ms": 0, "between_hands_ms": 0}
MESSAGES = ("--message-rate", "100000", "--message-burst", "100000")


def scrape(srv: Any, headers: dict[str, str] | None = None) -> tuple[int, str]:
    request = urllib.request.Request(srv.http + "/metrics", headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition: (name, sorted labels) → value."""
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            out[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return out


def value(srv: Any, name: str, **labels: str) -> float:
    status, text = scrape(srv)
    assert status == 200, text
    return samples(text)[(name, tuple(sorted(labels.items())))]


# -- the measurements ------------------------------------------------------------------------------
def test_actions_are_counted_exactly_and_every_commit_is_timed(tmp_path: Path, db_url: str) -> None:
    """Four people at a table, 14 actions between them: ``laizi_actions_total`` is 14 — no bot,
    no 托管 and no time-out plays here (the clock is long), so every staged action is one of
    theirs; each was committed, so the commit histogram grew too."""
    n = 14
    with ServerProcess(tmp_path / "db.sqlite3", db_url=db_url, args=MESSAGES) as srv:
        before = samples(scrape(srv)[1])
        assert before[("laizi_actions_total", ())] == 0
        room = srv.create_room(players=4, hands=1, action_seconds=120, **FAST)
        text = asyncio.run(asyncio.wait_for(_act(srv, room["code"], n), 120))
        after = samples(text)
        # The writer thread times a batch's rows inside its transaction and the commit after
        # it: a scrape in between sees one write more than commits.  Once it is idle they agree.
        store = after
        deadline = time.monotonic() + 10
        while (
            store[("laizi_store_write_seconds_count", ())]
            != store[("laizi_store_commit_seconds_count", ())]
            and time.monotonic() < deadline
        ):
            time.sleep(0.05)
            store = samples(scrape(srv)[1])
    assert after[("laizi_actions_total", ())] == n
    commits = store[("laizi_store_commit_seconds_count", ())]
    assert commits > before[("laizi_store_commit_seconds_count", ())]
    assert store[("laizi_store_write_seconds_count", ())] == commits
    # the commits take time; executing the rows is a part of it
    committing = store[("laizi_store_commit_seconds_sum", ())]
    assert 0 < store[("laizi_store_write_seconds_sum", ())] <= committing
    assert after[("laizi_tables", (("status", "playing"),))] == 1
    assert after[("laizi_connections", (("kind", "websocket"),))] == 4
    assert after[("laizi_connections", (("kind", "tcp"),))] >= 5  # four WebSockets and this GET


async def _act(srv: ServerProcess, code: str, n: int) -> str:
    """Four clients answer their prompts until ``n`` actions were sent in all, then make sure
    the server handled every one (a ping after them is answered) and refused none; the
    metrics scraped then, with the four still connected."""
    clients = [await Client.connect(srv.ws) for _ in range(4)]
    for seat, client in enumerate(clients):
        await client.join(code, seat=seat)
    sent = 0
    done = asyncio.Event()

    async def answer(client: Client) -> None:
        nonlocal sent
        while sent < n:
            message = await client.recv(30)
            if message["type"] == "prompt" and sent < n:
                sent += 1
                action = message["legal"][0]
                await client.send({"type": "act", "prompt": message["id"], "action": action})
                if sent == n:
                    done.set()

    tasks = [asyncio.create_task(answer(c)) for c in clients]
    await asyncio.wait_for(done.wait(), 60)
    for task in tasks:
        task.cancel()
    for client in clients:
        await client.send({"type": "ping"})
        await client.expect("pong")
        assert not [m for m in client.messages if m["type"] == "error"]
    status, text = await asyncio.to_thread(scrape, srv)
    assert status == 200
    for client in clients:
        await client.close()
    return text


def test_a_stall_of_the_event_loop_shows_as_loop_lag(tmp_path: Path) -> None:
    """The loop is blocked for 0.3 s (what a slow commit does): the lag histogram gets one more
    observation above 0.2 s."""

    def over(srv: InProcessServer) -> float:
        status, text = scrape(srv)
        assert status == 200
        found = samples(text)
        bucket = "laizi_loop_lag_seconds_bucket"
        return found[(bucket, (("le", "+Inf"),))] - found[(bucket, (("le", "0.2"),))]

    with InProcessServer(f"sqlite:///{tmp_path / 'db.sqlite3'}") as srv:
        deadline = time.monotonic() + 10
        while value(srv, "laizi_loop_lag_seconds_count") < 3:  # the timer runs
            assert time.monotonic() < deadline
            time.sleep(0.1)
        before = over(srv)
        srv.call(time.sleep, 0.3)
        deadline = time.monotonic() + 10
        while over(srv) == before:  # the tick that was due during the stall ran late
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert value(srv, "laizi_loop_lag_seconds_sum") >= 0.2


def test_two_applications_in_one_process_keep_their_own_registries(tmp_path: Path) -> None:
    first = create_app(f"sqlite:///{tmp_path / 'a.sqlite3'}")
    second = create_app(f"sqlite:///{tmp_path / 'b.sqlite3'}")
    a, b = first.state.metrics, second.state.metrics
    assert a.registry is not b.registry
    a.action()
    assert a.registry.get_sample_value("laizi_actions_total") == 1
    assert b.registry.get_sample_value("laizi_actions_total") == 0


# -- who may read them -----------------------------------------------------------------------------
def test_only_loopback_and_the_named_networks_may_read() -> None:
    measured = ServerMetrics(allowed=metrics_networks(["10.1.0.0/16", "2001:db8::7"]))
    for host in ("127.0.0.1", "127.8.9.1", "::1", "::ffff:127.0.0.1", "10.1.2.3", "2001:db8::7"):
        assert measured.may_read(host), host
    for host in ("10.2.0.1", "203.0.113.9", "2001:db8::8", "testclient", "", "localhost"):
        assert not measured.may_read(host), host
    assert not ServerMetrics().may_read("10.1.2.3")


def test_a_forwarded_outsider_gets_403_unless_metrics_from_names_it(serve: Servers) -> None:
    behind = serve("--proxy-headers", "127.0.0.1")
    assert scrape(behind)[0] == 200  # the proxy's own machine: loopback
    status, body = scrape(behind, {"X-Forwarded-For": "203.0.113.9"})
    assert status == 403 and '"code":"forbidden"' in body.replace(" ", "")
    assert "laizi_" not in body
    # the client can't pass for loopback: the proxy appends the real peer, which is believed
    assert scrape(behind, {"X-Forwarded-For": "127.0.0.1, 203.0.113.9"})[0] == 403
    opened = serve("--proxy-headers", "127.0.0.1", "--metrics-from", "203.0.113.0/24,2001:db8::1")
    assert scrape(opened, {"X-Forwarded-For": "203.0.113.9"})[0] == 200
    assert scrape(opened, {"X-Forwarded-For": "198.51.100.1"})[0] == 403
    # without --proxy-headers nobody's X-Forwarded-For is believed: the TCP peer is loopback
    alone = serve()
    assert scrape(alone, {"X-Forwarded-For": "203.0.113.9"})[0] == 200


def test_metrics_from_refuses_what_is_not_an_address(tmp_path: Path) -> None:
    done = laizi("serve", "--db", f"sqlite:///{tmp_path / 'db.sqlite3'}", "--metrics-from", "x")
    assert done.returncode == 2 and "--metrics-from: 'x' is not an IP address" in done.stderr


def test_a_flood_of_scrapes_is_rate_limited_and_counted(serve: Servers) -> None:
    srv = serve("--get-rate", "2", "--get-burst", "5")
    statuses = [scrape(srv)[0] for _ in range(12)]
    refused = statuses.count(429)
    assert refused >= 1 and set(statuses) == {200, 429}
    deadline = time.monotonic() + 20
    while True:  # the next scrape that is let in (the refused ones count too)
        status, text = scrape(srv)
        if status == 200:
            break
        refused += 1
        assert time.monotonic() < deadline
        time.sleep(0.2)
    assert samples(text)[("laizi_refusals_total", (("limit", "get_rate"),))] == refused


def test_huge_queries_and_headers_change_nothing(serve: Servers) -> None:
    srv = serve("--proxy-headers", "127.0.0.1")
    plain = samples(scrape(srv)[1])
    query = "?name[]=laizi_actions_total&" + "evil=" + "x" * 6000
    request = urllib.request.Request(
        srv.http + "/metrics" + query,
        headers={f"X-Evil-{i}": "evil" * 50 for i in range(40)},
    )
    with urllib.request.urlopen(request, timeout=10) as r:
        hostile = samples(r.read().decode())
    assert set(hostile) == set(plain)  # every metric, no label from the request
    assert not [key for key in hostile if "evil" in repr(key)]
    # headers past what the server reads are refused before any route; the next scrape is fine
    too_big = urllib.request.Request(srv.http + "/metrics", headers={"X-Evil": "e" * 200_000})
    with pytest.raises((urllib.error.HTTPError, ConnectionError, OSError)):
        urllib.request.urlopen(too_big, timeout=10)
    assert scrape(srv)[0] == 200


def test_booking_retries_are_counted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match that could not be booked waits (a queue of one); the timer's retry is counted —
    once: the retry finds nothing left unbooked, so the queue is empty after it."""
    from starlette.testclient import TestClient

    from laizi.server.booking import Failure

    monkeypatch.setenv("LAIZI_BOOKING_RETRY_SECONDS", "0.05")
    with TestClient(create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}")) as client:
        registry = client.app.state.metrics.registry
        bookings = client.app.state.hub.bookings
        assert registry.get_sample_value("laizi_booking_retries_total") == 0
        bookings.failed[7] = Failure("ABCDEF", "a test's failure", time.time())
        deadline = time.monotonic() + 10
        while registry.get_sample_value("laizi_booking_retries_total") == 0:
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.3)  # six more ticks: nothing is waiting, nothing is retried
        assert registry.get_sample_value("laizi_booking_retries_total") == 1
        queue = {"queue": "booking_retries"}
        assert registry.get_sample_value("laizi_queue_size", queue) == 0
