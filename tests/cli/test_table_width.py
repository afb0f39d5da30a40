"""CLI tables fit the terminal: wider than COLUMNS (or the terminal), a table is printed in
blocks of columns, each repeating the key columns, no line longer than the terminal, nothing
dropped; CSV and a table written to a pipe or file (no terminal) are left whole."""

from __future__ import annotations

import csv
import io

from tracker.cli.common import print_table

COLUMNS = ["name", "alpha", "beta", "gamma", "delta"]
ROWS = [["pytorch", "a" * 12, "b" * 20, "c" * 8, "d" * 15], ["jax", "1", "2", "3", "4"]]


def test_a_wide_table_is_printed_in_blocks_that_fit(capsys):
    print_table(COLUMNS, ROWS, width=40)
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(len(line) for line in lines) <= 40
    blocks = out.split("\n\n")
    assert len(blocks) > 1
    for block in blocks:  # each block a table of its own, the key column first
        head, rule, *rows = block.strip("\n").splitlines()
        assert head.startswith("name") and rule.startswith("-------")
        assert [r.split()[0] for r in rows] == ["pytorch", "jax"]
    for value in [*COLUMNS, *ROWS[0], *ROWS[1]]:
        assert value in out  # nothing dropped


def test_a_table_that_fits_is_unchanged(capsys):
    print_table(COLUMNS, ROWS, width=200)
    wide = capsys.readouterr().out
    print_table(COLUMNS, ROWS, width=None)
    assert capsys.readouterr().out == wide and "\n\n" not in wide
    assert wide.splitlines()[0].split() == COLUMNS


def test_a_column_wider_than_the_terminal_is_cut_and_says_so(capsys):
    print_table(["id", "text"], [["1", "x" * 100]], width=30)
    lines = capsys.readouterr().out.splitlines()
    assert max(len(line) for line in lines) <= 30
    assert lines[-1].endswith("~")


def test_without_a_terminal_the_table_is_whole(capsys, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    print_table(COLUMNS, ROWS)  # pytest's captured stdout is no terminal
    assert "\n\n" not in capsys.readouterr().out
    monkeypatch.setenv("COLUMNS", "40")
    print_table(COLUMNS, ROWS)
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) <= 40


def test_lag_trend_fits_columns_and_its_csv_is_untouched(demo, monkeypatch):
    monkeypatch.delenv("COLUMNS", raising=False)
    whole = demo["run"]("lag", "--trend")
    assert max(len(line) for line in whole.splitlines()) > 200  # the table is that wide
    rows = list(csv.DictReader(io.StringIO(demo["run"]("lag", "--trend", "--format", "csv"))))
    monkeypatch.setenv("COLUMNS", "100")
    fitted = demo["run"]("lag", "--trend")
    assert max(len(line) for line in fitted.splitlines()) <= 100
    # every figure of every row is still there, beside its group and regime in each block
    for row in rows:
        group, regime = row["artifact_group"], row["regime"]  # "all projects": two words
        lines = [
            x
            for x in fitted.splitlines()
            if x.startswith(group + " ") and x[len(group) :].split()[:1] == [regime]
        ]
        assert lines, row
        text = " ".join(lines)
        for value in row.values():
            assert value in text, (value, row)
    assert rows == list(
        csv.DictReader(io.StringIO(demo["run"]("lag", "--trend", "--format", "csv")))
    )


def test_ci_health_units_names_each_denominator(demo):
    rows = list(csv.DictReader(io.StringIO(demo["run"]("ci-health", "--units", "--format", "csv"))))
    assert rows
    for row in rows:
        jobs = row["job rate (jobs (test groups))"]
        reports = row["reports without test counts"]
        # the job rate's denominator is jobs, the other's job reports: each says which
        assert jobs == "-" or " of jobs (test groups), " in jobs
        assert reports.endswith(" job reports") and " of " in reports, reports
