"""The digest's "Delivered performance" lines: an MLPerf Inference round first collected in the
digest's week, said once, with the lead benchmark's ratios per regime (the report's figures:
tracker.measure.perf.inference)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracker.measure.perf.inference import LEAD_BENCHMARK, REFERENCE, PerfFigures
from tracker.mentions.accelerators import short_name
from tracker.present import palette


def new_round_lines(perf: PerfFigures, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """One line per round first collected in [start, end): what it says per regime for the
    lead benchmark (falling back to the first benchmark the round has), and which regimes
    submitted nothing."""
    lines = []
    for info in perf.rounds:
        if not start <= info.first_seen < end:
            continue
        mine = [r for r in perf.rows if r.round == info.round]
        benchmarks = sorted({r.benchmark for r in mine}, key=lambda b: (b != LEAD_BENCHMARK, b))
        parts = []
        if benchmarks:
            lead = [r for r in mine if r.benchmark == benchmarks[0] and r.regime != REFERENCE]
            for row in lead:
                if row.ratio_to_best_cuda is None:
                    continue
                cuda = short_name(row.best_cuda_accelerator or "")
                parts.append(
                    f"{palette.short_name(row.regime)} {row.scenario} "
                    f"{row.ratio_to_best_cuda:.2f} ({row.part} vs {cuda})"
                )
        silent = [
            palette.short_name(r) for r in perf.regimes if r != REFERENCE and not info.counts.get(r)
        ]
        text = (
            f"MLPerf Inference {info.round} (published {info.published:%Y-%m-%d}) collected this "
            "week"
            + (
                f"; {benchmarks[0]}, best per accelerator as a share of the best NVIDIA: "
                + ", ".join(parts)
                if parts
                else ""
            )
            + (f"; no submission from {', '.join(silent)}" if silent else "")
        )
        url = next((r.evidence_url for r in mine if r.regime != REFERENCE), "")
        lines.append({"text": text, "url": url})
    return lines
