"""`tracker perf --suite training`: MLPerf Training time to train per regime beside the best
NVIDIA one at the same accelerator count (tracker.measure.perf.training), as a table or CSV."""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tracker.cli.common import one_of, print_table
from tracker.measure.perf.training import COLUMNS

# The table leaves out the long cells (the CSV has them).
LONG = ("software_versions", "nvidia_software_versions", "evidence_url", "nvidia_evidence_url")


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
    return ["" if values[c] is None else values[c] for c in COLUMNS]
