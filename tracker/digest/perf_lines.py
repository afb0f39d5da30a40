"""The digest's "Delivered performance" lines: an MLPerf Inference or Training round first
collected in the digest's week, said once, with the lead benchmark's ratios per regime (the
report's figures: tracker.measure.perf.inference, tracker.measure.perf.training)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracker.measure.perf.inference import LEAD_BENCHMARK, REFERENCE, PerfFigures
from tracker.measure.perf.training import LEAD_BENCHMARK as TRAINING_LEAD
from tracker.measure.perf.training import REFERENCE as TRAINING_REFERENCE
from tracker.measure.perf.training import TrainingFigures
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


def new_training_round_lines(
    training: TrainingFigures, start: datetime, end: datetime
) -> list[dict[str, Any]]:
    """One line per MLPerf Training round first collected in [start, end): per regime, its
    best time to train as a multiple of NVIDIA's at the same count on the lead benchmark (else
    the first benchmark it shares with NVIDIA), and which regimes submitted nothing."""
    lines = []
    for info in training.rounds:
        if not start <= info.first_seen < end:
            continue
        compared = [r for r in training.compared() if r.round == info.round]
        parts = []
        for regime in palette.ordered({r.regime for r in compared}):
            mine = sorted(
                (r for r in compared if r.regime == regime),
                key=lambda r: (r.benchmark != TRAINING_LEAD, r.benchmark, r.accelerators or 0),
            )
            row = mine[0]
            assert row.best is not None and row.nvidia is not None and row.ratio is not None
            parts.append(
                f"{palette.short_name(regime)} {row.ratio:.2f}x NVIDIA's time on "
                f"{row.benchmark} at {row.accelerators} accelerators "
                f"({row.best.part} {row.best.minutes:.1f} min vs {row.nvidia.part} "
                f"{row.nvidia.minutes:.1f} min{_efficiency(row)})"
            )
        unscored = training.not_scored(info.round)
        silent = [
            palette.short_name(r)
            for r in training.regimes
            if r != TRAINING_REFERENCE and not info.counts.get(r) and r not in unscored
        ]
        text = (
            f"MLPerf Training {info.round} (published {info.published:%Y-%m-%d}) collected this "
            "week"
            + (f"; time to train: {', '.join(parts)}" if parts else "")
            + (f"; no submission from {', '.join(silent)}" if silent else "")
            + "".join(
                f"; {palette.short_name(r)} submitted, not scored: {why}"
                for r, why in unscored.items()
            )
        )
        url = compared[0].best.url if compared and compared[0].best else ""
        lines.append({"text": text, "url": url})
    return lines


def _efficiency(row: Any) -> str:
    """ "; realized efficiency of the BF16 peak: MI355X FP8 58-65 % vs GB300 FP4 99-111 %" when
    both sides have one (docs/methodology.md, "Realized efficiency"), else nothing."""
    sides = []
    for entry in (row.best, row.nvidia):
        realized = entry.realized if entry is not None else None
        low, high = realized.bf16 if realized is not None else (None, None)
        if realized is None or low is None or high is None:
            return ""
        sides.append(f"{entry.part} {realized.used.label} {low:.0%}-{high:.0%}")
    return "; of the dense BF16 peak: " + " vs ".join(sides)
