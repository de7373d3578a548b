"""The owner epoch of a cluster (issue 16): each room's current owner epoch, each event's writer.

``rooms.owner_epoch`` is raised by one each time a process of a cluster takes the room over; a
process writes the room's rows only while the stored epoch is still its own (checked under the
row's lock in the same transaction), so an owner that lost its lease can never write again.
``events.epoch`` records which owner wrote each event.  A single process (no ``--redis``) leaves
both at 0.

Revision ID: 0005_cluster
Revises: 0004_points_text
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_cluster"
down_revision = "0005_bot_tokens"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("owner_epoch", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("epoch", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("epoch")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("owner_epoch")
