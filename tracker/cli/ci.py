"""`tracker ci-health`: CI job health per source and job name (tracker.measure.ci.jobs, the
same figures the report, the digest and the view v_ci_job_health show). Mounted on the
`tracker` group by tracker/cli/main.py."""

from __future__ import annotations

import csv
import sys
from datetime import datetime

import click

from tracker.cli.common import (
    as_of_option,
    load_config,
    one_of,
    print_table,
    store_for,
    table_or_csv,
)

# The table leaves out of v_ci_job_health's columns the project and the failing build's URL.
LEFT_OUT = ("project", "last_failed_url")


def _day(value) -> str:
    return value.date().isoformat() if value is not None else ""


def _cell(value):
    """Dates as days; None (never passed, not failing) as an empty cell."""
    return _day(value) if isinstance(value, datetime) or value is None else value


@click.command("ci-health")
@as_of_option(
    "Jobs concluded by the end of DATE, UTC (default: the snapshot date of a replayed "
    "store, else now)."
)
@click.option("--regime", default=None, help="Only jobs of this regime (none: CPU and others).")
@click.option(
    "--hardware", default=None, help="Only jobs on this hardware (mi355_1, H100, a queue name)."
)
@click.option("--failing", is_flag=True, help="Only jobs whose newest run failed.")
@click.option(
    "--units",
    "show",
    flag_value="units",
    help="Instead: the weekly pass rate per regime in both units, jobs (test groups) and tests "
    "(v_ci_test_pass_rate_weekly beside v_ci_pass_rate_weekly).",
)
@click.option(
    "--tests",
    "show",
    flag_value="tests",
    help="Instead: the tests named failing in the CI's test reports, per job: first and last "
    "failure, failing streak (--failing: only those failing in their job's newest report).",
)
@table_or_csv()
@click.pass_context
def ci_health(ctx: click.Context, as_of, regime, hardware, failing, show, fmt) -> None:
    """Print CI job health: one row per CI source and job name.

    A run is a job concluded passed or failed in a build of the source's headline trigger
    (sources.yaml `trigger`), ordered by build; canceled and superseded (retried) jobs are not
    runs. streak: the newest runs in a row with last_outcome; failing_since: the first run of
    the current failing streak; last_passed: the newest passed run; flips: outcome changes
    between consecutive runs (docs/methodology.md, CI job health). Failing jobs come first,
    longest streak first.

    \b
    Examples:
      tracker ci-health --regime rocm --failing
      tracker ci-health --hardware mi355_1 --format csv > mi355.csv
      tracker ci-health --units --regime rocm
      tracker ci-health --tests --failing --regime rocm
    """
    from tracker.measure.ci.health import HEALTH_COLUMNS
    from tracker.measure.ci.jobs import ci_jobs
    from tracker.measure.ci.rates import unrecorded
    from tracker.present.ci_record_words import no_record_lines
    from tracker.store.asof import resolve_as_of

    config = load_config(ctx.obj["sources"])
    known = [r.id for r in config.regimes] + ["none"]
    one_of(regime, known, f"is not a regime of {config.path}", "--regime")
    store = store_for(ctx)
    point = resolve_as_of(store, as_of)
    if show is not None:
        _test_level(config, store, point, show, regime, failing, fmt)
        return
    figures = ci_jobs(config, store, point.when)
    rows = [
        h
        for h in figures.health
        if (regime is None or h.regime == regime)
        and (hardware is None or h.hardware.lower() == hardware.lower())
        and (h.failing or not failing)
    ]
    rows.sort(key=lambda h: (not h.failing, -h.streak, h.source_id, h.job))
    columns = [c for c in HEALTH_COLUMNS if c not in LEFT_OUT]
    _emit(columns, [[_cell(h.row()[c]) for c in columns] for h in rows], fmt)
    newest = figures.newest
    age = f", {figures.age_days} days before {point.when.date()}" if newest else ""
    click.echo(
        f"ci-health {point.label}: {len(rows)} of {len(figures.health)} jobs; newest run "
        f"{_day(newest) or 'none'}{age}",
        err=True,
    )
    # The configured CI sources with no record say so here too, in the report's words
    # (measure.ci.rates.unrecorded over the same view rows the report reads).
    for line in no_record_lines(
        unrecorded(config, store.view_rows("v_ci_pass_rate_weekly")), [regime] if regime else ()
    ):
        click.echo(f"ci-health: {line}", err=True)


def _emit(columns: list[str], cells: list[list], fmt: str) -> None:
    """The rows as CSV on stdout (`--format csv`) or as the aligned table."""
    if fmt == "csv":
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(cells)
    else:
        print_table(columns, cells)


def _test_level(config, store, point, show: str, regime, failing: bool, fmt: str) -> None:
    """``--units`` and ``--tests``: the test-level figures of tracker.measure.ci.tests."""
    from tracker.measure.ci.rates import ci_rate_rows
    from tracker.measure.ci.tests import ci_tests
    from tracker.present.ci_units_words import JOBS, TESTS, job_label, reports_label, test_label

    headline, _other = ci_rate_rows(config, store)
    figures = ci_tests(config, store, point.when, headline)
    if show == "units":
        weeks = [
            w
            for w in figures.weeks
            if (regime is None or w["regime"] == regime) and w["job_reports"]
        ]
        columns = ["project", "regime", "week", f"job rate ({JOBS})", f"test rate ({TESTS})"]
        columns.append("reports without test counts")
        cells = [
            [
                w["project"],
                w["regime"],
                w["week"],
                job_label(w["job_rate"], w["jobs_passed"], w["jobs_passed"] + w["jobs_failed"]),
                test_label(w["test_rate"], w["tests_passed"], w["tests_counted"]),
                reports_label(w["job_level_only"], w["job_reports"]),
            ]
            for w in weeks
        ]
        _emit(columns, cells, fmt)
        click.echo(f"ci-health --units {point.label}: {len(weeks)} weeks", err=True)
        return
    tests = [
        t
        for t in figures.failing
        if (regime is None or t.regime == regime) and (t.failing or not failing)
    ]
    tests.sort(key=lambda t: (not t.failing, -t.streak, t.source_id, t.job, t.test))
    columns = ["source_id", "regime", "job", "test", "first_failed", "last_failed", "streak"]
    columns += ["failures", "reports"]
    cells = [
        [t.source_id, t.regime, t.job, t.test, _day(t.first_failed), _day(t.last_failed)]
        + [t.streak, t.failures, t.reports]
        for t in tests
    ]
    _emit(columns, cells, fmt)
    click.echo(f"ci-health --tests {point.label}: {len(tests)} failing tests", err=True)


COMMANDS = (ci_health,)
