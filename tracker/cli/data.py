"""CLI commands for analysts: import / export events, read-only queries, lag CSV, the report
and the weekly digest. Mounted on the `tracker` group by tracker/cli/main.py."""

from __future__ import annotations

import csv
import json
import sys
from datetime import datetime
from pathlib import Path

import click

from tracker.cli.common import check_addresses, load_config, opened, print_table, store_for


@click.command("import-events", short_help="Load events from a JSONL file (- = stdin).")
@click.argument("file", type=click.File("rb"))  # UTF-8, decoded by line (store.exchange)
@click.pass_context
def import_events(ctx: click.Context, file) -> None:
    """Import events from a JSONL file (or - for stdin).

    Each line: source_id, project, kind, external_id, occurred_at (ISO 8601), title, and
    optionally body, url, version, regime, labels, attrs. Events whose source_id is not in
    sources.yaml are manual evidence: kept and marked as imported.

    \b
    Example:
      tracker import-events manual-evidence.jsonl
    """
    from tracker.store.exchange import import_jsonl

    config = load_config(ctx.obj["sources"])
    written, new, imported = import_jsonl(store_for(ctx), file, {s.id for s in config.sources})
    click.echo(f"imported {written} events ({new} new, {imported} marked as manual evidence)")


@click.group("export", short_help="Export stored events as JSONL or CSV.")
def export_group() -> None:
    """Export stored data.

    \b
    Example:
      tracker export events --format csv > events.csv
    """


@export_group.command("events")
@click.option(
    "--format", "fmt", type=click.Choice(["jsonl", "csv"]), default="jsonl", show_default=True
)
@click.option("--source", "source_id", default=None, metavar="ID", help="Only this source.")
@click.option("--kind", default=None, help="Only this kind (release, note, issue, ci_run, ci_job).")
@click.pass_context
def export_events(ctx: click.Context, fmt: str, source_id: str | None, kind: str | None) -> None:
    """Write events to stdout as JSONL (the import-events format) or CSV.

    \b
    Example:
      tracker export events --source rocm-release-notes > rocm.jsonl
    """
    from tracker.store.exchange import write_events

    write_events(store_for(ctx).iter_events(source_id, kind), sys.stdout, fmt)


@click.command("query", short_help="Run one read-only SQL statement.")
@click.argument("sql")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv", "json"]),
    default="table",
    show_default=True,
)
@click.option(
    "--timeout",
    type=click.FloatRange(min=0),
    default=60,
    show_default=True,
    metavar="SECONDS",
    help="Stop the statement after this long (exit 1); 0 for no limit.",
)
@click.pass_context
def query(ctx: click.Context, sql: str, fmt: str, timeout: float) -> None:
    """Run one read-only SQL statement; writes are refused, never executed.

    The database is TRACKER_QUERY_DATABASE_URL when set (a read-only login), unless --db is
    given; on PostgreSQL a superuser or a role that can write runs the statement as the
    read-only role TRACKER_QUERY_ROLE (default tracker_reader) or is refused
    (docs/operations.md, "Read-only queries"). Ctrl-C and SIGTERM stop it at once.

    \b
    Example:
      tracker query "SELECT regime, count(*) FROM events GROUP BY regime" --format csv
    """
    from tracker.config import query_database_url

    url = ctx.obj["db_url"]
    if not ctx.obj.get("db_from_command_line"):
        url = query_database_url(url)
    store = opened(ctx, url)
    store.ensure_current()
    columns, rows = store.read_only_query(sql, timeout=timeout)
    if fmt == "json":
        click.echo(
            json.dumps([dict(zip(columns, r, strict=True)) for r in rows], default=str, indent=1)
        )
    elif fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(columns)
        writer.writerows(rows)
    else:
        print_table(columns, rows)


