"""The compact data-quality sections: one summary line per section with its counts, every item
a row of data_quality.csv (issue 22: 35 stale sources and 140 bullets were a wall of text)."""

from __future__ import annotations

from tracker.measure.lag.rows import LagRun
from tracker.report.quality import quality_sections


def test_summary_lines_count_every_item_and_the_csv_rows_hold_them():
    stale = [
        {
            "source_id": "vllm-issues-neuron",
            "project": "vllm",
            "regime": "neuron",
            "last_evidence": "2024-05-02",
            "days_behind": 842,
            "stale_after_days": 45,
        },
        {
            "source_id": "jax-issues",
            "project": "jax",
            "regime": "",
            "last_evidence": "2024-10-18",
            "days_behind": 673,
            "stale_after_days": 45,
        },
    ]
    run = LagRun()
    run.leave_out("vllm_neuron_plugin", "0.6", "neuron", "neuron_plugin", "day 0 before the stream")
    run.leave_out("pytorch", "2.3", "xla", "torch_xla_release", "day 0 before the stream")
    run.leave_out("jax", "0.4.26", "xla", "jax_tpu", "day 0 before the stream")
    run.no_day0("models", "mixtral", "public_weights", "no public-weights date")
    unknown = run.unknown
    out = quality_sections(stale, 45, unknown, [])
    lines = out["lines"]
    assert lines["stale"] == (
        "2 of 45 configured sources have no fact in the last 45 days (by regime: neuron 1, none 1; "
        "oldest vllm-issues-neuron, 842 d)"
    )
    assert lines["not_counted"].startswith("3 artifacts not counted (by regime: xla 2, neuron 1;")
    assert lines["day0_unknown"] == (
        "1 model families without a known day 0 (by day-0 definition: public_weights 1)"
    )
    assert "negative" not in lines
    sections = [r["section"] for r in out["rows"]]
    assert sections == ["stale_source"] * 2 + ["day0_unknown"] + ["not_counted"] * 3
