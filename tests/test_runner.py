"""Runner: one transaction per source, failures isolated, idempotent re-runs, honest cursors,
replay from cassettes. A tiny collector kind defined here talks real HTTP to a local server."""

from __future__ import annotations

import types
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from tracker import collectors
from tracker.config import Config, SourceSpec
from tracker.errors import SourceSkipped
from tracker.records import Event
from tracker.runner import next_cursor, run_sources


def _collect(ctx):
    for page in ctx.http.get_pages(ctx.option("url"), {"since": ctx.since.isoformat()}
                                   if ctx.since else None):
        for item in page:
            if "t" not in item:
                ctx.skip(f"item {item}", "no timestamp")
                continue
            yield Event(source_id=ctx.spec.id, project=ctx.spec.project, kind="issue",
                        external_id=f"issue:{item['n']}", occurred_at=datetime.fromisoformat(
                            item["t"]), title=item.get("title", ""))
    if ctx.option("skip_me"):
        raise SourceSkipped("no token for this API")


FAKE = types.SimpleNamespace(KIND="fake_json", REQUIRED_KEYS={"url"}, OPTIONAL_KEYS={"skip_me"},
                             collect=_collect, ASCENDING=True)


@pytest.fixture(autouse=True)
def fake_kind(monkeypatch):
    monkeypatch.setitem(collectors.REGISTRY, "fake_json", FAKE)


def config(*specs: SourceSpec) -> Config:
    return Config(Path("sources.yaml"), (), specs)


def spec(source_id: str, url: str, **options) -> SourceSpec:
    return SourceSpec(id=source_id, kind="fake_json", project="p", options={"url": url, **options})


def test_failing_source_rolls_back_alone_and_rerun_is_idempotent(store, httpserver):
    httpserver.expect_request("/good").respond_with_json(
        [{"n": 1, "t": "2025-01-02T00:00:00+00:00"}, {"n": 2, "t": "2025-01-03T00:00:00+00:00"},
         {"n": 3}])
    httpserver.expect_request("/bad").respond_with_data('[{"n": 1, "t": "2025', status=200,
                                                        content_type="application/json")
    cfg = config(spec("good", httpserver.url_for("/good")), spec("bad", httpserver.url_for("/bad")))
    first = run_sources(cfg, store)
    by_id = {r.source_id: r for r in first.results}
    assert by_id["good"].status == "ok" and (by_id["good"].events_seen, by_id["good"].events_new,
                                             by_id["good"].items_skipped) == (2, 2, 1)
    assert by_id["bad"].status == "failed" and "truncated or malformed JSON" in by_id["bad"].error
    assert first.exit_code == 3
    assert "bad" in "\n".join(first.lines())

    second = run_sources(cfg, store, only=["good"])
    assert second.results[0].events_new == 0 and second.exit_code == 0
    assert len(list(store.iter_events())) == 2
    status = {r["source_id"]: r for r in store.status()}
    assert status["bad"]["last_status"] == "failed" and status["bad"]["cursor"] is None
    assert status["good"]["cursor"] == datetime(2025, 1, 3, tzinfo=timezone.utc)
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
    start = datetime(2025, 6, 1, tzinfo=timezone.utc)
    future = Event(source_id="s", project="p", kind="issue", external_id="1",
                   occurred_at=start + timedelta(days=3), title="clock skew upstream")
    older = Event(source_id="s", project="p", kind="issue", external_id="2",
                  occurred_at=start - timedelta(days=30), title="old")
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
    cfg = config(spec("replayed", "http://replay.invalid/items"),
                 spec("no-cassette", "http://replay.invalid/other"))
    summary = run_sources(cfg, store, replay=tmp_path)
    by_id = {r.source_id: r for r in summary.results}
    assert by_id["replayed"].status == "ok" and by_id["replayed"].events_new == 1
    assert by_id["no-cassette"].status == "failed"
    assert "no cassette" in by_id["no-cassette"].error
    assert [e["title"] for e in store.iter_events()] == ["from cassette"]


def test_request_missing_from_cassette_is_a_clear_source_error(store, tmp_path):
    (tmp_path / "s.yaml").write_text(HAND_CASSETTE)
    summary = run_sources(config(spec("s", "http://replay.invalid/not-recorded")), store,
                          replay=tmp_path)
    assert summary.results[0].status == "failed"
    assert "no recorded answer" in summary.results[0].error


def test_record_filters_the_token(store, httpserver, tmp_path, monkeypatch):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "ghp_never_in_a_cassette")
    monkeypatch.setattr(FAKE, "AUTH", "github", raising=False)
    httpserver.expect_request("/i").respond_with_json([{"n": 1, "t": "2025-01-02T00:00:00+00:00"}])
    summary = run_sources(config(spec("rec", httpserver.url_for("/i"))), store, record=tmp_path)
    assert summary.results[0].status == "ok"
    assert httpserver.log[0][0].headers["Authorization"] == "Bearer ghp_never_in_a_cassette"
    text = (tmp_path / "rec.yaml").read_text()
    assert "ghp_never_in_a_cassette" not in text and "n" in text
    monkeypatch.delattr(FAKE, "AUTH")
