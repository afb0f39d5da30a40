"""`tracker perf --suite training`: MLPerf Training time to train per regime beside the best
NVIDIA one at the same accelerator count (tracker.measure.perf.training), as a table or CSV."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from tracker.cli.common import one_of, print_table
from tracker.measure.perf.training import COLUMNS

# The table leaves out the long cells (the CSV has them).
LONG = ("software_versions", "nvidia_software_versions", "evidence_url", "nvidia_evidence_url",
        "format_evidence")  # fmt: skip
# Realized efficiency as a share of the peak, 3 places; throughput to 1 (samples) or 0 (tokens).
SHARES = ("efficiency_bf16", "efficiency_bf16_attention", "efficiency_format",
          "efficiency_format_attention")  # fmt: skip
ADOPTION_COLUMNS = ("regime", "format", "first_round", "first_round_date", "nvidia_first_round",
                    "nvidia_first_round_date", "lag_days", "bound", "evidence_url",
                    "nvidia_evidence_url")  # fmt: skip


def print_training(
    results: Iterable[Mapping[str, Any]],
    regimes: Sequence[str],
    regime: str | None,
    benchmark: str | None,
    fmt: str,
) -> None:
    from tracker.measure.perf.training import training_figures

    figures = training_figures(results, regimes)
    if not figures.rounds:
        print(
            "no MLPerf Training results stored (sources of kind mlperf_training)", file=sys.stderr
        )
    known = sorted({r.benchmark for r in figures.rows if r.benchmark})
    one_of(benchmark, known if known else [], "has no result", "--benchmark")
    rows = [
        training_cells(r)
        for r in figures.rows
        if (regime is None or r.regime == regime)
        and (benchmark is None or r.benchmark in (benchmark, ""))
    ]
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
        return
    shown = [i for i, c in enumerate(COLUMNS) if c not in LONG]
    print_table([COLUMNS[i] for i in shown], [[row[i] for i in shown] for row in rows])


def training_cells(row) -> list:
    """One TrainingRow as the CLI's cells, in COLUMNS' order: read by column name from the row
    the view and perf_training.csv hold (so a cell can never sit under another's header);
    minutes to 2 places, the ratio to 3."""
    values = row.store_row(row.round_date)
    values["round_date"] = row.round_date.date().isoformat()
    values["benchmark"] = row.benchmark or "(any)"
    values["accelerators"] = row.accelerators if row.accelerators is not None else ""
    for name in ("minutes", "nvidia_minutes"):
        values[name] = "" if values[name] is None else f"{values[name]:.2f}"
    ratio = values["ratio_to_nvidia"]
    values["ratio_to_nvidia"] = "" if ratio is None else f"{ratio:.3f}"
    for name, spec in [(c, ".3f") for c in SHARES] + [
        ("samples_per_second", ".3f"),
        ("tokens_per_second", ".0f"),
    ]:
        values[name] = "" if values[name] is None else format(values[name], spec)
    return ["" if values[c] is None else values[c] for c in COLUMNS]


def print_adoption(results: Iterable[Mapping[str, Any]], regimes: Sequence[str], fmt: str) -> None:
    """`tracker perf --suite formats`: per regime and number format, the first MLPerf Training
    round whose best result set used it, beside NVIDIA's, and the lag in days."""
    from tracker.measure.perf.training import training_figures

    figures = training_figures(results, regimes)
    rows = []
    for item in figures.adoption:
        values = item.store_row(datetime.now(UTC))  # as_of is not shown
        for name in ("first_round_date", "nvidia_first_round_date"):
            values[name] = values[name].date().isoformat() if values[name] else ""
        rows.append(["" if values[c] is None else values[c] for c in ADOPTION_COLUMNS])
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(ADOPTION_COLUMNS)
        writer.writerows(rows)
        return
    shown = [i for i, c in enumerate(ADOPTION_COLUMNS) if not c.endswith("evidence_url")]
    print_table([ADOPTION_COLUMNS[i] for i in shown], [[r[i] for i in shown] for r in rows])
