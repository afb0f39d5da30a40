"""CI job health reaches every output (issue 35): `tracker ci-health` with its filters, the
report's section and parity chart, and the digest's broke / fixed lines, from the demo's real
vLLM nightly builds (cassettes/vllm-ci.yaml, cassettes/vllm-amd-ci.yaml) in a SQLite file."""

from __future__ import annotations

import csv
import io
from datetime import UTC, date, datetime
from pathlib import Path

import yaml
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.sources import CollectContext, buildkite
from tracker.digest.data import digest_data, resolve_week
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.store import open_store

REPO = Path(__file__).resolve().parents[2]


def load_demo(url: str, config) -> None:
    specs = {s.id: s for s in config.sources}
    store = open_store(url)
    store.init_db()
    with store.transaction() as conn:
        for source in ("vllm-ci", "vllm-amd-ci"):
            text = (REPO / "cassettes" / f"{source}.yaml").read_text()
            cassette = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
            body = cassette["interactions"][0]["response"]["body"]["string"].encode()
            store.upsert_events(conn, buildkite.parse(body, CollectContext(spec=specs[source])))
    store.close()


def test_cli_report_and_digest(tmp_path, monkeypatch):
    config = load_config(REPO / "sources.yaml")
    url = f"sqlite:///{tmp_path / 't.db'}"
    load_demo(url, config)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    result = CliRunner().invoke(
        cli,
        ["--db", url, "ci-health", "--as-of", "2026-08-22", "--regime", "rocm",
         "--hardware", "mi355_1", "--failing", "--format", "csv"],
        catch_exceptions=False,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows and all(r["hardware"] == "mi355_1" and r["last_outcome"] == "failed" for r in rows)
    assert all(r["regime"] == "rocm" for r in rows)
    quant = next(r for r in rows if r["job"] == "mi355_1: Quantization")
    assert quant["streak"] == quant["runs"] and quant["last_passed"] == ""
    assert int(rows[0]["streak"]) >= int(rows[-1]["streak"])  # longest streak first
    assert "newest run 2026-05-19, 95 days before 2026-08-22" in result.stderr
    table = CliRunner().invoke(
        cli, ["--db", url, "ci-health", "--regime", "cuda", "--as-of", "2026-08-22"]
    )
    assert "Transformers Nightly Models" in table.stdout
    assert "mi355_1" not in table.stdout  # the regime filter
    bad = CliRunner().invoke(cli, ["--db", url, "ci-health", "--regime", "ROCm"])
    assert bad.exit_code == 2 and "'ROCm' is not a regime" in bad.output

    store = open_store(url)
    out = tmp_path / "report"
    publish_report(config, store, out, as_of=date(2026, 8, 22))
    html = (out / "index.html").read_text()
    assert "CI job health: which jobs are broken, since when" in html
    assert "vllm-amd-ci: newest run 2026-05-19, 95 days before 2026-08-22" in html
    assert 'href="https://buildkite.com/vllm/amd-ci/builds/8592#' in html  # newest failing build
    assert (out / "ci_parity.png").stat().st_size > 10_000
    assert "ci_parity.png" in html
    assert len((out / "ci_job_health.csv").read_text().splitlines()) == 557  # 556 jobs + header

    week = resolve_week("2026-W33", None, datetime(2026, 8, 24, tzinfo=UTC))
    data = digest_data(config, store, week)
    rocm = next(b for b in data["regimes"] if b["regime"] == "rocm")["ci_jobs"]
    assert "mi300_1: Kernels Attention Test 1" in {c["job"] for c in rocm["broke"]}
    assert "mi250_1: V1 Sample + Logits" in {c["job"] for c in rocm["fixed"]}
    assert any("vllm-amd-ci: 2026-05-13 to 2026-05-19" in w for w in rocm["weeks"])
    store.close()
