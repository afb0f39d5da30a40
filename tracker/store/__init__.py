"""The store stage: events, tags, source state, runs and locks in one SQL database (SQLite file
or PostgreSQL), through SQLAlchemy Core and Alembic migrations.

Modules: ``tables`` (the schema), ``core`` (engine, migrations, bulk upserts), ``reads`` (what
the tagger, measures and analysts ask), ``state`` (cursors, runs, locks), ``asof`` (the date a
report is computed at), ``exchange`` (JSONL import and export). ``Store`` and ``open_store``
are the entry points every other stage uses.
"""

from tracker.store.core import Store, event_row, open_store
from tracker.store.state import LockTaken, SourceState

__all__ = ["LockTaken", "SourceState", "Store", "event_row", "open_store"]