@click.command("lag", short_help="Day-0 coverage lag as CSV, or the trend.")
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Compute as of the end of DATE, UTC (default: the snapshot date of a replayed store, "
    "else now); open artifacts are censored there.",
)
@click.option("--regime", default=None, help="Only this regime.")
@click.option("--project", default=None, help="Only this upstream project.")
@click.option("--primary-only", is_flag=True, help="Only each regime's primary definition.")
@click.option(
    "--artifact",
    type=click.Choice(["framework", "model", "kernel"]),
    default=None,
    help="Only framework release series, model families or kernel features (default: all). "
    "kernel lists a cell per feature and regime, unknown cells with status unknown.",
)
@click.option(
    "--trend",
    is_flag=True,
    help="Is the gap closing? Print the lag trend per project, regime and definition, and per "
    "regime pooled over projects (method: docs/methodology.md, section 'Is the gap closing?').",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["table", "csv"]),
    default="table",
    show_default=True,
    help="With --trend: an aligned table or CSV (the lag rows themselves are always CSV).",
)
@click.pass_context
def lag(ctx: click.Context, as_of, regime, project, primary_only, artifact, trend, fmt) -> None:
    """Print day-0 coverage lag as CSV: one row per (artifact, regime, definition).

    \b
    Columns: project,series,regime,definition,primary,day0,available,lag_days,
             status,evidence_url,artifact,day0_definition

    `artifact` is framework (a release series, e.g. pytorch 2.9)
    or model (a model family, e.g. qwen3-moe, under project `models`); model families have two
    day-0 definitions (vllm_cuda, the primary, and public_weights), one row each. Open artifacts
    have status `open` and lag_days = as_of - day0. kernel: a kernel feature of the ledger
    (project = the library, series = the feature id, day 0 = the kernel on CUDA); with
    --artifact kernel every regime gets a row, status `unknown` where nothing dates it (the
    reasons on stderr).

    With --trend, one row per (artifact group, regime, definition) instead: the change in lag
    per year of day 0 (slope_low..slope_high: the range open artifacts leave; inf = no upper
    limit, which the report words "at least X d/yr"), its 90% interval (ci_low, ci_high), the
    verdict (closing, widening, no clear change, cannot tell yet when the interval is open at
    both ends, or too few artifacts below min_artifacts), and the Kaplan-Meier median lag of the
    last 12 months (recent_at_least: the least it can be while half or more are open) against
    the 12 months before, with counts of artifacts and open ones. The pooled rows
    (all projects, primary) are the headline answer: the report, summary.json, the digest and
    the view v_lag_trend say the same verdict and number.

    \b
    Examples:
      tracker lag --regime rocm --primary-only > rocm-lag.csv
      tracker lag --trend --format csv > lag-trend.csv
      tracker lag --artifact model --regime neuron
    """
    from tracker.measure.facts import compute_lag
    from tracker.measure.trend import definition_label
    from tracker.report.writer import write_lag_csv
    from tracker.store.asof import resolve_as_of

    # The whole day counts: a release published on DATE is known as of DATE. A replayed store
    # is as of its snapshot (stderr says which), not of the wall clock.
    point = resolve_as_of(store_for(ctx), as_of.date() if as_of else None)
    when = point.when
    if point.snapshot is not None:
        click.echo(f"lag {point.label} (--as-of overrides)", err=True)
    config = load_config(ctx.obj["sources"])
    # A typo ("ROCm", "pytroch") would print an empty CSV and look like "no data".
    known_regimes = [r.id for r in config.regimes]
    if regime is not None and known_regimes and regime not in known_regimes:
        raise click.BadParameter(
            f"{regime!r} is not a regime of {config.path} (one of: {', '.join(known_regimes)})",
            param_hint="--regime",
        )
    projects = {r.project for r in config.coverage} | {r.project for r in config.model_coverage}
    known_projects = sorted(projects)
    if config.kernel_layer is not None:
        from tracker.measure.kernel_ledger import load_ledger

        libraries = {f.library for f in load_ledger(config.kernel_layer.ledger)}
        known_projects = sorted(set(known_projects) | libraries)
    if project is not None and project not in known_projects:
        raise click.BadParameter(
            f"{project!r} has no coverage rule in {config.path} "
            f"(one of: {', '.join(known_projects)})",
            param_hint="--project",
        )
    unknown: list = []
    everything = compute_lag(config, store_for(ctx), when, unknown)
    if artifact == "kernel" and not trend:
        _print_kernels(everything, unknown, regime, project, store_for(ctx), config)
        return
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
        _print_trend(everything, when, fmt, reference, kept, primary if primary_only else None)
        return
    write_lag_csv(samples, sys.stdout)


