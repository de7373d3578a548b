"""The cluster's shared secret in the database (issue 30): ``cluster_settings``.

The processes of a cluster show each other a secret on internal requests (``X-Laizi-Cluster``).
It used to be made in Redis: a Redis restarted without its data made the processes started
after it draw a new one, and the old and new processes no longer believed each other.  It is
now drawn once, by whichever process comes first, into this table (one row per cluster, named
by its Redis key prefix), and read from here by every process.

Revision ID: 0008_cluster_secret
Revises: 0007_room_kind
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008_cluster_secret"
down_revision = "0007_room_kind"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "cluster_settings",
        sa.Column("name", sa.String(128), primary_key=True),
        sa.Column("value", sa.String(256), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("cluster_settings")
