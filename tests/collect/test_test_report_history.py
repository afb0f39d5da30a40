"""test_report_history: a dashboard's published CI test reports, read through git history, ->
one ci_tests event per job and build.

The parser runs on the real dashboard files of the corpus (read in place, skipped without
TRACKER_CORPUS); the shipped cassette (cassettes/vllm-amd-ci-tests.yaml: the real history,
trimmed as its header says) is replayed through the real HTTP client; hostile rows and the
commit choice are checked on small inline inputs.
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, test_report_history
from tracker.collect.test_reports import JobTests

REPO = Path(__file__).resolve().parents[2]
NIGHTLY = "vllm-ci/vllm-ci-dashboard@2d34517/test_results"


def _reports(corpus: Path, name: str, pipeline: str) -> tuple[list[JobTests], list]:
    skips: list = []
    text = (corpus / NIGHTLY / name).read_text(encoding="utf-8")
    day = test_report_history.file_day(name)
    assert day is not None
    reports = test_report_history.parse_reports(text, pipeline, day, lambda *a: skips.append(a))
    return reports, skips


def test_real_amd_nightly_counts_tests_per_job(corpus):
    """AMD build 8323 (2026-05-08): every row read; the counts are the aggregate rows' sums."""
    reports, skips = _reports(corpus, "2026-05-08_amd.jsonl", "amd-ci")
    assert skips == []
    assert {r.build for r in reports} == {8323}
    fullgraph = next(r for r in reports if r.job == "mi250_1: PyTorch Fullgraph")
    # "__passed__ (17)" and "__unidentified_failures__ (7)" in the real file
    assert (fullgraph.passed, fullgraph.failed, fullgraph.failing_unnamed) == (17, 7, 7)
    benchmarks = next(r for r in reports if r.job == "mi250_1: Benchmarks")
    assert benchmarks.job_level == "passed" and not benchmarks.has_tests
    rows = [json.loads(line) for line in (corpus / NIGHTLY / "2026-05-08_amd.jsonl").open()]
    jobs = {r["job_name"] for r in rows}
    assert len(reports) == len(jobs)
    passed = sum(r.passed for r in reports)
    assert passed == sum(
        int(r["name"].split("(")[1].rstrip(")")) for r in rows if r["name"].startswith("__passed__")
    )
    counted = sum(r.counted for r in reports)
    assert 0.95 < passed / counted < 1.0  # a test-level rate, far above the job-level one
    failed_jobs = sum(r.outcome("t") == "failed" for r in reports)
    assert failed_jobs > 60  # 81 of the build's 200 jobs failed or timed out


def test_real_upstream_nightly_keeps_failing_tests_by_name(corpus):
    reports, skips = _reports(corpus, "2026-05-08_upstream.jsonl", "ci")
    assert skips == []
    named = [name for r in reports for name in r.failing]
    rows = [json.loads(line) for line in (corpus / NIGHTLY / "2026-05-08_upstream.jsonl").open()]
    expected = [
        r["name"]
        for r in rows
        if r["status"] in ("failed", "error") and not r["name"].startswith("__")
    ]
    assert sorted(named) == sorted(expected) and named


def test_job_level_only_files_have_no_test_counts(corpus):
    """The AMD files of 2026-03-28 .. 04-03 hold only __job_level__ rows."""
    path = "vllm-ci/vllm-ci-dashboard@1d4e45c/test_results/2026-03-30_amd.jsonl"
    text = (corpus / path).read_text(encoding="utf-8")
    reports = test_report_history.parse_reports(text, "amd-ci", date(2026, 3, 30), print)
    assert reports and all(r.job_level is not None and not r.has_tests for r in reports)
    assert {r.outcome("t") for r in reports} <= {"passed", "failed", None}


def test_hostile_rows_are_skipped_one_line_each_and_the_file_goes_on():
    rows = [
        "not json",
        json.dumps([1, 2]),
        json.dumps({"name": "__passed__ (3)", "job_name": "j", "build_number": "7"}),
        json.dumps({"name": "t::x", "job_name": "j", "build_number": 7, "status": "weird"}),
        json.dumps({"name": "t::y", "job_name": "", "build_number": 7, "status": "failed"}),
        json.dumps({"name": "__passed__ (3)", "job_name": "j", "build_number": 7}),
        json.dumps({"name": "t::z", "job_name": "j", "build_number": 7, "status": "failed"}),
    ]
    skips: list = []
    reports = test_report_history.parse_reports(
        "\n".join(rows), "ci", date(2026, 5, 8), lambda *a: skips.append(a)
    )
    assert [s[0] for s in skips] == ["line 1", "line 2", "line 3", "line 4", "line 5"]
    assert len(reports) == 1
    assert (reports[0].passed, reports[0].failed, reports[0].failing) == (3, 1, ["t::z"])


