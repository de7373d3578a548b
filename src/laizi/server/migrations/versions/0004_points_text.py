"""Exact fractions of points and match totals as unbounded text (they were ``String(64)``).

A fraction's text has no fixed size (a base of ``5e-324`` once made one longer than 64
characters and PostgreSQL refused the booking); ``Text`` holds any of them on both databases.

Revision ID: 0004_points_text
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_points_text"
down_revision = "0003"
branch_labels = None
depends_on = None

COLUMNS = {
    "standings": ("points",),
    "match_results": ("total", "points_before", "points_after"),
}
NOT_NULL = {"points", "total"}


def upgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(
                    column,
                    type_=sa.Text(),
                    existing_type=sa.String(64),
                    existing_nullable=column not in NOT_NULL,
                )


def downgrade() -> None:
    for table, columns in COLUMNS.items():
        with op.batch_alter_table(table) as batch:
            for column in columns:
                batch.alter_column(
                    column,
                    type_=sa.String(64),
                    existing_type=sa.Text(),
                    existing_nullable=column not in NOT_NULL,
                )
