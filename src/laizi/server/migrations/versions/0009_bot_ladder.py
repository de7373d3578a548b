"""The bot ladder (issue 28 item 3): a ladder table's seats are kept for bot tokens
(``reserved_seats.bot_token_id``), each bot's OpenSkill rating per game (``bot_ratings``) and
each seat of each booked ladder match (``ladder_results``).  Nothing existing changes: no room
had a ladder seat before, and no person's standing is touched.

Revision ID: 0009_bot_ladder
Revises: 0008_cluster_secret
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_bot_ladder"
down_revision = "0008_cluster_secret"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("reserved_seats") as batch:
        batch.add_column(sa.Column("bot_token_id", sa.Integer, nullable=True))
        batch.create_foreign_key("reserved_seats_bot_token", "bot_tokens", ["bot_token_id"], ["id"])
    op.create_table(
        "bot_ratings",
        sa.Column("token_id", sa.Integer, sa.ForeignKey("bot_tokens.id"), primary_key=True),
        sa.Column("game", sa.String(16), primary_key=True),
        sa.Column("mu", sa.Float, nullable=False),
        sa.Column("sigma", sa.Float, nullable=False),
        sa.Column("ordinal", sa.Float, nullable=False),
        sa.Column("matches", sa.Integer, nullable=False),
        sa.Column("updated", sa.Float, nullable=False),
    )
    op.create_index("bot_ratings_board", "bot_ratings", ["game", "ordinal"])
    op.create_table(
        "ladder_results",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("token_id", sa.Integer, sa.ForeignKey("bot_tokens.id"), nullable=False),
        sa.Column("game", sa.String(16), nullable=False),
        sa.Column("total", sa.Text, nullable=False),
        sa.Column("place", sa.Integer, nullable=False),
        sa.Column("mu_before", sa.Float, nullable=False),
        sa.Column("mu_after", sa.Float, nullable=False),
        sa.Column("sigma_before", sa.Float, nullable=False),
        sa.Column("sigma_after", sa.Float, nullable=False),
        sa.Column("hands", sa.Integer, nullable=False),
        sa.Column("finished", sa.Float, nullable=False),
    )
    op.create_index("ladder_results_token", "ladder_results", ["token_id", "finished"])


def downgrade() -> None:
    op.drop_index("ladder_results_token", table_name="ladder_results")
    op.drop_table("ladder_results")
    op.drop_index("bot_ratings_board", table_name="bot_ratings")
    op.drop_table("bot_ratings")
    with op.batch_alter_table("reserved_seats") as batch:
        batch.drop_constraint("reserved_seats_bot_token", type_="foreignkey")
        batch.drop_column("bot_token_id")
