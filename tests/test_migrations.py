"""One chain of Alembic migrations builds the same schema on SQLite and PostgreSQL (issue 8)."""

from __future__ import annotations

from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, text

import laizi.server.botratings  # (its tables join the metadata too)
import laizi.server.ratings  # noqa: F401  (its tables join the metadata)
from laizi.server.accounts import AccountError, Accounts
from laizi.server.store import Store, metadata
from tests.server_helpers import FAST_HASH, alembic_config

ACCOUNTS_REVISION = "0003"
"""The migration of issue 8's tables."""
ISSUE_8_TABLES = {"accounts", "sessions", "seat_accounts", "standings", "match_results"}
COMPARED = ISSUE_8_TABLES | {
    "reserved_seats",
    "cluster_settings",
    "bot_tokens",
    "bot_ratings",
    "ladder_results",
}
"""The tables whose migrated schema is compared with the code's (issues 26, 30 and 28's too)."""


def test_the_migrations_have_one_head() -> None:
    heads = ScriptDirectory.from_config(alembic_config(None)).get_heads()
    assert len(heads) == 1, f"several Alembic heads: {heads} (fix a down_revision)"


def test_migrated_schema_matches_the_tables_the_code_uses(db_url: str) -> None:
    store = Store(db_url)
    try:
        with store.engine.connect() as c:
            tables = set(inspect(c).get_table_names())
            assert ISSUE_8_TABLES | {"rooms", "seats", "hands", "events"} <= tables

            def ours(obj: Any, name: str | None, kind: str, reflected: bool, other: Any) -> bool:
                table = obj if kind == "table" else getattr(obj, "table", None)
                return table is None or table.name in COMPARED

            context = MigrationContext.configure(c, opts={"include_object": ours})
            assert compare_metadata(context, metadata) == []
    finally:
        store.close()


def test_downgrade_and_upgrade_again(db_url: str) -> None:
    store = Store(db_url)
    try:
        before = ScriptDirectory.from_config(alembic_config(None)).get_revision(ACCOUNTS_REVISION)
        with store.engine.begin() as c:
            command.downgrade(alembic_config(c), str(before.down_revision))
        with store.engine.connect() as c:
            assert not ISSUE_8_TABLES & set(inspect(c).get_table_names())
        store.migrate()
        with store.engine.connect() as c:
            assert set(inspect(c).get_table_names()) >= ISSUE_8_TABLES
    finally:
        store.close()


def test_old_accounts_get_their_lookalike_keys(db_url: str) -> None:
    """Migration 0006 fills ``name_skeleton`` in, oldest first: an old account that already
    looked like an older one keeps no key (the older holds it), and the keys are unique."""
    store = Store(db_url)
    try:
        with store.engine.begin() as c:
            command.downgrade(alembic_config(c), "0005_cluster")
            for name in ["Ann", "ɑnn", "Bo"]:  # ɑnn was let in before the keys
                c.execute(
                    text(
                        "INSERT INTO accounts (name, name_key, password_hash, created) "
                        "VALUES (:name, :key, 'x', 0)"
                    ),
                    {"name": name, "key": name.casefold()},
                )
        store.migrate()
        with store.engine.connect() as c:
            rows = c.execute(text("SELECT name, name_skeleton FROM accounts ORDER BY id")).all()
        assert [tuple(row) for row in rows] == [("Ann", "ann"), ("ɑnn", None), ("Bo", "bo")]
        service = Accounts(store.engine, hasher=FAST_HASH)
        holder = service.look_alike("ɑNN")
        assert holder is not None and holder.name == "Ann"
        with pytest.raises(AccountError) as taken:
            service.register("ANN", "four winds and a red dragon")
        assert taken.value.code == "name_taken"
    finally:
        store.close()
