"""runs gain snapshot_date and replay: a replayed run remembers the date its cassettes were true.

A replay is a fixed snapshot of upstream; reports and lag computed on a replayed store are as of
that date, not the wall clock (tracker/snapshot.py). Live runs leave both NULL.

Revision ID: 0007
Revises: 0006
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.add_column(
            sa.Column(
                "snapshot_date",
                sa.Date(),
                nullable=True,
                comment="replay: the cassette's snapshot date; live: NULL",
            )
        )
        batch.add_column(
            sa.Column(
                "replay",
                sa.Text(),
                nullable=True,
                comment="replay: the cassette directory; live: NULL",
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("runs") as batch:
        batch.drop_column("replay")
        batch.drop_column("snapshot_date")
