"""The `tracker` command line: a thin layer that maps TrackerError to messages and exit codes.

Exit codes: 0 ok, 1 fatal (configuration, database; for nightly a whole stage, named), 2 usage,
3 partial (some sources failed, the rest were saved; the nightly's tagging failed and the last
complete report was kept; or `report` published a report marked incomplete, events waiting for
their tags), 4 not run (the nightly lock is held on another host), 130 / 143 stopped by SIGINT /
SIGTERM. A closed or full stdout/stderr never changes them (tracker.cli.streams).
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys

import click

from tracker import __version__
from tracker.cli.streams import keep_writing_when_output_fails
from tracker.config import database_url, sources_path
from tracker.errors import TrackerError

log = logging.getLogger("tracker")


class TrackerGroup(click.Group):
    """Turns TrackerError into one clear line on stderr and exit code 1."""

    def invoke(self, ctx: click.Context):
        # A reader that went away (`tracker nightly | head -1`) or a full disk under stdout
        # must not stop the job: output is dropped from then on (before logging takes stderr).
        keep_writing_when_output_fails()
        try:
            return super().invoke(ctx)
        except TrackerError as exc:
            click.echo(f"tracker: error: {exc}", err=True)
            ctx.exit(exc.exit_code)
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
    from_cli = ctx.get_parameter_source("db") == click.core.ParameterSource.COMMANDLINE
    ctx.obj = {
        "db_url": database_url(db, "--db" if from_cli else "TRACKER_DATABASE_URL"),
        # `tracker query` prefers TRACKER_QUERY_DATABASE_URL to everything but --db itself
        "db_from_command_line": from_cli,
        "sources": sources_path(sources_file),
    }


def _mount() -> None:
    """Mount the command modules: run (the pipeline), data (analysts), lag, perf, ci, tagger."""
    from tracker.cli import ci, data, lag, perf, response, run, tagger

    commands = (
        data.COMMANDS
        + lag.COMMANDS
        + perf.COMMANDS
        + ci.COMMANDS
        + response.COMMANDS
        + tagger.COMMANDS
    )
    for command in run.COMMANDS + commands:
        cli.add_command(command)


_mount()


def _stop(signum: int, _frame: object) -> None:
    """SIGTERM (a cron timeout, `kill`, a container stop) and SIGINT (Ctrl-C): stop the
    statements running in every thread (tracker.store.stopping says why), then unwind, so that
    the run's locks are released and its transactions rolled back on the way out; exit code
    128 + the signal (143, 130)."""
    if os.getpid() != _MAIN_PROCESS[0]:  # a process forked from this one (the report's charts)
        signal.signal(signum, signal.SIG_DFL)  # ends as the signal says: it holds nothing
        os.kill(os.getpid(), signum)
        return
    stopping = sys.modules.get("tracker.store.stopping")  # not loaded: no store, no statement
    if stopping is not None:
        stopping.stop_statements()
    sys.exit(128 + signum)


_MAIN_PROCESS = [0]  # the pid main() ran in


def main() -> None:
    _MAIN_PROCESS[0] = os.getpid()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, _stop)
    try:
        cli(prog_name="tracker")
    finally:
        # What is left at exit goes with the process: frozen, it is spared the interpreter's
        # final garbage collection, about 60 ms of every command (a fifth of `tracker query`).
        # Stores were closed with their command (cli.common.opened); atexit handlers still run.
        gc.freeze()
