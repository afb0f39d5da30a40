"""Where a configured CI source has no public record, every output says so for that project and
regime ("no public CI record"), never a number (issue 54, item 1).

Real shapes: the shipped sources.yaml and its torch-xla-ci-tpu cassette, whose listing of
pytorch/xla's build_and_test.yml runs is empty (no public record of its TPU runs was found).
"""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

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


def test_the_first_table_says_no_public_ci_record_for_a_regime_without_one():
    friction = {"regime": "xla", "week": "2026-W30", "friction": 1, "optimization": 0}
    as_of = datetime(2026, 8, 22, tzinfo=UTC)
    trends = Trends(lag=[], friction=friction_trends([friction], as_of), as_of=as_of)
    (row,) = headline(trends)
    assert row["ci"] == "no public CI record for this regime: nothing to compare"
