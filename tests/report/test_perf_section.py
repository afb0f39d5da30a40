"""Delivered performance from the demo's three MLPerf cassettes (real rows, cut down): the
report's section with its chart and caveats, `tracker perf`, the view, and the digest line the
week a round is first collected (and not the week after)."""

from __future__ import annotations

import csv
import io
import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.sources import CollectContext
from tracker.collect.sources import mlperf_inference as collector
from tracker.digest.week import week_of
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report

REPO = Path(__file__).resolve().parents[2]
SOURCES = REPO / "sources.yaml"
SEEN = datetime(2026, 3, 31, 12, tzinfo=UTC)  # v6.0 first collected in 2026-W14


@pytest.fixture
def demo_store(sqlite_store):
    """The three rounds' cassettes parsed as the collector parses them, v4.1 and v5.1 first
    collected long ago, v6.0 on SEEN."""
    config = load_config(SOURCES)
    for spec in (s for s in config.sources if s.kind == "mlperf_inference"):
        cassette = REPO / "cassettes" / f"{spec.id}.yaml"
        body = yaml.safe_load(cassette.read_text())["interactions"][0]["response"]["body"]
        items = list(collector.parse(body["string"].encode(), CollectContext(spec=spec)))
        seen = SEEN if spec.options["round"] == "v6.0" else datetime(2025, 10, 1, tzinfo=UTC)
        with sqlite_store.transaction() as conn:
            sqlite_store.upsert_events(conn, items, seen_at=seen)
    return sqlite_store, config


def test_the_report_shows_delivered_performance_with_its_caveats(demo_store, tmp_path):
    store, config = demo_store
    publish_report(config, store, tmp_path / "r", as_of=date(2026, 4, 30))
    html = (tmp_path / "r" / "index.html").read_text()
    section = html.split('<section id="perf">', 1)[1].split("</section>", 1)[0]
    assert "delivered_performance.png" in section
    assert (tmp_path / "r" / "delivered_performance.png").stat().st_size > 10_000
    # llama2-70b-99 first; the ratios of the rounds' ROCm bests, with their parts
    assert section.index("<caption>llama2-70b-99</caption>") < section.index("mixtral-8x7b")
    for ratio, part in (("0.68", "MI300X"), ("0.33", "MI325X"), ("0.83", "MI355X")):
        assert f"<b>{ratio}</b>" in section and part in section
    assert "Neuron (AWS): <b>no comparable public data</b>" in section
    assert "XLA (Google TPU): v4.1;" in section
    caveats = section.split("<details>", 1)[1]
    for words in ("derived", "fp4", "72-GPU rack", "open division", "no submission"):
        assert words in caveats
    view = store.view_rows("v_perf_parity")
    assert {r["round"] for r in view} == {"v4.1", "v5.1", "v6.0"}
    rows = list(csv.DictReader((tmp_path / "r" / "perf_parity.csv").open()))
    assert len(rows) == len(view)
    # A published round never changes: its source is never "stale" (v4.1 is 20 months old).
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["stale_sources"] == []


def test_tracker_perf_prints_the_rows(demo_store, tmp_path):
    store, _ = demo_store
    args = ["--db", store.url, "--sources", str(SOURCES), "perf", "--benchmark", "llama2-70b-99",
            "--regime", "rocm", "--format", "csv", "--as-of", "2026-04-30"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    offline = {
        r["round"]: float(r["ratio_to_best_cuda"]) for r in rows if r["scenario"] == "Offline"
    }
    assert offline == pytest.approx({"v4.1": 0.682, "v5.1": 0.332, "v6.0": 0.826}, abs=0.001)
    assert {r["regime"] for r in rows} == {"rocm"}
    table = CliRunner().invoke(cli, args[:-4] + ["--as-of", "2025-12-31"])
    assert table.exit_code == 0 and "v5.1" in table.stdout and "v6.0" not in table.stdout
    bad = CliRunner().invoke(cli, args[:4] + ["perf", "--regime", "ROCm"])
    assert bad.exit_code != 0 and "--regime" in bad.output


def test_the_digest_mentions_a_round_the_week_it_is_first_collected(demo_store):
    from tracker.digest.data import digest_data

    store, config = demo_store
    week = week_of(SEEN.date())
    news = digest_data(config, store, week)["perf_news"]
    assert len(news) == 1 and news[0]["text"].startswith("MLPerf Inference v6.0 (published")
    assert "ROCm Offline 0.83 (MI355X vs GB300)" in news[0]["text"]
    assert "no submission from XLA, Neuron" in news[0]["text"]
    assert digest_data(config, store, week.shifted(1))["perf_news"] == []
