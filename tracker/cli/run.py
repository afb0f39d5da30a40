"""CLI commands that run the pipeline and show its state: init-db, sources check / list,
collect, nightly, schedule, status, and parse (one collector's parser on a local file).
Mounted on the `tracker` group by tracker/cli/main.py."""

from __future__ import annotations

import json
import logging
from datetime import UTC
from pathlib import Path

import click

from tracker.cli.common import (
    as_of_option,
    carry_foreign_option,
    load_config,
    print_table,
    store_for,
    when,
)
from tracker.errors import StoreError

log = logging.getLogger("tracker")


@click.command("init-db", short_help="Create or upgrade the database schema.")
@click.pass_context
def init_db(ctx: click.Context) -> None:
    """Create or upgrade the database schema to the newest migration.

    \b
    Example:
      tracker --db postgresql+psycopg://postgres@127.0.0.1/tracker init-db
    """
    store = store_for(ctx, check=False)
    revision = store.init_db()
    click.echo(f"database {store.safe_url} is at revision {revision}")


@click.group("sources", short_help="Check or list the sources in sources.yaml.")
def sources_group() -> None:
    """Validate and list the sources in sources.yaml.

    \b
    Example:
      tracker sources check && tracker sources list
    """


@sources_group.command("check", short_help="Validate sources.yaml (errors name file, source, key).")
@click.pass_context
def sources_check(ctx: click.Context) -> None:
    """Validate sources.yaml; exit 1 with the file, source and key of the first problem.

    \b
    Example:
      tracker --sources my-sources.yaml sources check
    """
    config = load_config(ctx.obj["sources"])
    rules = len(config.coverage) + len(config.model_coverage)
    click.echo(
        f"{config.path}: ok ({len(config.sources)} sources, "
        f"{len(config.regimes)} regimes, {rules} coverage rules)"
    )


@sources_group.command("list")
@click.pass_context
def sources_list(ctx: click.Context) -> None:
    """Print id, kind, project and regime of every source.

    \b
    Example:
      tracker sources list | grep rocm
    """
    config = load_config(ctx.obj["sources"])
    rows = [
        (s.id, s.kind, s.project, s.regime or "-", "" if s.enabled else "disabled")
        for s in config.sources
    ]
    print_table(["id", "kind", "project", "regime", ""], rows)


def _collect_options(func):
    func = click.option(
        "--record",
        type=click.Path(file_okay=False),
        default=None,
        help="Record fresh cassettes into DIR (needs the network; tokens "
        "and cookies are filtered out).",
    )(func)
    func = click.option(
        "--replay",
        type=click.Path(file_okay=False),
        default=None,
        help="Replay DIR/<source id>.yaml cassettes instead of the network.",
    )(func)
    func = click.option(
        "--since",
        type=click.DateTime(["%Y-%m-%d"]),
        default=None,
        help="Collect from DATE (YYYY-MM-DD) instead of each source's cursor: "
        "bounds a first backfill.",
    )(func)
    func = click.option(
        "--source",
        "only",
        multiple=True,
        metavar="ID",
        help="Only this source (repeatable). Default: every enabled source.",
    )(func)
    return func


def _run_collect(ctx: click.Context, only, since, replay, record):
    from tracker.collect.runner import run_sources

    if replay and record:
        raise click.UsageError("--replay and --record exclude each other")
    config = load_config(ctx.obj["sources"])
    store = store_for(ctx)
    since_utc = since.replace(tzinfo=UTC) if since else None
    summary = run_sources(
        config, store, only=list(only) or None, since=since_utc, replay=replay, record=record
    )
    for line in summary.lines():
        click.echo(line)
    return config, store, summary


@click.command("collect", short_help="Collect new events into the store.")
@_collect_options
@click.pass_context
def collect(ctx: click.Context, only, since, replay, record) -> None:
    """Collect new events from the sources into the store.

    Each source is saved on its own: one that fails is named in the summary and the exit code
    is 3; the others are saved.

    \b
    Examples:
      tracker collect --replay cassettes/
      GITHUB_TOKEN=... tracker collect --source rocm-issues --since 2025-01-01
    """
    _, _, summary = _run_collect(ctx, only, since, replay, record)
    ctx.exit(summary.exit_code)


@click.command("nightly", short_help="The cron job: init-db, collect, tag, report.")
@_collect_options
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Where the report is written.",
)
@carry_foreign_option
@as_of_option("Report as of the end of DATE, UTC (default: a replay's snapshot date, else now).")
@click.pass_context
def nightly(ctx: click.Context, only, since, replay, record, out, carry_foreign, as_of) -> None:
    """The cron job: init-db, collect, tag, then write the report.

    \b
    Example (crontab, 02:00 every night):
      0 2 * * * cd /srv/tracker && .venv/bin/tracker nightly >> nightly.log 2>&1
    """
    from tracker.jobs.nightly import run_nightly

    if replay and record:
        raise click.UsageError("--replay and --record exclude each other")
    config = load_config(ctx.obj["sources"])
    since_utc = since.replace(tzinfo=UTC) if since else None
    ctx.exit(
        run_nightly(
            config,
            store_for(ctx, check=False),
            Path(out),
            echo=click.echo,
            only=list(only) or None,
            since=since_utc,
            replay=replay,
            record=record,
            as_of=as_of,
            carry_foreign=carry_foreign,
        )
    )


