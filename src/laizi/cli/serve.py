"""``laizi serve``: the online table on uvicorn."""

from __future__ import annotations

import errno
import ipaddress
import logging
import socket
from typing import Any

import typer

from laizi.cli.common import EXIT_USAGE, LangOption, app, fail, lang_or_exit
from laizi.i18n import Lang, pick

DEFAULT_LADDER_PRESETS = ("wuhan-hongzhong-kaikou", "baishan")
"""``laizi.server.ladder.DEFAULT_PRESETS`` (not imported: the server loads only when it runs)."""

__all__ = ["serve"]


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(
        8000,
        "--port",
        min=1,
        max=65535,
        help="Port to listen on (http://HOST:PORT/). If it is taken, laizi serve says so and "
        "exits: pick another, e.g. --port 8080.",
    ),
    db: str = typer.Option(
        None,
        "--db",
        help="Database URL: sqlite:///FILE (default ./laizi.sqlite3) or postgresql://USER@HOST/DB.",
    ),
    log_level: str = typer.Option("info", "--log-level", help="debug, info, warning, error."),
    proxy_headers: str = typer.Option(
        None,
        "--proxy-headers",
        metavar="ADDRESS[,ADDRESS]",
        help="Trust X-Forwarded-For/-Proto from these proxy addresses (IPs or networks) only; "
        "without it they are never trusted.",
    ),
    redis_url: str = typer.Option(
        None,
        "--redis",
        metavar="URL",
        help="Join a cluster coordinated by this Redis (redis://HOST:PORT/DB); needs a "
        "postgresql:// --db shared by every process (docs/server.md, running a cluster).",
    ),
    advertise: str = typer.Option(
        None,
        "--advertise",
        metavar="HOST:PORT",
        help="With --redis: where the other processes reach this one (default --host:--port).",
    ),
    lease_ms: int = typer.Option(
        3000, "--lease-ms", help="With --redis: how long a room's lease outlives its owner."
    ),
    redis_prefix: str = typer.Option(
        "laizi:", "--redis-prefix", help="With --redis: the prefix of every key and channel."
    ),
    admin: str = typer.Option(
        None,
        "--admin",
        metavar="NAME[,NAME]",
        help="Accounts that may read GET /api/admin/fairplay, the collusion watch (default none:"
        " 403 to every account).",
    ),
    metrics_from: str = typer.Option(
        None,
        "--metrics-from",
        metavar="ADDRESS[,ADDRESS]",
        help="Addresses or networks besides loopback that may read GET /metrics (default: "
        "loopback only; others get 403).",
    ),
    # Resource limits (laizi.server.limits.ServerLimits; docs/server.md lists them all).
    max_body_bytes: int = typer.Option(1_000_000, help="Largest HTTP request body (413 beyond)."),
    hash_workers: int = typer.Option(
        0, help="Threads for password hashing (Argon2id); 0: half the cores, at most the cores."
    ),
    hash_queue: int = typer.Option(16, help="Password jobs that may wait (503 beyond)."),
    replay_workers: int = typer.Option(
        0, help="Processes rendering replays and records; 0: half the cores, at most the cores."
    ),
    replay_queue: int = typer.Option(16, help="Replay and record jobs that may wait (503 beyond)."),
    replay_cache_mb: float = typer.Option(
        64.0, help="Megabytes of finished hands' replays and records kept."
    ),
    get_rate: float = typer.Option(
        20.0,
        help="GET tokens per second per address (a request costs 1, a replay or record 5, "
        "one of the client's files 0.05); 0: no limit.",
    ),
    get_burst: float = typer.Option(200.0, help="GET bucket size per address (429 beyond)."),
    message_bytes: int = typer.Option(4096, help="Largest WebSocket message in bytes (≤ 4096)."),
    message_abuse: int = typer.Option(
        50, help="Refused messages within a minute before the connection is closed."
    ),
    abuse_cooldown_seconds: float = typer.Option(
        30.0, help="After a close for abuse, the address's new connections wait this long."
    ),
    message_rate: float = typer.Option(10.0, help="WebSocket message tokens per second."),
    message_burst: float = typer.Option(20.0, help="WebSocket message bucket size."),
    connections_per_address: int = typer.Option(64, help="WebSocket connections per address."),
    ws_join_seconds: float = typer.Option(
        10.0,
        help="A WebSocket that has not joined a room (/ws) or said hello (/ws/bot) by then "
        "is closed.",
    ),
    # Connection deadlines and counts (laizi.server.connections; docs/server.md).
    header_seconds: float = typer.Option(
        10.0, help="A request's headers must be whole this long after the connection opened."
    ),
    body_seconds: float = typer.Option(
        20.0, help="A request's body must be whole this long after its headers."
    ),
    keep_alive_seconds: int = typer.Option(
        5, help="An idle kept-alive connection is closed this long after its last response."
    ),
    open_connections_per_address: int = typer.Option(
        128, help="Open TCP connections (HTTP and WebSocket) per address (429 beyond)."
    ),
    max_connections: int = typer.Option(
        4096, help="Open TCP connections on the server (503 beyond); fitted to the open files."
    ),
    open_files: int = typer.Option(
        0, help="Raise the soft open-file limit to this at start (0: the hard limit)."
    ),
    rooms_per_address: int = typer.Option(30, help="Open rooms made from one address."),
    rooms_per_account: int = typer.Option(10, help="Open rooms made by one account."),
    max_rooms: int = typer.Option(5000, help="Open rooms on the server."),
    bot_rooms_per_account: int = typer.Option(2, help="Bots-only rooms per account."),
    bot_rooms: int = typer.Option(20, help="Bots-only rooms on the server."),
    waiting_room_seconds: float = typer.Option(
        1800.0, help="A room still waiting for its people after this long is closed."
    ),
    matched_room_seconds: float = typer.Option(
        120.0,
        help="A room the matchmaker made (ranked, casual) still waiting for its people after "
        "this long is closed.",
    ),
    spectators_per_room: int = typer.Option(50, help="Spectators of one room."),
    chat_phrases: int = typer.Option(
        3, help="Quick-chat phrases one seat may say within --chat-seconds; 0: quick chat off."
    ),
    chat_seconds: float = typer.Option(10.0, help="The window of --chat-phrases, in seconds."),
    # The matchmaker (laizi.server.matchmaking.MatchSettings; docs/server.md, Matchmaking).
    casual_wait_seconds: float = typer.Option(
        20.0, help="A casual queue's table starts with bots in the empty seats after this wait."
    ),
    accept_seconds: float = typer.Option(
        10.0, help="A match waits this long for each person's accept (a no-show goes back)."
    ),
    queue_grace_seconds: float = typer.Option(
        30.0, help="A queued person whose connection dropped keeps the place this long."
    ),
    # The bot ladder (laizi.server.ladder.LadderSettings; docs/server.md, The bot ladder).
    bot_ladder: bool = typer.Option(
        False,
        "--bot-ladder",
        help="Run the bot ladder: outside bots ask for a table over /ws/bot, the server seats "
        "four registered bots together and rates each bot (GET /api/bots/leaderboard).",
    ),
    ladder_presets: str = typer.Option(
        ",".join(DEFAULT_LADDER_PRESETS),
        metavar="PRESET[,PRESET]",
        help="With --bot-ladder: the presets bots may ask for (a pool and tables each).",
    ),
    ladder_interval_seconds: float = typer.Option(
        5.0, help="With --bot-ladder: how often the waiting bots are seated at tables."
    ),
    ladder_hands: int = typer.Option(4, help="With --bot-ladder: hands per ladder match."),
    ladder_action_seconds: float = typer.Option(
        10.0, help="With --bot-ladder: a ladder bot's time per decision (then its bank)."
    ),
    ladder_bank_seconds: float = typer.Option(
        30.0, help="With --bot-ladder: a ladder bot's time bank per hand."
    ),
    ladder_grace_seconds: float = typer.Option(
        30.0, help="With --bot-ladder: a dropped ladder bot's time to come back before it escapes."
    ),
    ladder_same_owner: bool = typer.Option(
        False,
        "--ladder-same-owner",
        help="With --bot-ladder: let bots of one owner meet at a table (default: one bot per "
        "account at a table, so an owner's bots cannot feed one of them a rating).",
    ),
    lobby_cache_ms: int = typer.Option(1000, help="The lobby is rebuilt at most this often."),
    stop_timeout: float = typer.Option(
        10.0,
        "--stop-timeout",
        min=0.5,
        help="A graceful stop (SIGTERM, Ctrl-C) ends within this many seconds: the tables "
        "stop, what was accepted is written, the rooms are handed over; a step still running "
        "then is abandoned (a cluster's leases lapse) and the process exits.",
    ),
    lang: str | None = LangOption,
) -> None:
    """Run the online table: rooms, the WebSocket protocol (docs/protocol.md), recovery."""
    language = lang_or_exit(lang)
    try:
        import uvicorn

        from laizi.server.admin import admin_names
        from laizi.server.app import HaltingServer, create_app
        from laizi.server.connections import ConnectionLimits, connection_protocols
        from laizi.server.ladder import LadderSettings
        from laizi.server.limits import ServerLimits
        from laizi.server.matchmaking import MatchSettings
        from laizi.server.protocol import MAX_MESSAGE_BYTES
        from laizi.server.store import Store, default_db_url
    except ImportError as error:  # pragma: no cover - the dependencies are required
        fail(f"the server needs its dependencies: {error}")
    if log_level not in ("debug", "info", "warning", "error"):
        fail("--log-level must be debug, info, warning or error", code=2)
    proxies = _proxies(proxy_headers) if proxy_headers is not None else []
    scrapers = _proxies(metrics_from, "--metrics-from") if metrics_from is not None else []
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    try:
        limits = ServerLimits(
            max_body_bytes=max_body_bytes,
            hash_workers=hash_workers,
            hash_queue=hash_queue,
            replay_workers=replay_workers,
            replay_queue=replay_queue,
            replay_cache_mb=replay_cache_mb,
            get_rate=get_rate,
            get_burst=get_burst,
            message_bytes=message_bytes,
            message_abuse=message_abuse,
            abuse_cooldown_seconds=abuse_cooldown_seconds,
            message_rate=message_rate,
            message_burst=message_burst,
            connections_per_address=connections_per_address,
            ws_join_seconds=ws_join_seconds,
            rooms_per_address=rooms_per_address,
            rooms_per_account=rooms_per_account,
            max_rooms=max_rooms,
            bot_rooms_per_account=bot_rooms_per_account,
            bot_rooms=bot_rooms,
            waiting_room_seconds=waiting_room_seconds,
            matched_room_seconds=matched_room_seconds,
            spectators_per_room=spectators_per_room,
            chat_phrases=chat_phrases,
            chat_seconds=chat_seconds,
            lobby_cache_ms=lobby_cache_ms,
        )
        match = MatchSettings(
            casual_wait_s=casual_wait_seconds,
            accept_s=accept_seconds,
            disconnect_grace_s=queue_grace_seconds,
        )
        connection_limits = ConnectionLimits(
            header_seconds=header_seconds,
            body_seconds=body_seconds,
            keep_alive_seconds=keep_alive_seconds,
            open_connections_per_address=open_connections_per_address,
            max_connections=max_connections,
            open_files=open_files,
        )
        ladder = (
            LadderSettings(
                presets=tuple(p.strip() for p in ladder_presets.split(",") if p.strip()),
                interval_s=ladder_interval_seconds,
                hands=ladder_hands,
                action_seconds=ladder_action_seconds,
                bank_seconds=ladder_bank_seconds,
                escape_grace_seconds=ladder_grace_seconds,
                owners_apart=not ladder_same_owner,
            )
            if bot_ladder
            else None
        )
    except ValueError as error:
        fail(f"--{_flag_text(str(error))}", code=2)
    problem = port_problem(host, port)
    if problem is not None:  # before anything starts: no "ready" line for a port we can't have
        fail(_port_text(problem, host, port, language), code=EXIT_USAGE)
    url = db or default_db_url()
    cluster = None
    if redis_url is not None and ladder is not None:
        fail("--bot-ladder runs on a server on its own, not with --redis (a cluster)", code=2)
    if redis_url is not None:
        cluster = _cluster(redis_url, url, advertise or f"{host}:{port}", lease_ms, redis_prefix)
    try:  # a bad URL or an unwritable file is a clear message now, not a traceback later
        Store(url).close()
    except Exception as error:
        fail(f"--db {url}: {str(error).splitlines()[0]}")
    http_protocol, ws_protocol = connection_protocols(
        connection_limits, proxies, cluster=cluster is not None
    )
    application = create_app(
        url,
        limits,
        cluster,
        admin_names(admin),
        metrics_from=scrapers,
        match=match,
        stop_timeout=stop_timeout,
        ladder=ladder,
    )
    application.state.connection_count = http_protocol.count  # for /metrics
    config = uvicorn.Config(
        application,
        host=host,
        port=port,
        log_level=log_level,
        ws_max_size=MAX_MESSAGE_BYTES * 16,
        access_log=False,
        ws_per_message_deflate=False,
        # The client address is the TCP peer unless --proxy-headers names the proxy: uvicorn
        # would otherwise believe X-Forwarded-For from 127.0.0.1 (its default).
        proxy_headers=bool(proxies),
        forwarded_allow_ips=proxies,
        server_header=False,
        # Every connection counted and under deadlines (laizi.server.connections).
        http=http_protocol,
        ws=ws_protocol,
        timeout_keep_alive=keep_alive_seconds,
        # the connections' own ends get half the stop's time (whole seconds), the steps the rest
        timeout_graceful_shutdown=max(1, round(stop_timeout / 2)),
    )
    HaltingServer(config).run()


