"""Every CLI table of collected text shows bidi controls as <U+202E>, as the report and the
digest do (tracker.cli.common.print_table through present.formats.visible_controls): raw, a
job name holding U+202E reorders the rest of the terminal line ("Trojan Source")."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import text

from tracker.cli.common import print_table
from tracker.cli.main import cli
from tracker.jobs.config import load_config
from tracker.store import open_store

from ..report.test_ci_job_health_outputs import load_demo

REPO = Path(__file__).resolve().parents[2]
HOSTILE = "Nightly \u202eslebaL\u202c \u2066models\u2069 \u200f"


def test_ci_health_shows_the_bidi_controls_of_a_job_name(tmp_path, monkeypatch):
    url = f"sqlite:///{tmp_path / 't.db'}"
    load_demo(url, load_config(REPO / "sources.yaml"))
    store = open_store(url)
    with store.transaction() as conn:
        changed = conn.execute(
            text("UPDATE events SET title = :title WHERE kind = 'ci_job' AND title = :old"),
            {"title": HOSTILE, "old": "Transformers Nightly Models"},
        ).rowcount
    store.close()
    assert changed > 0
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    table = CliRunner().invoke(
        cli, ["--db", url, "ci-health", "--regime", "cuda", "--as-of", "2026-08-22"]
    )
    assert table.exit_code == 0, table.output
    assert "Nightly <U+202E>slebaL<U+202C> <U+2066>models<U+2069> <U+200F>" in table.stdout
    assert not any(ch in table.stdout for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2069\u200f")


def test_the_table_is_aligned_on_what_is_shown(capsys):
    print_table(["title", "n"], [["a\u202eb", 1], ["abcdefghijklm", 2]])
    lines = capsys.readouterr().out.splitlines()
    assert lines[2] == "a<U+202E>b     1"
    assert len({line.index(" ", 13) for line in lines[2:]}) == 1


def test_ci_health_tests_shows_a_test_names_controls_and_the_csv_keeps_it_quoted(tmp_path):
    from datetime import UTC, date, datetime

    from tracker.collect.test_reports import JobTests, report_event

    url = f"sqlite:///{tmp_path / 't.db'}"
    load_demo(url, load_config(REPO / "sources.yaml"))
    name = "test_a\nvllm-ci  cuda  forged row\u200b"
    report = JobTests("ci", 1, "Transformers Nightly Models", date(2026, 8, 17), failed=1)
    report.failing = [name]
    event = report_event(
        report, source_id="vllm-ci-tests", project="vllm", regime="cuda", url="",
        updated_at=datetime(2026, 8, 17, tzinfo=UTC), attrs={"builds": "vllm-ci"},
    )  # fmt: skip
    store = open_store(url)
    with store.transaction() as conn:
        store.upsert_events(conn, [event])
    store.close()
    args = ["--db", url, "--sources", str(REPO / "sources.yaml"), "ci-health", "--tests"]
    table = CliRunner().invoke(cli, [*args, "--as-of", "2026-08-22"])
    assert table.exit_code == 0, table.output
    shown = [line for line in table.stdout.splitlines() if "test_a" in line]
    assert len(shown) == 1 and "test_a<U+000A>vllm-ci  cuda  forged row<U+200B>" in shown[0]
    assert not any("forged row" in line for line in table.stdout.splitlines() if line not in shown)
    as_csv = CliRunner().invoke(cli, [*args, "--as-of", "2026-08-22", "--format", "csv"])
    assert as_csv.exit_code == 0, as_csv.output
    assert f'"{name}"' in as_csv.stdout
    # the report's table of failing tests shows the same name written out
    from tracker.measure.ci.rates import ci_rate_rows
    from tracker.measure.ci.tests import ci_tests
    from tracker.present.ci_units_words import unit_blocks

    config = load_config(REPO / "sources.yaml")
    store = open_store(url)
    headline, _ = ci_rate_rows(config, store)
    figures = ci_tests(config, store, datetime(2026, 8, 23, tzinfo=UTC), headline)
    store.close()
    tests = [t["test"] for b in unit_blocks(figures) for t in b["failing"]]
    assert "test_a<U+000A>vllm-ci  cuda  forged row<U+200B>" in tests
