"""The independent benchmark in the offline demo: the InferenceX cassette replayed through the
real collector into SQLite and PostgreSQL, then `tracker lag --artifact model`, the view
v_model_lag, the report's model section and data quality, summary.json and the digest, as a
user reads them.

The expected dates are the upstream facts the cassette carries (the commits' committer dates,
UTC, read from the InferenceX git history). The runner map is sources.yaml's, less
`rtx6000pro`: its runner (rtx6000pro-lat) must then be listed as unknown, not dropped."""

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
COMMIT = "https://github.com/SemiAnalysisAI/InferenceX/commit/"
# family -> (NVIDIA day, AMD day, days apart, AMD commit)
PAIRS = {
    "qwen3.5-moe": ("2026-02-17", "2026-02-17", 0, "8559d784783ff29654a2ca1015ea7bc204b2e8b2"),
    "kimi-k2.5": ("2026-02-24", "2026-02-18", -6, "d4f6998d1e5a4b44953d4618810143c599ce505b"),
    "glm-5": ("2026-03-19", "2026-03-07", -12, "f3d0fc5bd7b148daad4e16a7ae79cbf762e9e278"),
    "deepseek-v4": ("2026-04-24", "2026-04-24", 0, "32a1de46ebb3a0aeee7949b4ed223999b748cd9e"),
    "minimax-m3": ("2026-06-12", "2026-06-13", 1, "8dc7ef6f72beebe837e67c9b4088123da5838d54"),
    "glm-5.2": ("2026-07-19", "2026-08-08", 20, "8d7c906a5f551b85c203302aa83f3711353f5934"),
    "kimi-k3": ("2026-07-28", "2026-08-12", 15, "39324e4417dece63fc71ed9b72c3ed3b3b42d412"),
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def demo(request, tmp_path_factory):
    if request.param == "postgresql":
        from tests.conftest import PG_SKIP, PG_URL, create_pg_database, drop_pg_database

        if not PG_URL:
            pytest.skip(PG_SKIP)
        url = create_pg_database()
        request.addfinalizer(lambda: drop_pg_database(url))
    folder = tmp_path_factory.mktemp("benchmark")
    if request.param == "sqlite":
        url = f"sqlite:///{folder / 'tracker.db'}"
    config = yaml.safe_load((REPO / "sources.yaml").read_text(encoding="utf-8"))
    config["sources"] = [s for s in config["sources"] if s["id"] == "inferencex-configs"]
    hardware = config["sources"][0]["hardware"]
    hardware["cuda"].remove("rtx6000pro")
    config["coverage"] = [r for r in config["coverage"] if r.get("artifact") == "model"]
    (folder / "sources.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    runner = CliRunner()
    env = {"TRACKER_SOURCES": str(folder / "sources.yaml")}

    def run(*args: str) -> str:
        result = runner.invoke(cli, ["--db", url, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    report = folder / "r"
    run("nightly", "--replay", str(REPO / "cassettes"), "--out", str(report))
    lag = run("lag", "--artifact", "model", "--regime", "rocm")
    view = run("query", "select * from v_model_lag", "--format", "json")
    # ISO week 2026-W33 (Aug 10-16): Kimi K3's first AMD configuration (2026-08-12)
    run("digest", "--week", "2026-W33", "--dry-run", str(folder / "w33.eml"))
    return {
        "lag": list(csv.DictReader(io.StringIO(lag))),
        "view": json.loads(view),
        "html": (report / "index.html").read_text(encoding="utf-8"),
        "summary": json.loads((report / "summary.json").read_text(encoding="utf-8")),
        "quality": (report / "data_quality.csv").read_text(encoding="utf-8"),
        "digest": (folder / "w33.eml").read_text(encoding="utf-8"),
    }


def _pair_rows(rows: list[dict]) -> dict[str, dict]:
    return {
        r["series"]: r
        for r in rows
        if r["definition"] == "independent_benchmark"
        and r["day0_definition"] == "benchmark_cuda"
        and r["regime"] == "rocm"
    }


def test_lag_rows_cite_the_first_amd_configuration_commit(demo):
    rows = _pair_rows(demo["lag"])
    for family, (nvidia, amd, days, sha) in PAIRS.items():
        row = rows[family]
        assert (row["day0"], row["available"], int(row["lag_days"])) == (nvidia, amd, days)
        assert row["status"] == "covered" and row["evidence_url"] == COMMIT + sha
        assert row["primary"] == "false"
    assert rows["kimi-k2.6"]["status"] == "open" and rows["kimi-k2.6"]["available"] == ""


def test_the_view_holds_the_same_rows_with_both_commits(demo):
    view = [
        r
        for r in demo["view"]
        if r["definition"] == "independent_benchmark"
        and r["day0_definition"] == "benchmark_cuda"
        and r["regime"] == "rocm"
    ]
    got = {r["family"]: r for r in view}
    for family, (_nvidia, _amd, days, sha) in PAIRS.items():
        assert got[family]["lag_days"] == days and got[family]["evidence_url"] == COMMIT + sha
        assert got[family]["day0_url"].startswith(COMMIT)


def test_report_table_and_summary_json_show_the_pair(demo):
    pairs = {p["family"]: p for p in demo["summary"]["independent_benchmark"]["pairs"]}
    html = demo["html"]
    assert "first NVIDIA and first AMD configuration" in html
    for family, (nvidia, amd, days, sha) in PAIRS.items():
        pair = pairs[family]
        assert (pair["nvidia"]["date"], pair["amd"]["date"], pair["days"]) == (nvidia, amd, days)
        assert pair["amd"]["commit_url"] == COMMIT + sha
        assert f'<a href="{COMMIT + sha}">{amd}</a>' in html
        shown = f"{days:+d} d" if days else "0 d"
        assert f'<td class="">{shown}</td>' in html
    assert pairs["glm-5"]["amd"]["hardware"] == "mi355x"
    assert pairs["glm-5"]["nvidia"]["framework"] == "sglang"


def test_an_unknown_runner_is_listed_not_dropped(demo):
    (runner,) = demo["summary"]["independent_benchmark"]["unknown_runners"]
    assert runner["runner"] == "rtx6000pro-lat" and runner["entries"] == 2
    assert "Benchmark runners on no regime" in demo["html"]
    assert "rtx6000pro-lat" in demo["html"]
    assert "unknown_runner" in demo["quality"] and "rtx6000pro-lat" in demo["quality"]


def test_digest_names_the_family_first_configured_on_amd_that_week(demo):
    digest = demo["digest"]
    assert "kimi-k3 first configured on AMD hardware in inferencex" in digest
    assert COMMIT + PAIRS["kimi-k3"][3] in digest
    assert "glm-5.2 first configured on AMD" not in digest  # 2026-08-08: the week before
