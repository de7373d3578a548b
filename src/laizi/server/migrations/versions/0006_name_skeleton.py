"""Accounts' look-alike keys (issue 24): ``accounts.name_skeleton``, unique, filled in.

Each account gets :func:`laizi.server.names.name_skeleton` of its name (the Unicode TR39
skeleton with case folded), oldest account first.  An account whose name already looked like an
older account's keeps an empty key: the older one holds it, and no new name can take it.

Revision ID: 0006_name_skeleton
Revises: 0005_cluster
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from laizi.server.names import name_skeleton

revision = "0006_name_skeleton"
down_revision = "0005_cluster"
branch_labels = None
depends_on = None

SKELETON_LENGTH = 512


def upgrade() -> None:
    with op.batch_alter_table("accounts") as batch:
        batch.add_column(sa.Column("name_skeleton", sa.String(SKELETON_LENGTH), nullable=True))
    accounts = sa.table(
        "accounts",
        sa.column("id", sa.Integer()),
        sa.column("name", sa.String()),
        sa.column("name_skeleton", sa.String()),
    )
    bind = op.get_bind()
    held: set[str] = set()
    rows = bind.execute(sa.select(accounts.c.id, accounts.c.name).order_by(accounts.c.id)).all()
    for account_id, name in rows:
        key = name_skeleton(name)
        if key in held or len(key) > SKELETON_LENGTH:
            continue
        held.add(key)
        bind.execute(
            sa.update(accounts).where(accounts.c.id == account_id).values(name_skeleton=key)
        )
    op.create_index("accounts_name_skeleton", "accounts", ["name_skeleton"], unique=True)


def downgrade() -> None:
    op.drop_index("accounts_name_skeleton", table_name="accounts")
    with op.batch_alter_table("accounts") as batch:
        batch.drop_column("name_skeleton")
