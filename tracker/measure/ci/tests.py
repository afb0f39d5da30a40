"""CI pass rate in two units, per regime and ISO week: jobs (test groups) and tests
(docs/methodology.md, "CI pass rate: two units"), AMD against the reference at both, and the
failing tests by name.

- job pass rate (``job_rate``): passed jobs / jobs passed or failed, the headline triggers'
  rows of ``v_ci_pass_rate_weekly`` (tracker.measure.ci.rates); a soft-failed job is failed.
- test pass rate (``test_rate``): passed tests / (tests - skipped) = passed / (passed + failed +
  errors), summed over the week's job test reports (``v_ci_test_pass_rate_weekly``); a
  soft-failed job's failing tests are failures too. Reports with no test counts (the job's
  state only, ``job_level_only``) count in neither sum of the test rate and are shown beside it.
- ``unit_weeks(job_rows, test_rows, as_of)``: one row per (project, regime, week) with either.
- ``unit_parity(weeks, reference)``: per project, week and regime, both rates beside the
  reference regime's of the same week and the gaps in points.
- ``failing_tests(reports)``: per (source, job, test): first and last failure, failures, the
  streak of newest reports of its job it failed in (0: its job's newest report did not fail it).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from tracker.store.ci_test_reads import TEST_REPORT_VIEW

TEST_COUNTS = ("tests_passed", "tests_failed", "tests_errors", "tests_skipped")
FAILING_SHOWN = 10  # failing tests listed per regime in the report


def _rate(passed: int, counted: int) -> float | None:
    return passed / counted if counted else None


def _week_start(week: str) -> date:
    year, number = week.split("-W")
    return date.fromisocalendar(int(year), int(number), 1)


def unit_weeks(
    job_rows: Iterable[Mapping[str, Any]],
    test_rows: Iterable[Mapping[str, Any]],
    as_of: datetime | None = None,
) -> list[dict[str, Any]]:
    """Both units per (project, regime, week), weeks starting by `as_of` (see the module)."""
    rows: dict[tuple, dict[str, Any]] = {}

    def row(r: Mapping[str, Any]) -> dict[str, Any] | None:
        week = r.get("week")
        if not week or (as_of is not None and _week_start(str(week)) > as_of.date()):
            return None
        key = (r.get("project"), r.get("regime"), str(week))
        return rows.setdefault(
            key,
            {
                "project": key[0],
                "regime": key[1],
                "week": key[2],
                "jobs_passed": 0,
                "jobs_failed": 0,
                **dict.fromkeys(TEST_COUNTS, 0),
                "builds_reported": 0,
                "job_reports": 0,
                "job_level_only": 0,
            },
        )

    for r in job_rows:
        entry = row(r)
        if entry is not None:
            entry["jobs_passed"] += int(r.get("jobs_passed") or 0)
            entry["jobs_failed"] += int(r.get("jobs_failed") or 0)
    for r in test_rows:
        entry = row(r)
        if entry is not None:
            for name in (*TEST_COUNTS, "job_reports", "job_level_only"):
                entry[name] += int(r.get(name) or 0)
            entry["builds_reported"] = max(entry["builds_reported"], int(r.get("builds") or 0))
    out = []
    for key in sorted(rows, key=lambda k: tuple(str(p or "") for p in k)):
        entry = rows[key]
        entry["job_rate"] = _rate(entry["jobs_passed"], entry["jobs_passed"] + entry["jobs_failed"])
        counted = entry["tests_passed"] + entry["tests_failed"] + entry["tests_errors"]
        entry["tests_counted"] = counted
        entry["test_rate"] = _rate(entry["tests_passed"], counted)
        out.append(entry)
    return out


def unit_parity(weeks: Sequence[Mapping[str, Any]], reference: str) -> list[dict[str, Any]]:
    """Per project, week and regime other than `reference`: both rates beside the reference's
    of the same project and week, and the gaps (regime minus reference, in points)."""
    refs = {(w["project"], w["week"]): w for w in weeks if w["regime"] == reference}
    out = []
    for w in weeks:
        ref = refs.get((w["project"], w["week"]))
        if w["regime"] in (reference, "none") or ref is None:
            continue
        row = {"project": w["project"], "regime": w["regime"], "week": w["week"]}
        for unit in ("job_rate", "test_rate"):
            mine, theirs = w[unit], ref[unit]
            row[unit] = mine
            row[f"reference_{unit}"] = theirs
            row[f"{unit}_gap"] = (
                None if mine is None or theirs is None else round((mine - theirs) * 100, 1)
            )
        out.append(row)
    return out


@dataclass(frozen=True)
class FailingTest:
    """One test that failed in a job's report (docs/methodology.md, failing tests)."""

    source_id: str
    project: str
    regime: str
    job: str
    test: str
    failures: int  # reports of its job it failed in
    reports: int  # reports of its job with test counts since its first failure
    first_failed: datetime
    last_failed: datetime
    streak: int  # newest reports of its job in a row it failed in
    url: str  # the newest failing report

    @property
    def failing(self) -> bool:
        return self.streak > 0


