"""Is the gap closing, on real release facts read in place from the corpus (skipped when it is
absent): PyTorch on ROCm under the vendor matrix and under the day-0 wheel definition side by
side, and the report, the view and the CLI built from the same facts.

Facts used (dates, versions, URLs only):
- day 0 of a PyTorch series: the pytorch/test-infra commit that made X.Y.0 the stable version;
- `upstream_wheels`: the same commit lists ROCm arches for the release channel (PyTorch builds
  ROCm wheels with every release), so it is evidence of ROCm wheels that day;
- `vendor_matrix`: ROCm's historical compatibility matrix (6.0.0 - 6.3.3, dated by ROCm's
  release history) and the later matrix excerpts (6.4.x - 7.2.3 columns), dated by the ROCm
  release dates table;
- `torch_xla_release`: pytorch/xla release tags.
"""

from __future__ import annotations

import csv
import json
import re
from datetime import UTC, datetime, time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.configs import typed_config
from tracker.collect.sources import CollectContext, compat_matrix
from tracker.config import Regime, SourceSpec
from tracker.config.coverage import parse_coverage
from tracker.events import Event
from tracker.jobs.report import publish_report
from tracker.measure.ci.rates import ci_rate_rows
from tracker.measure.facts import compute_lag
from tracker.measure.headline.trends import compute_trends
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact, lag_samples
from tracker.measure.stats.trend import CLOSING, POOLED, lag_trends
from tracker.present.trend_words import TREND_COLUMNS, digest_lines

AS_OF = datetime(2026, 5, 4, 23, 59, tzinfo=UTC)  # ROCm 7.2.3, the newest matrix in the corpus
COVERAGE = [
    {
        "project": "pytorch",
        "series": "minor",
        "regimes": {
            "rocm": [
                {
                    "definition": "vendor_matrix",
                    "primary": True,
                    "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"},
                },
                {
                    "definition": "upstream_wheels",
                    "evidence": {"project": "pytorch-rocm-wheels", "kind": "release"},
                },
            ],
            "xla": [
                {
                    "definition": "torch_xla_release",
                    "primary": True,
                    "evidence": {"project": "torch-xla", "kind": "release"},
                }
            ],
        },
    }
]
REGIMES = (Regime("cuda", reference=True), Regime("rocm"), Regime("xla"))


def _midnight(day: str) -> datetime:
    return datetime.combine(datetime.fromisoformat(day).date(), time(), UTC)


def real_facts(corpus: Path) -> tuple[list[ReleaseFact], list[NoteFact]]:
    derived = corpus / "_derived"
    rocm = corpus / "rocm" / "ROCm@develop-e396b48" / "docs"
    matrix = rocm / "compatibility" / "compatibility-matrix-historical-6.0.csv"
    spec = SourceSpec(
        "rocm-compat-matrix-historical",
        "compat_matrix",
        "rocm",
        options={
            "url": str(matrix),
            "format": "csv",
            "history_url": str(rocm / "release" / "versions.md"),
        },
    )
    notes = [
        NoteFact(
            "rocm",
            e.occurred_at,
            e.url,
            tuple((m["framework"], m["version"], m["status"]) for m in e.attrs["mentions"]),
        )
        for e in compat_matrix.parse(matrix.read_bytes(), CollectContext(spec))
    ]
    with (derived / "regime_releases.csv").open() as handle:
        rocm_dates = {
            r["version"]: _midnight(r["date"])
            for r in csv.DictReader(handle)
            if r["project"] == "rocm"
        }
    excerpts = (corpus / "rocm" / "_index_excerpts_compat_matrix.md").read_text()
    for block in re.findall(r"```\n(.*?)```", excerpts, re.S):
        header = re.search(r":header: (.*)", block)
        row = re.search(r"`PyTorch <[^`]*>`,(.*)", block)
        if not (header and row):
            continue
        columns = next(csv.reader([header.group(1)], skipinitialspace=True))[1:]
        for column, cell in zip(columns, next(csv.reader([row.group(1)])), strict=True):
            # "7.2.2/7.2.1": one column for two releases; the earlier one listed it first
            when = min(rocm_dates[v] for v in column.split("/"))
            notes.append(
                NoteFact(
                    "rocm",
                    when,
                    f"https://rocm.docs.amd.com/en/docs-{column.split('/')[-1]}/compatibility/"
                    "compatibility-matrix.html",
                    tuple(("pytorch", v.strip(), "supported") for v in cell.split(",")),
                )
            )
    releases = []
    with (derived / "pytorch_test-infra_stable_version_commits.tsv").open() as handle:
        for r in csv.DictReader(handle, delimiter="\t"):
            when = datetime.fromisoformat(r["committer_date"]).astimezone(UTC)
            url = f"https://github.com/pytorch/test-infra/commit/{r['commit']}"
            releases.append(ReleaseFact("pytorch", r["CURRENT_STABLE_VERSION"], when, url))
            if r["ROCM_release_arches"]:
                releases.append(
                    ReleaseFact("pytorch-rocm-wheels", r["CURRENT_STABLE_VERSION"], when, url)
                )
    with (derived / "pytorch_xla_tags.tsv").open() as handle:
        for r in csv.DictReader(handle, delimiter="\t"):
            version = r["tag"].removeprefix("v")
            url = f"https://github.com/pytorch/xla/releases/tag/{r['tag']}"
            when = datetime.fromisoformat(r["creatordate"]).astimezone(UTC)
            releases.append(ReleaseFact("torch-xla", version, when, url))
    return releases, notes