def test_the_folder_is_read_at_the_oldest_and_each_stretchs_newest_commit():
    t = [datetime(2026, 3, d, h, tzinfo=UTC) for d, h in ((23, 4), (23, 7), (25, 1), (30, 9))]
    commits = [(t[0], "a"), (t[1], "b"), (t[2], "c"), (t[3], "d")]
    # 7-day stretches from day 0: 2026-03-23/25 share one, 03-30 starts the next
    assert test_report_history.chosen_commits(commits, 7) == ["a", "c", "d"]
    assert test_report_history.chosen_commits(commits, 1) == ["a", "b", "c", "d"]


def test_recorded_history_reads_every_nightly_once_and_a_rerun_reads_nothing():
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source("vllm-amd-ci-tests")
    ctx = CollectContext(spec, http=HttpClient(), state={})
    cassette = str(REPO / "cassettes" / "vllm-amd-ci-tests.yaml")
    with vcr.use_cassette(cassette, record_mode="none"):
        events = list(test_report_history.collect(ctx))
    days = {e.attrs["date"] for e in events}
    assert min(days) == "2026-03-16" and max(days) == "2026-05-19"
    assert all(e.kind == "ci_tests" and e.attrs["pipeline"] == "amd-ci" for e in events)
    assert {e.regime for e in events} == {"rocm"}
    build_8323 = [e for e in events if e.attrs["build_number"] == 8323]
    assert build_8323 and all(e.url.endswith("2026-05-08_amd.jsonl") for e in build_8323)
    # a second run with the state: every chosen commit already read, no request made
    with vcr.use_cassette(cassette, record_mode="none", allow_playback_repeats=True) as tape:
        again = list(test_report_history.collect(ctx))
    assert again == []
    played = [tape.requests[i] for i, n in tape.play_counts.items() if n]
    assert played and all("/commits?" in r.uri for r in played)  # the listings only


def _row(name: str, status: str | None = "passed", **more) -> str:
    row = {"name": name, "job_name": "j", "build_number": 7, **more}
    if status is not None:
        row["status"] = status
    return json.dumps(row)


def test_a_line_nested_beyond_the_parsers_bound_is_skipped_by_number_and_good_rows_kept():
    good = [_row(f"t::ok{i}", "failed") for i in range(100)]
    deep = "[" * 50_000 + "]" * 50_000
    skips: list = []
    reports = test_report_history.parse_reports(
        "\n".join([*good[:50], deep, *good[50:]]),
        "ci",
        date(2026, 5, 8),
        lambda *a: skips.append(a),
    )
    assert skips == [("line 51", "JSON nested deeper than a test row")]
    assert len(reports) == 1 and reports[0].failed == 100


def test_duplicate_test_rows_are_counted_once_and_said_once():
    rows = [_row("t::a", "failed")] * 999 + [_row("t::b", "failed"), _row("t::c", "failed")]
    # one name in two test files, and one test in two tries of its job: distinct rows
    rows += [
        _row("t::d", "failed", test_id="x.py::t::d"),
        _row("t::d", "failed", test_id="y.py::t::d"),
    ]
    rows += [_row("t::e", "failed", job_id="1"), _row("t::e", "failed", job_id="2")]
    skips: list = []
    reports = test_report_history.parse_reports(
        "\n".join(rows), "ci", date(2026, 5, 8), lambda *a: skips.append(a)
    )
    assert skips == [("j #7", "998 duplicate test rows (a name given again): counted once")]
    assert reports[0].failed == 7 and reports[0].failing == [
        "t::a", "t::b", "t::c", "t::d", "t::d", "t::e", "t::e"
    ]  # fmt: skip


def test_aggregate_counts_beyond_a_jobs_size_are_refused():
    rows = [_row("__passed__ (999999999)", None)] * 49_999 + [_row("t::x", "failed")]
    skips: list = []
    reports = test_report_history.parse_reports(
        "\n".join(rows), "ci", date(2026, 5, 8), lambda *a: skips.append(a)
    )
    assert len(skips) == 49_999 and skips[0] == (
        "line 1",
        "999,999,999 tests, more than a job runs (100,000): not counted",
    )
    assert (reports[0].passed, reports[0].failed) == (0, 1)
    many = [_row("__passed__ (99999)", None, classname=f"c{i}") for i in range(50)]
    skips.clear()
    assert (
        test_report_history.parse_reports(
            "\n".join(many), "ci", date(2026, 5, 8), lambda *a: skips.append(a)
        )
        == []
    )
    assert skips == [
        ("j #7", "4,999,950 tests, more than a job runs (100,000): report not counted")
    ]
