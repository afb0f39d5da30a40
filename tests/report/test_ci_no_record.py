"""Where a configured CI source has no public record, every output says so for that project and
regime ("no public CI record"), never a number (issue 54, item 1).

Real shapes: the shipped sources.yaml and its torch-xla-ci-tpu cassette, whose listing of
pytorch/xla's build_and_test.yml runs is empty (no public record of its TPU runs was found).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, date, datetime
from pathlib import Path

from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.runner import run_sources
from tracker.digest.data import digest_data, week_of
from tracker.digest.mail import render
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.measure.ci.rates import unrecorded
from tracker.measure.headline.trends import Trends
from tracker.measure.stats.rate_trend import friction_trends
from tracker.present.trend_words import headline

REPO = Path(__file__).resolve().parents[2]
LINE = "torch-xla, xla: no public CI record (source torch-xla-ci-tpu)"


def test_unrecorded_pairs_come_from_the_configured_regimes_and_the_rows():
    config = load_config(REPO / "sources.yaml")
    rows = [
        {"project": "jax", "regime": "rocm", "jobs_passed": 1, "jobs_failed": 0},
        {"project": "jax", "regime": "cuda", "jobs_passed": 0, "jobs_failed": 0},  # counts none
    ]
    pairs = {(r["project"], r["regime"]): r["sources"] for r in unrecorded(config, rows)}
    # jax-ci's workflows run on cuda, xla and rocm; a row counting jobs is a record
    assert pairs[("jax", "cuda")] == ["jax-ci", "jax-ci-dashboard-cuda"]
    assert pairs[("jax", "xla")] == ["jax-ci"]
    assert ("jax", "rocm") not in pairs
    assert pairs[("torch-xla", "xla")] == ["torch-xla-ci-tpu"]
    # vLLM's Buildkite sources have no rows here either: no record is no record
    assert pairs[("vllm", "rocm")] == ["vllm-amd-ci"]


def test_report_digest_and_summary_say_no_public_ci_record(sqlite_store, tmp_path):
    config = load_config(REPO / "sources.yaml")
    ids = ["torch-xla-ci-tpu"]
    assert run_sources(config, sqlite_store, only=ids, replay=REPO / "cassettes").exit_code == 0
    out = tmp_path / "report"
    publish_report(config, sqlite_store, out, as_of=date(2026, 8, 22))
    html = (out / "index.html").read_text()
    assert LINE in html
    summary = json.loads((out / "summary.json").read_text())
    entry = {"project": "torch-xla", "regime": "xla", "sources": ["torch-xla-ci-tpu"]}
    assert entry | {"text": "no public CI record"} in summary["ci_no_public_record"]
    assert not [r for r in summary["ci_pass_rate_weekly"] if r["project"] == "torch-xla"]

    text, page = render(digest_data(config, sqlite_store, week_of(date(2026, 8, 22))), {})
    assert f"- {LINE}" in text.replace("\r\n", "\n")
    assert LINE in page

    # and `tracker ci-health`, in the same words, for the regimes asked about
    args = ["--db", sqlite_store.url, "--sources", str(REPO / "sources.yaml"), "ci-health"]
    args += ["--as-of", "2026-08-22"]
    assert f"ci-health: {LINE}" in CliRunner().invoke(cli, args).stderr
    assert LINE not in CliRunner().invoke(cli, [*args, "--regime", "rocm"]).stderr


def test_the_first_table_says_no_public_ci_record_for_a_regime_without_one():
    friction = {"regime": "xla", "week": "2026-W30", "friction": 1, "optimization": 0}
    as_of = datetime(2026, 8, 22, tzinfo=UTC)
    trends = Trends(lag=[], friction=friction_trends([friction], as_of), as_of=as_of)
    (row,) = headline(trends)
    assert row["ci"] == "no public CI record for this regime: nothing to compare"


def test_a_sampled_record_is_labelled_beside_its_rates(sqlite_store, tmp_path):
    """AMD's CI dashboard kept the newest JAX CUDA run at each commit: the report, the digest and
    summary.json say so beside the rates, with the weeks the sample covers (issue 54, item 3)."""
    config = load_config(REPO / "sources.yaml")
    ids = ["jax-ci-dashboard-cuda"]
    assert run_sources(config, sqlite_store, only=ids, replay=REPO / "cassettes").exit_code == 0
    out = tmp_path / "report"
    publish_report(config, sqlite_store, out, as_of=date(2026, 4, 10))
    line = "jax, cuda (jax-ci-dashboard-cuda, 2026-W08 to 2026-W15): a sample: AMD's CI dashboard"
    html = (out / "index.html").read_text()
    assert "A sample, not every run" in html and line.replace("'", "&#39;") in html
    (entry,) = json.loads((out / "summary.json").read_text())["ci_samples"]
    assert (entry["first_week"], entry["last_week"]) == ("2026-W08", "2026-W15")
    assert "never a run all of whose test jobs were skipped" in entry["sample"]
    cuda = next(r for r in json.loads((out / "summary.json").read_text())["gap_trend"]["by_regime"])
    assert cuda["regime"] == "cuda" and "partly a sample of runs (jax: " in cuda["ci"]
    text, _ = render(digest_data(config, sqlite_store, week_of(date(2026, 4, 6))), {})
    assert f"- {line}" in text.replace("\r\n", "\n")


def test_job_health_headers_count_what_their_tables_show(sqlite_store, tmp_path):
    """vLLM's amd-ci nightlies: more jobs fail at their newest run than the table lists, and the
    header says how many it shows (issue 54, item 4)."""
    config = load_config(REPO / "sources.yaml")
    ids = ["vllm-amd-ci"]
    assert run_sources(config, sqlite_store, only=ids, replay=REPO / "cassettes").exit_code == 0
    out = tmp_path / "report"
    publish_report(config, sqlite_store, out, as_of=date(2026, 5, 20))
    html = (out / "index.html").read_text()
    header = re.search(r"ROCm: (\d+) of (\d+) jobs failing at their newest run, (\d+) shown", html)
    assert header, "the ROCm job-health header names how many of its failing jobs it shows"
    section = html[header.end() : html.index("The week of changes", header.end())]
    assert section.count("<tr><td>") == int(header.group(3)) < int(header.group(1))


def test_the_first_table_says_when_a_regime_s_ci_figure_rests_partly_on_a_sample():
    friction = {"regime": "rocm", "week": "2026-W30", "friction": 1, "optimization": 0}
    as_of = datetime(2026, 8, 22, tzinfo=UTC)
    trends = Trends(lag=[], friction=friction_trends([friction], as_of), as_of=as_of)
    trends.ci_sampled = {"rocm": ["jax", "sglang"]}
    (row,) = headline(trends)
    assert row["ci"].endswith(
        "; partly a sample of runs (jax, sglang: the CI section says what it is)"
    )