def test_pytorch_on_rocm_vendor_matrix_and_day0_wheels_side_by_side(corpus):
    releases, notes = real_facts(corpus)
    samples = lag_samples(parse_coverage(COVERAGE), releases, notes, AS_OF, LagRun())
    trends = {
        (t.group, t.regime, t.definition): t for t in lag_trends(samples, AS_OF, samples_n=2000)
    }
    matrix = trends[("pytorch", "rocm", "vendor_matrix")]
    wheels = trends[("pytorch", "rocm", "upstream_wheels")]
    # 2.2 .. 2.11 have a day 0 inside the matrix stream (from ROCm 6.0.0, 2023-12-15); 2.10
    # and 2.11 are in no matrix up to 7.2.3: open, and counted
    assert (matrix.artifacts, matrix.open) == (10, 2)
    assert (wheels.artifacts, wheels.open) == (12, 0)  # 2.0 .. 2.11 (arches listed from 2.0)
    # wheels ship on day 0: lag 0 for every series, a slope of exactly 0, no change
    assert wheels.slope_low == wheels.slope_high == 0 and (wheels.ci_low, wheels.ci_high) == (0, 0)
    assert wheels.recent_median == wheels.prior_median == 0
    # the matrix: the covered series alone slope down, but two recent series are still open,
    # so the slope is a bracket whose high end is above 0: no "closing" on this evidence
    assert matrix.slope_low < 0 < matrix.slope_high
    assert matrix.verdict != CLOSING and matrix.ci_low < 0 < matrix.ci_high
    # KM medians: last 12 months (2.8, 2.9 covered at 65 and 43 days; 2.10 and 2.11 open)
    # against the 12 months before (2.4 .. 2.7, all covered)
    assert (matrix.recent_artifacts, matrix.recent_open, matrix.recent_median) == (4, 2, 65)
    assert (matrix.prior_artifacts, matrix.prior_open, matrix.prior_median) == (4, 0, 133)
    pooled = trends[(POOLED, "rocm", "primary")]
    assert (pooled.artifacts, pooled.open, pooled.verdict) == (10, 2, matrix.verdict)
    print(
        "\nPyTorch on ROCm, as of 2026-05-04:"
        f"\n  vendor_matrix:   {matrix.row()}\n  upstream_wheels: {wheels.row()}"
    )


def _store_real_facts(store, corpus):
    releases, notes = real_facts(corpus)
    events = [
        Event(
            "corpus",
            r.project,
            "release",
            f"{r.project}:{r.version}:{r.occurred_at}",
            r.occurred_at,
            f"{r.project} {r.version}",
            url=r.url,
            version=r.version,
        )
        for r in releases
    ] + [
        Event(
            "corpus",
            "rocm",
            "note",
            f"matrix:{n.url}:{i}",
            n.occurred_at,
            "ROCm matrix column",
            url=n.url,
            attrs={
                "mentions": [{"framework": f, "version": v, "status": s} for f, v, s in n.mentions]
            },
        )
        for i, n in enumerate(notes)
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, events)


def _store_real_nightlies(store, corpus):
    """The real vLLM nightly builds of 2026-05-08 (AMD and CUDA pipelines) through the collector."""
    from tracker.collect.sources import buildkite
    from tracker.jobs.config import load_config

    config = load_config(Path(__file__).resolve().parents[2] / "sources.yaml")
    folder = corpus / "vllm-ci" / "vllm-ci-dashboard@2d34517" / "buildkite_cache"
    for source_id, name in (
        ("vllm-amd-ci", "builds_amd.json"),
        ("vllm-ci", "builds_upstream.json"),
    ):
        ctx = CollectContext(spec=config.source(source_id))
        with store.transaction() as conn:
            store.upsert_events(conn, list(buildkite.parse((folder / name).read_bytes(), ctx)))


