"""Accounts, sessions, the account behind each seat, standings and match results.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("name_key", sa.String(128), nullable=False, unique=True),
        sa.Column("password_hash", sa.String(256), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("sessions_account", "sessions", ["account_id"])
    op.create_table(
        "seat_accounts",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
    )
    op.create_table(
        "standings",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("points", sa.String(64), nullable=False),
        sa.Column("points_sort", sa.Float, nullable=False),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("standings_board", "standings", ["game", "points_sort"])
    op.create_table(
        "match_results",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("total", sa.String(64), nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("points_before", sa.String(64), nullable=True),
        sa.Column("points_after", sa.String(64), nullable=True),
        sa.Column("mu_before", sa.Float, nullable=True),
        sa.Column("mu_after", sa.Float, nullable=True),
        sa.Column("sigma_before", sa.Float, nullable=True),
        sa.Column("sigma_after", sa.Float, nullable=True),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("match_results_account", "match_results", ["account_id", "finished"])


def downgrade() -> None:
    op.drop_index("match_results_account", "match_results")
    op.drop_index("standings_board", "standings")
    op.drop_index("sessions_account", "sessions")
    for name in ("match_results", "standings", "seat_accounts", "sessions", "accounts"):
        op.drop_table(name)
