"""The collectives layer of the offline demo: the NCCL tags, the RCCL changelogs and the ROCm /
TheRock release records replayed through the real collectors into SQLite and PostgreSQL, then
`tracker lag --artifact collective`, the views v_lag_series and v_layer_answer and summary.json's
answer per layer, as a user reads them.

The expected dates are the upstream facts the cassettes carry: day 0 the series' first NCCL tag
(its commit, UTC: a lightweight tag); available the ROCm release that first carries the series,
dated by the earliest record of its publication (ROCm's release history, ROCm/ROCm's release
record or tag, TheRock's tag object), never by a commit that came before the release: ROCm
6.2.0 on 2024-08-02 (its tag's commit is of 2024-08-20), TheRock 7.14 on 2026-07-15 (its tag's
commit is of 2026-07-09)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tracker.cli.main import cli

REPO = Path(__file__).resolve().parents[2]
SOURCES = {
    "nccl-tags", "rocm-tags", "rccl-changelog", "rccl-changelog-legacy", "therock-tags",
    "rocm-releases",
}  # fmt: skip
ROCM = "https://github.com/ROCm/ROCm/releases/tag/rocm-"
THEROCK = "https://github.com/ROCm/TheRock/releases/tag/therock-"
# series -> (day 0, available, the release that carries it first)
EXPECTED = {
    "2.18": ("2023-04-18", "2023-12-15", ROCM + "6.0.0"),
    "2.19": ("2023-09-26", "2024-08-02", ROCM + "6.2.0"),
    "2.20": ("2024-02-13", "2024-08-02", ROCM + "6.2.0"),
    "2.21": ("2024-04-02", "2024-12-03", ROCM + "6.3.0"),
    "2.22": ("2024-06-19", "2025-04-11", ROCM + "6.4.0"),
    "2.23": ("2024-09-17", "2025-09-16", ROCM + "7.0.0"),
    "2.24": ("2025-01-07", "2025-09-16", ROCM + "7.0.0"),
    "2.25": ("2025-01-27", "2025-09-16", ROCM + "7.0.0"),
    "2.26": ("2025-03-12", "2025-09-16", ROCM + "7.0.0"),
    "2.27": ("2025-05-30", "2025-10-30", ROCM + "7.1.0"),
    "2.28": ("2025-09-02", "2026-02-11", THEROCK + "7.11"),
    "2.29": ("2025-12-24", "2026-07-15", THEROCK + "7.14"),
    "2.30": ("2026-04-15", "2026-07-15", THEROCK + "7.14"),
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def demo(request, tmp_path_factory):
    if request.param == "postgresql":
        from tests.conftest import PG_SKIP, PG_URL, create_pg_database, drop_pg_database

        if not PG_URL:
            pytest.skip(PG_SKIP)
        url = create_pg_database()
        request.addfinalizer(lambda: drop_pg_database(url))
    folder = tmp_path_factory.mktemp("collectives")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'tracker.db'}"
    config = yaml.safe_load((REPO / "sources.yaml").read_text(encoding="utf-8"))
    config["sources"] = [s for s in config["sources"] if s["id"] in SOURCES]
    config["coverage"] = [r for r in config["coverage"] if r.get("artifact") == "collective"]
    (folder / "sources.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    runner = CliRunner()
    env = {"TRACKER_SOURCES": str(folder / "sources.yaml")}

    def run(*args: str) -> tuple[str, str]:
        result = runner.invoke(cli, ["--db", url, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout, result.stderr

    run("nightly", "--replay", str(REPO / "cassettes"), "--out", str(folder / "r"))
    return run, folder / "r"


def test_one_row_per_nccl_series_dated_by_the_rocm_release_that_carries_it(demo):
    run, _ = demo
    out, err = run("lag", "--artifact", "collective", "--regime", "rocm")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert {r["series"]: (r["day0"], r["available"], r["evidence_url"]) for r in rows} == EXPECTED
    assert {(r["artifact"], r["status"], r["primary"]) for r in rows} == {
        ("collective", "covered", "true")
    }
    assert [int(r["lag_days"]) for r in rows if r["series"] == "2.18"] == [241]
    # Neuron and XLA: a stated reason on stderr, never a row
    both = run("lag", "--artifact", "collective")
    assert {r["regime"] for r in csv.DictReader(io.StringIO(both[0]))} == {"cuda", "rocm"}
    assert "collectives on neuron: Neuron ships its own collectives library" in both[1]
    assert "collectives on xla: TPU collectives are compiled into XLA" in both[1]


def test_views_and_summary_give_the_layer_answer(demo):
    run, report = demo
    out, _ = run(
        "query", "select * from v_lag_series where artifact = 'collective'", "--format", "json"
    )
    series = {r["series"] for r in json.loads(out) if r["regime"] == "rocm"}
    assert series == set(EXPECTED)
    out, _ = run("query", "select * from v_layer_answer", "--format", "json")
    view = {(r["layer"], r["regime"]): r for r in json.loads(out)}
    summary = json.loads((report / "summary.json").read_text(encoding="utf-8"))
    layers = {(r["layer"], r["regime"]): r for r in summary["layers"]}
    mine = layers[("collective", "rocm")]
    assert (mine["pooled_artifacts"], mine["pooled_open"], mine["unknown"]) == (13, 0, 0)
    # the 12 months before 2026-08-22: 2.28 (162 d), 2.29 (203 d), 2.30 (91 d)
    assert (mine["artifacts"], mine["open"], mine["median_days"]) == (3, 0, 162)
    assert view[("collective", "rocm")]["median_days"] == mine["median_days"]
    assert view[("collective", "rocm")]["verdict"] == mine["verdict"]
    assert layers[("collective", "neuron")]["verdict"] == "not measured"
    assert "no NCCL version mapping" in layers[("collective", "neuron")]["text"]
    out, _ = run("lag", "--trend", "--format", "csv")
    trend = [
        r for r in csv.DictReader(io.StringIO(out)) if r["artifact_group"] == "all collectives"
    ]
    assert [(r["regime"], r["verdict"]) for r in trend] == [("rocm", mine["verdict"])]
