"""`tracker response`: how long each regime's users wait for a first answer, as a table or CSV."""

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

QUARTER_COLUMNS = (
    "project",
    "regime",
    "quarter",
    "issues",
    "answered",
    "median_hours",
    "p90_hours",
    "median_days_to_close",
    "median_days_to_not_planned",
    "baseline_median_hours",
    "ratio_to_baseline",
)
ISSUE_COLUMNS = (
    "source_id",
    "project",
    "regime",
    "number",
    "created_at",
    "first_response_at",
    "responder_association",
    "hours_to_first_response",
    "status",
    "closed_at",
    "close_reason",
    "url",
)


@click.command("response", short_help="Time to first response of issues per regime.")
@as_of_option(
    "Count issues, comments and closings up to the end of DATE, UTC (default: the snapshot "
    "date of a replayed store, else now)."
)
@click.option(
    "--regime", default=None, help="Only the rows of this regime (their baseline columns stay)."
)
@click.option(
    "--issues/--no-issues",
    "show_issues",
    default=True,
    show_default=True,
    help="Also list every issue (v_issue_response) after the quarterly table.",
)
@table_or_csv()
@click.pass_context
def response(ctx: click.Context, as_of, regime, show_issues, fmt) -> None:
    """Print how long users wait for a first answer: per project, regime and quarter of
    creation, the Kaplan-Meier median and 90th percentile hours to the first comment by
    someone other than the issue's author and not a bot, the median days to a close (completed
    and not planned apart), and the same repository's baseline (its cuda issues, the rest of
    the repository) with the ratio to it; then one row per issue (docs/methodology.md, "Time to
    first response"). Unanswered issues are censored, never imputed. The views
    v_issue_response_quarterly and v_issue_response hold the same rows as of the newest report.

    \b
    Examples:
      tracker response --regime rocm
      tracker response --as-of 2026-08-22 --no-issues --format csv > response.csv
    """
    from tracker.measure.figures import issue_response_figures
    from tracker.store.asof import resolve_as_of

    store = store_for(ctx)
    point = resolve_as_of(store, as_of)
    config = load_config(ctx.obj["sources"])
    regimes = [r.id for r in config.regimes]
    one_of(regime, regimes, f"is not a regime of {config.path}", "--regime")
    figures = issue_response_figures(config, store, point.when, regimes)
    if not figures.issues:
        click.echo(
            "no issues with comments stored (github_issues sources with comments: true)", err=True
        )
    quarters = [
        _cells(row, QUARTER_COLUMNS) for row in figures.quarterly_rows() if _wanted(row, regime)
    ]
    issues = [_cells(row, ISSUE_COLUMNS) for row in figures.issue_rows() if _wanted(row, regime)]
    if fmt == "csv":
        writer = csv.writer(sys.stdout)
        writer.writerow(QUARTER_COLUMNS)
        writer.writerows(quarters)
        if show_issues:
            writer.writerow([])
            writer.writerow(ISSUE_COLUMNS)
            writer.writerows(issues)
        return
    print_table(QUARTER_COLUMNS, quarters)
    if show_issues:
        click.echo("")
        print_table(ISSUE_COLUMNS[:-1], [row[:-1] for row in issues])


def _wanted(row: dict, regime: str | None) -> bool:
    return regime is None or row["regime"] == regime


def _cells(row: dict, columns: tuple[str, ...]) -> list[str]:
    def cell(value) -> str:
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:.1f}"
        if hasattr(value, "strftime"):
            return value.strftime("%Y-%m-%d %H:%M")
        return str(value)

    return [cell(row[c]) for c in columns]


COMMANDS = (response,)
