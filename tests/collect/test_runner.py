"""Runner: one transaction per source, failures isolated, idempotent re-runs, honest cursors,
replay from cassettes. A tiny collector kind defined here talks real HTTP to a local server."""

from __future__ import annotations

import sys
import types
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from werkzeug import Response

from tracker.collect import sources as collectors
from tracker.collect.runner import RunSummary, SourceResult, next_cursor, run_sources
from tracker.config import Config, SourceSpec
from tracker.errors import SourceSkipped
from tracker.events import Event
from tracker.store.tables import http_cache, runs


def _collect(ctx):
    for page in ctx.http.get_pages(
        ctx.option("url"), {"since": ctx.since.isoformat()} if ctx.since else None
    ):
        for item in page:
            if "t" not in item:
                ctx.skip(f"item {item}", "no timestamp")
                continue
            # Values pass through as the JSON has them (any type), like a careless collector.
            yield Event(
                source_id=ctx.spec.id,
                project=ctx.spec.project,
                kind="issue",
                external_id=f"issue:{item['n']}",
                occurred_at=datetime.fromisoformat(item["t"]),
                title=item.get("title", ""),
                version=item.get("version"),
                state=item.get("state"),
                labels=item.get("labels", ()),
                attrs=item.get("attrs", {}),
            )
    if ctx.option("note"):
        ctx.state["note"] = ctx.option("note")
    if ctx.option("skip_me"):
        raise SourceSkipped("no token for this API")


FAKE = types.SimpleNamespace(KIND="fake_json", collect=_collect, ASCENDING=True)


@pytest.fixture(autouse=True)
def fake_kind(monkeypatch):
    # Registered like a real kind: a line in KINDS, and its module (here: already "imported").
    kind = collectors.Kind("_fake_json", frozenset({"url"}), frozenset({"skip_me", "note"}))
    monkeypatch.setitem(collectors.KINDS, "fake_json", kind)
    monkeypatch.setitem(sys.modules, f"{collectors.__name__}._fake_json", FAKE)


def config(*specs: SourceSpec) -> Config:
    return Config(Path("sources.yaml"), (), specs)


def spec(source_id: str, url: str, **options) -> SourceSpec:
    return SourceSpec(id=source_id, kind="fake_json", project="p", options={"url": url, **options})


def test_failing_source_rolls_back_alone_and_rerun_is_idempotent(store, httpserver):
    httpserver.expect_request("/good").respond_with_json(
        [
            {"n": 1, "t": "2025-01-02T00:00:00+00:00"},
            {"n": 2, "t": "2025-01-03T00:00:00+00:00"},
            {"n": 3},
        ]
    )
    httpserver.expect_request("/bad").respond_with_data(
        '[{"n": 1, "t": "2025', status=200, content_type="application/json"
    )
    cfg = config(spec("good", httpserver.url_for("/good")), spec("bad", httpserver.url_for("/bad")))
    first = run_sources(cfg, store)
    by_id = {r.source_id: r for r in first.results}
    assert by_id["good"].status == "ok" and (
        by_id["good"].events_seen,
        by_id["good"].events_new,
        by_id["good"].items_skipped,
    ) == (2, 2, 1)
    assert by_id["bad"].status == "failed" and "truncated or malformed JSON" in by_id["bad"].error
    assert first.exit_code == 3
    assert "bad" in "\n".join(first.lines())

    second = run_sources(cfg, store, only=["good"])
    assert second.results[0].events_new == 0 and second.exit_code == 0
    assert len(list(store.iter_events())) == 2
    status = {r["source_id"]: r for r in store.status()}
    assert status["bad"]["last_status"] == "failed" and status["bad"]["cursor"] is None
    assert status["good"]["cursor"] == datetime(2025, 1, 3, tzinfo=UTC)
    assert status["good"]["events"] == 2


def test_cursor_is_passed_back_as_since(store, httpserver):
    httpserver.expect_request("/i").respond_with_json([{"n": 1, "t": "2025-01-02T00:00:00+00:00"}])
    cfg = config(spec("s", httpserver.url_for("/i")))
    run_sources(cfg, store)
    run_sources(cfg, store)
    assert httpserver.log[-1][0].args["since"] == "2025-01-02T00:00:00+00:00"


def test_skipped_source_is_not_a_failure(store, httpserver):
    httpserver.expect_request("/i").respond_with_json([])
    summary = run_sources(config(spec("s", httpserver.url_for("/i"), skip_me=True)), store)
    assert summary.results[0].status == "skipped" and summary.exit_code == 0
    assert "no token" in summary.results[0].error


def test_next_cursor_never_passes_run_start_nor_goes_back():
    start = datetime(2025, 6, 1, tzinfo=UTC)
    future = Event(
        source_id="s",
        project="p",
        kind="issue",
        external_id="1",
        occurred_at=start + timedelta(days=3),
        title="clock skew upstream",
    )
    older = Event(
        source_id="s",
        project="p",
        kind="issue",
        external_id="2",
        occurred_at=start - timedelta(days=30),
        title="old",
    )
    assert next_cursor(None, [future], start) == start
    assert next_cursor(start - timedelta(days=1), [older], start) == start - timedelta(days=1)
    assert next_cursor(None, [], start) is None


