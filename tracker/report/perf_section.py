"""What the report's "Delivered performance" section shows, shaped for the template (no
drawing): per benchmark every round carries, a row per round and scenario with each regime's
cell (ratio to the best NVIDIA result, the deciding parts, evidence) or "no submission"; per
round, the rows the rules kept per regime and left out per reason."""

from __future__ import annotations

from typing import Any

from tracker.measure.perf.inference import REFERENCE, PerfFigures
from tracker.measure.perf.rounds import OTHER
from tracker.present import palette

PERF_CSV_COLUMNS = (
    "round",
    "round_date",
    "benchmark",
    "scenario",
    "units",
    "regime",
    "per_accelerator",
    "result",
    "accelerators",
    "accelerator",
    "submitter",
    "software",
    "weight_data_types",
    "ratio_to_best_cuda",
    "best_cuda_accelerator",
    "peer_accelerator",
    "ratio_to_peer",
    "evidence_url",
)


def perf_section(perf: PerfFigures) -> dict[str, Any]:
    """The template's `perf`: regimes (id, name), benchmarks (name, rows), rounds (counts)."""
    regimes = [r for r in perf.regimes if r != REFERENCE] or sorted(
        {r.regime for r in perf.rows} - {REFERENCE}
    )
    benchmarks = []
    for benchmark in perf.common_benchmarks():
        lines = []
        keys = sorted(
            {(r.round_date, r.round, r.scenario) for r in perf.rows if r.benchmark == benchmark}
        )
        for _, round_, scenario in keys:
            here = {
                r.regime: r
                for r in perf.rows
                if (r.benchmark, r.round, r.scenario) == (benchmark, round_, scenario)
            }
            cuda = here.get(REFERENCE)
            lines.append(
                {
                    "round": round_,
                    "scenario": scenario,
                    "cuda": cuda,
                    "cells": [here.get(regime) for regime in regimes],
                }
            )
        benchmarks.append({"name": benchmark, "lines": lines})
    rounds: list[dict[str, Any]] = []
    for info in perf.rounds:
        kept = {r: info.counts.get(r, 0) for r in [REFERENCE, *regimes]}
        left = {k: v for k, v in info.counts.items() if k not in kept and k != OTHER}
        rounds.append(
            {
                "round": info.round,
                "published": info.published.date().isoformat(),
                "rows": info.rows,
                "kept": kept,
                "other": info.counts.get(OTHER, 0),
                "left_out": sorted(left.items(), key=lambda kv: (-kv[1], kv[0])),
            }
        )
    return {
        "regimes": [{"id": r, "name": palette.name(r)} for r in regimes],
        "benchmarks": benchmarks,
        "rounds": rounds,
        # Per regime, the rounds with any kept result: none at all is itself the finding.
        "presence": [
            {"name": palette.name(r), "rounds": [x["round"] for x in rounds if x["kept"][r]]}
            for r in regimes
        ],
        "rows": perf.rows,
    }


def perf_csv_rows(perf: PerfFigures) -> list[dict[str, Any]]:
    """perf_parity.csv: every parity row (the view v_perf_parity's rows)."""
    return [
        {c: getattr(r, c) for c in PERF_CSV_COLUMNS} | {"round_date": r.round_date.date()}
        for r in perf.rows
    ]
