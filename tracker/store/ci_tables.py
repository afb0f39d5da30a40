"""The tables behind CI job health and parity (the views v_ci_job_health and v_ci_parity read
them): per CI source and job, its runs, streak and flips; per mirroring pipeline and ISO week,
the share of its reference's test groups run and passed. Both are rewritten by each report
(tracker.measure.ci.jobs)."""

from __future__ import annotations

from sqlalchemy import Column, Float, Integer, String, Table, Text

from tracker.events import EVENT_TEXT_LIMITS as _LIMIT
from tracker.store.columns import Timestamp, metadata

ci_job_health = Table(
    "ci_job_health",
    metadata,
    Column("source_id", String(_LIMIT["source_id"]), primary_key=True),
    Column("job", Text, primary_key=True, comment="the job's name as upstream shows it"),
    Column("project", String(_LIMIT["project"]), nullable=False),
    Column("regime", String(_LIMIT["regime"]), nullable=False, comment="its newest run's"),
    Column("hardware", String(200), nullable=False, comment="GPU tag of the name, else queue"),
    Column("runs", Integer, nullable=False, comment="builds of the headline trigger it concluded"),
    Column("last_outcome", String(16), nullable=False, comment="passed | failed"),
    Column("streak", Integer, nullable=False, comment="newest runs in a row with last_outcome"),
    Column("failing_since", Timestamp, comment="first run of the current failing streak"),
    Column("last_passed", Timestamp, comment="newest passed run; NULL: never passed"),
    Column("flips", Integer, nullable=False, comment="outcome changes between consecutive runs"),
    Column("first_run", Timestamp, nullable=False),
    Column("last_run", Timestamp, nullable=False),
    Column("last_failed_url", Text, nullable=False, comment="the newest failed run's job"),
    Column("as_of", Timestamp, nullable=False),
    comment="CI job health per source and job name; rewritten by each report",
)

ci_parity = Table(
    "ci_parity",
    metadata,
    Column("source_id", String(_LIMIT["source_id"]), primary_key=True, comment="the mirror"),
    Column("week", String(8), primary_key=True, comment="ISO week of the mirror's nightly"),
    Column("regime", String(_LIMIT["regime"]), nullable=False),
    Column("reference_id", String(_LIMIT["source_id"]), nullable=False),
    Column("reference_regime", String(_LIMIT["regime"]), nullable=False),
    Column("nightlies", Integer, nullable=False, comment="mirror nightlies paired this week"),
    Column("reference_groups", Integer, nullable=False, comment="summed over the nightlies"),
    Column("groups_run", Integer, nullable=False, comment="of those, the mirror ran"),
    Column("groups_passed", Integer, nullable=False, comment="of those, every mirror job passed"),
    Column("run_share", Float, nullable=False),
    Column("pass_share", Float, nullable=False),
    Column("as_of", Timestamp, nullable=False),
    comment="CI parity of a mirroring pipeline per ISO week; rewritten by each report",
)
