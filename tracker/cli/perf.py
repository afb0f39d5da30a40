"""`tracker perf`: delivered performance per regime (MLPerf Inference; MLPerf Training with
``--suite training``), as a table or CSV."""

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
@click.option(
    "--suite",
    type=click.Choice(["inference", "training", "formats"]),
    default="inference",
    show_default=True,
    help="MLPerf Inference (throughput per accelerator), MLPerf Training (time to train, "
    "throughput and realized efficiency) or formats (when each regime's best MLPerf Training "
    "result first used FP8 and FP4, beside NVIDIA).",
)
@click.option("--regime", default=None, help="Only this regime.")
@click.option(
    "--benchmark",
    default=None,
    help="Only this MLPerf benchmark, e.g. llama2-70b-99 (inference), llama2_70b_lora (training).",
)
@table_or_csv()
@click.pass_context
def perf(ctx: click.Context, as_of, suite, regime, benchmark, fmt) -> None:
    """Print delivered performance per regime: per MLPerf Inference round, benchmark and
    scenario, each regime's best result per accelerator and its ratio to the best NVIDIA
    (cuda) result of the same round (docs/methodology.md, "Delivered performance").

    per_accelerator = the system's result / its accelerators: derived here, not an MLCommons
    metric. Closed division, datacenter suite, available systems, measured (not inferred)
    throughput results of one accelerator model only. ratio_to_peer compares with the
    same-generation NVIDIA part instead (MI300X-H100, MI325X-H200, MI355X-B200). The view
    v_perf_parity holds the same rows as of the newest report.

    With --suite training: per MLPerf Training round, benchmark and accelerator count, each
    regime's best time to train (minutes, scored as MLCommons' result summarizer scores it:
    olympic mean of the runs, failed runs dropped, times scaling.json's factor) beside the best
    NVIDIA one at the same count, and ratio_to_nvidia = minutes / nvidia_minutes (> 1: slower).
    A regime without any result set in a round has a row saying "no submission in this round".
    Each row also carries its best result set's realized efficiency: samples (and tokens) per
    second per accelerator, the number format it trained in (read from the submission; "not
    stated" otherwise) and model FLOP/s over the accelerator's dense peak at BF16 and at that
    format, without and with attention (docs/methodology.md, "Realized efficiency"). The views
    v_perf_training and v_perf_efficiency hold the same rows as of the newest report.

    With --suite formats: per regime and format (FP8, FP4), the first MLPerf Training round
    whose best result set used it, NVIDIA's, and the lag in days (bound: exact, at least, not
    yet, not stated); the view v_format_adoption holds the same rows.

    \b
    Examples:
      tracker perf --benchmark llama2-70b-99
      tracker perf --regime rocm --format csv > rocm-perf.csv
      tracker perf --suite training --benchmark llama2_70b_lora
      tracker perf --suite formats
    """
    from tracker.measure.perf.inference import perf_figures
    from tracker.store.asof import resolve_as_of

    store = store_for(ctx)
    point = resolve_as_of(store, as_of)
    config = load_config(ctx.obj["sources"])
    regimes = [r.id for r in config.regimes]
    one_of(regime, regimes, f"is not a regime of {config.path}", "--regime")
    if suite == "formats":
        from tracker.cli.perf_training import print_adoption

        print_adoption(store.perf_results(point.when, "training_result"), regimes, fmt)
        return
    if suite == "training":
        from tracker.cli.perf_training import print_training

        print_training(
            store.perf_results(point.when, "training_result"), regimes, regime, benchmark, fmt
        )
        return
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
