"""Hostile payloads through the runner, real collectors against pytest-httpserver on 127.0.0.1
(and hostile cassettes under --replay): each ends in one logged line naming the URL or the
cassette, or in one skipped item, never in "unexpected error" or a traceback; what was stored
before stays, once.
"""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from tests.collect.test_hostile_sources import (
    JAX,
    cfg,
    one,
    release,
    releases_spec,
    stored,
)
from tracker.collect.runner import run_sources
from tracker.collect.sources import SKIP_LINES
from tracker.config import SourceSpec
from tracker.events import MAX_ATTRS_DEPTH
from tracker.store.tables import events

PATH = "/repos/jax-ml/jax/releases"


@pytest.fixture
def token(monkeypatch):
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "test-token")


def nested(levels: int) -> str:
    """A JSON array nested `levels` deep, as text (json.dumps itself would recurse)."""
    return "[" * levels + "]" * levels


def no_traceback(caplog) -> None:
    assert "unexpected error" not in caplog.text
    assert not any(record.exc_info for record in caplog.records)


def test_a_page_nested_100000_levels_fails_the_source_naming_its_url(store, httpserver, caplog):
    caplog.set_level(logging.WARNING)
    spec = releases_spec(httpserver.url_for(""))
    httpserver.expect_request(PATH).respond_with_json([release(*JAX[0])])
    assert one(run_sources(cfg(spec), store)).status == "ok"
    before = stored(store, "jax-releases")
    httpserver.clear_all_handlers()
    httpserver.expect_request(PATH).respond_with_data(
        nested(100_000), content_type="application/json"
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "failed"
    assert httpserver.url_for(PATH) in result.error and "nested too deeply" in result.error
    no_traceback(caplog)
    assert stored(store, "jax-releases") == before  # kept as it was, nothing added


def test_a_page_of_5000_empty_items_logs_a_few_lines_and_counts_them_all(store, httpserver, caplog):
    # 5,000 stand for the 2 million of the report (docs/operations.md has the timing of those):
    # what is proved is that skips of one kind stop being logged after SKIP_LINES.
    caplog.set_level(logging.WARNING)
    page = [release(*JAX[0])] + [{}] * 5_000 + [release(*JAX[1])]
    httpserver.expect_request(PATH).respond_with_json(page)
    result = one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    assert result.status == "ok" and result.items_skipped == 5_000
    skipped = [r.getMessage() for r in caplog.records if "skipped" in r.getMessage()]
    assert len(skipped) == SKIP_LINES + 1
    assert skipped[-1] == (
        f"jax-releases: ... and {5_000 - SKIP_LINES:,} more like it (skipped: tag is not a version)"
    )
    releases = {k for k in stored(store, "jax-releases") if k.startswith("release:")}
    assert releases == {"release:jax-v0.4.35", "release:jax-v0.4.34"}


def test_skips_of_other_kinds_are_each_logged(store, httpserver, caplog):
    # The summary is per kind: a different reason after many skips is still shown.
    caplog.set_level(logging.WARNING)
    draft = {**release(*JAX[2]), "published_at": None, "created_at": None}
    page = [{}] * 50 + [draft]
    httpserver.expect_request(PATH).respond_with_json(page)
    one(run_sources(cfg(releases_spec(httpserver.url_for(""))), store))
    messages = [r.getMessage() for r in caplog.records]
    assert any("jax-v0.4.33" in m and "skipped" in m for m in messages), messages
    assert any("and 45 more like it" in m for m in messages)


def buildkite_spec(api: str) -> SourceSpec:
    return SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={"org": "vllm", "pipeline": "ci", "api_url": api},
    )


def build(number: int, commit) -> dict:
    when = (datetime.now(UTC) - timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%SZ")
    return {
        "id": f"b-{number}",
        "number": number,
        "state": "passed",
        "created_at": when,
        "finished_at": when,
        "commit": commit,
        "jobs": [],
    }


@pytest.mark.parametrize("levels", [MAX_ATTRS_DEPTH + 1, 200])
def test_collected_attrs_nested_too_deep_skip_that_item_only(
    store, httpserver, caplog, token, levels
):
    # Buildkite's "commit" goes to attrs as it came: nested 200 levels, it used to end the whole
    # source in a RecursionError ("unexpected error").
    caplog.set_level(logging.WARNING)
    commit = json.loads(nested(levels - 1))  # attrs itself is level 1
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    httpserver.expect_request(path).respond_with_json([build(2, commit), build(1, "abc123")])
    result = one(run_sources(cfg(buildkite_spec(httpserver.url_for(""))), store))
    assert result.status == "ok" and result.items_skipped == 1
    assert f"attrs nest deeper than {MAX_ATTRS_DEPTH} levels" in caplog.text
    no_traceback(caplog)
    assert set(stored(store, "bk")) == {"build:1"}


def test_attrs_nested_to_the_limit_are_stored(store, httpserver, token):
    commit = json.loads(nested(MAX_ATTRS_DEPTH - 1))
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    httpserver.expect_request(path).respond_with_json([build(1, commit)])
    result = one(run_sources(cfg(buildkite_spec(httpserver.url_for(""))), store))
    assert result.status == "ok" and result.items_skipped == 0
    assert stored(store, "bk")["build:1"]["attrs"]["commit"] == commit


# -- cassettes under --replay ----------------------------------------------------------------

CASSETTES = {
    "truncated YAML": ('interactions:\n- request: {body: "abc\n', "not readable YAML (line 3"),
    "a number for interactions": ("interactions: 5\n", "not a vcrpy cassette (TypeError"),
    "a request without its fields": (
        "version: 1\ninteractions:\n- request: {}\n  response: {}\n",
        "not a vcrpy cassette (TypeError",
    ),
    "plain text": ("just text\n", "not a vcrpy cassette"),
    "empty": ("", "holds no recorded requests"),
    "not UTF-8": (b"\xff\xfe interactions\n", "not UTF-8 (byte 0 is b'\\xff')"),
}


@pytest.mark.parametrize("name", CASSETTES)
def test_a_broken_cassette_fails_its_source_naming_the_file(store, tmp_path, caplog, name):
    caplog.set_level(logging.WARNING)
    content, expected = CASSETTES[name]
    path = tmp_path / "jax-releases.yaml"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    result = one(run_sources(cfg(releases_spec("https://api.github.com")), store, replay=tmp_path))
    assert result.status == "failed"
    assert result.error.startswith(f"{path}: {expected}") and "re-record" in result.error
    no_traceback(caplog)
    with store.engine.connect() as conn:
        assert conn.execute(select(events)).all() == []
