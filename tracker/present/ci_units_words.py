"""CI pass rates in their two units as the report, the digest and ``tracker ci-health`` word
them (tracker.measure.ci.tests): every figure names its unit, jobs (test groups) or tests."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tracker.measure.ci.tests import FAILING_SHOWN, CiTests, longest_failing_tests
from tracker.present import palette
from tracker.present.formats import http_only, percent, printable

JOBS = "jobs (test groups)"
TESTS = "tests"
# Why the two units differ, and which one a published claim uses (the report's two lines).
WHY = (
    "A job (a Buildkite step, one test group) fails when any of its hundreds of tests fails, "
    "so a few failing tests in many groups pull the job rate far below the test rate.",
    'Published claims mix them: "93% of vLLM test groups passing on AMD" (AMD ROCm blog, '
    '2026-01-21), repeated as "93% of vLLM\'s tests", is a job-level figure.',
)
HANDLING = (
    "Soft-failed jobs count as failed at both units (soft_fail only keeps the build green; their "
    "failing tests are failures). A job whose report has no test counts (no test output found, "
    "only the job's state) counts in the job rate and not in the test rate; the table gives "
    "how many there were. Test rate = passed / (tests - skipped); expected failures (xfailed) "
    "are skipped."
)


def job_label(rate: float | None, passed: int, counted: int) -> str:
    """'74.1% of jobs (test groups), 1,234/1,666'; '-' when nothing counted."""
    if not counted:
        return "-"
    return f"{percent(rate)} of {JOBS}, {passed:,}/{counted:,}"


def test_label(rate: float | None, passed: int, counted: int) -> str:
    """'98.4% of tests, 296,996/301,769'; '-' when no test had a verdict."""
    if not counted:
        return "-"
    return f"{percent(rate)} of {TESTS}, {passed:,}/{counted:,}"


def reports_label(without_counts: int, reports: int) -> str:
    """'34 of 119 job reports': the reports without test counts, out of the week's job test
    reports (not of the jobs the job rate counts, which come from the runs themselves)."""
    return f"{without_counts:,} of {reports:,} job reports"


def week_row(w: dict[str, Any]) -> dict[str, Any]:
    jobs = w["jobs_passed"] + w["jobs_failed"]
    return {
        **w,
        "jobs": job_label(w["job_rate"], w["jobs_passed"], jobs),
        "tests": test_label(w["test_rate"], w["tests_passed"], w["tests_counted"]),
    }


def _projects(ci: CiTests) -> list[str]:
    return sorted({w["project"] for w in ci.weeks if w["job_reports"]})


def unit_blocks(ci: CiTests, regimes: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per project with test reports and regime: its weeks in both units, its parity rows and
    its longest-failing tests."""
    blocks = []
    for project in _projects(ci):
        mine = [w for w in ci.weeks if w["project"] == project]
        order = regimes if regimes is not None else palette.ordered({w["regime"] for w in mine})
        for regime in order:
            weeks = [week_row(w) for w in mine if w["regime"] == regime]
            if not weeks:
                continue
            blocks.append(
                {
                    "project": project,
                    "regime": regime,
                    "name": palette.name(regime) if regime != "none" else "No GPU regime",
                    "weeks": weeks,
                    "parity": [
                        p for p in ci.parity if p["project"] == project and p["regime"] == regime
                    ],
                    "failing": [
                        {
                            "job": printable(t.job),  # a newline, U+200B: seen, not acted on
                            "test": printable(t.test),
                            "source_id": t.source_id,
                            "first": t.first_failed.date().isoformat(),
                            "last": t.last_failed.date().isoformat(),
                            "streak": t.streak,
                            "failures": t.failures,
                            "reports": t.reports,
                            "url": http_only(t.url),
                        }
                        for t in longest_failing_tests(
                            [t for t in ci.failing if t.project == project], regime, FAILING_SHOWN
                        )
                    ],
                }
            )
    return blocks


def newest_line(ci: CiTests, project: str, regime: str, week: str | None = None) -> str | None:
    """'2026-W20: 74.1% of jobs (test groups), 1,234/1,666; 98.4% of tests, ...' for the
    newest week (or `week`) with both units; None without one."""
    rows = [
        w
        for w in ci.weeks
        if w["project"] == project
        and w["regime"] == regime
        and (week is None or w["week"] <= week)
        and w["tests_counted"]
        and w["jobs_passed"] + w["jobs_failed"]
    ]
    if not rows:
        return None
    w = week_row(max(rows, key=lambda r: r["week"]))
    return f"{w['week']}: {w['jobs']}; {w['tests']}"


def week_label(when) -> str:
    """'2026-W20' of a date or datetime."""
    year, week, _ = when.isocalendar()
    return f"{year}-W{week:02d}"


def digest_lines(ci: CiTests, regimes: Sequence[str], week: str) -> list[str]:
    """One line per project and regime with both units: the newest week up to the digest's."""
    lines = []
    for project in _projects(ci):
        for regime in regimes:
            line = newest_line(ci, project, regime, week)
            if line is not None:
                lines.append(f"{project} CI, {palette.name(regime)}, {line}")
    return lines


UNIT_COLUMNS = (
    "project",
    "regime",
    "week",
    "jobs_passed",
    "jobs_failed",
    "job_rate",
    "tests_passed",
    "tests_failed",
    "tests_errors",
    "tests_skipped",
    "tests_counted",
    "test_rate",
    "builds_reported",
    "job_reports",
    "job_level_only",
)


def report_fields(ci: CiTests, reference: str) -> dict[str, Any]:
    """What the report's CI section shows of both units (template variables)."""
    blocks = unit_blocks(ci)
    newest = []
    for b in blocks:
        line = newest_line(ci, b["project"], b["regime"])
        if line is not None:
            newest.append(f"{b['project']}, {b['name']}, newest week with both units, {line}.")
    return {
        "ci_units": blocks,
        "ci_units_newest": newest,
        "ci_why": WHY,
        "ci_handling": HANDLING,
        "ci_reference": palette.name(reference),
    }
