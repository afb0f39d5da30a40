"""The demo reads the channels users install from (issue 38): PyTorch, JAX and vLLM on ROCm and
PyTorch on Neuron are measured under `earliest_build`, the earliest official build a user can
install, and every output follows it (tracker lag, lag.csv, v_lag_series, the headline answer,
the quarterly chart's numbers, the report's tables). The vendor matrix stays beside it.

Facts checked are the demo's cassettes (tests/conftest.py `demo`, as of DEMO_DAY)."""

from __future__ import annotations

import csv
import io
import json
from datetime import date, timedelta

import pytest

PRIMARY = {
    ("pytorch", "rocm"): "earliest_build",
    ("jax", "rocm"): "earliest_build",
    ("vllm", "rocm"): "earliest_build",
    ("pytorch", "neuron"): "earliest_build",
    ("sglang", "rocm"): "sglang_rocm_docker",
    ("pytorch", "xla"): "torch_xla_release",
}


@pytest.fixture(scope="module")
def lag_rows(demo) -> list[dict]:
    out = demo["run"]("lag", "--as-of", demo_day(demo), "--artifact", "framework")
    return list(csv.DictReader(io.StringIO(out)))


def demo_day(demo) -> str:
    summary = json.loads((demo["report"] / "summary.json").read_text(encoding="utf-8"))
    return summary["as_of"][:10]


def version(series: str) -> tuple[int, ...]:
    return tuple(int(p) for p in series.split("."))


def test_the_primary_definitions_are_the_earliest_builds(lag_rows):
    primary = {
        (r["project"], r["regime"]): r["definition"] for r in lag_rows if r["primary"] == "true"
    }
    for key, definition in PRIMARY.items():
        assert primary[key] == definition, key
    # the vendor matrix is a definition beside the primary one, never merged into it
    matrix = {(r["project"], r["series"]) for r in lag_rows if r["definition"] == "vendor_matrix"}
    assert ("pytorch", "2.10") in matrix and ("jax", "0.10.0") in matrix
    assert all(r["primary"] == "false" for r in lag_rows if r["definition"] == "vendor_matrix")


def test_therock_and_vllms_own_images_cover_what_the_old_channels_left_open(lag_rows):
    rows = {
        (r["project"], r["series"], r["regime"], r["definition"]): r
        for r in lag_rows
        if r["regime"] == "rocm"
    }
    for series in ("2.10", "2.11", "2.12", "2.13"):
        row = rows[("pytorch", series, "rocm", "earliest_build")]
        assert row["status"] == "covered" and row["channel"] in ("upstream_wheels", "therock")
        # the row is the named channel's own evidence
        channel = rows[("pytorch", series, "rocm", row["channel"])]
        assert (channel["available"], channel["evidence_url"]) == (
            row["available"],
            row["evidence_url"],
        )
        # the matrix has not listed it: open, or unknown past where the matrix was looked at
        matrix = rows.get(("pytorch", series, "rocm", "vendor_matrix"))
        assert matrix is None or matrix["status"] == "open"
    # JAX 0.10.0: the ROCm plugin reached PyPI (2026-05-12) before TheRock listed it
    row = rows[("jax", "0.10.0", "rocm", "earliest_build")]
    assert (row["status"], row["channel"]) == ("covered", "rocm_jax_plugin")
    assert "pypi.org/project/jax-rocm7-plugin/0.10.0" in row["evidence_url"]
    # 0.10.1 and 0.10.2 too (2026-06-16, 06-24), though ROCm/rocm-jax's readable copy ends on
    # 2026-05-05: PyPI was searched to 2026-08-22 and a build it holds is evidence
    for series, lag in (("0.10.1", 29), ("0.10.2", 7)):
        row = rows[("jax", series, "rocm", "earliest_build")]
        assert (row["status"], row["channel"], row["lag_days"]) == (
            "covered", "rocm_jax_plugin", str(lag)
        )  # fmt: skip
        assert f"pypi.org/project/jax-rocm7-plugin/{series}/" in row["evidence_url"]
    # 0.11.0: on no PyPI upload by as-of; TheRock listed it first
    row = rows[("jax", "0.11.0", "rocm", "earliest_build")]
    assert (row["status"], row["channel"]) == ("covered", "therock")
    assert "github.com/ROCm/TheRock" in row["evidence_url"]
    from_vllm = [
        r
        for (project, series, _, definition), r in rows.items()
        if project == "vllm" and definition == "earliest_build" and version(series) >= (0, 14)
    ]
    covered = [r for r in from_vllm if r["status"] == "covered"]
    assert covered and all(r["channel"] for r in covered)
    assert any(r["channel"] == "vllm_rocm_image" for r in covered)
    assert all(r["channel"] == "" for r in from_vllm if r["status"] == "open")


