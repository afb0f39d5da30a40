"""`tracker lag`: day-0 coverage lag per artifact, regime and definition as CSV, the kernel
layer's cells, or (--trend) whether the gap is closing, the pooled rows being the headline
answer."""

from __future__ import annotations

import csv
import sys
import textwrap
from datetime import datetime

import click

from tracker.cli.common import (
    as_of_option,
    load_config,
    one_of,
    print_table,
    store_for,
    table_or_csv,
    terminal_width,
)
from tracker.names import LAYERS


@click.command("lag", short_help="Day-0 coverage lag as CSV, or the trend.")
@as_of_option(
    "Compute as of the end of DATE, UTC (default: the snapshot date of a replayed store, "
    "else now); open artifacts are censored there."
)
@click.option("--regime", default=None, help="Only this regime.")
@click.option("--project", default=None, help="Only this upstream project.")
@click.option("--primary-only", is_flag=True, help="Only each regime's primary definition.")
@click.option(
    "--artifact",
    type=click.Choice([layer.id for layer in LAYERS]),
    default=None,
    help="Only framework release series, model families, kernel features or NCCL minor series "
    "(collective; default: all). kernel lists a cell per feature and regime, unknown cells "
    "with status unknown; collective names on stderr the regimes measured with no number, "
    "and why.",
)
@click.option(
    "--trend",
    is_flag=True,
    help="Is the gap closing? Print the lag trend per project, regime and definition, and per "
    "regime pooled over projects (method: docs/methodology.md, section 'Is the gap closing?').",
)
@table_or_csv("With --trend: an aligned table or CSV (the lag rows themselves are always CSV).")
@click.pass_context
def lag(ctx: click.Context, as_of, regime, project, primary_only, artifact, trend, fmt) -> None:
    """Print day-0 coverage lag as CSV: one row per (artifact, regime, definition).

    \b
    Columns: project,series,regime,definition,primary,day0,available,lag_days,
             status,evidence_url,artifact,day0_definition,observed_through,covered_by,
             channel,evidence_kind

    `artifact` is framework (a release series, e.g. pytorch 2.9)
    or model (a model family, e.g. qwen3-moe, under project `models`); model families have one
    row per day-0 definition of sources.yaml (engine_cuda, the primary, vllm_cuda,
    public_weights, benchmark_cuda: the first NVIDIA configuration in the independent
    benchmark; definition independent_benchmark rows cite its commits). Open artifacts
    have status `open` and lag_days = observed_through - day0 (observed_through: how far the
    definition's evidence was looked at, at most as_of; series released after it are left out
    as "not observed since"); covered_by names the newer series whose evidence covers a row
    (empty when its own). kernel: a kernel feature of the ledger
    (project = the library, series = the feature id, day 0 = the kernel on CUDA); with
    --artifact kernel every regime gets a row, status `unknown` where nothing dates it (the
    reasons on stderr). `channel`: on a row of an earliest-build definition (the earliest
    official build a user can install, over the regime's install channels), the channel whose
    build came first, e.g. therock; empty elsewhere. `evidence_kind`: on a covered framework
    row, the kind of record that dated it (release, note, configuration commit, issue,
    comment, page revision: a build a channel's `builds:` patterns found in any record).

    With --trend, one row per (artifact group, regime, definition) instead: the change in lag
    per year of day 0 (slope_low..slope_high: the range open artifacts leave; inf = no upper
    limit, which the report words "at least X d/yr"), its 90% interval (ci_low, ci_high), the
    verdict (closing, widening, no clear change, cannot tell yet when the interval is open at
    both ends, or too few artifacts below min_artifacts), and the Kaplan-Meier median lag of the
    last 12 months (recent_at_least: the least it can be while half or more are open) against
    the 12 months before, with counts of artifacts and open ones. The pooled rows
    per layer ("all kernel features", "all model families", "all collectives", each pooled
    on its own) are the answer per layer; the framework's (all projects, primary) are the
    headline answer: the report, summary.json, the digest and
    the view v_lag_trend say the same verdict and number.

    \b
    Examples:
      tracker lag --regime rocm --primary-only > rocm-lag.csv
      tracker lag --trend --format csv > lag-trend.csv
      tracker lag --artifact model --regime neuron
      tracker lag --artifact model --regime rocm | grep independent_benchmark
      tracker lag --artifact collective --regime rocm
    """
    from tracker.measure.facts import compute_lag
    from tracker.measure.lag.rows import LagRun
    from tracker.measure.stats.trend import definition_label
    from tracker.report.writer import write_lag_csv
    from tracker.store.asof import resolve_as_of

    # The whole day counts: a release published on DATE is known as of DATE. A replayed store
    # is as of its snapshot (stderr says which), not of the wall clock.
    point = resolve_as_of(store_for(ctx), as_of)
    when = point.when
    if point.snapshot is not None:
        click.echo(f"lag {point.label} (--as-of overrides)", err=True)
    config = load_config(ctx.obj["sources"])
    known_regimes = [r.id for r in config.regimes]
    one_of(regime, known_regimes, f"is not a regime of {config.path}", "--regime")
    projects = {r.project for r in config.coverage} | {r.project for r in config.model_coverage}
    if config.collective_layer is not None:
        projects.add(config.collective_layer.project)
    known_projects = sorted(projects)
    if config.kernel_layer is not None:
        from tracker.measure.kernels.ledger import load_ledger

        libraries = {f.library for f in load_ledger(config.kernel_layer.ledger)}
        known_projects = sorted(set(known_projects) | libraries)
    one_of(project, known_projects, f"has no coverage rule in {config.path}", "--project")
    run = LagRun()
    everything = compute_lag(config, store_for(ctx), when, run)
    unknown = run.unknown
    if artifact == "kernel" and not trend:
        _print_kernels(everything, unknown, regime, project, store_for(ctx), config)
        return
    if artifact == "collective" and config.collective_layer is not None:
        for regime_id, reason in config.collective_layer.reasons().items():
            if regime is None or regime == regime_id:
                click.echo(f"no number: collectives on {regime_id}: {reason}", err=True)
    samples = [
        s
        for s in everything
        if (regime is None or s.regime == regime)
        and (project is None or s.project == project)
        and (s.primary or not primary_only)
        and (artifact is None or s.artifact == artifact)
    ]
    if trend:
        # Trends come from every sample and the filters then pick rows: filtering first would
        # label a pool of one project "all projects".
        reference = config.reference_regime
        kept = {(s.project, s.regime) for s in samples}
        primary = {(s.project, s.regime, definition_label(s)) for s in everything if s.primary}
        _print_trend(
            everything, when, fmt, reference, kept, primary if primary_only else None, unknown
        )
        return
    write_lag_csv(samples, sys.stdout)


