"""The online table: rooms, a versioned WebSocket protocol, timers, reconnect, recovery.

``laizi serve`` runs :func:`laizi.server.app.create_app` on uvicorn.  The engine stays pure: the
server holds the clock (timers), the randomness (``secrets`` seeds), the connections and the
database; every accepted action is written to the hand's event log before anyone hears of it.
``docs/server.md`` and ``docs/protocol.md`` describe it.
"""