def _order(report: Mapping[str, Any]) -> tuple:
    build = report["attrs"].get("build_number")
    return (report["occurred_at"], build if isinstance(build, int) else 0)


def failing_tests(reports: Iterable[Mapping[str, Any]]) -> list[FailingTest]:
    """Every test named failing in a report, per source and job (see the module); reports
    without test counts (job state only) say nothing about a test and are passed over."""
    by_job: dict[tuple[str, str], list[Mapping[str, Any]]] = defaultdict(list)
    for report in reports:
        attrs = report.get("attrs") or {}
        if attrs.get("job_level") is None:
            by_job[(report["source_id"], report["job"])].append(report)
    out: list[FailingTest] = []
    for (source, job), mine in sorted(by_job.items()):
        ordered = sorted(mine, key=_order)
        failed_in: dict[str, list[int]] = defaultdict(list)
        for index, report in enumerate(ordered):
            for name in set(report["attrs"].get("failing") or ()):
                failed_in[str(name)].append(index)
        for test, indexes in sorted(failed_in.items()):
            streak = 0
            for index in range(len(ordered) - 1, -1, -1):
                if streak < len(indexes) and indexes[-1 - streak] == index:
                    streak += 1
                else:
                    break
            last = ordered[indexes[-1]]
            out.append(
                FailingTest(
                    source_id=source,
                    project=last["project"],
                    regime=last.get("regime") or "none",
                    job=job,
                    test=test,
                    failures=len(indexes),
                    reports=len(ordered) - indexes[0],
                    first_failed=ordered[indexes[0]]["occurred_at"],
                    last_failed=last["occurred_at"],
                    streak=streak,
                    url=last.get("url") or "",
                )
            )
    return out


def longest_failing_tests(tests: Iterable[FailingTest], regime: str, limit: int) -> list:
    """The regime's tests failing in their job's newest report, longest streak first."""
    mine = [t for t in tests if t.regime == regime and t.failing]
    mine.sort(key=lambda t: (-t.streak, t.first_failed, t.source_id, t.job, t.test))
    return mine[:limit]


@dataclass
class CiTests:
    """The test-level CI figures of one as-of date (plain records; wording is above)."""

    weeks: list[dict[str, Any]] = field(default_factory=list)  # unit_weeks
    parity: list[dict[str, Any]] = field(default_factory=list)  # unit_parity
    failing: list[FailingTest] = field(default_factory=list)

    def has_tests(self) -> bool:
        return any(w["tests_counted"] for w in self.weeks)


def ci_tests(config, store, as_of: datetime, job_rows: Sequence[Mapping[str, Any]]) -> CiTests:
    """The test-level figures of `as_of` beside the headline job rows already read."""
    weeks = unit_weeks(job_rows, store.view_rows(TEST_REPORT_VIEW), as_of)
    return CiTests(
        weeks=weeks,
        parity=unit_parity(weeks, config.reference_regime),
        failing=failing_tests(store.ci_test_reports(as_of)),
    )
