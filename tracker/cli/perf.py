"""`tracker perf`: delivered performance per regime (MLPerf Inference), as a table or CSV."""

from __future__ import annotations

import csv
import sys

import click

from tracker.cli.common import (
    as_of_option,
    load_config,
    one_of,
    print_table,
    store_for,
    table_or_csv,
)

COLUMNS = (
    "round",
    "round_date",
    "benchmark",
    "scenario",
    "regime",
    "per_accelerator",
    "units",
    "ratio_to_best_cuda",
    "accelerator",
    "submitter",
    "software",
    "accelerators",
    "peer_accelerator",
    "ratio_to_peer",
    "evidence_url",
)


@click.command("perf", short_help="Delivered performance per regime (MLPerf).")
@as_of_option(
    "Only rounds published by the end of DATE, UTC (default: the snapshot date of a "
    "replayed store, else now)."
)
@click.option("--regime", default=None, help="Only this regime.")
@click.option("--benchmark", default=None, help="Only this MLPerf benchmark, e.g. llama2-70b-99.")
@table_or_csv()
@click.pass_context
def perf(ctx: click.Context, as_of, regime, benchmark, fmt) -> None:
    """Print delivered performance per regime: per MLPerf Inference round, benchmark and
    scenario, each regime's best result per accelerator and its ratio to the best NVIDIA
    (cuda) result of the same round (docs/methodology.md, "Delivered performance").

    per_accelerator = the system's result / its accelerators: derived here, not an MLCommons
    metric. Closed division, datacenter suite, available systems, measured (not inferred)
    throughput results of one accelerator model only. ratio_to_peer compares with the
    same-generation NVIDIA part instead (MI300X-H100, MI325X-H200, MI355X-B200). The view
    v_perf_parity holds the same rows as of the newest report.

    \b
    Examples:
      tracker perf --benchmark llama2-70b-99
      tracker perf --regime rocm --format csv > rocm-perf.csv
    """
    from tracker.measure.perf.inference import perf_figures
    from tracker.store.asof import resolve_as_of

    store = store_for(ctx)
    point = resolve_as_of(store, as_of)
    config = load_config(ctx.obj["sources"])
    regimes = [r.id for r in config.regimes]
    one_of(regime, regimes, f"is not a regime of {config.path}", "--regime")
    figures = perf_figures(store.perf_results(point.when), regimes)
    if not figures.rounds:
        click.echo("no MLPerf results stored (sources of kind mlperf_inference)", err=True)
    known = sorted({r.benchmark for r in figures.rows})
    one_of(benchmark, known if figures.rows else [], "has no result", "--benchmark")
    rows = [
        _cells(r)
        for r in figures.rows
        if (regime is None or r.regime == regime)
        and (benchmark is None or r.benchmark == benchmark)
    ]
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
        return
    # The table leaves out the long software and URL cells (the CSV has them).
    shown = [i for i, c in enumerate(COLUMNS) if c not in ("software", "evidence_url")]
    print_table([COLUMNS[i] for i in shown], [[row[i] for i in shown] for row in rows])


def _cells(row) -> list:
    def ratio(value: float | None) -> str:
        return "" if value is None else f"{value:.3f}"

    return [
        row.round,
        row.round_date.date().isoformat(),
        row.benchmark,
        row.scenario,
        row.regime,
        f"{row.per_accelerator:.1f}",
        row.units,
        ratio(row.ratio_to_best_cuda),
        row.accelerator,
        row.submitter,
        row.software,
        f"{row.accelerators:g}",
        row.peer_accelerator or "",
        ratio(row.ratio_to_peer),
        row.evidence_url,
    ]


COMMANDS = (perf,)
