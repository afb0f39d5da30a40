"""Timestamps that contradict each other (issue 49): a comment dated before its issue was
opened, an issue closed before it was opened, a CI job that ended before it started are left
out of every figure and listed in data quality (tracker.store.time_order, beside tables.dated).
SQLite and PostgreSQL (`store` fixture)."""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from tracker.config import read_config
from tracker.events import Event

AS_OF = datetime.combine(date(2026, 7, 31), time.max, tzinfo=UTC)
SOURCES = """
regimes:
  - {id: cuda, reference: true}
  - {id: rocm}
sources:
  - {id: r-rocm, kind: github_issues, project: r, regime: rocm, repo: o/r, comments: true}
  - {id: r-base, kind: github_issues, project: r, regime: cuda, repo: o/r, comments: true}
"""


def t(day: str, hour: int = 0) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


def issue(source: str, number: int, opened: datetime, closed: datetime | None = None) -> Event:
    return Event(
        source, "r", "issue", f"issue:{number}", opened, f"issue {number}",
        url=f"https://github.com/o/r/issues/{number}", regime=source.split("-")[1],
        ended_at=closed, state="closed" if closed else "open",
        attrs={"number": number, "comments": 1, "author": "alice"},
    )  # fmt: skip


def comment(source: str, ident: int, number: int, when: datetime) -> Event:
    return Event(
        source, "r", "comment", f"comment:{ident}", when, f"comment on #{number}",
        url=f"https://github.com/o/r/issues/{number}#c{ident}", regime=source.split("-")[1],
        attrs={"issue": number, "author": "bob", "author_type": "User", "association": "MEMBER"},
    )  # fmt: skip


def test_a_comment_before_its_issue_gives_no_negative_response_time(store, tmp_path):
    from tracker.collect.sources import KINDS
    from tracker.measure.figures import issue_response_figures

    path = tmp_path / "sources.yaml"
    path.write_text(SOURCES)
    config = read_config(path, KINDS)
    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                issue("r-rocm", 1, t("2026-02-10", 12)),
                comment("r-rocm", 11, 1, t("2026-02-09", 12)),  # a day before the opening
                comment("r-rocm", 12, 1, t("2026-02-12", 12)),  # the real first response
                issue("r-rocm", 2, t("2026-02-11"), closed=t("2026-02-01")),  # closed first
                comment("r-rocm", 21, 2, t("2026-02-11", 5)),
                issue("r-base", 3, t("2026-02-10")),
                comment("r-base", 31, 3, t("2026-02-10", 6)),
            ],
        )
    figures = issue_response_figures(config, store, AS_OF, ["cuda", "rocm"])
    rows = {r["number"]: r for r in figures.issue_rows()}
    assert rows[1]["hours_to_first_response"] == 48.0  # not -24
    assert 2 not in rows  # closed before it was opened: in no figure
    assert all(
        r["hours_to_first_response"] is None or r["hours_to_first_response"] >= 0
        for r in rows.values()
    )
    quarters = {q["regime"]: q for q in figures.quarterly_rows()}
    assert quarters["rocm"]["issues"] == 1 and quarters["rocm"]["median_hours"] == 48.0

    listed = store.contradicting_events()
    assert listed["count"] == 2
    found = {e["external_id"]: e["why"] for e in listed["events"]}
    assert set(found) == {"comment:11", "issue:2"}
    assert found["comment:11"].startswith("before its issue was opened (2026-02-10 12:00")
    assert found["issue:2"].startswith("ended 2026-02-01") and "before it began" in found["issue:2"]


def test_a_ci_job_that_ended_before_it_started_is_in_no_figure(store):
    def job(name: str, started: datetime, ended: datetime) -> Event:
        return Event(
            "ci", "vllm", "ci_job", f"job:{name}", started, name, url="https://ci.example/1",
            regime="rocm", outcome="passed", ended_at=ended, updated_at=started,
            attrs={"build": 1},
        )  # fmt: skip

    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                job("ok", t("2026-03-01", 1), t("2026-03-01", 2)),
                job("backwards", t("2026-03-01", 5), t("2026-03-01", 3)),
            ],
        )
    assert [r["job"] for r in store.ci_job_runs(AS_OF)] == ["ok"]
    assert [e["external_id"] for e in store.contradicting_events()["events"]] == ["job:backwards"]


CI_SOURCES = """
regimes:
  - {id: cuda, reference: true}
  - {id: rocm}
sources:
  - {id: amd-ci, kind: buildkite, project: vllm, regime: rocm, org: vllm, pipeline: amd-ci}
"""