def test_report_view_and_cli_from_real_facts(store, corpus, tmp_path):
    _store_real_facts(store, corpus)
    _store_real_nightlies(store, corpus)
    config = typed_config(REGIMES, (), COVERAGE)
    out = tmp_path / "report"
    publish_report(config, store, out, as_of=AS_OF)
    html = (out / "index.html").read_text()
    # the trend table comes first, one row per regime
    assert html.index("Is the gap closing?") < html.index("Per project: primary definition")
    table = html[html.index("Is the gap closing?") : html.index("Per project: primary")]
    row = '<tr><td data-label="regime">%s</td>'
    assert table.count(row % "rocm") == 1 and table.count(row % "xla") == 1
    assert "4 artifacts, 2 open" in table and "at least 6 artifacts" in table
    # one real nightly (2026-05-08, ISO week 19): 125 of 207 ROCm GPU jobs passed (the AMD
    # pipeline's bootstrap and image build ran on its CPU host: regime none), nothing in the
    # 8 weeks before, so no verdict on the CI pass rate
    assert "too few jobs: 60% of 207 (last 4 wk) vs none (8 wk before)" in table
    assert "reference: lag 0" in table  # cuda: CI jobs, but no lag trend of its own
    summary = json.loads(
        (out / "summary.json").read_text(),
        parse_constant=lambda c: pytest.fail(f"not strict JSON: {c}"),
    )
    gap = summary["gap_trend"]
    [rocm] = [r for r in gap["lag"] if (r["artifact_group"], r["regime"]) == (POOLED, "rocm")]
    assert (rocm["artifacts"], rocm["open"], rocm["recent_median"]) == (10, 2, 65)
    assert [r["regime"] for r in gap["by_regime"]] == ["cuda", "rocm", "xla"]
    columns, rows = store.read_only_query(
        'SELECT artifact_group, definition, artifacts, "open", verdict, ci_high '
        "FROM v_lag_trend WHERE regime = 'rocm' ORDER BY artifact_group, definition"
    )
    got = {(r[0], r[1]): r for r in rows}
    assert got[("pytorch", "vendor_matrix")][2:4] == (10, 2)
    # the unbounded end of the interval survives the database as +Infinity, not NULL
    assert got[("pytorch", "vendor_matrix")][5] == float("inf")
    assert got[("pytorch", "upstream_wheels")][2:5] == (12, 0, "no clear change")
    assert got[(POOLED, "primary")][4] == rocm["verdict"]
    # the digest's lines: one per regime, verdict, figure and counts
    trends = compute_trends(
        compute_lag(config, store, AS_OF),
        AS_OF,
        ci_rate_rows(config, store)[0],
        store.view_rows("v_friction_weekly"),
    )
    lines = digest_lines(trends)
    assert [line.split(":")[0] for line in lines] == ["cuda", "rocm", "xla"]
    assert f"lag gap {rocm['verdict']} (" in lines[1] and "10 artifacts, 2 open" in lines[1]
    assert "CI job pass rate too few jobs: 60% of 207" in lines[1]
    assert digest_lines(compute_trends([], AS_OF)) == []  # no data: no lines


def test_cli_lag_trend_csv(corpus, tmp_path, monkeypatch):
    from tracker.cli.main import cli
    from tracker.store import Store

    db = tmp_path / "t.db"
    store = Store(f"sqlite:///{db}")
    store.init_db()
    _store_real_facts(store, corpus)
    (tmp_path / "sources.yaml").write_text(
        json.dumps(
            {
                "regimes": [{"id": "cuda", "reference": True}, {"id": "rocm"}, {"id": "xla"}],
                "sources": [],
                "coverage": COVERAGE,
            }
        )
    )
    monkeypatch.setenv("TRACKER_SOURCES", str(tmp_path / "sources.yaml"))
    runner = CliRunner()
    result = runner.invoke(
        cli,
        ["--db", f"sqlite:///{db}", "lag", "--trend", "--format", "csv", "--as-of", "2026-05-04"],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(result.output.splitlines()))
    assert list(rows[0]) == TREND_COLUMNS
    by = {(r["artifact_group"], r["regime"], r["definition"]): r for r in rows}
    matrix = by[("pytorch", "rocm", "vendor_matrix")]
    assert (matrix["artifacts"], matrix["open"], matrix["recent_median"]) == ("10", "2", "65")
    assert by[("pytorch", "rocm", "upstream_wheels")]["slope_low"] == "0.0"
    assert (POOLED, "xla", "primary") in by
    table = runner.invoke(
        cli, ["--db", f"sqlite:///{db}", "lag", "--trend", "--as-of", "2026-05-04"]
    ).output
    assert "vendor_matrix" in table and "at least 6 artifacts" in table
