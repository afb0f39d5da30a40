"""An independent benchmark's first configurations in words, the same in the report and the
digest (tracker.measure.models.benchmark computes them)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracker.measure.models.benchmark import BenchmarkFigures, BenchmarkPair, FirstConfig
from tracker.present import palette

VENDOR = {"cuda": "NVIDIA", "rocm": "AMD"}


def vendor(regime: str) -> str:
    """Whose hardware a regime's configurations run on ("NVIDIA", "AMD"), else its name."""
    return VENDOR.get(regime, palette.name(regime))


def config_text(fc: FirstConfig | None) -> str:
    """ "2026-03-07 on mi355x (sglang)", "by 2025-11-03 on b200 (trt)" for a baseline, "none
    yet"."""
    if fc is None:
        return "none yet"
    when = f"{'by ' if fc.baseline else ''}{fc.when:%Y-%m-%d}"
    return f"{when} on {fc.hardware} ({fc.framework})"


def days_text(pair: BenchmarkPair) -> str:
    """The days from the NVIDIA configuration to the AMD one, signed: "+20 d", "-12 d" (AMD
    first), "open" (no AMD configuration yet), "?" (a baseline: since when is not known)."""
    if pair.days is not None:
        return f"{pair.days:+d} d" if pair.days else "0 d"
    if pair.reference is not None and pair.other is None:
        return "open"
    return "?"


def pair_rows(figures: BenchmarkFigures | None) -> list[dict[str, Any]]:
    """One row per family for the report's table and summary.json."""
    if figures is None:
        return []
    rows = []
    for p in figures.pairs:
        row: dict[str, Any] = {"family": p.family, "days": p.days, "days_text": days_text(p)}
        for side, fc in (("nvidia", p.reference), ("amd", p.other)):
            row[side] = (
                {
                    "date": f"{fc.when:%Y-%m-%d}",
                    "hardware": fc.hardware,
                    "runner": fc.runner,
                    "framework": fc.framework,
                    "model": fc.model,
                    "commit_url": fc.url,
                    "baseline": fc.baseline,
                }
                if fc is not None
                else None
            )
            row[f"{side}_text"] = config_text(fc)
        rows.append(row)
    return rows


def first_config_lines(
    figures: BenchmarkFigures | None, regime: str, start: datetime, end: datetime
) -> list[dict[str, str]]:
    """Digest lines: families whose first configuration on ``regime``'s hardware was added in
    [start, end), with the days since (or before) the NVIDIA one and the commit's URL."""
    if figures is None:
        return []
    lines = []
    for p in figures.pairs:
        fc = p.reference if regime == figures.reference else p.other
        if regime not in (figures.reference, figures.other) or fc is None:
            continue
        if not start <= fc.when < end:
            continue
        text = (
            f"{p.family} first configured on {vendor(regime)} hardware in {figures.project}: "
            f"{config_text(fc)}"
        )
        if regime != figures.reference:
            text += f", {days_text(p)} from NVIDIA ({config_text(p.reference)})"
        lines.append({"kind": "benchmark", "text": text, "url": fc.url, "link": "commit"})
    return lines


def benchmark_json(figures: BenchmarkFigures | None) -> dict[str, Any] | None:
    """summary.json's independent-benchmark part: the pairs as the report's table shows them,
    the runners no regime was given, and the counts."""
    if figures is None:
        return None
    return {
        "project": figures.project,
        "method": "docs/methodology.md#independent-benchmark",
        "pairs": [
            {k: v for k, v in row.items() if not k.endswith("_text")} for row in pair_rows(figures)
        ],
        "unknown_runners": [vars(u) for u in figures.unknown_runners],
        "entries": figures.entries,
        "commits": figures.commits,
    }