HAND_CASSETTE = """\
# Hand-written for tests: shape of a paged JSON API, two items.
interactions:
- request:
    method: GET
    uri: http://replay.invalid/items
    body: null
    headers: {}
  response:
    status: {code: 200, message: OK}
    headers:
      Content-Type: [application/json]
    body: {string: '[{"n": 7, "t": "2025-03-01T10:00:00+00:00", "title": "from cassette"}]'}
version: 1
"""


def test_replay_from_cassette_and_missing_cassette_fails_alone(store, tmp_path):
    (tmp_path / "replayed.yaml").write_text(HAND_CASSETTE)
    cfg = config(
        spec("replayed", "http://replay.invalid/items"),
        spec("no-cassette", "http://replay.invalid/other"),
    )
    summary = run_sources(cfg, store, replay=tmp_path)
    by_id = {r.source_id: r for r in summary.results}
    assert by_id["replayed"].status == "ok" and by_id["replayed"].events_new == 1
    assert by_id["no-cassette"].status == "failed"
    assert "no cassette" in by_id["no-cassette"].error
    assert [e["title"] for e in store.iter_events()] == ["from cassette"]


def test_request_missing_from_cassette_is_a_clear_source_error(store, tmp_path):
    (tmp_path / "s.yaml").write_text(HAND_CASSETTE)
    summary = run_sources(
        config(spec("s", "http://replay.invalid/not-recorded")), store, replay=tmp_path
    )
    assert summary.results[0].status == "failed"
    assert "no recorded answer" in summary.results[0].error


def test_record_filters_the_token(store, httpserver, tmp_path, monkeypatch):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "ghp_never_in_a_cassette")
    monkeypatch.setattr(FAKE, "AUTH", "github", raising=False)
    httpserver.expect_request("/i").respond_with_json([{"n": 1, "t": "2025-01-02T00:00:00+00:00"}])
    rec = spec("rec", httpserver.url_for("/i"), api_url=httpserver.url_for("/"))
    summary = run_sources(config(rec), store, record=tmp_path)
    assert summary.results[0].status == "ok"
    assert httpserver.log[0][0].headers["Authorization"] == "Bearer ghp_never_in_a_cassette"
    text = (tmp_path / "rec.yaml").read_text()
    assert "ghp_never_in_a_cassette" not in text and "n" in text
    monkeypatch.delattr(FAKE, "AUTH")


def test_unstorable_values_are_cleaned_or_skipped_one_by_one(store, httpserver, caplog):
    def item(n, day, extra=""):
        return f'{{"n": {n}, "t": "2025-01-0{day}T00:00:00+00:00"{extra}}}'

    # Raw JSON text: the escapes decode to a lone surrogate and to NUL, as garbled upstream
    # text does; PostgreSQL refuses both, SQLite the surrogate.
    body = (
        "["
        + ", ".join(
            [
                item(
                    1,
                    1,
                    ', "title": "bad \\ud83d title", "labels": ["rocm\\udc00"], '
                    '"attrs": {"log": "a\\u0000b", "k\\ud800": [1.5, "x\\u0000"]}',
                ),
                item(2, 2, ', "title": "nul\\u0000here", "state": "' + "s" * 80 + '"'),
                item(3, 3, ', "title": {"x": 1}'),  # not text: skipped
                item(4, 4, ', "title": 42'),  # a number: its text
                item('"' + "9" * 600 + '"', 5),  # id too long: skipped, never cut
                item(6, 6, ', "version": "' + "1" * 101 + '"'),  # version too long: skipped
                item('"7\\u0000"', 7),  # NUL in an id: skipped, never altered
                item('"9\\udc00"', 9),  # so is a lone surrogate
                item(8, 8, ', "title": "fine"'),
            ]
        )
        + "]"
    )
    httpserver.expect_request("/i").respond_with_data(body, content_type="application/json")
    cfg = config(spec("s", httpserver.url_for("/i")))

    first = run_sources(cfg, store).results[0]
    assert (first.status, first.events_new, first.items_skipped) == ("ok", 4, 5), first.error
    stored = {e["external_id"]: e for e in store.iter_events()}
    assert {k: v["title"] for k, v in stored.items()} == {
        "issue:1": "bad \ufffd title",
        "issue:2": "nulhere",
        "issue:4": "42",
        "issue:8": "fine",
    }
    assert stored["issue:1"]["labels"] == ["rocm\ufffd"]
    assert stored["issue:1"]["attrs"] == {"log": "ab", "k\ufffd": [1.5, "x"]}
    assert stored["issue:2"]["state"] == "s" * 50
    messages = [r.getMessage() for r in caplog.records]
    assert "s: skipped issue 'issue:3': title is a dict, not text" in messages
    assert (
        "s: skipped issue 'issue:6': version is 101 characters long, its column holds 100"
        in messages
    )
    assert any(m.startswith("s: skipped issue 'issue:7\\x00': external_id") for m in messages)
    assert any(m.startswith("s: skipped issue 'issue:9\\udc00': external_id") for m in messages)
    assert any("external_id is 606 characters long" in m for m in messages)

    # The bad items do not poison later runs: the next one is a clean, idempotent re-read.
    second = run_sources(cfg, store).results[0]
    assert (second.status, second.events_new, second.items_skipped) == ("ok", 0, 5)
    status = store.status()[0]
    assert status["last_status"] == "ok"
    assert status["cursor"] == datetime(2025, 1, 8, tzinfo=UTC)


