"""A room's kind (issue 26): ``friendly`` (友人场, made by link), ``casual`` or ``ranked`` (made by
the matchmaker); only a ranked room's match moves strength points, ranks and ratings.  And the
seats a matched room keeps for the people it was made for (``reserved_seats``).

Rooms from before this migration were all made by link, and every one of them booked points
and ratings.  Nothing already booked is touched (``match_results`` and ``standings`` stay as
they are), and no match changes the rule it was played under:

- a room whose match had begun (``playing``) or ended (``over``) becomes ``ranked`` — it books,
  now or when it ends (after a crash, or a booking retried later), exactly as it would have;
- a room whose match had not begun (``waiting``, ``expired``) becomes ``friendly``: whoever
  sits down there now does so under the new rule.

New rows default to ``friendly``: only the matchmaker opens a ranked room.

Revision ID: 0007_room_kind
Revises: 0006_name_skeleton
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_room_kind"
down_revision = "0006_name_skeleton"
branch_labels = None
depends_on = None

BEGUN = ("playing", "over")
"""The statuses of rooms whose match was played under the old rule (booked as ranked)."""


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("kind", sa.String(8), nullable=False, server_default="friendly"))
    rooms = sa.table("rooms", sa.column("status", sa.String()), sa.column("kind", sa.String()))
    op.get_bind().execute(sa.update(rooms).where(rooms.c.status.in_(BEGUN)).values(kind="ranked"))
    op.create_table(
        "reserved_seats",
        sa.Column("room_id", sa.Integer, sa.ForeignKey("rooms.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=True),
        sa.Column("guest_key", sa.String(128), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("reserved_seats")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_column("kind")
