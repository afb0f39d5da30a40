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
    """One TrainingRow as the CLI's cells (minutes to 2 places, the ratio to 3)."""
    best, cuda = row.best, row.nvidia

    def minutes(entry) -> str:
        return "" if entry is None else f"{entry.minutes:.2f}"

    return [
        row.round,
        row.round_date.date().isoformat(),
        row.benchmark or "(any)",
        "" if row.accelerators is None else row.accelerators,
        row.regime,
        row.status,
        minutes(best),
        minutes(cuda),
        "" if row.ratio is None else f"{row.ratio:.3f}",
        best.accelerator if best else "",
        best.system if best else "",
        best.submitter if best else "",
        best.availability if best else "",
        best.versions if best else "",
        cuda.accelerator if cuda else "",
        cuda.system if cuda else "",
        cuda.versions if cuda else "",
        best.url if best else "",
        cuda.url if cuda else "",
    ]
