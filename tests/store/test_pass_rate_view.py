"""v_ci_pass_rate_weekly on a real SQLite file and on real PostgreSQL (store fixture), with
numbers worked out by hand, and the real vLLM nightly builds of 2026-05-08 fed through it."""

from __future__ import annotations

import importlib.util
import sqlite3
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from tracker.collect.sources import CollectContext, buildkite
from tracker.events import Event
from tracker.jobs.config import load_config
from tracker.measure.ci.rates import split_by_trigger

REPO = Path(__file__).resolve().parents[2]
UTC = UTC
COLUMNS = [
    "project",
    "regime",
    "source_id",
    "trigger",
    "week",
    "runs_passed",
    "runs_failed",
    "jobs_passed",
    "jobs_failed",
    "run_pass_rate",
    "job_pass_rate",
]


def ev(n, kind, regime, outcome, when, project="vllm", state=None):
    return Event(
        source_id="s",
        project=project,
        kind=kind,
        external_id=f"{kind}:{n}",
        occurred_at=when,
        title=f"{kind} {n}",
        regime=regime,
        outcome=outcome,
        state=state or outcome or "canceled",
    )


def view(store, order='project, regime, source_id, "trigger", week'):
    with store.engine.connect() as conn:
        result = conn.execute(text(f"SELECT * FROM v_ci_pass_rate_weekly ORDER BY {order}"))
        assert list(result.keys()) == COLUMNS
        return [tuple(r) for r in result]


def save(store, items):
    with store.transaction() as conn:
        store.upsert_events(conn, items)


def test_weekly_counts_and_rates_by_hand(store):
    mon = datetime(2026, 5, 4, 12, tzinfo=UTC)  # Monday of ISO week 2026-W19
    sun = datetime(2026, 5, 10, 23, 59, tzinfo=UTC)  # still W19
    save(
        store,
        [
            # rocm, W19: runs 1 passed + 1 failed (+1 canceled, not counted);
            # jobs 3 passed + 1 failed (+1 superseded retry with outcome None, not counted)
            ev(1, "ci_run", "rocm", "passed", mon),
            ev(2, "ci_run", "rocm", "failed", sun),
            ev(3, "ci_run", "rocm", None, mon),
            ev(4, "ci_job", "rocm", "passed", mon),
            ev(5, "ci_job", "rocm", "passed", mon),
            ev(6, "ci_job", "rocm", "passed", sun),
            ev(7, "ci_job", "rocm", "failed", sun),
            ev(8, "ci_job", "rocm", None, sun, state="failed"),
            # cuda, W20 (Monday 2026-05-11): jobs only -> run rate NULL
            ev(9, "ci_job", "cuda", "failed", datetime(2026, 5, 11, 0, 0, tzinfo=UTC)),
            # a week with nothing counted produces no row; an issue is never counted
            ev(10, "ci_run", "cuda", None, datetime(2026, 6, 1, tzinfo=UTC)),
            Event(
                source_id="s",
                project="vllm",
                kind="issue",
                external_id="issue:1",
                occurred_at=mon,
                title="an issue",
                regime="rocm",
                state="open",
            ),
            # another project is its own series
            ev(11, "ci_run", "rocm", "passed", mon, project="pytorch"),
        ],
    )
    # no trigger in attrs: "unknown"
    assert view(store) == [
        ("pytorch", "rocm", "s", "unknown", "2026-W19", 1, 0, 0, 0, 1.0, None),
        ("vllm", "cuda", "s", "unknown", "2026-W20", 0, 0, 0, 1, None, 0.0),
        ("vllm", "rocm", "s", "unknown", "2026-W19", 1, 1, 3, 1, 0.5, 0.75),
    ]


