"""Events dated outside the dates tracker computes with, already in the store (stored by an older
version, or written into the database by hand: inserted here past clean_event), never break
`tracker report` or `tracker digest`: the store's reads leave them out of every figure, whose
numbers stay those of the same store without them, and the report lists them under data
quality. On a real SQLite file and on real PostgreSQL (the weekly reads are dialect SQL).

The history is the digest tests' (tests/digest/test_digest.py): PyTorch 2.7 to 2.9, ROCm and
Neuron notes covering them, vLLM CI jobs on ROCm, three tagged issues."""

from __future__ import annotations

import csv
import email
import email.policy
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from tests.digest.test_digest import NOW, SOURCES, fill, supports
from tracker.cli.main import cli
from tracker.events import Event

FUTURE = datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
PAST = datetime(1, 1, 1, tzinfo=UTC)


def far_events() -> list[Event]:
    """One of each kind a figure reads, at both far ends: a framework release (an artifact),
    vendor notes naming PyTorch 2.9 (evidence that would close Neuron's open 2.9 and move
    ROCm's), CI jobs (pass rates) and issues (friction, tagged below)."""
    out = [Event("pt", "pytorch", "release", "r9", FUTURE, "9.0", version="9.0.0", url="u")]
    for when, name in ((FUTURE, "future"), (PAST, "past")):
        out += [
            Event("m", "rocm", "note", f"m-{name}", when, "ROCm", attrs=supports("2.9")),
            Event("n", "neuron-sdk", "note", f"n-{name}", when, "Neuron", attrs=supports("2.9")),
            Event(
                "ci", "vllm", "ci_job", f"j-{name}", when, "job", regime="rocm", outcome="failed"
            ),
            Event("gh", "pytorch", "issue", f"i-{name}", when, f"Crash {name}"),
            # a CI source with no other job: its week of changes was computed from year 1
            Event(
                "far-ci",
                "vllm",
                "ci_job",
                f"lone-{name}",
                when,
                "job",
                regime="rocm",
                outcome="failed",
                updated_at=when,
            ),
        ]
    return out


def run(monkeypatch, store, sources: Path, out: Path) -> dict[str, str]:
    """`tracker report` and `tracker digest --dry-run` (a fixed week, and the default week of
    the clock) into `out`; exit 0 asserted. Returns what a reader sees: each report file's text
    and the digests' subjects and plain-text bodies."""
    monkeypatch.setattr("tracker.digest.week.default_clock", lambda *_: NOW)
    monkeypatch.setenv("TRACKER_DATABASE_URL", store.url)
    monkeypatch.setenv("TRACKER_SOURCES", str(sources))
    runner = CliRunner()
    seen: dict[str, str] = {}
    report = runner.invoke(cli, ["report", "--out", str(out), "--as-of", "2025-12-03"])
    assert report.exit_code == 0, report.output
    for path in sorted(out.iterdir()):
        if path.suffix in (".csv", ".json"):
            seen[path.name] = path.read_text(encoding="utf-8")
    for name, week in (("w47", ["--week", "2025-W47"]), ("default", [])):
        eml = out / f"{name}.eml"
        digest = runner.invoke(cli, ["digest", *week, "--dry-run", str(eml)])
        assert digest.exit_code == 0, digest.output
        message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
        seen[f"{name}.eml"] = message["Subject"] + "\n" + message.get_body(("plain",)).get_content()
    seen["index.html"] = (out / "index.html").read_text(encoding="utf-8")
    return seen