def _flag_text(error: str) -> str:
    """A settings error as the flag's words: ``ladder_presets: …`` → ``ladder-presets: …``."""
    name, sep, rest = error.partition(" ")
    return name.replace("_", "-") + sep + rest


def port_problem(host: str, port: int) -> str | None:
    """Why ``host:port`` can't be listened on now (``"in_use"``, ``"denied"`` or the system's
    words), or None when it can.  The test binds the way uvicorn will (``SO_REUSEADDR``), so a
    port a previous run left in TIME_WAIT is not reported as taken."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        return str(error.strerror or error)
    for family, kind, proto, _, address in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                if error.errno == errno.EADDRINUSE:
                    return "in_use"
                if error.errno == errno.EACCES:
                    return "denied"
                return str(error.strerror or error)
    return None


def _port_text(problem: str, host: str, port: int, lang: Lang) -> str:
    if problem == "in_use":
        return pick(
            lang,
            f"端口 {port} 已被占用（{host}）：另选一个端口，例如 laizi serve --port {port + 1}",
            f"port {port} on {host} is already in use: pick another one, "
            f"e.g. laizi serve --port {port + 1}",
        )
    if problem == "denied":
        return pick(
            lang,
            f"没有权限监听端口 {port}（{host}）：用 1024 以上的端口，例如 --port 8000",
            f"not allowed to listen on port {port} on {host}: use a port above 1023, "
            "e.g. --port 8000",
        )
    return pick(
        lang,
        f"无法监听 {host}:{port}：{problem}",
        f"cannot listen on {host}:{port}: {problem}",
    )


def _cluster(redis_url: str, db_url: str, advertise: str, lease_ms: int, prefix: str) -> Any:
    """The cluster settings of ``--redis`` (exit 2 when they can't work, 1 without Redis)."""
    if not db_url.startswith(("postgresql://", "postgres://", "postgresql+psycopg://")):
        fail("--redis needs a PostgreSQL --db shared by every process (postgresql://…)", code=2)
    if not redis_url.startswith(("redis://", "rediss://", "unix://")):
        fail("--redis: give a URL such as redis://127.0.0.1:6379/0", code=2)
    host, _, port = advertise.rpartition(":")
    if not host or not port.isdigit() or host in ("0.0.0.0", "::", "[::]"):
        fail(f"--advertise {advertise!r}: give HOST:PORT the other processes can reach", code=2)
    if not 300 <= lease_ms <= 600_000:
        fail("--lease-ms must be 300–600000", code=2)
    if not prefix or any(c.isspace() for c in prefix):
        fail("--redis-prefix must be a word without spaces", code=2)
    try:
        import redis.asyncio

        from laizi.server.cluster.node import ClusterConfig
    except ImportError as error:
        fail(f"a cluster needs the redis package (pip install 'laizi[cluster]'): {error}")
    try:  # Redis answers now, or a clear message
        import redis as sync_redis

        sync_redis.Redis.from_url(redis_url, socket_timeout=5).ping()
    except Exception as error:
        fail(f"--redis {redis_url}: {str(error).splitlines()[0]}")
    return ClusterConfig(redis_url, advertise, lease_ms, prefix)


def _proxies(text: str, flag: str = "--proxy-headers") -> list[str]:
    """The addresses of ``--proxy-headers`` (or ``flag``): IP addresses or networks; exit 2 on
    anything else."""
    out: list[str] = []
    for item in text.split(","):
        item = item.strip()
        try:
            out.append(
                str(ipaddress.ip_network(item, strict=False))
                if "/" in item
                else str(ipaddress.ip_address(item))
            )
        except ValueError:
            fail(f"{flag}: {item!r} is not an IP address or network", code=2)
    return out
