"""Clear http_cache once: earlier versions kept the validators of page 1 of multi-page listings.

An issue listing sorted oldest first adds its new items on its last page while page 1 stays
byte-identical, so a 304 on page 1 hid them for good. `HttpClient.get_pages` now keeps page 1's
validators only when it was the whole listing; the rows written before are dropped here. It is a
cache: the next run reads each endpoint in full once.

Revision ID: 0005
Revises: 0004
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DELETE FROM http_cache")


def downgrade() -> None:
    pass  # nothing to restore: the cache refills on the next run