def test_a_ci_run_or_job_that_ended_before_it_started_is_in_no_weekly_pass_rate(store, tmp_path):
    """The weekly CI pass rates (the view v_ci_pass_rate_weekly, and the indexed daily sums the
    figures read, tracker.store.weekly) count only runs and jobs whose times agree; the others
    are listed in data quality (Store.contradicting_events)."""
    from sqlalchemy import text

    from tracker.collect.sources import KINDS
    from tracker.measure.ci.rates import ci_rate_rows

    def ci(kind: str, name: str, outcome: str, started: datetime, ended: datetime) -> Event:
        return Event(
            "amd-ci", "vllm", kind, f"{kind}:{name}", started, name,
            url="https://buildkite.com/vllm/amd-ci/builds/1", regime="rocm", outcome=outcome,
            ended_at=ended, updated_at=started, attrs={"trigger": "schedule", "build_number": 1},
        )  # fmt: skip

    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [
                ci("ci_run", "1", "passed", t("2026-03-02", 1), t("2026-03-02", 4)),
                ci("ci_run", "2", "failed", t("2026-03-02", 6), t("2026-03-02", 5)),  # backwards
                ci("ci_job", "ok", "passed", t("2026-03-02", 1), t("2026-03-02", 2)),
                ci("ci_job", "open", "failed", t("2026-03-03", 1), None),  # no end: counted
                ci("ci_job", "back", "failed", t("2026-03-03", 5), t("2026-03-03", 3)),
            ],
        )
    expected = {"runs_passed": 1, "runs_failed": 0, "jobs_passed": 1, "jobs_failed": 1}
    with store.engine.connect() as conn:
        (view,) = conn.execute(text("SELECT * FROM v_ci_pass_rate_weekly")).mappings().all()
    assert {k: view[k] for k in expected} == expected
    assert view["run_pass_rate"] == 1.0 and view["job_pass_rate"] == 0.5

    path = tmp_path / "sources.yaml"
    path.write_text(CI_SOURCES)
    headline, other = ci_rate_rows(read_config(path, KINDS), store)  # the report's weekly rows
    assert other == []
    assert [{k: r[k] for k in expected} for r in headline] == [expected]
    assert headline[0]["week"] == "2026-W10" and headline[0]["job_pass_rate"] == 0.5

    listed = store.contradicting_events()
    assert sorted(e["external_id"] for e in listed["events"]) == ["ci_job:back", "ci_run:2"]
    assert listed["count"] == 2


def test_contradictions_are_derived_as_events_are_written_in_any_order(store):
    """A comment stored before its issue, then the issue: the contradiction is found when the
    issue is written (its comments are compared again); the issue and a job written again with
    times that agree leave the listing; a comment of no stored issue contradicts nothing."""

    def listed() -> list[str]:
        return sorted(e["external_id"] for e in store.contradicting_events()["events"])

    def job(ended: datetime) -> Event:
        return Event(
            "ci", "vllm", "ci_job", "job:1", t("2026-03-01", 5), "job", url="https://ci/1",
            regime="rocm", outcome="passed", ended_at=ended,
        )  # fmt: skip

    with store.transaction() as conn:
        store.upsert_events(
            conn,
            [comment("r-rocm", 11, 1, t("2026-02-09")), comment("r-rocm", 12, 7, t("2026-01-01"))],
        )
    assert listed() == []
    with store.transaction() as conn:
        store.upsert_events(conn, [issue("r-rocm", 1, t("2026-02-10")), job(t("2026-03-01", 3))])
    assert listed() == ["comment:11", "job:1"]
    assert store.contradicting_events()["count"] == 2
    with store.transaction() as conn:  # corrected upstream
        store.upsert_events(conn, [issue("r-rocm", 1, t("2026-02-08")), job(t("2026-03-01", 6))])
    assert listed() == []
    assert store.contradicting_events()["count"] == 0


def test_the_listing_reads_the_derived_rows_not_every_event(sqlite_store):
    """SQLite's plans: the count and the listing of contradicting events read the derived
    table and look events up by id; no read scans the events. Fails if the listing goes back
    to scanning every event."""
    from sqlalchemy import event

    statements: list[tuple] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, parameters))

    event.listen(sqlite_store.engine, "before_cursor_execute", capture)
    try:
        sqlite_store.contradicting_events()
    finally:
        event.remove(sqlite_store.engine, "before_cursor_execute", capture)
    with sqlite_store.engine.connect() as conn:
        plans = [
            [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)]
            for sql, params in statements
        ]
    assert len(plans) == 2, statements
    steps = [step for plan in plans for step in plan]
    assert any("time_contradictions" in step for step in steps), plans
    assert not any(step.startswith(("SCAN e", "SCAN i", "SCAN events")) for step in steps), plans
