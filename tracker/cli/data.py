"""CLI commands for analysts: import / export events, read-only queries, lag CSV, the report
and the weekly digest. Mounted on the `tracker` group by tracker/cli/main.py."""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

import click

from tracker.cli.common import (
    as_of_option,
    carry_foreign_option,
    check_addresses,
    load_config,
    opened,
    print_table,
    store_for,
)


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


@click.command("report", short_help="Write the report from the store.")
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Directory to write index.html, CSV, JSON and PNG charts into.",
)
@carry_foreign_option
@as_of_option(
    "Report as of the end of DATE, UTC (default: the snapshot date of a replayed store, else now)."
)
@click.pass_context
def report(ctx: click.Context, out: str, carry_foreign: bool, as_of) -> None:
    """Write the report from what the store holds (no collection).

    Events not tagged yet (a nightly whose tagging failed) are left out of the friction
    figures: the report then says at its top that it is incomplete, and the exit code is 3.

    \b
    Example:
      tracker report --out /var/www/tracker && xdg-open /var/www/tracker/index.html
    """
    from tracker.jobs.report import incomplete, publish_report

    config, store = load_config(ctx.obj["sources"]), store_for(ctx)
    untagged = store.untagged_count()
    lines = publish_report(
        config, store, Path(out), as_of, untagged=untagged, carry_foreign=carry_foreign
    )
    for line in lines:
        click.echo(line)
    if untagged:  # built from what is tagged: published, said so, and not a success to cron
        click.echo(f"report: {incomplete(untagged)}", err=True)
        ctx.exit(3)


@click.command("digest", short_help="Send (or write) the weekly digest email.")
@click.option(
    "--week",
    default=None,
    metavar="YYYY-Www",
    help="The ISO week to report (default: the last complete one).",
)
@as_of_option("Report the last ISO week complete at the end of DATE (UTC).")
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
        chosen = resolve_week(week, as_of, now)
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


COMMANDS = (import_events, export_group, query, report, digest)
