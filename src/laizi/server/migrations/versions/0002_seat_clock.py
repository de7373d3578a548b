"""Each seat's time bank and auto-play (托管) flags, so a restart resumes them too.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("bank", sa.Float, nullable=True))
        batch.add_column(sa.Column("auto", sa.Boolean, nullable=False, server_default=sa.false()))
        batch.add_column(
            sa.Column("auto_shown", sa.Boolean, nullable=False, server_default=sa.false())
        )


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_column("auto_shown")
        batch.drop_column("auto")
        batch.drop_column("bank")
