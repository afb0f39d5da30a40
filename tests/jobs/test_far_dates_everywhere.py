"""Far-dated rows of every kind a figure reads, already in a real store (written by an analyst's
SQL past clean_event, which refuses them at collect and import), never break `tracker report`,
`digest`, `ci-health` or `nightly`: each exits 0 without a traceback, its figures equal those of
the same store without the rows, and the report lists every one under data quality.

The store is the offline demo's (`tracker nightly --replay cassettes/`), each command a
subprocess as cron runs it. One CI job dated 0001-01-01 in a CI source of its own made every
one of them end in an OverflowError traceback (measure.ci_jobs.window_of: its week of changes
started before year 1)."""

from __future__ import annotations

import csv
import email
import email.policy
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DEMO_DAY, DEMO_WEEK, REPO

FAR = ("0001-01-01 00:00:00.000000", "9999-12-31 23:59:59.000000")
# One stored row of each kind a figure reads is copied at both far dates: a copy counted would
# change the figure it feeds (a second run of a job, a second comment, an older release...).
KINDS = ("release", "note", "commit", "issue", "comment", "result", "ci_run", "ci_job")
# Sources whose only rows are far-dated. A CI source: its "week of changes" is the 7 days before
# its newest job, which for year 1 is no date (the OverflowError). A source of sources.yaml the
# demo has no event of: a far row would be its newest evidence (data quality's staleness).
LONE_SOURCES = {"ci_job": "far-ci", "release": "vllm-rocm-wheels"}


def tracker(db: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "TRACKER_SOURCES": str(REPO / "sources.yaml"),
        "TRACKER_DATABASE_URL": f"sqlite:///{db}",
    }
    env.pop("TRACKER_CONFIG", None)
    return subprocess.run(
        [sys.executable, "-m", "tracker", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def ok(result: subprocess.CompletedProcess) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    assert result.returncode == 0, result.stderr
    return result.stdout


def add_far_rows(db: Path) -> list[str]:
    """Copies of one row per kind at both far dates (their other timestamps far too), tagged as
    their original is; returns the new ids."""
    added = []
    with sqlite3.connect(db) as conn:
        columns = [row[1] for row in conn.execute("PRAGMA table_info(events)")]
        for kind in KINDS:
            original = conn.execute(
                "SELECT id, source_id FROM events WHERE kind = ? AND vanished_at IS NULL"
                " AND (kind != 'ci_job' OR outcome = 'failed') ORDER BY id LIMIT 1",
                (kind,),
            ).fetchone()
            assert original, kind
            for n, when in enumerate(FAR):
                for source in (original[1], LONE_SOURCES.get(kind, original[1])):
                    new = f"far{n}{kind}{source}"[:32]
                    if new in added:  # no lone source for this kind
                        continue
                    values = {
                        "id": f"'{new}'",
                        "external_id": f"'{new}'",
                        "source_id": f"'{source}'",
                        "occurred_at": f"'{when}'",
                        "updated_at": f"'{when}'",
                        "ended_at": f"CASE WHEN ended_at IS NULL THEN NULL ELSE '{when}' END",
                    }
                    picked = ", ".join(values.get(c, c) for c in columns)
                    conn.execute(
                        f"INSERT INTO events ({', '.join(columns)}) "
                        f"SELECT {picked} FROM events WHERE id = ?",
                        (original[0],),
                    )
                    conn.execute(
                        "INSERT INTO tags SELECT ?, tag, score, regime, mentions, tagger_version,"
                        " tagged_at FROM tags WHERE event_id = ?",
                        (new, original[0]),
                    )
                    added.append(new)
    return added


def outputs(db: Path, folder: Path) -> dict[str, str]:
    """What a reader sees of report, digest, ci-health and nightly on `db`: every report file's
    text (the nightly's too), the digest's subject and both parts, ci-health's table."""
    seen: dict[str, str] = {}
    report, nightly = folder / "report", folder / "nightly"
    ok(tracker(db, "report", "--out", str(report), "--as-of", DEMO_DAY))
    eml = folder / "digest.eml"
    ok(tracker(db, "digest", "--week", DEMO_WEEK, "--dry-run", str(eml)))
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    seen["digest subject"] = message["Subject"]
    seen["digest text"] = message.get_body(("plain",)).get_content()
    seen["ci-health"] = ok(tracker(db, "ci-health", "--as-of", DEMO_DAY))
    ok(demo_nightly(db, nightly))
    for out in (report, nightly):
        for path in sorted(out.iterdir()):
            if path.suffix in (".csv", ".json", ".html"):
                seen[f"{out.name}/{path.name}"] = path.read_text(encoding="utf-8")
    return seen


def demo_nightly(db: Path, out: Path):
    """The offline nightly of the demo, as of its snapshot day, into `out`."""
    return tracker(
        db, "nightly", "--replay", str(REPO / "cassettes"), "--as-of", DEMO_DAY, "--out", str(out)
    )


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("far-demo")
    db = folder / "tracker.db"
    ok(demo_nightly(db, folder / "report"))
    return db


def test_far_dated_rows_of_every_kind_are_left_out_of_every_figure_and_listed(demo_db, tmp_path):
    clean, far = tmp_path / "clean.db", tmp_path / "far.db"
    shutil.copy(demo_db, clean)
    shutil.copy(demo_db, far)
    added = add_far_rows(far)
    (tmp_path / "without").mkdir()
    (tmp_path / "with").mkdir()
    without = outputs(clean, tmp_path / "without")
    with_far = outputs(far, tmp_path / "with")

    assert with_far.keys() == without.keys()
    # the manifest records every file's hash, so it differs where data quality and the page do
    shown = ("data_quality.csv", "index.html", ".tracker-report.json")
    figures = sorted(k for k in without if not k.endswith(shown))
    assert {"report/ci_job_health.csv", "report/issue_response.csv", "report/perf_parity.csv"} <= (
        set(figures)
    )
    for name in figures:
        assert with_far[name] == without[name], name
    # equal because the rows are left out, not because the figures are empty
    assert "rocm" in without["report/ci_job_health.csv"]
    assert "rocm" in without["report/issue_response.csv"]
    assert "vllm-ci" in without["ci-health"]

    for folder in ("report", "nightly"):
        quality = with_far[f"{folder}/data_quality.csv"]
        listed = [r for r in csv.DictReader(quality.splitlines()) if r["section"] == "far_dated"]
        assert sorted(new for new in added if any(new in r["detail"] for r in listed)) == sorted(
            added
        )
        assert len(listed) == len(added)
        # and nothing else in data quality moved (a source's newest evidence, for one)
        others = [r for r in csv.DictReader(quality.splitlines()) if r["section"] != "far_dated"]
        assert others == list(csv.DictReader(without[f"{folder}/data_quality.csv"].splitlines()))
        page = with_far[f"{folder}/index.html"]
        assert f"{len(added)} stored events dated outside 1970-01-01 to 2200-01-01" in page