@click.command("schedule", short_help="Run nightly and digest on cron schedules.")
@click.option(
    "--cron",
    "crontab",
    default="0 2 * * *",
    show_default=True,
    help="When to run the nightly job (crontab syntax, UTC).",
)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Where the report is written.",
)
@carry_foreign_option
@click.option(
    "--digest-cron",
    "digest_crontab",
    default="0 7 * * 1",
    show_default=True,
    help="When to send the weekly digest (crontab, UTC; 'off' to not send it).",
)
@click.pass_context
def schedule(
    ctx: click.Context, crontab: str, out: str, carry_foreign: bool, digest_crontab: str
) -> None:
    """Run the nightly job and the weekly digest in-process on a schedule (APScheduler), for
    hosts without cron.

    It calls exactly what `tracker nightly` and `tracker digest` do; the store's nightly lock
    keeps it from colliding with a cron run. The digest takes its SMTP settings and recipients
    from the environment (TRACKER_SMTP_*, TRACKER_DIGEST_TO). Stop it with Ctrl-C.

    \b
    Example:
      tracker schedule --cron "30 1 * * *" --out /var/www/tracker
    """
    from tracker.digest.settings import smtp_settings
    from tracker.jobs.schedule import run_forever

    load_config(ctx.obj["sources"])  # fail now, not at 02:00, on a broken sources.yaml
    digest_at: str | None = digest_crontab
    if digest_crontab.strip().lower() == "off":
        digest_at = None
    elif not smtp_settings().recipients:
        log.warning("weekly digest not scheduled: set TRACKER_DIGEST_TO (or --digest-cron off)")
        digest_at = None
    run_forever(crontab, ctx.obj["db_url"], ctx.obj["sources"], Path(out), digest_at, carry_foreign)


@click.command("status", short_help="Per source: last run, result, cursor, cost.")
@click.pass_context
def status(ctx: click.Context) -> None:
    """Per source: last run, result, cursor, request cost and last error.

    \b
    Example:
      tracker status
    """
    rows = []
    for r in store_for(ctx).status():
        rows.append(
            (
                r["source_id"],
                when(r.get("last_run_at")),
                r.get("last_status") or "-",
                when(r.get("cursor")),
                r["events"],
                f"{r.get('requests') or 0}/{r.get('not_modified') or 0}",
                "-" if r.get("rate_remaining") is None else r["rate_remaining"],
                (r.get("last_error") or "")[:80],
            )
        )
    print_table(
        ["source", "last run", "result", "cursor", "events", "req/304", "rate left", "last error"],
        rows,
    )


@click.command("unlock", short_help="List the locks runs hold, or clear some.")
@click.argument("names", nargs=-1, metavar="[NAME]...")
@click.pass_context
def unlock(ctx: click.Context, names: tuple[str, ...]) -> None:
    """Without NAME, list the locks runs hold (nightly, source:ID); with NAME, clear them.

    A run killed on another host leaves its lock behind until it expires (6 hours); later runs
    name it and exit non-zero. Clear it only when that run is dead: a live run would then
    collect alongside the next one. Exit 1 when a NAME is not held.

    \b
    Examples:
      tracker unlock
      tracker unlock nightly source:rocm-issues
    """
    store = store_for(ctx)
    if not names:
        rows = [
            (r["name"], r["holder"], when(r["acquired_at"]), when(r["expires_at"]), r["state"])
            for r in store.locks_held()
        ]
        print_table(["lock", "holder", "since (UTC)", "until (UTC)", "holder is"], rows)
        return
    missing = []
    for name in names:
        holder = store.unlock(name)
        if holder is None:
            missing.append(name)
        else:
            click.echo(f"unlocked {name} (was held by {holder})")
    if missing:
        raise StoreError(f"not locked: {', '.join(missing)} (`tracker unlock` lists the locks)")


@click.command("parse", short_help="Run one parser on a local file.")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--kind", required=True, help="Collector kind whose parser to run.")
@click.option("--project", default="local", show_default=True, help="Project of the events.")
@click.option(
    "--option",
    "options",
    multiple=True,
    metavar="KEY=VALUE",
    help="A kind-specific source key, e.g. format=rst (repeatable).",
)
@click.pass_context
def parse(ctx: click.Context, file: str, kind: str, project: str, options) -> None:
    """Run one parser on a local file and print its events as JSON lines.

    \b
    Example:
      tracker parse CHANGELOG.md --kind changelog_markdown --project jax
    """
    from tracker.collect.sources import KINDS, CollectContext, collector_for
    from tracker.config import SourceSpec
    from tracker.events import InvalidEvent, clean_event
    from tracker.store.exchange import event_json

    module = collector_for(kind) if kind in KINDS else None
    if module is None or not hasattr(module, "parse"):
        parsable = sorted(k for k in KINDS if hasattr(collector_for(k), "parse"))
        raise click.UsageError(
            f"no parser for kind {kind!r}; kinds with one: {', '.join(parsable)}"
        )
    opts = dict(o.split("=", 1) for o in options if "=" in o)
    opts.setdefault("url", Path(file).resolve().as_uri())
    spec = SourceSpec(id=f"parse:{Path(file).name}", kind=kind, project=project, options=opts)
    pctx = CollectContext(spec=spec)
    for item in module.parse(Path(file).read_bytes(), pctx):
        try:  # what a collect run would refuse to store (events.clean_event) is skipped here too
            item = clean_event(item)
        except InvalidEvent as exc:
            pctx.skip(f"{item.kind} {item.external_id!r:.100}", str(exc))
            continue
        click.echo(json.dumps(event_json(item), ensure_ascii=False))
    pctx.summarise_skips()
    if pctx.skipped:
        click.echo(f"{pctx.skipped} items skipped (see warnings above)", err=True)


COMMANDS = (init_db, sources_group, collect, nightly, schedule, status, unlock, parse)
