"""The report's realized-efficiency chart and tables, from the real v5.0 / v5.1 / v6.0 result
sets of the cassettes: the lead benchmark at 8 accelerators, each regime's best (NVIDIA's too)
with its part, format, tokens per second and share of the dense peaks; the format-adoption rows
with their evidence; the chart drawn with every measured point and a "no record read" round."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tracker.collect.runner import run_sources
from tracker.jobs.config import load_config
from tracker.measure.perf.training import training_figures
from tracker.report import efficiency_chart as chart_module
from tracker.report.training_section import training_section

REPO = Path(__file__).resolve().parents[2]
IDS = ["mlperf-training-v4-1", "mlperf-training-v5-0", "mlperf-training-v5-1",
       "mlperf-training-v6-0"]  # fmt: skip


def figures(store):
    run_sources(load_config(REPO / "sources.yaml"), store, only=IDS, replay=REPO / "cassettes")
    results = store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result")
    return training_figures(results, ["cuda", "rocm", "xla", "neuron"])


def test_the_section_rows(sqlite_store):
    section = training_section(figures(sqlite_store))
    lines = {(e["round"], e["regime"]): e for e in section["efficiency"]}
    assert set(lines) == {("v6.0", "CUDA"), ("v6.0", "ROCm"), ("v5.1", "CUDA"), ("v5.1", "ROCm"),
                          ("v5.0", "CUDA"), ("v5.0", "ROCm"), ("v4.1", "CUDA")}  # fmt: skip
    amd = lines[("v5.1", "ROCm")]
    assert (amd["part"], amd["format"], amd["tokens"], amd["bf16"], amd["at_format"]) == (
        "MI355X", "FP8", "5,327", "58%-65%", "29%-32%")  # fmt: skip
    assert amd["format_evidence"].endswith("/AMD/systems/MI355X_EPYC_9575F_pytorch.json")
    gb300 = lines[("v5.1", "CUDA")]
    assert (gb300["format"], gb300["bf16"], gb300["at_format"]) == ("FP4", "99%-111%", "17%-18%")
    # v6.0: the format is known (MXFP4 log key), the logs read hold no samples: no number
    v60 = lines[("v6.0", "ROCm")]
    assert (v60["format"], v60["tokens"], v60["bf16"]) == ("FP4", None, "")
    adoption = {(a["regime"], a["format"]): a for a in section["adoption"]}
    fp4 = adoption[("ROCm", "FP4")]
    assert (fp4["first_round"], fp4["nvidia_round"], fp4["lag_days"], fp4["bound"]) == (
        "v6.0", "v5.1", 216, "exact")  # fmt: skip


def test_the_chart_draws_every_measured_point(sqlite_store, tmp_path, monkeypatch):
    f = figures(sqlite_store)
    drawn = {}

    def keep(fig, path):
        drawn["labels"] = [t.get_text() for ax in fig.axes for t in ax.texts]

    monkeypatch.setattr(chart_module, "save_png", keep)
    rounds = [r.round for r in f.rounds]
    dates = [f"{r.published:%Y-%m-%d}" for r in f.rounds]
    assert chart_module.efficiency_chart(tmp_path / "e.png", f.rows, rounds, dates, 2)
    labels = drawn["labels"]
    assert "MI355X FP8\n58%-65%" in labels and "GB300 FP4\n99%-111%" in labels  # BF16 panel
    assert "MI355X FP8\n29%-32%" in labels and "GB300 FP4\n17%-18%" in labels  # format panel
    assert labels.count("no record\nread") == 2  # v6.0 in each panel
    assert not chart_module.efficiency_chart(tmp_path / "n.png", [], rounds, dates, 2)