def _print_kernels(everything, unknown, regime, project, store, config) -> None:
    """The kernel rows: a cell per feature and regime (the ledger's order: newest day 0 first),
    the reasons of the unknown ones on stderr."""
    from tracker.measure.facts import load_lag_facts
    from tracker.measure.kernels.summary import kernel_csv_rows, kernel_layer
    from tracker.measure.lag.rows import LAG_CSV_COLUMNS

    ledger = load_lag_facts(config, store).kernel_ledger
    layer = kernel_layer(ledger, everything, unknown)
    writer = csv.DictWriter(sys.stdout, fieldnames=LAG_CSV_COLUMNS)
    writer.writeheader()
    for row in kernel_csv_rows(layer):
        if (regime is None or row["regime"] == regime) and (
            project is None or row["project"] == project
        ):
            writer.writerow(row)
    for r in layer.rows:
        for cell in r.cells.values():
            if cell.status == "unknown" and (regime is None or cell.regime == regime):
                click.echo(f"unknown: {r.feature.id} on {cell.regime}: {cell.reason}", err=True)


def _print_trend(
    samples,
    when: datetime,
    fmt: str,
    reference: str,
    kept: set,
    primary: set | None,
    unknown: list | None = None,
) -> None:
    """The trend table; per-group rows of the (project, regime) pairs `kept` by the filters
    (only primary definitions when `primary` is given), pooled rows of their regimes unless
    a filter narrowed the projects."""
    from tracker.measure.stats.trend import LAYERS, lag_trends
    from tracker.present.trend_words import THRESHOLDS, TREND_COLUMNS, table_rows

    every_pair = {(s.project, s.regime) for s in samples if s.regime != reference}
    regimes = {r for _, r in kept}
    narrowed = {p for p, _ in kept} != {p for p, _ in every_pair}
    trends = [
        t
        for t in lag_trends(samples, when, reference, unknown=unknown)
        if (t.group in LAYERS.values() and not narrowed and t.regime in regimes)
        or (
            (t.group, t.regime) in kept
            and (primary is None or (t.group, t.regime, t.definition) in primary)
        )
    ]
    rows = table_rows(trends)
    if fmt == "csv":
        writer = csv.DictWriter(sys.stdout, fieldnames=TREND_COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        return
    print_table(TREND_COLUMNS, [[r[c] for c in TREND_COLUMNS] for r in rows], keys=3)
    note = (
        "slopes in days of lag per year of day 0; inf: open artifacts leave no limit on that"
        f' side (read "at least slope_low"); {THRESHOLDS}'
    )
    width = terminal_width()  # a terminal's lines are wrapped to it, a file's left whole
    click.echo("\n" + (textwrap.fill(note, width) if width else note))


COMMANDS = (lag,)