def test_the_answer_rests_on_the_primary_rows(demo, lag_rows):
    """summary.json's answer counts exactly the primary framework rows of its window, and the
    quarterly chart's cohorts hold the same rows: both read the earliest-build definitions."""
    summary = json.loads((demo["report"] / "summary.json").read_text(encoding="utf-8"))
    quarterly = list(
        csv.DictReader((demo["report"] / "headline_lag_quarterly.csv").open(encoding="utf-8"))
    )
    for answer in summary["answer"]:
        regime = answer["regime"]
        if regime == "cuda":
            continue
        primary = [r for r in lag_rows if r["regime"] == regime and r["primary"] == "true"]
        start = date.fromisoformat(answer["window_start"]) - timedelta(days=1)
        end = date.fromisoformat(answer["window_end"])
        recent = [r for r in primary if start < date.fromisoformat(r["day0"]) <= end]
        assert answer["artifacts"] == len(recent), regime
        assert answer["open"] == sum(r["status"] == "open" for r in recent), regime
        cohorts = [q for q in quarterly if q["regime"] == regime]
        assert sum(int(q["artifacts"]) for q in cohorts) == len(primary), regime
        assert sum(int(q["open"]) for q in cohorts) == sum(r["status"] == "open" for r in primary)


def test_the_view_names_the_channel_as_the_csv_does(demo, lag_rows):
    rows = json.loads(
        demo["run"](
            "query",
            "select project, series, channel, evidence_url from v_lag_series "
            "where regime = 'rocm' and definition = 'earliest_build'",
            "--format",
            "json",
        )
    )
    csv_rows = {
        (r["project"], r["series"]): (r["channel"], r["evidence_url"])
        for r in lag_rows
        if r["regime"] == "rocm" and r["definition"] == "earliest_build"
    }
    assert (
        rows
        and {(r["project"], r["series"]): (r["channel"], r["evidence_url"]) for r in rows}
        == csv_rows
    )


def test_the_report_shows_channels_transitions_and_every_definition_per_series(demo):
    html = (demo["report"] / "index.html").read_text(encoding="utf-8")
    per_project = html.split('id="per-project"', 1)[1].split("</section>", 1)[0]
    assert "pytorch on xla: channel in transition." in per_project
    assert "TorchTPU" in per_project
    assert "first: " in per_project and "therock" in per_project
    definitions = html.split('id="definitions"', 1)[1].split("</section>", 1)[0]
    row = next(
        r for r in definitions.split("<tr>") if "<td>pytorch</td><td>rocm</td><td>2.10</td>" in r
    )
    assert "earliest_build: 0 d" in row and "vendor_matrix: " in row and "+ open" in row
    summary = json.loads((demo["report"] / "summary.json").read_text(encoding="utf-8"))
    assert [(t["project"], t["regime"]) for t in summary["in_transition"]] == [
        ("pytorch", "xla"),
        ("pytorch", "neuron"),
    ]
    assert "pytorch on neuron: channel in transition." in per_project
    assert "TorchNeuron" in per_project


def test_the_digest_says_a_channels_build_once_naming_the_channel(demo):
    """JAX 0.11.0 was first built for ROCm by TheRock on 2026-07-30 (week 2026-W31): the
    digest's coverage line names the primary definition and the channel, once."""
    out = demo["folder"] / "w31.eml"
    demo["run"]("digest", "--week", "2026-W31", "--dry-run", str(out))
    text = out.read_text(encoding="utf-8")
    lines = [line for line in text.splitlines() if line.startswith("- covered: jax 0.11.0 ")]
    assert len(lines) == 1
    assert lines[0].startswith("- covered: jax 0.11.0 (earliest_build via therock) on 2026-07-30")


# PyTorch 2.3 to 2.9 on ROCm: PyTorch's own ROCm wheel indexes (rocm6.0, rocm6.1, rocm6.3), each
# build dated by an upper bound, its release's first PyPI upload (promotion puts the wheels on
# download.pytorch.org before PyPI): series -> (day 0, available, lag, ROCm, wheel tags).
OLD = "cp310-cp310-linux_x86_64"
NEW = "cp312-cp312-manylinux_2_28_x86_64"
OLD_SERIES = {
    "2.3": ("2024-04-23", "2024-04-24", "1", "6.0", OLD),
    "2.4": ("2024-07-23", "2024-07-24", "1", "6.0", OLD),
    "2.5": ("2024-10-17", "2024-10-17", "0", "6.1", OLD),
    "2.6": ("2025-01-29", "2025-01-29", "0", "6.1", "cp310-cp310-manylinux_2_28_x86_64"),
    "2.7": ("2025-04-23", "2025-04-23", "0", "6.3", NEW),
    "2.8": ("2025-08-06", "2025-08-06", "0", "6.3", NEW),
    "2.9": ("2025-10-14", "2025-10-15", "1", "6.3", NEW),
}


def test_every_pytorch_series_since_2_3_has_a_rocm_row_from_its_own_wheels(lag_rows):
    primary = {
        r["series"]: r
        for r in lag_rows
        if (r["project"], r["regime"], r["definition"]) == ("pytorch", "rocm", "earliest_build")
    }
    assert {f"2.{n}" for n in range(3, 14)} <= set(primary)
    assert all(primary[f"2.{n}"]["status"] == "covered" for n in range(3, 14))
    for series, (day0, available, lag, rocm, tags) in OLD_SERIES.items():
        row = primary[series]
        assert (row["day0"], row["available"], row["lag_days"], row["channel"]) == (
            day0,
            available,
            lag,
            "upstream_wheels",
        ), series
        wheel = f"rocm{rocm}/torch-{series}.0%2Brocm{rocm}-{tags}.whl"
        assert row["evidence_url"] == "https://download.pytorch.org/whl/" + wheel
