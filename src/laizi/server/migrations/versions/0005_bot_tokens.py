"""Bot tokens: an account's keys for its outside bots (the bot protocol's WebSocket, issue 18).

Revision ID: 0005_bot_tokens
Revises: 0004_points_text
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_bot_tokens"
down_revision = "0004_points_text"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "bot_tokens",
        sa.Column("id", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(32), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False, unique=True),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("last_used", sa.Float, nullable=True),
        sa.Column("revoked", sa.Float, nullable=True),
    )
    op.create_index("bot_tokens_account", "bot_tokens", ["account_id"])


def downgrade() -> None:
    op.drop_index("bot_tokens_account", table_name="bot_tokens")
    op.drop_table("bot_tokens")
