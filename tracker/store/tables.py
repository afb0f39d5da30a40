"""SQLAlchemy tables (Core), on a naming convention so Alembic migrations stay stable.

The store writes through Core statements (bulk upserts, no per-row ORM objects): it must never be
the slow side of a backfill.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    Boolean,
    Column,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    case,
    text,
)
from sqlalchemy.sql.elements import ColumnElement, TextClause

from tracker.events import EVENT_TEXT_LIMITS as _LIMIT
from tracker.events import EVENT_TIME_END, EVENT_TIME_START

# re-exported: the store's modules and the migrations read them from here
from tracker.store.columns import Json, Timestamp, UTCDateTime, metadata  # noqa: F401

KIND_COMMENT = (
    "release | note | issue | ci_run | ci_job | result | comment | training_result | ci_tests"
)

events = Table(
    "events",
    metadata,
    Column("id", String(32), primary_key=True, comment="hash of (source_id, external_id)"),
    Column("source_id", String(_LIMIT["source_id"]), nullable=False),
    Column("project", String(_LIMIT["project"]), nullable=False),
    Column("kind", String(16), nullable=False, comment=KIND_COMMENT),
    Column("external_id", String(_LIMIT["external_id"]), nullable=False),
    Column("occurred_at", Timestamp, nullable=False, comment="UTC time of the fact"),
    Column("title", Text, nullable=False),
    Column("body", Text, nullable=False, default=""),
    Column("url", Text, nullable=False, default="", comment="provenance"),
    Column("version", String(_LIMIT["version"])),
    Column(
        "regime", String(_LIMIT["regime"]), comment="from the source; NULL = the tagger decides"
    ),
    Column("labels", Json, nullable=False, default=list),
    Column("state", String(_LIMIT["state"]), comment="issue state or raw CI state / conclusion"),
    Column(
        "outcome", String(_LIMIT["outcome"]), comment="CI: passed | failed | NULL (not counted)"
    ),
    Column("ended_at", Timestamp, comment="issue closed / CI run finished"),
    Column("updated_at", Timestamp),
    Column("attrs", Json, nullable=False, default=dict),
    Column("first_seen_at", Timestamp, nullable=False, comment="kept across re-collection"),
    Column("last_seen_at", Timestamp, nullable=False),
    Column("vanished_at", Timestamp, comment="set when the item disappeared upstream"),
    Column(
        "imported",
        Boolean,
        nullable=False,
        default=False,
        comment="manual evidence from import-events",
    ),
)
Index("ix_events_source_occurred", events.c.source_id, events.c.occurred_at)
Index("ix_events_project_kind_occurred", events.c.project, events.c.kind, events.c.occurred_at)
Index("ix_events_kind_occurred", events.c.kind, events.c.occurred_at)
# The two weekly reads run from these alone (tracker/store/weekly.py; migrations/versions/0010):
# partial, so each holds only the kinds its read counts. A query repeats an index's WHERE word
# for word to use it on SQLite (the planner matches a partial index's WHERE by its terms; a bound
# parameter matches nothing): these strings are the one spelling of both.
ISSUE_NOTE_KINDS = ("issue", "note")
CI_EVENTS = "kind IN ('ci_run', 'ci_job')"
ISSUES_AND_NOTES = "kind IN (" + ", ".join(f"'{kind}'" for kind in ISSUE_NOTE_KINDS) + ")"


def time_bounds(dialect: str) -> tuple[str, str]:
    """events.EVENT_TIME_START and EVENT_TIME_END as SQL literals to compare `occurred_at`
    with. On SQLite the stored text is compared with bare dates, which order before any time of
    their day whatever its spelling ("T" or " ", fractions or none)."""
    if dialect == "sqlite":
        return f"'{EVENT_TIME_START:%Y-%m-%d}'", f"'{EVENT_TIME_END:%Y-%m-%d}'"
    start, end = (f"'{t:%Y-%m-%d %H:%M:%S+00}'" for t in (EVENT_TIME_START, EVENT_TIME_END))
    return f"TIMESTAMPTZ {start}", f"TIMESTAMPTZ {end}"


def computable(dialect: str, column: str = "occurred_at") -> str:
    """SQL true for rows whose `column` is one of the dates tracker computes with
    (events.EVENT_TIME_START to EVENT_TIME_END): every read that feeds a figure has it, so a
    far date stored by an older version or by hand is left out of all of them alike."""
    start, end = time_bounds(dialect)
    return f"{column} >= {start} AND {column} < {end}"


def dated(dialect: str, table: str = "events") -> TextClause:
    """`computable` on `table`.occurred_at as a WHERE clause: the condition every read of events
    that feeds a figure has (the far-dated rows it leaves out are listed by
    Store.far_dated_events; beside it, store.time_order.in_order for contradicting times)."""
    return text(computable(dialect, f"{table}.occurred_at"))


def ids_in(dialect: str, column: str, param: str = "ids") -> str:
    """SQL true for rows whose `column` is one of the ids bound as `param` (ids_param)."""
    if dialect == "sqlite":
        return f"{column} IN (SELECT value FROM json_each(:{param}))"
    return f"{column} = ANY(CAST(:{param} AS VARCHAR[]))"


def ids_param(dialect: str, ids: Sequence[str]) -> Any:
    """`ids` bound for ids_in: one parameter whatever their number."""
    return json.dumps(list(ids)) if dialect == "sqlite" else list(ids)


def known_time(dialect: str, column: Column) -> ColumnElement:
    """`column` (ended_at, updated_at) where it is a computable date, else NULL: a far date in
    a secondary timestamp, written by hand past clean_event, is read as unknown (each figure
    already says what an unknown closing or build time means) instead of breaking the
    arithmetic."""
    return case((text(computable(dialect, f"{column.table.name}.{column.name}")), column))


# info["dialects"]: created there only (migrations/env.py leaves it out of the drift check
# elsewhere).
Index(
    "ix_events_ci_weekly",
    *(events.c[name] for name in ("kind", "outcome", "project", "regime", "source_id")),
    events.c.occurred_at,
    events.c.ended_at,  # store.time_order.in_order: a run that ended before it began is not read
    events.c.attrs,  # the trigger's JSON: SQLite 3.40 covers no expression index
    sqlite_where=text(CI_EVENTS),
    # Not on PostgreSQL: a btree entry there holds at most about 2.7 kB, and attrs is unbounded.
    info={"dialects": ("sqlite",)},
)
Index(
    "ix_events_tagged_weekly",
    *(events.c[name] for name in ("kind", "vanished_at", "id", "regime", "occurred_at")),
    sqlite_where=text(ISSUES_AND_NOTES),
    postgresql_where=text(ISSUES_AND_NOTES),
)

tags = Table(
    "tags",
    metadata,
    Column("event_id", String(32), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(16), nullable=False, comment="friction | optimization | neutral"),
    Column("score", Float, nullable=False),
    Column("regime", String(32), nullable=False),
    Column("mentions", Json, nullable=False, default=list),
    Column("tagger_version", String(50), nullable=False),
    Column("tagged_at", Timestamp, nullable=False),
    # SQLite: clustered on event_id, so the friction read's look-up by event id ends at the row.
    sqlite_with_rowid=False,
)

tag_overrides = Table(
    "tag_overrides",
    metadata,
    Column("event_id", String(32), ForeignKey("events.id", ondelete="CASCADE"), primary_key=True),
    Column("tag", String(16), nullable=False),
    Column("regime", String(32)),
    Column("set_at", Timestamp, nullable=False),
)

source_state = Table(
    "source_state",
    metadata,
    Column("source_id", String(200), primary_key=True),
    Column("cursor", Timestamp, comment="max event time saved, never past a run's start"),
    Column("state", Json, nullable=False, default=dict, comment="the collector's own state"),
    Column("last_run_at", Timestamp),
    Column("last_success_at", Timestamp),
    Column("last_status", String(16)),
    Column("last_error", Text),
    Column("requests", Integer, nullable=False, default=0),
    Column("not_modified", Integer, nullable=False, default=0),
    Column("rate_remaining", Integer),
)

http_cache = Table(
    "http_cache",
    metadata,
    Column("source_id", String(200), primary_key=True),
    Column("url", Text, primary_key=True),
    Column("etag", Text),
    Column("last_modified", Text),
    Column("updated_at", Timestamp, nullable=False),
)

runs = Table(
    "runs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("batch", String(40), nullable=False, comment="one collect / nightly invocation"),
    Column("source_id", String(200), nullable=False),
    Column("started_at", Timestamp, nullable=False),
    Column("finished_at", Timestamp),
    Column("status", String(16), nullable=False, comment="ok | failed | partial | skipped"),
    Column("events_seen", Integer, nullable=False, default=0),
    Column("events_new", Integer, nullable=False, default=0),
    Column("items_skipped", Integer, nullable=False, default=0),
    Column("requests", Integer, nullable=False, default=0),
    Column("not_modified", Integer, nullable=False, default=0),
    Column("rate_remaining", Integer),
    Column("error", Text),
    Column("snapshot_date", Date, comment="replay: the cassette's snapshot date; live: NULL"),
    Column("replay", Text, comment="replay: the cassette directory; live: NULL"),
)
Index("ix_runs_source_started", runs.c.source_id, runs.c.started_at)

locks = Table(
    "locks",
    metadata,
    Column("name", String(200), primary_key=True),
    Column("holder", String(200), nullable=False),
    Column("acquired_at", Timestamp, nullable=False),
    Column("expires_at", Timestamp, nullable=False),
)

lag_samples = Table(
    "lag_samples",
    metadata,
    Column("project", String(100), primary_key=True),
    Column("series", String(50), primary_key=True),
    Column("regime", String(32), primary_key=True),
    Column("definition", String(100), primary_key=True),
    Column("is_primary", Boolean, nullable=False),
    Column("day0", Timestamp, nullable=False),
    Column("day0_url", Text, nullable=False),
    Column("available", Timestamp),
    Column(
        "lag_days", Integer, nullable=False, comment="open rows: observed_through - day0 (censored)"
    ),
    Column("status", String(16), nullable=False, comment="covered | open"),
    Column("negative", Boolean, nullable=False, comment="available before day 0: check it"),
    Column("evidence_url", Text, nullable=False),
    Column("as_of", Timestamp, nullable=False),
    Column("artifact", String(16), nullable=False, comment="framework | model"),
    Column(
        "day0_definition",
        String(32),
        primary_key=True,
        comment="upstream_release (frameworks); vllm_cuda | public_weights (models)",
    ),
    Column(
        "observed_through",
        Timestamp,
        comment="how far the definition's evidence was looked at; NULL: reference rows",
    ),
    Column(
        "covered_by",
        String(50),
        nullable=False,
        server_default="",
        comment="the newer series whose evidence covers this one; empty: its own",
    ),
    Column(
        "channel",
        String(100),
        nullable=False,
        server_default="",
        comment="earliest-build rows: the channel whose evidence came first",
    ),
    Column(
        "evidence_kind",
        String(32),
        nullable=False,
        server_default="",
        comment="covered rows: the kind of record that dated it",
    ),  # fmt: skip
    comment="day-0 coverage lag per artifact, regime and definition; rewritten by each report",
)

lag_trend = Table(
    "lag_trend",
    metadata,
    Column("artifact_group", String(100), primary_key=True, comment="a project, or 'all projects'"),
    Column("regime", String(32), primary_key=True),
    Column("definition", String(100), primary_key=True, comment="'primary' on pooled rows"),
    Column("artifacts", Integer, nullable=False),
    Column("open", Integer, nullable=False, comment="open (censored) artifacts, counted"),
    Column("slope_low", Float, comment="days of lag per year of day 0: bracket low end"),
    Column("slope_high", Float, comment="bracket high end; +Infinity: unbounded (open artifacts)"),
    Column("ci_low", Float, comment="90% interval of the slope, low end"),
    Column("ci_high", Float, comment="90% interval of the slope, high end"),
    Column("verdict", String(32), nullable=False),
    Column("min_artifacts", Integer, nullable=False, comment="fewer: 'too few artifacts'"),
    Column("recent_median", Float, comment="KM median lag, day 0 in the last 12 months"),
    Column(
        "recent_at_least",
        Float,
        comment="median not reached: the recent median is at least this (days)",
    ),
    Column("recent_artifacts", Integer, nullable=False),
    Column("recent_open", Integer, nullable=False),
    Column("prior_median", Float, comment="KM median lag, day 0 in the 12 months before"),
    Column("prior_artifacts", Integer, nullable=False),
    Column("prior_open", Integer, nullable=False),
    Column("as_of", Timestamp, nullable=False),
    Column("not_observed", Integer, comment="left out as unknown (framework and pooled rows)"),
    Column("recent_not_observed", Integer, comment="... of them, day 0 in the last 12 months"),
    Column(
        "layer",
        String(32),
        comment="the layer whose pooled row this is (tracker.names.LAYERS); else null",
    ),
    comment=(
        "is the lag gap closing? per artifact group, regime, definition; rewritten by each report"
    ),
)

perf_parity = Table(
    "perf_parity",
    metadata,
    Column("round", String(32), primary_key=True, comment="MLPerf Inference round, e.g. v5.1"),
    Column("round_date", Timestamp, nullable=False, comment="the round's publication date"),
    Column("benchmark", String(100), primary_key=True, comment="MLPerf Model, e.g. llama2-70b-99"),
    Column("scenario", String(32), primary_key=True),
    Column("units", String(32), primary_key=True, comment="Tokens/s | Samples/s | Queries/s"),
    Column("regime", String(32), primary_key=True),
    Column(
        "per_accelerator",
        Float,
        nullable=False,
        comment="derived: result / accelerators (not an MLCommons metric)",
    ),
    Column("result", Float, nullable=False, comment="the system's published result"),
    Column("accelerators", Float, nullable=False, comment="Total Accelerators, else a# x Nodes"),
    Column("accelerator", Text, nullable=False),
    Column("submitter", Text, nullable=False),
    Column("software", Text, nullable=False),
    Column("weight_data_types", Text, nullable=False),
    Column("evidence_url", Text, nullable=False, comment="the result's folder in the round's repo"),
    Column(
        "ratio_to_best_cuda", Float, comment="per_accelerator / the best cuda one; the headline"
    ),
    Column("best_cuda_accelerator", Text),
    Column("peer_accelerator", Text, comment="same-generation NVIDIA part (peer_parts.yaml)"),
    Column("ratio_to_peer", Float, comment="per_accelerator / the best result of the peer part"),
    Column("as_of", Timestamp, nullable=False),
    comment=(
        "each regime's best MLPerf Inference result per accelerator; rewritten by each report"
    ),
)

issue_response = Table(
    "issue_response",
    metadata,
    Column("source_id", String(_LIMIT["source_id"]), primary_key=True),
    Column("number", Integer, primary_key=True),
    Column("project", String(_LIMIT["project"]), nullable=False),
    Column("regime", String(_LIMIT["regime"]), nullable=False),
    Column("url", Text, nullable=False),
    Column("created_at", Timestamp, nullable=False),
    Column(
        "first_response_at", Timestamp, comment="earliest comment by neither the author nor a bot"
    ),
    Column("responder_association", String(32), comment="GitHub author_association, if given"),
    Column("closed_at", Timestamp, comment="only when closed at or before as_of"),
    Column("close_reason", String(16), comment="completed | not_planned"),
    Column("hours_to_first_response", Float, comment="NULL: unanswered"),
    Column("status", String(16), nullable=False, comment="answered | unanswered"),
    Column("as_of", Timestamp, nullable=False),
    comment="each issue's first response as of the newest report; rewritten by each report",
)

issue_response_quarterly = Table(
    "issue_response_quarterly",
    metadata,
    Column("project", String(_LIMIT["project"]), primary_key=True),
    Column("regime", String(_LIMIT["regime"]), primary_key=True),
    Column("quarter", String(8), primary_key=True, comment="of the issues' creation"),
    Column("issues", Integer, nullable=False),
    Column("answered", Integer, nullable=False),
    Column("median_hours", Float, comment="Kaplan-Meier, to first response"),
    Column("p90_hours", Float, comment="Kaplan-Meier 90th percentile"),
    Column("median_days_to_close", Float, comment="Kaplan-Meier, closed completed"),
    Column("median_days_to_not_planned", Float, comment="Kaplan-Meier, closed not planned"),
    Column("baseline_median_hours", Float, comment="the project's cuda issues, same quarter"),
    Column("ratio_to_baseline", Float),
    Column("as_of", Timestamp, nullable=False),
    comment="time to first response per project, regime and quarter; rewritten by each report",
)

from tracker.store.ci_tables import ci_job_health, ci_parity  # noqa: E402, F401  (one metadata)
from tracker.store.derived_tables import (  # noqa: E402, F401  (one metadata)
    build_anchors,
    comment_issues,
    text_anchors,
    time_contradictions,
)
from tracker.store.perf_tables import perf_training  # noqa: E402, F401  (one metadata)