def test_failed_save_is_still_recorded_in_its_own_transaction(store, httpserver):
    httpserver.expect_request("/i").respond_with_json(
        [{"n": 1, "t": "2025-01-02T00:00:00+00:00"}], headers={"ETag": '"e1"'}
    )
    # A collector state no database can encode (a lone surrogate) makes the save fail.
    result = run_sources(config(spec("s", httpserver.url_for("/i"), note="\ud83d")), store).results[
        0
    ]
    assert result.status == "failed" and result.error.startswith("save failed")
    assert list(store.iter_events()) == []
    status = store.status()[0]
    assert status["source_id"] == "s" and status["last_status"] == "failed"
    assert status["last_error"] == result.error and status["cursor"] is None
    assert status["state"] == {} and status["requests"] == 1
    with store.engine.connect() as conn:
        rows = conn.execute(select(runs.c.status, runs.c.error)).all()
        assert conn.execute(select(http_cache)).all() == []
    assert rows == [("failed", result.error)]


MATRIX = """\
Matrix
======

.. csv-table::
   :header: "ROCm Version", "7.2.0", "7.1.1"

   PyTorch,"2.9, 2.8","2.9, 2.8, 2.7"
"""


def test_run_that_skipped_keeps_no_validators_so_the_document_is_read_again(store, httpserver):
    history = {"text": "| Version | Release date |\n| --- | --- |\n| 7.1.1 | November 26, 2025 |\n"}

    def matrix(request):
        if request.headers.get("If-None-Match") == '"m1"':
            return Response(status=304, headers={"ETag": '"m1"'})
        return Response(MATRIX, headers={"ETag": '"m1"'})

    httpserver.expect_request("/matrix.rst").respond_with_handler(matrix)
    httpserver.expect_request("/versions.md").respond_with_handler(
        lambda request: Response(history["text"])
    )
    cfg = config(
        SourceSpec(
            id="m",
            kind="compat_matrix",
            project="rocm",
            regime="rocm",
            options={
                "url": httpserver.url_for("/matrix.rst"),
                "format": "rst",
                "history_url": httpserver.url_for("/versions.md"),
            },
        )
    )

    def ids():
        return sorted(e["external_id"].split(":")[0] for e in store.iter_events())

    first = run_sources(cfg, store).results[0]
    assert (first.status, first.items_skipped, ids()) == ("ok", 1, ["7.1.1"])  # 7.2.0 undated

    history["text"] += "| 7.2.0 | January 21, 2026 |\n"  # upstream dates it; matrix unchanged
    second = run_sources(cfg, store).results[0]
    assert (second.status, second.items_skipped, second.not_modified) == ("ok", 0, 0)
    assert ids() == ["7.1.1", "7.2.0"]

    # Nothing skipped that time: its validators were saved, a quiet night costs one 304.
    third = run_sources(cfg, store).results[0]
    assert (third.requests, third.not_modified, third.events_seen) == (1, 1, 0)


def test_a_skip_nothing_later_can_store_keeps_the_validators(store, httpserver):
    # An item without a timestamp stays unreadable however often it is read: the run keeps its
    # ETag and a quiet night costs one conditional request (only `read_again` skips drop it).
    def listing(request):
        if request.headers.get("If-None-Match") == '"l1"':
            return Response(status=304, headers={"ETag": '"l1"'})
        return Response(
            '[{"n": 1, "t": "2025-01-02T00:00:00+00:00"}, {"n": 2}]',
            content_type="application/json",
            headers={"ETag": '"l1"'},
        )

    httpserver.expect_request("/i").respond_with_handler(listing)
    cfg = config(spec("s", httpserver.url_for("/i")))
    first = run_sources(cfg, store).results[0]
    assert (first.status, first.items_skipped, first.events_new) == ("ok", 1, 1)
    run_sources(cfg, store)  # the first with the cursor in its URL (?since=...)
    third = run_sources(cfg, store).results[0]
    assert (third.items_skipped, third.requests, third.not_modified) == (0, 1, 1)


def test_a_replay_does_not_print_the_recorded_rate_limit_as_if_it_were_left():
    live = SourceResult("gh", "ok", requests=1, rate_remaining=4990)
    replayed = SourceResult("gh", "ok", requests=1, rate_remaining=4990, replay="cassettes/")
    assert "rate limit left 4990" in RunSummary("b", [live]).lines()[0]
    assert "rate limit" not in RunSummary("b", [replayed]).lines()[0]
