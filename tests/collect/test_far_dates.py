"""Timestamps outside the dates tracker computes with (records.EVENT_TIME_START to
EVENT_TIME_END) are refused at the door: a collected item dated so is a skip, counted and logged
naming the source and the item, and the rest of its page is saved. Real collectors through the
runner against servers on 127.0.0.1, on SQLite and PostgreSQL."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from tests.collect.test_hostile_sources import (
    JAX,
    cfg,
    issue,
    issues_spec,
    one,
    release,
    releases_spec,
    stored,
)
from tracker.collect import ci
from tracker.collect.runner import run_sources
from tracker.collect.sources import CollectContext
from tracker.config import SourceSpec
from tracker.events import EVENT_TIME_END, EVENT_TIME_START, Event, InvalidEvent, clean_event

FAR = "9999-12-31T23:59:59Z"
KINDS = (("release", ""), ("note", ":1"))  # a release and its one note ("- Bug fixes.")


def test_a_release_published_in_9999_is_a_skip_and_the_rest_of_the_page_is_saved(
    store, httpserver, caplog
):
    far = release("jax-v9.9.9", FAR)
    far["created_at"] = JAX[1][1]  # a readable creation date does not let it through
    httpserver.expect_request("/repos/jax-ml/jax/releases").respond_with_json(
        [release(*JAX[0]), far, release(*JAX[2])]
    )
    with caplog.at_level(logging.WARNING, logger="tracker"):
        result = one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    assert result.status == "ok", result.error
    assert result.items_skipped == 1
    saved = set(stored(store, "jax-releases"))
    assert saved == {f"{kind}:jax-v0.4.{n}{end}" for kind, end in KINDS for n in (35, 33)}
    lines = [r.getMessage() for r in caplog.records if "9999-12-31" in r.getMessage()]
    assert len(lines) == 1, lines
    assert "jax-releases" in lines[0] and "jax-v9.9.9" in lines[0]
    assert "outside the dates tracker computes with" in lines[0]
    assert store.load_source("jax-releases").cursor.year == 2024  # never moved by the far item


def test_an_issue_updated_in_9999_is_a_skip_and_the_cursor_stays_real(store, httpserver):
    listing = [issue(8, "2025-10-03T00:00:00Z"), issue(9, FAR)]
    httpserver.expect_request("/repos/vllm-project/vllm/issues").respond_with_json(listing)
    result = one(run_sources(cfg(issues_spec(httpserver.url_for(""))), store))
    assert result.status == "ok", result.error
    assert result.items_skipped == 1 and set(stored(store, "vllm-issues")) == {"issue:8"}
    assert store.load_source("vllm-issues").cursor == datetime(2025, 10, 3, tzinfo=UTC)


def test_a_buildkite_page_of_far_dated_builds_is_skips_not_a_failed_source(
    store, httpserver, monkeypatch
):
    """The first page's oldest creation time bounds Buildkite's windows: a far one must not
    overflow that arithmetic (one second past 9999-12-31T23:59:59) and fail the source."""
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "t")
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    build = {"id": "b-9", "number": 9, "state": "passed", "created_at": FAR, "jobs": []}
    build["finished_at"] = FAR
    httpserver.expect_request(path).respond_with_json(
        [build], headers={"Link": f'<{httpserver.url_for(path)}?page=2>; rel="next"'}
    )
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={"org": "vllm", "pipeline": "ci", "api_url": httpserver.url_for("")},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "ok", result.error
    assert result.items_skipped == 1 and stored(store, "bk") == {}


def event(**times) -> Event:
    when = times.pop("occurred_at", datetime(2025, 1, 1, tzinfo=UTC))
    return Event("s", "p", "release", "r1", when, "t", **times)


TINY = timedelta(microseconds=1)


@pytest.mark.parametrize("field", ["occurred_at", "ended_at", "updated_at"])
def test_the_range_is_start_inclusive_end_exclusive_in_every_timestamp(field):
    for inside in (EVENT_TIME_START, EVENT_TIME_END - TINY):
        assert getattr(clean_event(event(**{field: inside})), field) == inside
    for outside in (EVENT_TIME_START - TINY, EVENT_TIME_END, datetime(1, 1, 1, tzinfo=UTC)):
        with pytest.raises(InvalidEvent, match=f"^{field} .* outside the dates"):
            clean_event(event(**{field: outside}))


def test_the_range_is_1970_to_2200_in_utc():
    assert EVENT_TIME_START == datetime(1970, 1, 1, tzinfo=UTC)
    assert EVENT_TIME_END == datetime(2200, 1, 1, tzinfo=UTC)


def test_a_pending_run_created_at_a_far_date_is_no_longer_rechecked():
    """Pending runs are re-checked until concluded or older than pending_max_days; one created
    in 9999 is neither ever, so its refused events would be re-read every night."""
    spec = SourceSpec(id="bk", kind="buildkite", project="vllm", regime="cuda")
    ctx = CollectContext(spec=spec, now=datetime(2026, 5, 8, tzinfo=UTC))
    pending = {"9": {"created_at": FAR}, "10": {"created_at": "2026-05-07T00:00:00Z"}}
    ci.prune_pending(ctx, pending, "build")
    assert list(pending) == ["10"]
