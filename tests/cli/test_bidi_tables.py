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
