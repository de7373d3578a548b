"""``laizi serve``: the online table on uvicorn."""

from __future__ import annotations

import ipaddress
import logging

import typer

from laizi.cli.common import app, fail

__all__ = ["serve"]


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on."),
    port: int = typer.Option(8000, "--port", help="Port to listen on."),
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
) -> None:
    """Run the online table: rooms, the WebSocket protocol (docs/protocol.md), recovery."""
    try:
        import uvicorn

        from laizi.server.app import create_app
        from laizi.server.protocol import MAX_MESSAGE_BYTES
        from laizi.server.store import Store, default_db_url
    except ImportError as error:  # pragma: no cover - the dependencies are required
        fail(f"the server needs its dependencies: {error}")
    if log_level not in ("debug", "info", "warning", "error"):
        fail("--log-level must be debug, info, warning or error", code=2)
    proxies = _proxies(proxy_headers) if proxy_headers is not None else []
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    logging.getLogger("alembic").setLevel(logging.WARNING)
    url = db or default_db_url()
    try:  # a bad URL or an unwritable file is a clear message now, not a traceback later
        Store(url).close()
    except Exception as error:
        fail(f"--db {url}: {str(error).splitlines()[0]}")
    uvicorn.run(
        create_app(url),
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
    )


def _proxies(text: str) -> list[str]:
    """The proxies of ``--proxy-headers``: IP addresses or networks; exit 2 on anything else."""
    out: list[str] = []
    for item in text.split(","):
        item = item.strip()
        try:
            out.append(str(ipaddress.ip_network(item, strict=False)) if "/" in item else
                       str(ipaddress.ip_address(item)))
        except ValueError:
            fail(f"--proxy-headers: {item!r} is not an IP address or network", code=2)
    return out