def _print_kernels(everything, unknown, regime, project, store, config) -> None:
    """The kernel rows: a cell per feature and regime (the ledger's order: newest day 0 first),
    the reasons of the unknown ones on stderr."""
    from tracker.measure.facts import load_lag_facts
    from tracker.measure.kernel_summary import kernel_csv_rows, kernel_layer
    from tracker.measure.lag import LAG_CSV_COLUMNS

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
    samples, when: datetime, fmt: str, reference: str, kept: set, primary: set | None
) -> None:
    """The trend table; per-group rows of the (project, regime) pairs `kept` by the filters
    (only primary definitions when `primary` is given), pooled rows of their regimes unless
    a filter narrowed the projects."""
    from tracker.measure.trend import POOLED, lag_trends
    from tracker.present.trend_words import THRESHOLDS, TREND_COLUMNS, table_rows

    every_pair = {(s.project, s.regime) for s in samples if s.regime != reference}
    regimes = {r for _, r in kept}
    narrowed = {p for p, _ in kept} != {p for p, _ in every_pair}
    trends = [
        t
        for t in lag_trends(samples, when, reference)
        if (t.group == POOLED and not narrowed and t.regime in regimes)
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
    print_table(TREND_COLUMNS, [[r[c] for c in TREND_COLUMNS] for r in rows])
    click.echo(
        "\nslopes in days of lag per year of day 0; inf: open artifacts leave no limit on that"
        f' side (read "at least slope_low"); {THRESHOLDS}'
    )


@click.command("report", short_help="Write the report from the store.")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Directory to write index.html, CSV, JSON and PNG charts into.",
)
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Report as of the end of DATE, UTC (default: the snapshot date of a replayed store, "
    "else now).",
)
@click.pass_context
def report(ctx: click.Context, out: str, as_of) -> None:
    """Write the report from what the store holds (no collection).

    \b
    Example:
      tracker report --out /var/www/tracker && xdg-open /var/www/tracker/index.html
    """
    from tracker.jobs.report import publish_report

    day = as_of.date() if as_of else None
    for line in publish_report(load_config(ctx.obj["sources"]), store_for(ctx), Path(out), day):
        click.echo(line)


@click.command("digest", short_help="Send (or write) the weekly digest email.")
@click.option(
    "--week",
    default=None,
    metavar="YYYY-Www",
    help="The ISO week to report (default: the last complete one).",
)
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Report the last ISO week complete at the end of DATE (UTC).",
)
@click.option(
    "--to",
    "recipients",
    multiple=True,
    callback=check_addresses,
    help="Recipient (repeatable; env TRACKER_DIGEST_TO, space-separated).",
)
@click.option(
    "--from",
    "sender",
    default=None,
    callback=check_addresses,
    help="Sender (env TRACKER_DIGEST_FROM).",
)
@click.option("--smtp-host", default=None, help="SMTP host (env TRACKER_SMTP_HOST; localhost).")
@click.option("--smtp-port", default=None, type=int, help="SMTP port (env TRACKER_SMTP_PORT; 25).")
@click.option(
    "--starttls/--no-starttls",
    default=None,
    help="Upgrade the connection with STARTTLS (env TRACKER_SMTP_STARTTLS).",
)
@click.option(
    "--dry-run",
    "dry_run",
    is_flag=False,
    flag_value="-",
    default=None,
    metavar="[PATH]",
    help="Write the .eml to PATH (alone: print it) instead of sending.",
)
@click.option(
    "--skip-if-quiet", is_flag=True, help="Send nothing when nothing changed in the week."
)
@click.pass_context
def digest(
    ctx: click.Context,
    week,
    as_of,
    recipients,
    sender,
    smtp_host,
    smtp_port,
    starttls,
    dry_run,
    skip_if_quiet,
) -> None:
    """Send the weekly maturity digest email for one complete ISO week: lag per regime, CI
    job pass rate, friction, what crossed a threshold, data quality.

    Numbers are as of the week's end (later evidence is ignored). SMTP settings come from the
    environment (TRACKER_SMTP_HOST, _PORT, _USER, _PASSWORD, _STARTTLS, TRACKER_DIGEST_FROM,
    TRACKER_DIGEST_TO); flags win. Thresholds: the `digest:` section of sources.yaml.

    \b
    Examples:
      tracker digest --dry-run digest.eml
      tracker digest --week 2026-W47 --to team@example.com --smtp-host mail.example.com
      0 7 * * 1 cd /srv/tracker && .venv/bin/tracker digest --skip-if-quiet
    """
    from tracker.digest.mail import run_digest
    from tracker.digest.settings import smtp_settings
    from tracker.digest.week import default_clock, resolve_week

    config, store = load_config(ctx.obj["sources"]), store_for(ctx)
    try:
        now = default_clock(config, store)
        chosen = resolve_week(week, as_of.date() if as_of else None, now)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--week / --as-of") from None
    settings = smtp_settings(
        host=smtp_host,
        port=smtp_port,
        starttls=starttls,
        sender=sender,
        recipients=tuple(recipients),
    )
    if not settings.recipients and dry_run is None:
        raise click.UsageError("give --to ADDRESS (or TRACKER_DIGEST_TO), or --dry-run")
    run_digest(
        config,
        store,
        chosen,
        settings,
        dry_run=dry_run,
        skip_if_quiet=skip_if_quiet,
        echo=click.echo,
    )


COMMANDS = (import_events, export_group, query, lag, report, digest)
