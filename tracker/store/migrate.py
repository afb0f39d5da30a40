"""The store's schema side: upgrade to the newest Alembic migration, and check that a database
is current (quickly, without importing alembic, when the revision history is a plain line).

A mixin of `tracker.store.Store` (which owns the engine and the connections).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from tracker.errors import StoreError
from tracker.store.revisions import linear_head

MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
# The PostgreSQL advisory lock init-db holds while it migrates (a fixed number: "tracker"
# spelled in ASCII, so other applications' locks on the same server are unlikely to collide).
_MIGRATION_LOCK = 0x747261636B6572


class Migrations:
    """Schema upgrade and checks (mixed into Store)."""

    if TYPE_CHECKING:  # what Store provides to this mixin
        url: str

        @property
        def safe_url(self) -> str: ...
        def _connect(self) -> AbstractContextManager[Connection]: ...
        def _sqlite_write_lock(self, conn: Connection) -> None: ...

    # -- schema ----------------------------------------------------------------------------
    def _alembic_config(self, connection: Connection | None = None):
        from alembic.config import Config as AlembicConfig

        cfg = AlembicConfig(str(MIGRATIONS.parent / "alembic.ini"))
        cfg.set_main_option("script_location", str(MIGRATIONS))
        cfg.attributes["url"] = self.url
        if connection is not None:
            cfg.attributes["connection"] = connection
        return cfg

    def init_db(self) -> str:
        """Upgrade the schema to the newest migration; return the revision."""
        from alembic import command
        from alembic.util.exc import CommandError

        with self._connect() as conn:
            # One migration at a time: a second `init-db` waits for the first to commit, then
            # finds the schema current (without this it creates the same tables again and
            # fails, or reads a half-written version table as a newer tracker's).
            if conn.dialect.name == "sqlite":
                self._sqlite_write_lock(conn)  # BEGIN IMMEDIATE, held to the commit below:
                conn.begin()  # alembic then runs every migration in it, committing none
            elif conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _MIGRATION_LOCK})
            try:
                command.upgrade(self._alembic_config(conn), "head")
            except CommandError as exc:  # a revision this code does not know: a newer tracker's
                raise StoreError(
                    f"{self.safe_url}: {exc}: the database was migrated by a newer "
                    "tracker; upgrade tracker instead"
                ) from None
            conn.commit()
        return self.current_revision() or "?"

    def head_revision(self) -> str:
        from alembic.script import ScriptDirectory

        return ScriptDirectory.from_config(self._alembic_config()).get_current_head() or ""

    def current_revision(self) -> str | None:
        from alembic.runtime.migration import MigrationContext

        with self._connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    def _quick_revisions(self) -> tuple[str | None, str] | None:
        """(current, head) without importing alembic (a third of a short command's start-up):
        the version table read with one SELECT, the head found from the revision files' own
        ``revision`` / ``down_revision`` lines. None when that is not plain (no single head, or
        not exactly one row), and the caller asks alembic."""
        head = linear_head(MIGRATIONS / "versions")
        if head is None:
            return None
        with self._connect() as conn:
            if not inspect(conn).has_table("alembic_version"):
                return None, head
            rows = conn.execute(text("SELECT version_num FROM alembic_version")).all()
        if len(rows) > 1:
            return None
        return (rows[0][0] if rows else None), head

    def ensure_current(self) -> None:
        """Raise StoreError unless the schema is at the newest migration."""
        quick = self._quick_revisions()
        current, head = quick if quick else (self.current_revision(), self.head_revision())
        if current != head:
            where = "an empty database" if current is None else f"revision {current}"
            known = current is None or current.isdigit() and int(current) < int(head or 0)
            advice = (
                "run `tracker init-db` first"
                if known
                else "it was migrated by a newer tracker: upgrade tracker"
            )
            raise StoreError(f"{self.safe_url} is {where}, the code expects {head}: {advice}")
