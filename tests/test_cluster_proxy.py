"""The shipped nginx configurations in front of two processes of a cluster: the site
(deploy/nginx/laizi.conf) with real players through it — one process killed under them — and a
browser (Debian's Chromium) that plays a hand through it (issue 16); the complete configuration
(deploy/nginx/nginx.conf, issue 30) run as it is shipped, but for its ports and paths."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cluster_helpers import (
    FAST_TABLE,
    Cluster,
    Player,
    check_table,
    get,
    pg_url,
    redis_server,
)
from tests.nginx_helpers import COMPLETE, SITE, Nginx, nginx_binary

__all__ = ["pg_url", "redis_server"]  # the fixtures, for pytest


def _need_nginx() -> None:
    """nginx, installed from Debian (``nginx-light``) when it is missing and we may."""
    if nginx_binary(install=True) is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nginx is not installed (apt-get install nginx-light)")
        pytest.skip("nginx is not installed (apt-get install nginx-light)")


@contextlib.contextmanager
def _behind_nginx(
    tmp_path: Path, pg_url: str, redis_server: str, complete: bool = False
) -> Iterator[tuple[Cluster, Nginx]]:
    """Two processes of a cluster behind nginx (the site, or the ``complete`` configuration)."""
    _need_nginx()
    where = tmp_path / "nginx"
    where.mkdir()
    flags = ("--proxy-headers", "127.0.0.1")
    with (
        Cluster(tmp_path, pg_url, redis_server, 2, flags) as cluster,
        Nginx(where, [n.port for n in cluster.nodes], complete) as nginx,
    ):
        yield cluster, nginx


@pytest.fixture
def proxied(tmp_path: Path, pg_url: str, redis_server: str) -> Iterator[tuple[Cluster, Nginx]]:
    with _behind_nginx(tmp_path, pg_url, redis_server) as both:
        yield both


def _create(base: str, **table: object) -> dict[str, object]:
    body = json.dumps({"rules": "wuhan-hongzhong-kaikou", "table": table}).encode()
    request = urllib.request.Request(
        base + "/api/rooms", data=body, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=30) as r:
        room: dict[str, object] = json.loads(r.read())
        return room


@pytest.mark.slow
def test_players_through_nginx_survive_a_process_killed_under_them(
    proxied: tuple[Cluster, Nginx],
) -> None:
    """Four tables made and played through nginx only (spread over both processes, most
    connections relayed by the process nginx picked); one process is killed mid-hand: nginx
    sends the reconnections to the other, which has taken the rooms over; every match ends
    and checks out."""
    cluster, nginx = proxied
    table = {**FAST_TABLE, "players": 1, "hands": 2, "bot_delay_ms": 60}
    codes = [str(_create(nginx.http, **table)["code"]) for _ in range(4)]
    owners = {cluster.owner_port(code) for code in codes}
    assert owners == {n.port for n in cluster.nodes}  # placed on both
    players = [Player(code, [nginx.port], seed=i, delay=0.1) for i, code in enumerate(codes)]

    async def run() -> None:
        deadline = time.monotonic() + 180
        tasks = [asyncio.create_task(p.run(deadline)) for p in players]
        while not all(p.last_seq is not None and p.last_seq > 12 for p in players):
            await asyncio.sleep(0.1)
            assert time.monotonic() < deadline
        cluster.kill9(0)
        await asyncio.gather(*tasks)

    asyncio.run(run())
    for player in players:
        check_table(cluster.nodes[1].port, player.code, [player])
    assert any(p.reconnects for p in players)
    status, body = get(nginx.port, "/api/lobby")
    assert status == 200 and json.loads(body)["total"] == 0  # every match over


@pytest.mark.slow
def test_players_through_nginx_get_back_at_once_in_a_rolling_restart(
    proxied: tuple[Cluster, Nginx],
) -> None:
    """Both processes restarted one after the other (SIGTERM, started again, the next) under
    eight tables played through nginx: every player is back within a few seconds of each lost
    connection.  (With the site's former ``max_fails=1 fail_timeout=2s`` nginx let a process
    that had failed once take one new connection every 2 s — a WebSocket never ends — and the
    last players waited 7–11 s: issue 30's fault benchmark.)"""
    cluster, nginx = proxied
    table = {**FAST_TABLE, "players": 1, "hands": 3, "bot_delay_ms": 60}
    codes = [str(_create(nginx.http, **table)["code"]) for _ in range(8)]
    players = [Player(code, [nginx.port], seed=i, delay=0.1) for i, code in enumerate(codes)]

    async def run() -> None:
        deadline = time.monotonic() + 240
        tasks = [asyncio.create_task(p.run(deadline)) for p in players]
        while not all(p.last_seq is not None and p.last_seq > 12 for p in players):
            await asyncio.sleep(0.1)
            assert time.monotonic() < deadline
        for i, node in enumerate(cluster.nodes):
            assert node.proc is not None
            node.proc.terminate()
            cluster.dead.add(i)
            await asyncio.to_thread(node.proc.wait, 30)
            await asyncio.to_thread(node.start)
            cluster.dead.discard(i)
        await asyncio.gather(*tasks)

    asyncio.run(run())
    waits = [min(b for b in p.back if b > lost) - lost for p in players for lost in p.closes]
    assert len(waits) >= 8  # every player lost its connection at least once
    assert max(waits) < 4.0, sorted(waits)
    for player in players:
        check_table(cluster.nodes[1].port, player.code, [player])


@pytest.mark.slow
def test_a_browser_plays_a_hand_through_nginx(proxied: tuple[Cluster, Nginx]) -> None:
    """The web client, as a player would use it: the lobby's form, the table, a whole hand
    clicked to its settlement — every request and the WebSocket through nginx."""
    from laizi.engine import parse_record, verify
    from tests.web_browser import create_room, launch, new_page, play_until, shot

    cluster, nginx = proxied
    for browser in launch():
        page, errors = new_page(browser, viewport={"width": 1280, "height": 900})
        code = create_room(page, nginx.http, hands="1", bot_level="greedy")
        assert cluster.owner_port(code) in {n.port for n in cluster.nodes}
        play_until(page, ".settlement.open table.settle", limit=200)
        shot(page, "cluster-settlement")
        status, raw = get(nginx.port, f"/api/rooms/{code}/hands/0")
        assert status == 200
        record = parse_record(raw.decode())
        assert verify(record).ok
        page.click(".settlement .fairness summary")  # 公平性: the proof is folded (issue 27)
        page.wait_for_selector(".seed-check[data-state=ok]")
        assert str(record[-1]["seed"]) in page.inner_text(".seed")
        assert errors == []


def _server_block(conf: str) -> list[str]:
    lines = [line.strip() for line in conf.splitlines()]
    return lines[lines.index("listen 80;") : lines.index("proxy_buffering off;") + 1]


def test_the_complete_nginx_configuration_has_the_site_s_server_block() -> None:
    """deploy/nginx/nginx.conf and deploy/nginx/laizi.conf proxy the same way."""
    assert _server_block(COMPLETE.read_text()) == _server_block(SITE.read_text())


@pytest.mark.slow
def test_a_match_plays_through_the_complete_nginx_configuration(
    tmp_path: Path, pg_url: str, redis_server: str
) -> None:
    """The shipped nginx.conf (its http block, its upstream of every process, the WebSocket
    upgrade, its timeouts) run by a real nginx in front of two processes: rooms made through
    it land on both, a player and a spectator play a match to its end through it over
    WebSocket (nginx's own log written where the configuration says)."""
    with _behind_nginx(tmp_path, pg_url, redis_server, complete=True) as (cluster, nginx):
        table = {**FAST_TABLE, "players": 1, "hands": 1}
        codes = [str(_create(nginx.http, **table)["code"]) for _ in range(2)]
        assert {cluster.owner_port(c) for c in codes} == {n.port for n in cluster.nodes}
        players = [Player(code, [nginx.port], seed=i) for i, code in enumerate(codes)]
        watcher = Player(codes[0], [nginx.port], seed=9, spectate=True)

        async def run() -> None:
            deadline = time.monotonic() + 120
            # the spectator is there before the match starts (it sees it all)
            tasks = [asyncio.create_task(watcher.run(deadline))]
            while watcher.last_seq is None:
                await asyncio.sleep(0.05)
                assert time.monotonic() < deadline
            tasks += [asyncio.create_task(p.run(deadline)) for p in players]
            await asyncio.gather(*tasks)

        asyncio.run(run())
        for player in players:
            viewers = [player, watcher] if player.code == codes[0] else [player]
            check_table(nginx.port, player.code, viewers)
        assert "access.log" in os.listdir(nginx.where)