def test_far_dated_events_are_left_out_of_every_figure_and_listed(store, tmp_path, monkeypatch):
    sources = tmp_path / "sources.yaml"
    sources.write_text(SOURCES)
    fill(store)
    # what fill left untagged gets a tag, as a nightly's tagging gives it: a complete report
    neutral = {"tag": "neutral", "score": 0.5, "regime": "none", "mentions": []}
    store.save_tags(
        [{"event_id": e["id"], **neutral, "tagger_version": "test"} for e in store.events_to_tag()]
    )
    without = run(monkeypatch, store, sources, tmp_path / "without")

    far = far_events()
    with store.transaction() as conn:
        store.upsert_events(conn, far)
    store.save_tags(
        [
            {
                "event_id": e.id,
                "tag": "friction",
                "score": 0.99,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "test",
            }
            for e in far
            if e.kind == "issue"
        ]
    )
    with_far = run(monkeypatch, store, sources, tmp_path / "with")

    # the manifest records every file's hash, so it differs where data quality and the page do
    figures = set(without) - {"data_quality.csv", "index.html", ".tracker-report.json"}
    assert {"lag.csv", "ci_pass_rate_weekly.csv", "friction_weekly.csv", "summary.json"} <= figures
    for name in sorted(figures):
        assert with_far[name] == without[name], name
    # the figures have content: equal because the far events are left out, not because empty
    assert "rocm" in without["ci_pass_rate_weekly.csv"] and "rocm" in without["lag.csv"]

    listed = [
        row
        for row in csv.DictReader(with_far["data_quality.csv"].splitlines())
        if row["section"] == "far_dated"
    ]
    assert "far_dated" not in without["data_quality.csv"]
    assert len(listed) == len(far)
    for e in far:
        (row,) = [r for r in listed if e.id in r["detail"]]
        assert row["source"] == e.source_id and e.external_id in row["detail"]
        assert (f"{e.occurred_at:%Y}-12-31" if e.occurred_at.year > 1 else "0001-01-01") in (
            row["detail"]
        )
    page = with_far["index.html"]
    assert f"{len(far)} stored events dated outside 1970-01-01 to 2200-01-01" in page
    assert all(e.id in page for e in far)
    assert "dated outside" not in without["index.html"]


def test_the_listed_far_dated_events_are_bounded_and_all_counted(store):
    many = [
        Event("bulk", "rocm", "note", f"x{n:03d}", PAST if n % 2 else FUTURE, "t")
        for n in range(120)
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, many)
        store.upsert_events(
            conn, [Event("bulk", "rocm", "note", "ok", datetime(2025, 1, 1, tzinfo=UTC), "t")]
        )
    found = store.far_dated_events(limit=50)
    assert found["count"] == 120
    assert len(found["events"]) == 50
    first = sorted(many, key=lambda e: e.id)[:50]  # one source: by id
    assert [e["id"] for e in found["events"]] == [e.id for e in first]
    assert {e["occurred_at"][:10] for e in found["events"]} == {"0001-01-01", "9999-12-31"}


def test_the_far_dated_read_searches_an_index_not_every_event(sqlite_store):
    """The report asks this of every store, which usually holds none: each end of the range is
    a search of ix_events_kind_occurred, not a scan of a million events' dates."""
    from sqlalchemy import event as sa_event

    statements: list[tuple] = []

    def capture(conn, cursor, statement, parameters, context, executemany):
        statements.append((statement, parameters))

    sa_event.listen(sqlite_store.engine, "before_cursor_execute", capture)
    try:
        assert sqlite_store.far_dated_events() == {"count": 0, "events": []}
    finally:
        sa_event.remove(sqlite_store.engine, "before_cursor_execute", capture)
    with sqlite_store.engine.connect() as conn:
        plans = [
            [row[3] for row in conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {sql}", params)]
            for sql, params in statements
        ]
    assert len(plans) == 2, statements
    for steps in plans:
        assert not any(step.startswith("SCAN events") for step in steps), steps
        assert any("ix_events_kind_occurred (kind=? AND occurred_at<?)" in s for s in steps)
        assert any("ix_events_kind_occurred (kind=? AND occurred_at>?)" in s for s in steps)


def test_a_far_build_or_closing_time_is_read_as_unknown(store):
    """A row dated in range whose build time (updated_at) or closing time (ended_at) is far: the
    figures read that time as unknown (a job's own time orders it; an issue closed at an
    unknown time), not as year 1 or 9999, which broke their arithmetic."""
    when = datetime(2025, 11, 20, tzinfo=UTC)
    job = Event("ci", "vllm", "ci_job", "j", when, "job", outcome="failed", updated_at=PAST)
    issue = Event(
        "gh",
        "pytorch",
        "issue",
        "i",
        when,
        "Crash",
        state="closed",
        ended_at=FUTURE,
        attrs={"number": 7},
        regime="rocm",
    )
    with store.transaction() as conn:
        store.upsert_events(conn, [job, issue])
    as_of = datetime(2025, 12, 1, tzinfo=UTC)
    (run,) = store.ci_job_runs(as_of)
    assert run["built_at"] is None and run["occurred_at"] == when
    (issues,), _ = store.issue_response_facts(["gh"], as_of)
    assert issues["closed_at"] is None and issues["state"] == "closed"
