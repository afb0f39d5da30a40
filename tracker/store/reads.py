"""The store's read side and tag rows: what the tagger, the metrics and analysts ask of it.

A mixin of `tracker.store.Store` (which owns the engine, the write path, state and locks), kept
apart so each module stays readable. Everything here is either a read or a small write that
is not on the collection path (tags, analyst overrides, lag samples).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, Text, exists, func, select, text, type_coerce

from tracker.config import query_role
from tracker.errors import StoreError
from tracker.events import EVENT_KINDS, now_utc, utc
from tracker.store import weekly
from tracker.store.query import DEFAULT_TIMEOUT, run_query
from tracker.store.tables import (
    ISSUE_NOTE_KINDS,
    ISSUES_AND_NOTES,
    dated,
    events,
    lag_samples,
    lag_trend,
    tag_overrides,
    tags,
    time_bounds,
)

DOCUMENTED_VIEWS = (
    "v_ci_pass_rate_weekly",
    "v_friction_weekly",
    "v_lag_series",
    "v_event_tags",
    "v_lag_trend",
    "v_layer_answer",
    "v_perf_parity",
    "v_perf_training",
    "v_perf_efficiency",
    "v_format_adoption",
    "v_kernel_lag",
    "v_ci_job_health",
    "v_ci_parity",
    "v_ci_test_pass_rate_weekly",
    "v_issue_response",
    "v_issue_response_quarterly",
)
# The columns of Store.coverage_rows, in order (the keys of Store.coverage_events).
COVERAGE_COLUMNS = (
    "id",
    "project",
    "kind",
    "version",
    "occurred_at",
    "url",
    "attrs",
    "mentions",
    "regime",
    "source_id",
)
# How many far-dated events the report lists by id (all are counted).
FAR_DATED_LISTED = 50
# What the tagger reads: CI runs and jobs are measured by their outcome (the pass-rate view),
# not by what their names say.
TAGGED_KINDS = ("release", "note", "issue")


class StoreQueries:
    """Tags, metrics inputs and outputs, analyst queries (mixed into Store)."""

    if TYPE_CHECKING:  # what Store provides to this mixin
        engine: Engine
        dialect: str

        def _connect(self) -> AbstractContextManager[Connection]: ...
        def transaction(self) -> AbstractContextManager[Connection]: ...
        def _insert(self) -> Any: ...

    # -- tags ------------------------------------------------------------------------------
    def untagged_count(self) -> int:
        """How many stored events of TAGGED_KINDS that a figure may read (not far-dated) have
        no tag yet (a tagging run failed or has not run since they were collected): the
        report's friction figures leave them out."""
        count = select(func.count()).select_from(events).where(dated(self.dialect))
        with self._connect() as conn:
            return sum(conn.execute(count.where(*where)).scalar_one() for where in _untagged())

    def events_to_tag(self, retag: bool = False, batch: int = 5000) -> Iterator[dict]:
        """Events needing a tag (all of them with `retag`): id, title, body, labels, section,
        heading, topic, intro (where a release-note item sat: the tagger reads them for the
        status of model mentions), source_regime. TAGGED_KINDS only."""
        columns = select(
            events.c.id,
            events.c.title,
            events.c.body,
            events.c.labels,
            events.c.attrs,
            events.c.regime,
        )
        if retag:
            queries = [columns.where(events.c.kind.in_(TAGGED_KINDS))]
        else:
            queries = [columns.where(*where) for where in _untagged()]
        with self._connect() as conn:
            rows = (
                row
                for query in queries
                for row in conn.execution_options(yield_per=batch).execute(query)
            )
            for row in rows:
                attrs = row.attrs or {}
                yield {
                    "id": row.id,
                    "title": row.title,
                    "body": row.body,
                    "labels": list(row.labels or []),
                    "section": attrs.get("section"),
                    "heading": attrs.get("heading"),
                    "topic": attrs.get("topic"),
                    "intro": attrs.get("intro"),
                    "source_regime": row.regime,
                }

    def save_tags(self, rows: list[dict]) -> None:
        """Upsert tag rows (event_id, tag, score, regime, mentions, tagger_version)."""
        if not rows:
            return
        now = now_utc()
        values = [{**row, "tagged_at": now} for row in rows]
        insert = self._insert()
        stmt = insert(tags)
        stmt = stmt.on_conflict_do_update(
            index_elements=[tags.c.event_id],
            set_={c.name: stmt.excluded[c.name] for c in tags.columns if c.name != "event_id"},
        )
        with self.transaction() as conn:
            for start in range(0, len(values), 5000):
                conn.execute(stmt, values[start : start + 5000])

    def set_override(self, event_id: str, tag: str, regime: str | None = None) -> None:
        """An analyst's class (and regime) for one event, kept across re-tagging."""
        with self.transaction() as conn:
            found = conn.execute(select(events.c.kind).where(events.c.id == event_id)).first()
            if found is None:
                raise StoreError(f"no event with id {event_id!r} (see `tracker export events`)")
            if found.kind not in TAGGED_KINDS:
                raise StoreError(
                    f"event {event_id!r} is a {found.kind}: CI runs and jobs are not "
                    "tagged (they make the CI pass-rate series), so an override "
                    "would show nowhere"
                )
            insert = self._insert()
            stmt = insert(tag_overrides).values(
                event_id=event_id, tag=tag, regime=regime, set_at=now_utc()
            )
            conn.execute(
                stmt.on_conflict_do_update(
                    index_elements=[tag_overrides.c.event_id],
                    set_={"tag": tag, "regime": regime, "set_at": now_utc()},
                )
            )

    def overrides(self) -> list[dict]:
        """Every analyst override with its event and what the tagger said, oldest first (the
        report lists them: a number an analyst changed is shown as such)."""
        query = (
            select(
                events.c.id,
                events.c.source_id,
                events.c.kind,
                events.c.title,
                events.c.url,
                events.c.occurred_at,
                tag_overrides.c.tag,
                tag_overrides.c.regime,
                tag_overrides.c.set_at,
                tags.c.tag.label("tagger_tag"),
                tags.c.regime.label("tagger_regime"),
            )
            .select_from(
                tag_overrides.join(events, events.c.id == tag_overrides.c.event_id).outerjoin(
                    tags, tags.c.event_id == events.c.id
                )
            )
            .order_by(tag_overrides.c.set_at, events.c.id)
        )
        with self._connect() as conn:
            return [dict(row) for row in conn.execute(query).mappings()]

    # -- metrics inputs and outputs --------------------------------------------------------
    def coverage_events(self, projects: Iterable[str]) -> Iterator[dict]:
        """Releases and notes of `projects` with the tagger's mentions (if tagged): the facts
        the lag metric reads, one dict per row (`coverage_rows` gives the same as tuples).

        Keys: id, project, kind, version, occurred_at, url, attrs, mentions, regime (the
        tagger's, else the source's)."""
        for row in self.coverage_rows(projects):
            yield dict(zip(COVERAGE_COLUMNS, row, strict=True))

    def coverage_rows(self, projects: Iterable[str]) -> Iterator[tuple]:
        """The rows of `coverage_events` as tuples in COVERAGE_COLUMNS order: what load_facts
        reads, tens of thousands of rows on a large store. On SQLite the timestamp and the two
        JSON columns arrive as their stored text and are decoded here, once per value, as
        SQLAlchemy's types would decode them (tests/store/test_coverage_rows.py compares):
        their per-value processors cost more than the query. PostgreSQL's driver decodes JSON
        itself, so there the columns keep their types."""
        lean = self.dialect == "sqlite"

        def raw(column: Any) -> Any:
            return type_coerce(column, Text) if lean else column

        query = (
            select(
                events.c.id,
                events.c.project,
                events.c.kind,
                events.c.version,
                raw(events.c.occurred_at),
                events.c.url,
                raw(events.c.attrs),
                raw(tags.c.mentions),
                func.coalesce(tags.c.regime, events.c.regime).label("regime"),
                events.c.source_id,
            )
            .select_from(events.outerjoin(tags, tags.c.event_id == events.c.id))
            .where(
                events.c.project.in_(sorted(set(projects))),
                events.c.kind.in_(("release", "note")),
                dated(self.dialect),
            )
            # A fixed order: of two pieces of evidence with the same time the first read
            # wins, and it must be the same one on SQLite and PostgreSQL.
            .order_by(events.c.occurred_at, events.c.id)
        )
        with self._connect() as conn:
            rows = conn.execution_options(yield_per=5000).execute(query)
            if not lean:
                yield from (tuple(row) for row in rows)
                return
            for id_, project, kind, version, occurred_at, url, attrs, mentions, regime, src in rows:
                yield (
                    id_,
                    project,
                    kind,
                    version,
                    _utc(occurred_at),
                    url,
                    _json(attrs),
                    _json(mentions),
                    regime,
                    src,
                )

    def evidence_rows(self, projects: Iterable[str]) -> list[dict]:
        """Releases, commits and notes of `projects` for the kernel ledger (measure.kernels.lag)
        and an independent benchmark's configurations (measure.facts.benchmark_notes): project,
        kind, version, occurred_at, url, title, body, attrs. A few hundred rows: small
        streams. Far-dated rows are left out (tables.dated)."""
        query = (
            select(
                events.c.source_id,
                events.c.project,
                events.c.kind,
                events.c.version,
                events.c.occurred_at,
                events.c.url,
                events.c.title,
                events.c.body,
                events.c.attrs,
            )
            .where(
                events.c.project.in_(sorted(set(projects))),
                events.c.kind.in_(("release", "commit", "note")),
                dated(self.dialect),
            )
            .order_by(events.c.occurred_at, events.c.id)
        )
        with self._connect() as conn:
            return [dict(r) for r in conn.execute(query).mappings()]

    def replace_lag_samples(self, rows: list[dict]) -> None:
        """Swap in the lag samples of one report run (one transaction: readers see old or new)."""
        with self.transaction() as conn:
            conn.execute(lag_samples.delete())
            if rows:
                conn.execute(lag_samples.insert(), rows)

    def replace_lag_trend(self, rows: list[dict]) -> None:
        """Swap in the lag trends of one report run (one transaction, like the samples)."""
        with self.transaction() as conn:
            conn.execute(lag_trend.delete())
            if rows:
                conn.execute(lag_trend.insert(), rows)

    def view_rows(self, view: str) -> list[dict]:
        """All rows of one of the documented SQL views. The two weekly views are read by day
        and summed into weeks (tracker/store/weekly.py: same rows, ordered by their keys)."""
        if view not in DOCUMENTED_VIEWS:
            raise ValueError(f"not a documented view: {view}")
        with self._connect() as conn:
            if view in weekly.READERS:
                return weekly.READERS[view](conn, self.dialect)
            return [dict(r) for r in conn.exec_driver_sql(f"SELECT * FROM {view}").mappings()]

    def far_dated_events(self, limit: int = FAR_DATED_LISTED) -> dict[str, Any]:
        """Events dated outside the dates tracker computes with (events.EVENT_TIME_START to
        EVENT_TIME_END), which every read feeding a figure leaves out: stored by a version
        before collection and import refused them, or written into the database by hand.
        {"count": how many, "events": the first `limit` by source and id, each with id,
        source_id, kind, external_id and occurred_at as the database spells it (as text: a year
        past 9999 is no Python datetime)}."""
        # Each end its own range search of ix_events_kind_occurred per kind: milliseconds at a
        # million events, where NOT (in range) scans them all (0.5 s). A kind not in
        # EVENT_KINDS, which the Event record refuses, is in no figure either.
        start, end = time_bounds(self.dialect)
        kinds = "kind IN (" + ", ".join(f"'{kind}'" for kind in EVENT_KINDS) + ")"
        far = (
            f"SELECT id FROM events WHERE {kinds} AND occurred_at < {start} UNION ALL "
            f"SELECT id FROM events WHERE {kinds} AND occurred_at >= {end}"
        )
        when = "occurred_at" if self.dialect == "sqlite" else "occurred_at AT TIME ZONE 'UTC'"
        listed = text(
            f"SELECT id, source_id, kind, external_id, CAST({when} AS TEXT) AS occurred_at "
            f"FROM events WHERE id IN ({far}) ORDER BY source_id, id LIMIT :limit"
        )
        with self._connect() as conn:
            count = conn.execute(text(f"SELECT COUNT(*) FROM ({far}) AS far")).scalar_one()
            rows = [dict(r) for r in conn.execute(listed, {"limit": limit}).mappings()]
        return {"count": count, "events": rows}

    # -- analysts --------------------------------------------------------------------------
    def read_only_query(
        self, sql: str, timeout: float = DEFAULT_TIMEOUT, role: str | None = None
    ) -> tuple[list[str], list[tuple]]:
        """Run one read-only statement within `timeout` seconds (0: none); a write is refused,
        never executed. On PostgreSQL a privileged session runs it as `role` (default:
        TRACKER_QUERY_ROLE, else tracker_reader). tracker/store/query.py says how."""
        return run_query(self.engine, sql, timeout, role or query_role())


