"""The first schema: rooms, seats, hands and their event logs.

Revision ID: 0001
Revises:
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("code", sa.String(16), nullable=False, unique=True),
        sa.Column("rules", sa.Text, nullable=False),
        sa.Column("table_settings", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "seats",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("kind", sa.String(8), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("token", sa.String(64), nullable=True),
    )
    op.create_table(
        "hands",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("number", sa.Integer, nullable=False),
        sa.Column("dealer", sa.Integer, nullable=False),
        sa.Column("seed", sa.String(64), nullable=False),
        sa.Column("finished", sa.Boolean, nullable=False),
        sa.UniqueConstraint("room_id", "number"),
    )
    op.create_table(
        "events",
        sa.Column("hand_id", sa.Integer, sa.ForeignKey("hands.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
    )
    op.create_index("rooms_status", "rooms", ["status"])


def downgrade() -> None:
    op.drop_index("rooms_status", "rooms")
    for name in ("events", "hands", "seats", "rooms"):
        op.drop_table(name)
