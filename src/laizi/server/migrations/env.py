"""Alembic environment: run the migrations on the connection the server hands over."""

from __future__ import annotations

from alembic import context

from laizi.server.store import metadata

connection = context.config.attributes.get("connection")
if connection is None:  # pragma: no cover - the server always passes its connection
    raise RuntimeError("run the migrations through laizi.server.store.Store")
context.configure(connection=connection, target_metadata=metadata)
with context.begin_transaction():
    context.run_migrations()