def test_iso_week_edges_in_utc(store):
    save(
        store,
        [
            ev(1, "ci_run", "cuda", "passed", datetime(2025, 12, 28, 23, 30, tzinfo=UTC)),  # Sun
            ev(2, "ci_run", "cuda", "passed", datetime(2025, 12, 29, 0, 30, tzinfo=UTC)),  # Mon
            ev(3, "ci_run", "cuda", "failed", datetime(2027, 1, 1, 12, tzinfo=UTC)),  # Fri
            ev(4, "ci_run", "cuda", "failed", datetime(2021, 1, 3, 12, tzinfo=UTC)),  # Sun
        ],
    )
    weeks = [(r[4], r[5], r[6]) for r in view(store)]
    assert weeks == [("2020-W53", 0, 1), ("2025-W52", 1, 0), ("2026-W01", 1, 0), ("2026-W53", 0, 1)]


def test_postgresql_week_does_not_depend_on_the_session_time_zone(pg_store):
    save(pg_store, [ev(1, "ci_run", "cuda", "passed", datetime(2025, 12, 28, 23, 0, tzinfo=UTC))])
    with pg_store.engine.connect() as conn:
        conn.execute(text("SET TIME ZONE 'Pacific/Kiritimati'"))  # UTC+14: already Monday there
        week = conn.execute(text("SELECT week FROM v_ci_pass_rate_weekly")).scalar_one()
    assert week == "2025-W52"


def test_sqlite_week_expression_matches_python_isocalendar_for_every_day():
    path = REPO / "migrations" / "versions" / "0002_ci_pass_rate_view.py"
    spec = importlib.util.spec_from_file_location("rev0002", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    con = sqlite3.connect(":memory:")
    con.execute("CREATE TABLE t (occurred_at TEXT)")
    days = [date(2019, 12, 20) + timedelta(days=i) for i in range(12 * 366)]
    con.executemany("INSERT INTO t VALUES (?)", [(f"{d} 13:45:00.123456",) for d in days])
    got = [r[0] for r in con.execute(f"SELECT {module.SQLITE_WEEK} FROM t")]
    want = [f"{d.isocalendar()[0]}-W{d.isocalendar()[1]:02d}" for d in days]
    assert got == want


def test_real_vllm_nightlies_through_the_view(store, corpus):
    config = load_config(REPO / "sources.yaml")
    folder = corpus / "vllm-ci" / "vllm-ci-dashboard@2d34517" / "buildkite_cache"
    for source_id, name in (
        ("vllm-amd-ci", "builds_amd.json"),
        ("vllm-ci", "builds_upstream.json"),
    ):
        ctx = CollectContext(spec=config.source(source_id))
        save(store, buildkite.parse((folder / name).read_bytes(), ctx))
    assert {r[3] for r in view(store)} == {"schedule"}  # both are nightly builds
    headline, other = split_by_trigger(
        [dict(zip(COLUMNS, r, strict=True)) for r in view(store)], config.triggers
    )
    assert other == []
    rows = {r["regime"]: r for r in headline}
    assert {r["triggers"] for r in headline} == {"schedule"}
    counts = ("week", "runs_passed", "runs_failed", "jobs_passed", "jobs_failed")
    # 2026-05-08 is the Friday of ISO week 19.
    # cuda: build 65099 failed (run rate 0); 166 of its 179 jobs on NVIDIA queues passed.
    assert tuple(rows["cuda"][k] for k in counts) == ("2026-W19", 0, 1, 166, 13)
    assert rows["cuda"]["run_pass_rate"] == 0.0
    assert rows["cuda"]["job_pass_rate"] == pytest.approx(166 / 179)
    # rocm: AMD build 8323 passed (run rate 1.0) with 117 of its 198 GPU jobs passing (its
    # bootstrap and image build ran on the amd-cpu queue: no GPU, regime none), plus the 9
    # jobs the CUDA pipeline ran on AMD GPU queues (8 passed, 1 failed).
    assert tuple(rows["rocm"][k] for k in counts) == ("2026-W19", 1, 0, 125, 82)
    assert rows["rocm"]["run_pass_rate"] == 1.0
    assert rows["rocm"]["job_pass_rate"] == pytest.approx(125 / 207)
    # none: Intel, Ascend and CPU queue jobs of the CUDA pipeline (the amd-cpu docker build
    # included) and the two amd-cpu jobs of the AMD pipeline; no run of their own.
    assert tuple(rows["none"][k] for k in counts) == ("2026-W19", 0, 0, 25, 2)
