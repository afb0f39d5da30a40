"""CI runs by trigger: v_ci_pass_rate_weekly gains source_id and trigger; stored CI events get
attrs.trigger (issue: nightly and per-merge builds were blended into one weekly rate).

The trigger is the upstream's own word for what started a run: Buildkite's build ``source``
(schedule, webhook, api, ui, trigger_job), GitHub Actions' run ``event`` (schedule, push,
pull_request, workflow_dispatch, ...). Collectors now write it into ``attrs.trigger`` of every
``ci_run`` and ``ci_job`` event; ``unknown`` in the view when upstream said nothing.

v_ci_pass_rate_weekly: one row per (project, regime, source_id, trigger, ISO week) with
something counted. Its earlier columns keep their meaning (counts and rates of that row's runs
and jobs); rows are finer, so a reader that wants a (project, regime, week) figure sums the
counts over the rows it chooses. Which triggers make the headline is sources.yaml's per-source
``trigger`` selector, applied by tracker.measure.ci.rates (the view cannot read sources.yaml).

Data: CI events stored before this revision carry the trigger only on runs (Buildkite
``attrs.source``, Actions ``attrs.event``); jobs get their run's, so the history keeps counting.

Revision ID: 0009
Revises: 0008
"""

import importlib.util
from pathlib import Path

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_spec = importlib.util.spec_from_file_location(
    "_ci_view", Path(__file__).with_name("0002_ci_pass_rate_view.py")
)
_ci_view = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ci_view)

VIEW = _ci_view.VIEW
SQLITE_TRIGGER = "COALESCE(json_extract(attrs, '$.trigger'), 'unknown')"
POSTGRES_TRIGGER = "COALESCE(attrs->>'trigger', 'unknown')"


def _view_sql(week: str, real: str, trigger: str) -> str:
    def count(kind: str, outcome: str) -> str:
        return f"SUM(CASE WHEN kind = '{kind}' AND outcome = '{outcome}' THEN 1 ELSE 0 END)"

    return f"""
CREATE VIEW {VIEW} AS
SELECT project, regime, source_id, "trigger", week,
       runs_passed, runs_failed, jobs_passed, jobs_failed,
       CAST(runs_passed AS {real}) / NULLIF(runs_passed + runs_failed, 0) AS run_pass_rate,
       CAST(jobs_passed AS {real}) / NULLIF(jobs_passed + jobs_failed, 0) AS job_pass_rate
FROM (
    SELECT project, regime, source_id, {trigger} AS "trigger", {week} AS week,
           {count("ci_run", "passed")} AS runs_passed,
           {count("ci_run", "failed")} AS runs_failed,
           {count("ci_job", "passed")} AS jobs_passed,
           {count("ci_job", "failed")} AS jobs_failed
    FROM events
    WHERE kind IN ('ci_run', 'ci_job') AND outcome IN ('passed', 'failed')
    GROUP BY project, regime, source_id, {trigger}, {week}
) AS counts
"""


# Runs: the trigger they already kept under another name. Jobs: their run's (Buildkite jobs
# name their build by attrs.build_number, Actions jobs their run by attrs.run_id).
SQLITE_BACKFILL = [
    """
UPDATE events SET attrs = json_set(attrs, '$.trigger',
    COALESCE(json_extract(attrs, '$.source'), json_extract(attrs, '$.event')))
WHERE kind = 'ci_run' AND json_extract(attrs, '$.trigger') IS NULL
  AND COALESCE(json_extract(attrs, '$.source'), json_extract(attrs, '$.event')) IS NOT NULL
""",
    """
UPDATE events SET attrs = json_set(attrs, '$.trigger', (
    SELECT json_extract(r.attrs, '$.trigger') FROM events AS r
    WHERE r.kind = 'ci_run' AND r.source_id = events.source_id
      AND r.external_id = CASE
          WHEN json_extract(events.attrs, '$.build_number') IS NOT NULL
          THEN 'build:' || json_extract(events.attrs, '$.build_number')
          ELSE 'run:' || json_extract(events.attrs, '$.run_id') END))
WHERE kind = 'ci_job' AND json_extract(attrs, '$.trigger') IS NULL
  AND EXISTS (
    SELECT 1 FROM events AS r
    WHERE r.kind = 'ci_run' AND r.source_id = events.source_id
      AND json_extract(r.attrs, '$.trigger') IS NOT NULL
      AND r.external_id = CASE
          WHEN json_extract(events.attrs, '$.build_number') IS NOT NULL
          THEN 'build:' || json_extract(events.attrs, '$.build_number')
          ELSE 'run:' || json_extract(events.attrs, '$.run_id') END)
""",
]
POSTGRES_BACKFILL = [
    """
UPDATE events SET attrs = attrs || jsonb_build_object('trigger',
    COALESCE(attrs->>'source', attrs->>'event'))
WHERE kind = 'ci_run' AND NOT (attrs ? 'trigger')
  AND COALESCE(attrs->>'source', attrs->>'event') IS NOT NULL
""",
    """
UPDATE events AS j SET attrs = j.attrs || jsonb_build_object('trigger', r.attrs->>'trigger')
FROM events AS r
WHERE j.kind = 'ci_job' AND NOT (j.attrs ? 'trigger')
  AND r.kind = 'ci_run' AND r.source_id = j.source_id AND r.attrs ? 'trigger'
  AND r.external_id = CASE
      WHEN j.attrs ? 'build_number' THEN 'build:' || (j.attrs->>'build_number')
      ELSE 'run:' || (j.attrs->>'run_id') END
""",
]


def upgrade() -> None:
    postgres = op.get_bind().dialect.name == "postgresql"
    for statement in POSTGRES_BACKFILL if postgres else SQLITE_BACKFILL:
        op.execute(statement)
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
    if postgres:
        op.execute(_view_sql(_ci_view.POSTGRES_WEEK, "DOUBLE PRECISION", POSTGRES_TRIGGER))
    else:
        op.execute(_view_sql(_ci_view.SQLITE_WEEK, "REAL", SQLITE_TRIGGER))


def downgrade() -> None:
    # The attrs.trigger values stay: they are facts, and the earlier view ignores them.
    op.execute(f"DROP VIEW IF EXISTS {VIEW}")
    _ci_view.upgrade()
