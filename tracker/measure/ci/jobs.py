"""The CI job figures of one as-of date: job health, the jobs that broke and were fixed in the
week, and the parity of mirroring pipelines (tracker.measure.ci.health, ci_parity), read from
the store once. ``tracker ci-health``, the report, the digest and the derived tables
(``v_ci_job_health``, ``v_ci_parity``) all take them from here.

CI collection may stop long before the as-of date (the demo's newest build is 15 weeks older
than its as-of): the health is then that of the newest run, and the week whose changes are
shown is, per CI source, the 7 days ending with its newest run's day, dated as such (``Window``),
never an empty answer.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tracker.measure.ci.health import Change, JobHealth, JobRun, job_health, job_runs, week_changes
from tracker.measure.ci.parity import load_renames, parity_weeks

DEFAULT_BROKEN_NIGHTS = 3
WEEK = timedelta(days=7)


@dataclass(frozen=True)
class Window:
    """One CI source's week of changes: the 7 days before as-of, or, when the source's newest
    run is older than that, the 7 days ending with the newest run's UTC day."""

    source_id: str
    newest: datetime  # the source's newest run
    start: datetime
    end: datetime  # exclusive
    stale: bool  # the newest run is more than a week before as-of

    def age_days(self, as_of: datetime) -> int:
        return max((as_of - self.newest).days, 0)

    @property
    def end_day(self) -> datetime:
        """The window's last day (its end is exclusive)."""
        return self.end - timedelta(microseconds=1)


@dataclass
class CiJobs:
    """CI job health and parity as of one date (plain records; wording is above)."""

    as_of: datetime
    health: list[JobHealth] = field(default_factory=list)
    parity: list[dict] = field(default_factory=list)  # v_ci_parity rows
    windows: dict[str, Window] = field(default_factory=dict)  # per CI source with runs
    broke: list[Change] = field(default_factory=list)  # in their source's window
    fixed: list[Change] = field(default_factory=list)
    threshold: int = DEFAULT_BROKEN_NIGHTS

    @property
    def newest(self) -> datetime | None:
        """The newest run counted, any regime (None: no CI job at all)."""
        return max((w.newest for w in self.windows.values()), default=None)

    @property
    def age_days(self) -> int | None:
        """Whole days from the newest run to the as-of date."""
        return None if self.newest is None else max((self.as_of - self.newest).days, 0)

    def sources_of(self, regime: str) -> list[Window]:
        """The windows of the CI sources with jobs of `regime`."""
        sources = {h.source_id for h in self.health if h.regime == regime}
        return [w for key, w in sorted(self.windows.items()) if key in sources]

    def health_rows(self) -> list[dict]:
        """Rows of the ci_job_health table (the view v_ci_job_health reads them)."""
        return [{**h.row(), "as_of": self.as_of} for h in self.health]

    def parity_rows(self) -> list[dict]:
        """Rows of the ci_parity table (the view v_ci_parity reads them)."""
        return [{**row, "as_of": self.as_of} for row in self.parity]


def broken_nights(config) -> int:
    """The digest's ``ci_broken_nights`` threshold (tracker.config.digest)."""
    return config.digest.ci_broken_nights


def ci_jobs_from_runs(
    runs: list[JobRun], config, as_of: datetime, threshold: int | None = None
) -> CiJobs:
    """The figures from runs already filtered to the headline triggers."""
    threshold = broken_nights(config) if threshold is None else threshold
    out = CiJobs(as_of=as_of, threshold=threshold)
    if not runs:
        return out
    out.health = job_health(runs)
    out.parity = parity_weeks(runs, config.mirrors, load_renames())
    for source in sorted({r.source_id for r in runs}):
        mine = [r for r in runs if r.source_id == source]
        window = window_of(source, max(r.occurred_at for r in mine), as_of)
        out.windows[source] = window
        broke, fixed = week_changes(mine, window.start, window.end, threshold)
        out.broke += broke
        out.fixed += fixed
    return out


def window_of(source_id: str, newest: datetime, as_of: datetime) -> Window:
    """The source's week of changes (see Window)."""
    if newest >= as_of - WEEK:
        return Window(source_id, newest, as_of - WEEK, as_of + timedelta(microseconds=1), False)
    # the end of the newest run's UTC day: that week is the newest the data can speak of
    end = newest.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)
    return Window(source_id, newest, end - WEEK, end, True)


def ci_jobs(config, store, as_of: datetime) -> CiJobs:
    """The CI job figures of `as_of` from the store (jobs concluded by then)."""
    runs = job_runs(store.ci_job_runs(as_of), config.triggers)
    return ci_jobs_from_runs(runs, config, as_of)
