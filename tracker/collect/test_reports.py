"""The neutral record of a CI job's test report, whatever published it (docs/methodology.md, CI
pass rate: two units).

A CI job (a Buildkite step, an Actions job: a *test group*) runs many tests. Its report, read
from a dashboard's JSONL files today (tracker.collect.sources.test_report_history) and from a
JUnit XML file of the job tomorrow, becomes one :class:`JobTests` and one ``ci_tests`` event:

- keyed like the job it reports on: pipeline, build number, job name
  (``external_id`` ``tests:<pipeline>:<build>:<job name>``), so it maps onto the ``ci_job``
  events a Buildkite or Actions source collects for the same build (``attrs.builds`` names that
  source);
- counts: ``passed``, ``failed``, ``skipped``, ``errors`` (and ``canceled``, never counted); an
  expected failure (pytest ``xfailed``) is skipped, an unexpected pass (``xpassed``) passed;
- ``failing``: the names of the failing and erroring tests the report names (at most
  FAILING_LIMIT; ``failing_unnamed`` counts the failures it only counted);
- ``job_level``: a job whose report holds no test counts at all (no test output found), only the
  job's own state; it has no test counts, and says so (``attrs.job_level`` = that state).

``outcome``: failed when a test failed or errored, passed when tests passed and none failed, the
job's state (tracker.collect.ci.job_outcome, soft-failed or not) for a job-level report, else None.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from typing import Any

from tracker.collect import ci
from tracker.events import Event

KIND = "ci_tests"
FAILING_LIMIT = 200  # failing test names kept per job report; the rest are counted
NAME_CHARS = 300  # a test or job name longer than this is cut (it is still counted)
COUNTS = ("passed", "failed", "skipped", "errors", "canceled")

# A test status in a report -> the count it adds to (None: a job-level status).
STATUS_COUNT = {
    "passed": "passed",
    "xpassed": "passed",
    "failed": "failed",
    "failure": "failed",
    "error": "errors",
    "errors": "errors",
    "skipped": "skipped",
    "xfailed": "skipped",
    "canceled": "canceled",
    "cancelled": "canceled",
}


@dataclass
class JobTests:
    """The test report of one job of one build (see the module)."""

    pipeline: str
    build: int
    job: str
    day: date  # the build's (nightly) date the report is filed under
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    errors: int = 0
    canceled: int = 0
    failing: list[str] = field(default_factory=list)
    failing_unnamed: int = 0
    job_level: str | None = None  # the job's state, when the report has no test counts

    def add(self, status: str, count: int = 1, name: str | None = None) -> bool:
        """Count `count` tests of `status` (False for a status that is no test status); a named
        failing or erroring test keeps its name."""
        bucket = STATUS_COUNT.get(status)
        if bucket is None or count < 0:
            return False
        setattr(self, bucket, getattr(self, bucket) + count)
        if bucket in ("failed", "errors"):
            if name and len(self.failing) < FAILING_LIMIT:
                self.failing.append(name[:NAME_CHARS])
            else:
                self.failing_unnamed += count
        return True

    @property
    def counted(self) -> int:
        """Tests with a verdict: tests - skipped (and canceled)."""
        return self.passed + self.failed + self.errors

    @property
    def has_tests(self) -> bool:
        return self.counted + self.skipped > 0

    def outcome(self, where: str) -> str | None:
        if self.failed or self.errors:
            return ci.FAILED
        if self.passed:
            return ci.PASSED
        if self.job_level is not None and not self.has_tests:
            return ci.job_outcome(self.job_level, where=where)
        return None


def report_time(day: date) -> datetime:
    """When a report filed under a nightly date counts: that day, 00:00 UTC (its ISO week is
    the week of the build it reports on)."""
    return datetime.combine(day, time(0, 0), tzinfo=UTC)


def report_event(
    report: JobTests,
    *,
    source_id: str,
    project: str,
    regime: str | None,
    url: str,
    updated_at: datetime,
    attrs: dict[str, Any],
) -> Event:
    """The ``ci_tests`` event of one job report (see the module)."""
    where = f"{source_id} {report.pipeline} #{report.build} {report.job}"
    job_level = report.job_level if not report.has_tests else None
    return Event(
        source_id=source_id,
        project=project,
        kind=KIND,
        external_id=f"tests:{report.pipeline}:{report.build}:{report.job}"[:500],
        occurred_at=report_time(report.day),
        title=report.job,
        url=url,
        regime=regime,
        state=job_level or ("tests" if report.has_tests else None),
        outcome=report.outcome(where),
        updated_at=updated_at,
        attrs={
            "pipeline": report.pipeline,
            "build_number": report.build,
            "job": report.job,
            "date": report.day.isoformat(),
            **{name: getattr(report, name) for name in COUNTS},
            "failing": report.failing,
            "failing_unnamed": report.failing_unnamed,
            "job_level": job_level,
            **attrs,
        },
    )
