"""Both CI units in every output: the demo's real Buildkite nightlies (job level) and the AMD
dashboard's test reports of the same builds (test level, replayed from the shipped cassette) ->
the report's CI section, the digest lines and `tracker ci-health --units`, each figure labelled
with its unit."""

from __future__ import annotations

import csv
import io
import re
from datetime import UTC, date, datetime
from pathlib import Path

import vcr
from click.testing import CliRunner

from tests.report.test_ci_job_health_outputs import load_demo
from tracker.cli.main import cli
from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, test_report_history
from tracker.digest.data import digest_data, resolve_week
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.store import open_store

REPO = Path(__file__).resolve().parents[2]


def test_report_digest_and_cli_show_both_units(tmp_path, monkeypatch):
    config = load_config(REPO / "sources.yaml")
    url = f"sqlite:///{tmp_path / 't.db'}"
    load_demo(url, config)
    store = open_store(url)
    ctx = CollectContext(config.source("vllm-amd-ci-tests"), http=HttpClient(), state={})
    with vcr.use_cassette(str(REPO / "cassettes" / "vllm-amd-ci-tests.yaml"), record_mode="none"):
        events = list(test_report_history.collect(ctx))
    with store.transaction() as conn:
        store.upsert_events(conn, events)

    out = tmp_path / "report"
    publish_report(config, store, out, as_of=date(2026, 8, 22))
    html = (out / "index.html").read_text()
    assert "Two units: jobs (test groups) and tests" in html
    assert "a job-level figure" in html  # which unit the published claim uses
    # AMD's 2026-W19 nightlies (05-04..05-10): 772 of 1,215 jobs, 98% of the tests with a verdict
    assert "63.5% of jobs (test groups), 772/1,215" in html
    assert "% of tests, " in html and "job rate (unit: jobs = test groups)" in html
    rows = list(csv.DictReader((out / "ci_test_pass_rate_weekly.csv").open()))
    rocm = {r["week"]: r for r in rows if r["project"] == "vllm" and r["regime"] == "rocm"}
    assert {f"2026-W{n}" for n in range(12, 21)} <= set(rocm)
    for week in rocm.values():
        assert 0.97 < float(week["test_rate"]) < 1.0
        if week["job_rate"]:
            assert float(week["job_rate"]) < float(week["test_rate"])

    data = digest_data(
        config, store, resolve_week("2026-W19", None, datetime(2026, 5, 11, tzinfo=UTC))
    )
    lines = next(b for b in data["regimes"] if b["regime"] == "rocm")["ci_units"]
    assert len(lines) == 1
    assert lines[0].startswith("vllm CI, ROCm, 2026-W19: 63.5% of jobs (test groups), 772/1,215; ")
    assert re.search(r"; 9\d\.\d% of tests, [\d,]+/[\d,]+$", lines[0])
    store.close()

    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    result = CliRunner().invoke(
        cli,
        ["--db", url, "ci-health", "--units", "--regime", "rocm", "--as-of", "2026-08-22",
         "--format", "csv"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    table = list(csv.DictReader(io.StringIO(result.stdout)))
    w19 = next(r for r in table if r["week"] == "2026-W19")
    assert w19["job rate (jobs (test groups))"].startswith("63.5% of jobs (test groups)")
    assert re.fullmatch(r"9\d\.\d% of tests, [\d,]+/[\d,]+", w19["test rate (tests)"])
