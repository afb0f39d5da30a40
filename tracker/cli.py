"""The `tracker` command line: a thin layer that maps TrackerError to messages and exit codes.

Exit codes: 0 ok, 1 fatal (configuration, database), 2 usage, 3 partial (some sources failed,
the rest were saved).
"""

from __future__ import annotations

import json
import logging
import os
import signal
import sys
from datetime import UTC
from pathlib import Path

import click

from tracker import __version__
from tracker.cli_common import print_table, store_for, when
from tracker.config import database_url, load_config, sources_path
from tracker.errors import TrackerError

log = logging.getLogger("tracker")


class TrackerGroup(click.Group):
    """Turns TrackerError into one clear line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context):
        try:
            return super().invoke(ctx)
        except TrackerError as exc:
            click.echo(f"tracker: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
        except BrokenPipeError:
            # The reader went away (`tracker status | head`): nothing more to tell it. Later
            # writes (the interpreter's own flush at exit) go to /dev/null, not to a traceback.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            ctx.exit(0)
        except OSError as exc:  # e.g. an --out directory that cannot be written
            where = f"{exc.filename}: " if exc.filename else ""
            click.echo(
                f"tracker: error: {where}{exc.strerror or exc} (check the path and its "
                "permissions)",
                err=True,
            )
            ctx.exit(1)


@click.group(cls=TrackerGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--db",
    envvar="TRACKER_DATABASE_URL",
    default=None,
    metavar="URL",
    help="Database URL (env TRACKER_DATABASE_URL). Default: sqlite:///tracker.db. "
    "PostgreSQL: postgresql+psycopg://user@host/dbname",
)
@click.option(
    "--sources",
    "sources_file",
    envvar="TRACKER_SOURCES",
    default=None,
    metavar="FILE",
    help="sources.yaml to use (env TRACKER_SOURCES). Default: ./sources.yaml",
)
@click.option("-v", "--verbose", count=True, help="More log output (-vv for debug).")
@click.option("-q", "--quiet", is_flag=True, help="Only warnings and errors.")
@click.version_option(__version__, prog_name="tracker")
@click.pass_context
def cli(
    ctx: click.Context, db: str | None, sources_file: str | None, verbose: int, quiet: bool
) -> None:
    """How far behind CUDA is each accelerator software regime (rocm, xla, neuron)?

    tracker collects release notes, issues and CI results into a SQL store, tags them, and
    reports day-0 coverage lag, CI pass rates and friction per regime.

    \b
    Example (offline, from the recorded cassettes):
      tracker init-db && tracker nightly --replay cassettes/
    """
    level = logging.WARNING if quiet else (logging.DEBUG if verbose > 1 else logging.INFO)
    logging.basicConfig(
        level=level, stream=sys.stderr, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    for noisy in ("urllib3", "vcr", "alembic"):
        logging.getLogger(noisy).setLevel(max(level, logging.WARNING))
    ctx.obj = {"db_url": database_url(db), "sources": sources_path(sources_file)}


@cli.command("init-db")
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


@cli.group("sources")
def sources_group() -> None:
    """Validate and list the sources in sources.yaml.

    \b
    Example:
      tracker sources check && tracker sources list
    """


@sources_group.command("check")
@click.pass_context
def sources_check(ctx: click.Context) -> None:
    """Validate sources.yaml; exit 1 with the file, source and key of the first problem.

    \b
    Example:
      tracker --sources my-sources.yaml sources check
    """
    config = load_config(ctx.obj["sources"])
    click.echo(
        f"{config.path}: ok ({len(config.sources)} sources, "
        f"{len(config.regimes)} regimes, {len(config.coverage)} coverage rules)"
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
    from tracker.runner import run_sources

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


@cli.command("collect")
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


@cli.command("nightly")
@_collect_options
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    default="report",
    show_default=True,
    help="Where the report is written.",
)
@click.option(
    "--as-of",
    "as_of",
    type=click.DateTime(["%Y-%m-%d"]),
    default=None,
    help="Report as of the end of DATE, UTC (default: a replay's snapshot date, else now).",
)
@click.pass_context
def nightly(ctx: click.Context, only, since, replay, record, out, as_of) -> None:
    """The cron job: init-db, collect, tag, then write the report.

    \b
    Example (crontab, 02:00 every night):
      0 2 * * * cd /srv/tracker && .venv/bin/tracker nightly >> nightly.log 2>&1
    """
    from tracker.pipeline import run_nightly
    from tracker.snapshot import end_of_day

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
            as_of=end_of_day(as_of.date()) if as_of else None,
        )
    )


@cli.command("schedule")
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
@click.option(
    "--digest-cron",
    "digest_crontab",
    default="0 7 * * 1",
    show_default=True,
    help="When to send the weekly digest (crontab, UTC; 'off' to not send it).",
)
@click.pass_context
def schedule(ctx: click.Context, crontab: str, out: str, digest_crontab: str) -> None:
    """Run the nightly job and the weekly digest in-process on a schedule (APScheduler), for
    hosts without cron.

    It calls exactly what `tracker nightly` and `tracker digest` do; the store's nightly lock
    keeps it from colliding with a cron run. The digest takes its SMTP settings and recipients
    from the environment (TRACKER_SMTP_*, TRACKER_DIGEST_TO). Stop it with Ctrl-C.

    \b
    Example:
      tracker schedule --cron "30 1 * * *" --out /var/www/tracker
    """
    from tracker.digest_settings import smtp_settings
    from tracker.schedule import run_forever

    load_config(ctx.obj["sources"])  # fail now, not at 02:00, on a broken sources.yaml
    digest_at: str | None = digest_crontab
    if digest_crontab.strip().lower() == "off":
        digest_at = None
    elif not smtp_settings().recipients:
        log.warning("weekly digest not scheduled: set TRACKER_DIGEST_TO (or --digest-cron off)")
        digest_at = None
    run_forever(crontab, ctx.obj["db_url"], ctx.obj["sources"], Path(out), digest_at)


@cli.command("status")
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


@cli.command("parse")
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
    from tracker.collectors import REGISTRY, CollectContext
    from tracker.config import SourceSpec
    from tracker.exchange import event_json

    module = REGISTRY.get(kind)
    if module is None or not hasattr(module, "parse"):
        parsable = sorted(k for k, m in REGISTRY.items() if hasattr(m, "parse"))
        raise click.UsageError(
            f"no parser for kind {kind!r}; kinds with one: {', '.join(parsable)}"
        )
    opts = dict(o.split("=", 1) for o in options if "=" in o)
    opts.setdefault("url", Path(file).resolve().as_uri())
    spec = SourceSpec(id=f"parse:{Path(file).name}", kind=kind, project=project, options=opts)
    pctx = CollectContext(spec=spec)
    for item in module.parse(Path(file).read_bytes(), pctx):
        click.echo(json.dumps(event_json(item), ensure_ascii=False))
    if pctx.skipped:
        click.echo(f"{pctx.skipped} items skipped (see warnings above)", err=True)


def _mount() -> None:
    """Mount the analyst commands (tracker/cli_data.py)."""
    from tracker.cli_data import COMMANDS

    for command in COMMANDS:
        cli.add_command(command)


_mount()


def _mount_optional() -> None:
    """Mount the tagger's commands when its package provides them."""
    try:
        from tracker.tagger import cli as tagger_cli
    except ImportError:
        return
    for name in ("tag", "tagger"):
        command = getattr(tagger_cli, name, None)
        if command is not None:
            cli.add_command(command, name)


_mount_optional()


def main() -> None:
    # SIGTERM (a cron timeout, `kill`, a container stop) unwinds like Ctrl-C does, so the run's
    # locks are released on the way out instead of blocking the next run until they expire.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    cli(prog_name="tracker")
