"""Helpers shared by the CLI modules (tracker/cli/main.py and tracker/cli/data.py)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from tracker.config import Config


def load_config(path) -> Config:
    """tracker.jobs.config.load_config, imported when a command reads sources.yaml: `--help`
    and commands that never read it start without the stages' modules."""
    from tracker.jobs.config import load_config as load

    config = load(path)
    ctx = click.get_current_context(silent=True)
    if ctx is not None and isinstance(ctx.obj, dict):
        # its `database:` waits apply to the stores of this command, opened before or after
        ctx.obj["database"] = config.database
        for store in ctx.obj.get("stores", ()):
            store.use_waits(_waits(ctx))
    return config


def store_for(ctx: click.Context, *, check: bool = True):
    """The store the global --db option names; unless `check` is off, StoreError (exit 1, "run
    tracker init-db") when its schema is not at the newest migration."""
    store = opened(ctx, ctx.obj["db_url"])
    if check:
        store.ensure_current()
    return store


def opened(ctx: click.Context, url: str):
    """The store at `url`, closed when the command ends: its connections end there (SQLite
    checkpoints its WAL and removes the -wal and -shm files), not at interpreter exit, whose
    final garbage collection `tracker.cli.main.main` skips."""
    from tracker.store import open_store

    store = open_store(url, _waits(ctx))
    ctx.call_on_close(store.close)
    if isinstance(ctx.obj, dict):  # for load_config, which may come after
        ctx.obj.setdefault("stores", []).append(store)
    return store


def _waits(ctx: click.Context):
    """How long the stores wait for the database: the TRACKER_DB_* variables over the
    `database:` section of sources.yaml when the command read it, over the defaults
    (tracker.config.database); ConfigError (exit 1) naming a bad value."""
    from tracker.config.database import database_waits

    return database_waits(ctx.obj.get("database") if isinstance(ctx.obj, dict) else None)


def when(value) -> str:
    """A timestamp for a table cell ("-" when there is none)."""
    if value is None:
        return "-"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def terminal_width() -> int | None:
    """The width a table must fit: COLUMNS when set, else the terminal's when stdout is one;
    None for a pipe or a file (the whole table, as before; CSV is the machine form)."""
    import os
    import shutil
    import sys

    if os.environ.get("COLUMNS", "").strip().isdigit() or sys.stdout.isatty():
        return max(20, shutil.get_terminal_size().columns)
    return None


def print_table(columns, rows, keys: int = 1, width: int | None = None) -> None:
    """Print rows as an aligned text table with a header rule. Collected text shows its
    controls and invisible characters as <U+000A> / <U+202E> (present.formats.printable): raw,
    a newline would break the row in two, ESC act on the terminal and a bidi control reorder
    the rest of the line (a CSV keeps them raw, quoted).

    Wider than the terminal (terminal_width, or `width`), the table is printed in blocks of
    columns one under another, each repeating the first `keys` columns so that every row can
    be read across (fewer when they would fill more than half a line): no line is longer than
    the terminal. A column too wide even alone beside the keys has its cells cut, the cut
    marked with "~"; a pipe or a file gets the whole table (terminal_width is None there)."""
    from tracker.present.formats import printable

    cells = [[str(c) for c in columns]] + [
        ["" if v is None else printable(str(v)) for v in r] for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    limit = width if width is not None else terminal_width()
    if limit is None or sum(widths) + 2 * (len(widths) - 1) <= limit:
        _print_block(cells, widths, range(len(columns)))
        return
    keys = min(keys, len(columns) - 1)
    while keys > 1 and sum(widths[:keys]) + 2 * keys > limit // 2:
        keys -= 1  # the repeated columns leave at least half the line to the others
    room = limit - sum(widths[:keys]) - 2 * keys
    blocks: list[list[int]] = []
    for i in range(keys, len(columns)):
        used = sum(widths[j] + 2 for j in blocks[-1]) if blocks else None
        if used is None or used + widths[i] > room:
            blocks.append([i])
        else:
            blocks[-1].append(i)
    for n, block in enumerate(blocks):
        if n:
            click.echo("")
        shown = [*range(keys), *block]
        _print_block(cells, widths, shown, limit)


def _print_block(cells, widths, shown, limit: int | None = None) -> None:
    """The columns `shown` of `cells`, each line cut to `limit` characters ("~" at the cut)."""
    for index, row in enumerate(cells):
        line = "  ".join(row[i].ljust(widths[i]) for i in shown).rstrip()
        if limit is not None and len(line) > limit:
            line = line[: limit - 1] + "~"
        click.echo(line)
        if index == 0:
            rule = "  ".join("-" * widths[i] for i in shown)
            click.echo(rule if limit is None else rule[:limit])


def check_addresses(_ctx: click.Context, param: click.Parameter, value):
    """--from / --to as given, or a usage error naming the option (a line break in an address
    would smuggle a header into the mail)."""
    from tracker.digest.settings import address_problem

    for address in (value,) if isinstance(value, str) else value or ():
        problem = address_problem(address)
        if problem:
            raise click.BadParameter(problem, param=param)
    return value


def as_of_option(help: str):
    """The --as-of DATE option of every command that computes figures: a `date` (None when not
    given), for tracker.store.asof.resolve_as_of, which makes it the end of that day in UTC.
    A date outside the dates tracker computes with is a usage error: week and year arithmetic
    on year 1 or 9999 leaves Python's calendar."""
    return click.option(
        "--as-of",
        "as_of",
        type=click.DateTime(["%Y-%m-%d"]),
        default=None,
        callback=_computable_day,
        help=help,
    )


def _computable_day(_ctx: click.Context, param: click.Parameter, value):
    from tracker.events import OUT_OF_RANGE, computable

    if value is None:
        return None
    if not computable(value.replace(tzinfo=UTC)):
        raise click.BadParameter(f"{value.date().isoformat()} {OUT_OF_RANGE}", param=param)
    return value.date()


def carry_foreign_option(function):
    """--out-carry-foreign of the commands that publish the report (report, nightly, schedule)."""
    return click.option(
        "--out-carry-foreign",
        "carry_foreign",
        is_flag=True,
        help=(
            "Let --out DIR hold files the report does not write (a robots.txt, the user's "
            "notes): they are carried into each new report. Without it such a DIR is refused, "
            "naming one such file: publishing replaces the folder."
        ),
    )(function)


def table_or_csv(help: str = "An aligned table or CSV."):
    """The --format option of the commands that print a table."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(["table", "csv"]),
        default="table",
        show_default=True,
        help=help,
    )


def one_of(value: str | None, known, what: str, option: str) -> None:
    """A usage error naming `option` when `value` (given) is not in `known` (when there is
    something to know): a typo ("ROCm", "pytroch") would print an empty table and look like
    "no data". The value is shown as a bounded preview: it may be any length."""
    from tracker.config.preview import preview

    if value is not None and known and value not in known:
        raise click.BadParameter(
            f"{preview(value)} {what} (one of: {', '.join(known)})", param_hint=option
        )
