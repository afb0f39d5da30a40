"""What the report's "Delivered performance" section shows of MLPerf Training, shaped for the
template (no drawing): per round, newest first, a row per benchmark and accelerator count with
the best NVIDIA time to train and each regime's cell (its time, the ratio, the deciding system,
its software versions) or "no submission"; per regime, the rounds it submitted to."""

from __future__ import annotations

from typing import Any

from tracker.measure.perf.training import (
    COLUMNS as TRAINING_CSV_COLUMNS,
)
from tracker.measure.perf.training import REFERENCE, TrainingFigures, absent
from tracker.present import palette
from tracker.report.efficiency_chart import lead_rows


def training_section(training: TrainingFigures) -> dict[str, Any]:
    """The template's `training`: regimes (id, name), rounds newest first (lines, silent
    regimes), presence per regime."""
    regimes = [r for r in training.regimes if r != REFERENCE] or sorted(
        {r.regime for r in training.rows} - {REFERENCE}
    )
    rounds = []
    for info in reversed(training.rounds):
        here = [r for r in training.rows if r.round == info.round and not absent(r)]
        unscored = training.not_scored(info.round)
        keys = sorted({(r.benchmark, r.accelerators or 0) for r in here}, key=_lead_first)
        lines = []
        for benchmark, count in keys:
            cells = {
                r.regime: r for r in here if (r.benchmark, r.accelerators) == (benchmark, count)
            }
            if set(cells) == {REFERENCE}:
                continue  # NVIDIA alone: the CSV has it; the table compares
            lines.append(
                {
                    "benchmark": benchmark,
                    "accelerators": count,
                    "cuda": cells.get(REFERENCE),
                    "cells": [cells.get(regime) for regime in regimes],
                }
            )
        rounds.append(
            {
                "round": info.round,
                "published": info.published.date().isoformat(),
                "result_sets": info.result_sets,
                "lines": lines,
                "silent": [
                    palette.name(r) for r in regimes if not info.counts.get(r) and r not in unscored
                ],
                "not_scored": [f"{palette.name(r)} ({why})" for r, why in unscored.items()],
            }
        )
    return {
        "efficiency": [_efficiency_line(r) for r in lead_rows(training.rows, measured=False)],
        "adoption": [
            {
                "regime": palette.name(a.regime),
                "format": a.format.upper(),
                "first_round": a.first_round,
                "first_date": a.first_date.date().isoformat() if a.first_date else None,
                "evidence": a.evidence,
                "nvidia_round": a.nvidia_round,
                "nvidia_date": a.nvidia_date.date().isoformat() if a.nvidia_date else None,
                "nvidia_evidence": a.nvidia_evidence,
                "lag_days": a.lag_days,
                "bound": a.bound,
            }
            for a in training.adoption
        ],
        "regimes": [{"id": r, "name": palette.name(r)} for r in regimes],
        "rounds": rounds,
        "presence": [
            {
                "name": palette.name(r),
                "rounds": [
                    i.round if i.counts.get(r) else f"{i.round} (submitted, not scored)"
                    for i in training.rounds
                    if i.counts.get(r) or r in training.not_scored(i.round)
                ],
            }
            for r in regimes
        ],
    }


def _efficiency_line(row: Any) -> dict[str, Any]:
    """One row of the realized-efficiency table (the lead benchmark at its compared count)."""
    best = row.best
    realized = best.realized

    def share(pair: tuple[float | None, float | None]) -> str:
        low, high = pair
        return "" if low is None or high is None else f"{low:.0%}-{high:.0%}"

    return {
        "round": row.round,
        "regime": palette.name(row.regime),
        "part": best.part,
        "system": f"{best.submitter} {best.system}",
        "url": best.url,
        "format": realized.used.label,
        "format_said": realized.used.said,
        "format_evidence": realized.used.evidence,
        "tokens": None if realized.tokens_per_s is None else f"{realized.tokens_per_s:,.0f}",
        "bf16": share(realized.bf16),
        "at_format": share(realized.at_format),
    }


def _lead_first(key: tuple[str, int]) -> tuple:
    return (key[0] != "llama2_70b_lora", key[0], key[1])


def training_csv_rows(training: TrainingFigures) -> list[dict[str, Any]]:
    """perf_training.csv: the rows of the view v_perf_training (and the regimes' "no submission
    in this round" rows)."""
    out = []
    for row in training.rows:
        values = row.store_row(row.round_date)
        values["round_date"] = row.round_date.date()
        if absent(row):
            values["accelerators"] = ""
        out.append({c: values.get(c) for c in TRAINING_CSV_COLUMNS})
    return out
