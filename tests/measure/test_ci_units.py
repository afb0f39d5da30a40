"""CI pass rate in two units (tracker.measure.ci.tests) on real-shaped job test reports: the
view v_ci_test_pass_rate_weekly on SQLite and PostgreSQL, the weekly rows beside the job rows,
parity at both units and failing tests by name."""

from __future__ import annotations

from datetime import UTC, date, datetime

from tracker.collect.test_reports import JobTests, report_event
from tracker.measure.ci.tests import failing_tests, unit_parity, unit_weeks


def _report(build, job, day, *, passed=0, failed=(), unnamed=0, skipped=0, job_level=None):
    r = JobTests("amd-ci", build, job, day)
    r.add("passed", passed)
    r.add("skipped", skipped)
    r.add("failed", unnamed)
    for name in failed:
        r.add("failed", 1, name)
    r.job_level = job_level
    return r


def _event(r: JobTests, source="vllm-amd-ci-tests", regime="rocm"):
    return report_event(
        r,
        source_id=source,
        project="vllm",
        regime=regime,
        url=f"https://example.invalid/{r.build}",
        updated_at=datetime(2026, 5, 20, tzinfo=UTC),
        attrs={"builds": "vllm-amd-ci"},
    )


# Real shapes of AMD build 8323 (2026-05-08): a group with 17 passed and 7 unnamed failures, a
# group with only a job-level state; a week later the same groups, one test named failing.
REPORTS = [
    _report(8323, "mi250_1: PyTorch Fullgraph", date(2026, 5, 8), passed=17, unnamed=7),
    _report(8323, "mi250_1: Benchmarks", date(2026, 5, 8), job_level="passed"),
    _report(8323, "mi300_1: Kernels", date(2026, 5, 8), passed=980, failed=["k::a"], skipped=40),
    _report(8400, "mi300_1: Kernels", date(2026, 5, 11), passed=981, failed=["k::a"]),
    _report(8401, "mi300_1: Kernels", date(2026, 5, 12), passed=982, failed=["k::a", "k::b"]),
]


def test_weekly_view_sums_tests_and_leaves_skipped_and_job_level_out(store):
    # the same report read twice (a file re-read once it changed) is one row: stable ids
    with store.transaction() as conn:
        store.upsert_events(conn, [_event(r) for r in REPORTS])
    with store.transaction() as conn:
        store.upsert_events(conn, [_event(REPORTS[0])])
    rows = sorted(store.view_rows("v_ci_test_pass_rate_weekly"), key=lambda r: r["week"])
    assert [r["week"] for r in rows] == ["2026-W19", "2026-W20"]
    w19 = rows[0]
    assert (w19["builds"], w19["job_reports"], w19["job_level_only"]) == (1, 3, 1)
    assert (w19["tests_passed"], w19["tests_failed"], w19["tests_skipped"]) == (997, 8, 40)
    assert abs(w19["test_pass_rate"] - 997 / 1005) < 1e-12  # passed / (tests - skipped)
    assert rows[1]["tests_failed"] == 3 and rows[1]["builds"] == 2


def test_both_units_side_by_side_and_parity_at_each():
    jobs = [
        {"project": "vllm", "regime": "rocm", "week": "2026-W19", "jobs_passed": 120,
         "jobs_failed": 81},
        {"project": "vllm", "regime": "cuda", "week": "2026-W19", "jobs_passed": 219,
         "jobs_failed": 16},
    ]  # fmt: skip
    tests = [
        {"project": "vllm", "regime": "rocm", "week": "2026-W19", "tests_passed": 46239,
         "tests_failed": 657, "tests_errors": 14, "tests_skipped": 27488, "builds": 1,
         "job_reports": 201, "job_level_only": 25},
        {"project": "vllm", "regime": "cuda", "week": "2026-W19", "tests_passed": 9980,
         "tests_failed": 20, "tests_errors": 0, "tests_skipped": 10, "builds": 1,
         "job_reports": 235, "job_level_only": 34},
    ]  # fmt: skip
    weeks = unit_weeks(jobs, tests, datetime(2026, 5, 19, tzinfo=UTC))
    rocm = next(w for w in weeks if w["regime"] == "rocm")
    assert abs(rocm["job_rate"] - 120 / 201) < 1e-12
    assert abs(rocm["test_rate"] - 46239 / (46239 + 657 + 14)) < 1e-12
    (row,) = unit_parity(weeks, "cuda")
    assert row["job_rate_gap"] == round((120 / 201 - 219 / 235) * 100, 1)
    assert row["test_rate_gap"] == round((46239 / 46910 - 0.998) * 100, 1)
    # a week starting after as-of is not shown
    assert unit_weeks(jobs, tests, datetime(2026, 5, 3, tzinfo=UTC)) == []


def test_failing_tests_first_and_last_failure_and_streak():
    stored = [
        {
            "source_id": "vllm-amd-ci-tests",
            "project": "vllm",
            "regime": "rocm",
            "job": r.job,
            "occurred_at": datetime.combine(r.day, datetime.min.time(), tzinfo=UTC),
            "url": "",
            "attrs": dict(_event(r).attrs),
        }
        for r in REPORTS
    ]
    found = {(t.job, t.test): t for t in failing_tests(stored)}
    a = found[("mi300_1: Kernels", "k::a")]
    assert (a.first_failed.date(), a.last_failed.date()) == (date(2026, 5, 8), date(2026, 5, 12))
    assert (a.streak, a.failures, a.reports) == (3, 3, 3)
    b = found[("mi300_1: Kernels", "k::b")]
    assert (b.streak, b.failures) == (1, 1)
    assert len(found) == 2  # unnamed failures and job-level reports name no test