# The C scanner json.loads runs after its checks: called directly on a stored text, it decodes
# a whole document (one ending where the text ends) to what json.loads gives, for half its cost.
_SCAN = json.scanner.make_scanner(json.JSONDecoder())  # type: ignore[attr-defined]


def _json(value: Any) -> Any:
    """A JSON column's value read from SQLite as the JSON type reads it: its text decoded as
    json.loads decodes it (the engine's deserializer: Store sets none), NULL as None, and a
    number that raw SQL stored in place of text as that number."""
    if not isinstance(value, str):
        return json.loads(value) if isinstance(value, bytes) else value
    try:
        decoded, end = _SCAN(value, 0)
    except StopIteration:  # not JSON at 0 (leading blanks, or invalid): json.loads says which
        return json.loads(value)
    return decoded if end == len(value) else json.loads(value)


def _utc(text: str) -> datetime:
    """A timestamp read from SQLite as tables.UTCDateTime reads it: the stored text is naive
    UTC. Parsed with its offset written in: replace(tzinfo=...) after costs ten times more."""
    try:
        value = datetime.fromisoformat(text + "+00:00")
        if value.tzinfo is UTC:  # not so if "+" was read as the separator of a bare date
            return value
    except ValueError:  # a text with its own offset
        pass
    return utc(datetime.fromisoformat(text))


def _untagged() -> list[tuple]:
    """The WHERE clauses, one query each, of the events the tagger has not tagged yet."""
    # A nightly asks this of every stored event and usually finds none: issues and notes are
    # read by ix_events_tagged_weekly, which holds their ids (its WHERE repeated word for
    # word), not by reading every event's row (seconds at a million events); releases, a few,
    # by kind. NOT EXISTS, not NOT IN: PostgreSQL runs NOT IN (subquery) row by row once the
    # tags outgrow work_mem (67 s at 500k events, growing with the square), NOT EXISTS as an
    # anti-join (41 ms); SQLite answers both from the tags primary key.
    untagged = ~exists().where(tags.c.event_id == events.c.id)
    others = tuple(k for k in TAGGED_KINDS if k not in ISSUE_NOTE_KINDS)
    return [(text(ISSUES_AND_NOTES), untagged), (events.c.kind.in_(others), untagged)]
