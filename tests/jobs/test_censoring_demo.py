"""The demo, as of 2026-08-22, censored where its evidence was last looked at (docs/methodology.md,
"Observation windows", "Supersession", "Silent channels"), read as a user reads each output:
`tracker lag`, the report's lag.csv and summary.json, the view v_lag_series and the digest.

Real facts behind the numbers: the rocm/vllm tags named by public records were searched through
2026-08-22, and the newest one naming a vLLM version is rocm7.13.0_..._vllm_0.19.1, first named
on 2026-07-08 (cassettes/vllm-rocm-docker.yaml); tpu-inference skipped vLLM 0.14-0.17 and tagged
v0.18.0 on 2026-04-17; PyTorch/XLA's last release is 2.9 while PyTorch released 2.10-2.13.
"""

from __future__ import annotations

import csv
import email
import io
import json
import shutil
from datetime import date

import pytest

from tests.conftest import REPO

DAY, WEEK = "2026-08-22", "2026-W33"  # the digest: the last complete ISO week


@pytest.fixture(scope="module")
def censored(demo, tmp_path_factory) -> dict:
    """The demo's store copied (the shared demo keeps its own report of DEMO_DAY), reported
    as of DAY."""
    from click.testing import CliRunner

    from tracker.cli.main import cli

    folder = tmp_path_factory.mktemp("censored")
    shutil.copy(demo["folder"] / "tracker.db", folder / "tracker.db")
    runner = CliRunner()
    env = {"TRACKER_SOURCES": str(REPO / "sources.yaml")}

    def run(*args: str) -> str:
        base = ["--db", f"sqlite:///{folder / 'tracker.db'}"]
        result = runner.invoke(cli, [*base, *args], env=env, catch_exceptions=False)
        assert result.exit_code == 0, result.output
        return result.stdout

    out = folder / "report"
    run("report", "--as-of", DAY, "--out", str(out))
    lag = list(csv.DictReader(io.StringIO(run("lag", "--as-of", DAY))))
    return {
        "run": run,
        "lag": lag,
        "csv": list(csv.DictReader((out / "lag.csv").open(encoding="utf-8"))),
        "summary": json.loads((out / "summary.json").read_text(encoding="utf-8")),
        "html": (out / "index.html").read_text(encoding="utf-8"),
        "quality": list(csv.DictReader((out / "data_quality.csv").open(encoding="utf-8"))),
        "folder": folder,
    }


def test_no_open_row_ages_past_where_its_evidence_was_looked_at(censored):
    for rows in (censored["lag"], censored["csv"]):
        opened = [r for r in rows if r["status"] == "open"]
        assert opened
        for r in opened:
            through = date.fromisoformat(r["observed_through"])
            assert int(r["lag_days"]) == (through - date.fromisoformat(r["day0"])).days, r


def test_vllm_series_after_amds_newest_rocm_vllm_image_are_open_where_it_was_searched(censored):
    """AMD's rocm/vllm channel is observed through the day its records were searched (2026-08-22):
    the series before its newest image (0.12-0.19) are covered by it, the later ones are open,
    censored there, not unknown."""
    mine = {
        r["series"]: r
        for r in censored["lag"]
        if r["project"] == "vllm" and r["definition"] == "rocm_vllm_docker"
    }
    assert {r["observed_through"] for r in mine.values()} == {DAY}
    for series in ("0.12", "0.13", "0.14", "0.19"):
        assert (mine[series]["status"], mine[series]["available"]) == ("covered", "2026-07-08")
    for series in ("0.20", "0.24", "0.27"):
        row = mine[series]
        assert row["status"] == "open" and row["available"] == ""
        assert (
            int(row["lag_days"]) == (date.fromisoformat(DAY) - date.fromisoformat(row["day0"])).days
        )
    unknown = {
        u["series"]
        for u in censored["summary"]["lag_unknown"]
        if u["project"] == "vllm" and u["definition"] == "rocm_vllm_docker"
    }
    assert not unknown & set(mine)


def test_vllm_0_14_to_0_17_on_tpu_are_covered_by_0_18(censored):
    for rows in (censored["lag"], censored["csv"]):
        tpu = {r["series"]: r for r in rows if r["definition"] == "tpu_inference_release"}
        for series in ("0.14", "0.15", "0.16", "0.17"):
            assert (tpu[series]["status"], tpu[series]["covered_by"]) == ("covered", "0.18")
            assert tpu[series]["available"] == "2026-04-17"
        assert tpu["0.18"]["covered_by"] == ""
    view = json.loads(
        censored["run"](
            "query",
            "select series, covered_by, observed_through from v_lag_series "
            "where definition = 'tpu_inference_release' and series = '0.15'",
            "--format",
            "json",
        )
    )
    assert view[0]["covered_by"] == "0.18" and view[0]["observed_through"].startswith("2026-08-2")


def test_silent_channels_are_listed_in_summary_and_digest(censored):
    silent = {
        (c["project"], c["regime"], c["definition"]): c
        for c in censored["summary"]["silent_channels"]
    }
    xla = silent[("pytorch", "xla", "torch_xla_release")]
    assert xla["series_released_since"] >= 3 and xla["newest_series"] == "2.13"
    assert xla["last_evidence"] < xla["observed_through"] <= DAY
    assert ("vllm", "rocm", "rocm_vllm_docker") in silent
    # the report's data-quality section and data_quality.csv list the same definitions
    quality = html_section(censored["html"], "Data quality: silent channels")
    assert '<td>torch_xla_release</td><td class="date">2025-11-17</td>' in quality
    listed = {
        (r["project"], r["regime"], r["definition"])
        for r in censored["quality"]
        if r["section"] == "silent_channel"
    }
    assert listed == set(silent)
    folder = censored["folder"]
    censored["run"]("digest", "--week", WEEK, "--dry-run", str(folder / "silent.eml"))
    message = email.message_from_bytes((folder / "silent.eml").read_bytes())
    text = next(
        part.get_payload(decode=True).decode("utf-8")
        for part in message.walk()
        if part.get_content_type() == "text/plain"
    )
    footer = text[text.index("DATA QUALITY") :]
    assert "Silent channels" in footer and "pytorch on xla (torch_xla_release)" in footer


def html_section(html: str, heading: str) -> str:
    start = html.index(heading)
    return html[start : html.index("<h3>", start + 1)]
