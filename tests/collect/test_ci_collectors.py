"""Issue and CI collectors driven through the real runner and a real SQLite store, against a
local HTTP server that answers like the GitHub / Buildkite REST APIs (pytest-httpserver), plus
the real vLLM Buildkite builds of 2026-05-08 from the corpus and replay of the shipped cassettes.
"""

from __future__ import annotations

import json
import logging
import re
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from urllib.parse import urlencode

import pytest
from sqlalchemy import select
from werkzeug import Response

from tracker.collect import ci
from tracker.collect.runner import run_sources
from tracker.collect.sources import CollectContext, buildkite, github_actions
from tracker.config import Config, SourceSpec
from tracker.jobs.config import load_config
from tracker.store.tables import events

REPO = Path(__file__).resolve().parents[2]
UTC = UTC


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(ci, "_warned", set())
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "dummy-test-token")


def cfg(*specs: SourceSpec) -> Config:
    return Config(Path("sources.yaml"), (), specs)


def rows(store, source_id: str) -> dict[str, dict]:
    with store.engine.connect() as conn:
        result = conn.execute(select(events).where(events.c.source_id == source_id))
        return {row.external_id: dict(row._mapping) for row in result}


def one(summary):
    assert len(summary.results) == 1
    return summary.results[0]


# -- GitHub issues ---------------------------------------------------------------------------


def issue(number, updated, *, labels=("module: rocm",), body="text", pull=False, closed=None):
    item = {
        "number": number,
        "title": f"Issue {number}",
        "body": body,
        "html_url": f"https://github.com/o/r/issues/{number}",
        "state": "closed" if closed else "open",
        "created_at": "2025-01-01T00:00:00Z",
        "updated_at": updated,
        "closed_at": closed,
        "comments": 1,
        "user": {"login": "someone"},
        "labels": [{"name": n} for n in labels],
    }
    if pull:
        item["pull_request"] = {"url": "..."}
    return item


def test_issues_keyset_pages_null_body_pulls_and_conditional_last_page(store, httpserver):
    # per_page 2: a full page continues from its last updated_at (since=, inclusive: the boundary
    # issue comes again and is dropped); the short last page alone keeps its validators.
    path = "/repos/o/r/issues"
    pages = {
        "2025-01-01T00:00:00Z": (
            [
                issue(1, "2025-03-01T00:00:00Z", body=None),
                issue(2, "2025-03-02T00:00:00Z", pull=True),
            ],
            '"p1"',
        ),
        "2025-03-02T00:00:00Z": (
            [
                issue(2, "2025-03-02T00:00:00Z", pull=True),
                issue(3, "2025-03-03T00:00:00Z", closed="2025-03-04T00:00:00Z"),
            ],
            '"p2"',
        ),
        "2025-03-03T00:00:00Z": (
            [issue(3, "2025-03-03T00:00:00Z", closed="2025-03-04T00:00:00Z")],
            '"p3"',
        ),
    }

    def answer(request):
        body, etag = pages[request.args["since"]]
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        return Response(json.dumps(body), content_type="application/json", headers={"ETag": etag})

    httpserver.expect_request(path).respond_with_handler(answer)
    spec = SourceSpec(
        id="pt-issues",
        kind="github_issues",
        project="pytorch",
        regime="rocm",
        options={
            "repo": "o/r",
            "api_url": httpserver.url_for(""),
            "labels": ["module: rocm"],
            "per_page": 2,
        },
    )
    first = one(run_sources(cfg(spec), store, since=datetime(2025, 1, 1, tzinfo=UTC)))
    assert (first.status, first.events_new, first.requests) == ("ok", 2, 3)
    stored = rows(store, "pt-issues")
    assert set(stored) == {"issue:1", "issue:3"}  # the pull request is not an issue
    assert stored["issue:1"]["body"] == "" and stored["issue:1"]["regime"] == "rocm"
    assert stored["issue:3"]["state"] == "closed" and stored["issue:3"]["labels"] == [
        "module: rocm"
    ]
    request = httpserver.log[0][0]
    assert request.args["labels"] == "module: rocm" and request.args["sort"] == "updated"
    assert request.args["direction"] == "asc" and request.args["since"] == "2025-01-01T00:00:00Z"
    assert [r.args["since"] for r, _ in httpserver.log] == list(pages)

    # Full pages are read whole again (a 304 there could hide what the listing adds at its end).
    second = one(run_sources(cfg(spec), store, since=datetime(2025, 1, 1, tzinfo=UTC)))
    assert (second.status, second.events_new, second.requests, second.not_modified) == (
        "ok",
        0,
        3,
        1,
    )
    assert len(rows(store, "pt-issues")) == 2


def test_an_issue_updated_during_the_listing_hides_no_other(store, httpserver):
    # A review found that page numbers lost an issue: #1 updated after page 1 was served moves to
    # the end, #3 slides onto page 1 and page 2 starts at #4. Keyset pages miss nothing.
    path = "/repos/o/r/issues"
    times = {n: f"2025-03-0{n}T00:00:00Z" for n in range(1, 6)}
    served = []

    def answer(request):
        since = ci.parse_time(request.args.get("since"))
        listing = sorted(
            (t, n) for n, t in times.items() if since is None or ci.parse_time(t) >= since
        )
        page = int(request.args.get("page", 1))
        body = [issue(n, t) for t, n in listing[(page - 1) * 2 : page * 2]]
        served.append([b["number"] for b in body])
        if len(served) == 1:
            times[1] = "2025-03-09T00:00:00Z"  # updated upstream while we read
        return Response(json.dumps(body), content_type="application/json")

    httpserver.expect_request(path).respond_with_handler(answer)
    spec = SourceSpec(
        id="ks",
        kind="github_issues",
        project="vllm",
        options={"repo": "o/r", "api_url": httpserver.url_for(""), "per_page": 2},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "ok"
    assert set(rows(store, "ks")) == {f"issue:{n}" for n in range(1, 6)}
    assert served[:2] == [[1, 2], [2, 3]]  # the second page starts at page 1's last update


def labelled_issues(httpserver, listings: dict) -> SourceSpec:
    """A local issues API answering each label's listing, and the source reading rocm and tpu."""
    httpserver.expect_request("/repos/o/r/issues").respond_with_handler(
        lambda request: Response(
            json.dumps(listings[request.args["labels"]]), content_type="application/json"
        )
    )
    return SourceSpec(
        id="v",
        kind="github_issues",
        project="vllm",
        options={"repo": "o/r", "api_url": httpserver.url_for(""), "labels": ["rocm", "tpu"]},
    )


def test_issues_any_of_several_labels_is_one_listing_per_label_merged_in_order(httpserver):
    listings = {
        "rocm": [
            issue(1, "2025-03-01T00:00:00Z", labels=["rocm"]),
            issue(5, "2025-03-05T00:00:00Z", labels=["rocm", "tpu"]),
        ],
        "tpu": [
            issue(2, "2025-03-02T00:00:00Z", labels=["tpu"]),
            issue(5, "2025-03-05T00:00:00Z", labels=["rocm", "tpu"]),
        ],
    }
    from tracker.collect.http import HttpClient
    from tracker.collect.sources import github_issues

    spec = labelled_issues(httpserver, listings)
    got = list(github_issues.collect(CollectContext(spec=spec, http=HttpClient())))
    assert sorted(r[0].args["labels"] for r in httpserver.log) == ["rocm", "tpu"]
    assert [e.external_id for e in got] == ["issue:1", "issue:2", "issue:5"]  # ascending, once
    assert all(e.regime is None for e in got)  # no source regime: the tagger decides


def test_issues_page_that_is_not_a_list_fails_the_source_not_one_label(store, httpserver):
    # With labels merged, skipping the broken "tpu" listing would let rocm's later items move the
    # cursor past tpu's unread ones for good: the source fails, nothing saved, cursor kept.
    listings = {
        "rocm": [
            issue(1, "2025-03-01T00:00:00Z", labels=["rocm"]),
            issue(9, "2025-03-09T00:00:00Z", labels=["rocm"]),
        ],
        "tpu": {"message": "Server Error"},
    }
    spec = labelled_issues(httpserver, listings)
    result = one(run_sources(cfg(spec), store, since=datetime(2025, 1, 1, tzinfo=UTC)))
    assert result.status == "failed" and "not a list of issues" in result.error
    assert rows(store, "v") == {} and store.status()[0]["cursor"] is None


def test_issues_label_renamed_upstream_is_a_logged_skip(httpserver):
    # GitHub answers an unknown label with an empty list; the label lookup says 404.
    listings = {"rocm": [issue(1, "2025-03-01T00:00:00Z", labels=["rocm"])], "tpu": []}
    spec = labelled_issues(httpserver, listings)
    httpserver.expect_request("/repos/o/r/labels/tpu").respond_with_data("Not Found", status=404)
    from tracker.collect.http import HttpClient
    from tracker.collect.sources import github_issues

    ctx = CollectContext(spec=spec, http=HttpClient())
    got = list(github_issues.collect(ctx))
    assert [e.external_id for e in got] == ["issue:1"]  # the other label's issues still come
    assert ctx.skipped == 1
    assert "label 'tpu'" in ctx.warnings[0] and "renamed upstream" in ctx.warnings[0]
    # a label that exists but has no issues is not a skip
    httpserver.clear()
    listings["tpu"] = []
    labelled_issues(httpserver, listings)
    httpserver.expect_request("/repos/o/r/labels/tpu").respond_with_json({"name": "tpu"})
    ctx = CollectContext(spec=spec, http=HttpClient())
    assert [e.external_id for e in github_issues.collect(ctx)] == ["issue:1"]
    assert ctx.skipped == 0


def test_issues_rate_limit_keeps_what_came_before_and_cursor_stops_there(store, httpserver):
    path = "/repos/o/r/issues"

    def answer(request):  # the first page is full (per_page 1); the next request is refused
        if "since" in request.args:
            return Response("secondary rate limit", status=403, headers={"Retry-After": "3600"})
        return Response(
            json.dumps([issue(1, "2025-03-01T00:00:00Z")]), content_type="application/json"
        )

    httpserver.expect_request(path).respond_with_handler(answer)
    spec = SourceSpec(
        id="rl",
        kind="github_issues",
        project="pytorch",
        options={"repo": "o/r", "api_url": httpserver.url_for(""), "per_page": 1},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "partial" and "rate limited" in result.error
    assert result.events_new == 1
    status = {s["source_id"]: s for s in store.status()}["rl"]
    assert status["cursor"] == datetime(2025, 3, 1, tzinfo=UTC)


def test_secondary_rate_limit_with_short_retry_after_is_retried_cleanly(store, httpserver):
    path = "/repos/o/r/issues"
    answers = iter(
        [
            Response("slow down", status=403, headers={"Retry-After": "1"}),
            Response(
                json.dumps([issue(7, "2025-03-07T00:00:00Z")]),
                status=200,
                content_type="application/json",
            ),
        ]
    )
    httpserver.expect_request(path).respond_with_handler(lambda request: next(answers))
    spec = SourceSpec(
        id="rl2",
        kind="github_issues",
        project="pytorch",
        options={"repo": "o/r", "api_url": httpserver.url_for("")},
    )
    result = one(run_sources(cfg(spec), store))
    assert (result.status, result.events_new) == ("ok", 1)
    assert len(httpserver.log) == 2  # the 403 and its retry


# -- GitHub Actions ----------------------------------------------------------------------------


class FakeActions:
    """Answers the workflow-runs, run and jobs endpoints like GitHub, from in-memory data.

    Filtered run listings (created= or branch=) return at most `cap` runs, like GitHub's 1,000.
    """

    def __init__(self, httpserver, cap: int):
        self.runs: dict[str, list[dict]] = {}
        self.jobs: dict[int, list[dict]] = {}
        self.cap = cap
        self.missing: set[str] = set()
        self.windows: list[str] = []
        httpserver.expect_request(
            "/repos/o/r/actions/workflows/rocm.yml/runs"
        ).respond_with_handler(self.listing)
        httpserver.expect_request(
            "/repos/o/r/actions/workflows/gone.yml/runs"
        ).respond_with_handler(self.listing)
        httpserver.expect_request(
            re.compile(r"^/repos/o/r/actions/runs/\d+$")
        ).respond_with_handler(self.run)
        httpserver.expect_request(
            re.compile(r"^/repos/o/r/actions/runs/\d+/jobs$")
        ).respond_with_handler(self.job_list)

    def listing(self, request):
        workflow = request.path.split("/")[-2]
        if workflow in self.missing:
            return Response('{"message": "Not Found"}', status=404, content_type="application/json")
        found = sorted(self.runs.get(workflow, []), key=lambda r: r["created_at"], reverse=True)
        created = request.args.get("created")
        if created:
            self.windows.append(created)
            if created.startswith(">="):
                lo, hi = created[2:], "9999"
            else:
                lo, hi = created.split("..")
            found = [r for r in found if lo <= r["created_at"] <= hi]
        total = len(found)
        if created or request.args.get("branch"):
            found = found[: self.cap]
        return Response(
            json.dumps({"total_count": total, "workflow_runs": found}),
            content_type="application/json",
        )

    def find(self, run_id):
        return next((r for runs in self.runs.values() for r in runs if r["id"] == run_id), None)

    def run(self, request):
        run = self.find(int(request.path.split("/")[-1]))
        if run is None:
            return Response("{}", status=404, content_type="application/json")
        return Response(json.dumps(run), content_type="application/json")

    def job_list(self, request):
        jobs = self.jobs.get(int(request.path.split("/")[-2]), [])
        if request.args.get("filter") == "latest":
            newest = {}
            for job in jobs:  # the latest execution of each job name
                if (
                    job["name"] not in newest
                    or job["run_attempt"] > newest[job["name"]]["run_attempt"]
                ):
                    newest[job["name"]] = job
            jobs = list(newest.values())
        return Response(
            json.dumps({"total_count": len(jobs), "jobs": jobs}), content_type="application/json"
        )


def gh_run(run_id, created, *, status="completed", conclusion="success", attempt=1, updated=None):
    return {
        "id": run_id,
        "name": "rocm",
        "run_number": run_id,
        "run_attempt": attempt,
        "display_title": f"commit {run_id}",
        "head_branch": "main",
        "event": "push",
        "status": status,
        "conclusion": conclusion if status == "completed" else None,
        "created_at": created,
        "run_started_at": created,
        "updated_at": updated or created.replace("T00", "T02"),
        "html_url": f"https://github.com/o/r/actions/runs/{run_id}",
        "head_sha": "abc",
    }


def gh_job(job_id, run_id, name, conclusion="success", attempt=1, labels=("linux.rocm.gpu.2",)):
    return {
        "id": job_id,
        "run_id": run_id,
        "run_attempt": attempt,
        "name": name,
        "status": "completed",
        "conclusion": conclusion,
        "labels": list(labels),
        "runner_name": "r",
        "started_at": "2025-03-01T00:10:00Z",
        "completed_at": "2025-03-01T01:00:00Z",
        "html_url": f"https://github.com/o/r/actions/runs/{run_id}/job/{job_id}",
    }


def actions_spec(httpserver, **options):
    return SourceSpec(
        id="gha",
        kind="github_actions",
        project="pytorch",
        regime="rocm",
        lookback_days=1,
        options={
            "repo": "o/r",
            "api_url": httpserver.url_for(""),
            "workflows": [{"file": "rocm.yml", "regime": "rocm"}],
            "pending_max_days": 9999,
            **options,
        },
    )


def test_actions_window_split_over_the_listing_cap(store, httpserver, monkeypatch):
    monkeypatch.setattr(github_actions, "LISTING_CAP", 3)
    fake = FakeActions(httpserver, cap=3)
    fake.runs["rocm.yml"] = [gh_run(i, f"2025-03-{i:02d}T00:00:00Z") for i in range(1, 8)]
    for i in range(1, 8):
        fake.jobs[i] = [gh_job(100 + i, i, "linux-rocm / test (default, 1, 1)")]
    result = one(
        run_sources(cfg(actions_spec(httpserver)), store, since=datetime(2025, 3, 1, tzinfo=UTC))
    )
    assert result.status == "ok"
    stored = rows(store, "gha")
    assert sorted(k for k in stored if k.startswith("run:")) == [f"run:{i}" for i in range(1, 8)]
    assert len([k for k in stored if k.startswith("job:")]) == 7
    # The open window (7 runs > cap 3) was split, and every window read is under the cap.
    assert fake.windows[0] == ">=2025-03-01T00:00:00Z" and len(fake.windows) > 3
    assert all(".." in w for w in fake.windows[1:])


def test_actions_in_progress_run_is_rechecked_by_id_and_updated_not_duplicated(store, httpserver):
    fake = FakeActions(httpserver, cap=1000)
    fake.runs["rocm.yml"] = [gh_run(11, "2025-03-01T00:00:00Z", status="in_progress")]
    fake.jobs[11] = [gh_job(111, 11, "linux-rocm / test (default, 1, 1)")]
    spec = actions_spec(httpserver)
    first = one(run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC)))
    assert first.status == "ok"
    stored = rows(store, "gha")
    assert list(stored) == ["run:11"] and stored["run:11"]["outcome"] is None
    assert stored["run:11"]["state"] == "in_progress"
    assert store.load_source("gha").state["pending"] == {
        "11": {"workflow": "rocm.yml", "created_at": "2025-03-01T00:00:00Z"}
    }

    # Upstream: the run concluded. The next listing window no longer covers its creation.
    fake.runs["rocm.yml"] = [
        gh_run(11, "2025-03-01T00:00:00Z", conclusion="failure", updated="2025-03-01T05:00:00Z")
    ]
    fake.jobs[11] = [gh_job(111, 11, "linux-rocm / test (default, 1, 1)", "failure")]
    second = one(run_sources(cfg(spec), store, since=datetime(2025, 3, 2, tzinfo=UTC)))
    assert second.status == "ok"
    assert any(r[0].path == "/repos/o/r/actions/runs/11" for r in httpserver.log)
    stored = rows(store, "gha")
    assert sorted(stored) == ["job:11:111", "run:11"]
    assert stored["run:11"]["outcome"] == "failed" and stored["run:11"]["state"] == "failure"
    assert stored["job:11:111"]["outcome"] == "failed"
    assert store.load_source("gha").state["pending"] == {}


def test_actions_rerun_attempt_replaces_the_earlier_attempt(store, httpserver):
    fake = FakeActions(httpserver, cap=1000)
    fake.runs["rocm.yml"] = [gh_run(21, "2025-03-01T00:00:00Z", conclusion="failure")]
    fake.jobs[21] = [
        gh_job(201, 21, "test (default, 1, 2)", "failure"),
        gh_job(202, 21, "test (default, 2, 2)", "success"),
    ]
    spec = actions_spec(httpserver)
    run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC))
    assert rows(store, "gha")["job:21:201"]["outcome"] == "failed"

    # "Re-run failed jobs": attempt 2 re-runs shard 1 (new job id 203), shard 2 is carried over.
    fake.runs["rocm.yml"] = [
        gh_run(21, "2025-03-01T00:00:00Z", attempt=2, updated="2025-03-01T09:00:00Z")
    ]
    fake.jobs[21].append(gh_job(203, 21, "test (default, 1, 2)", "success", attempt=2))
    result = one(run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC)))
    assert result.status == "ok" and result.events_new == 1  # only job 203 is new
    stored = rows(store, "gha")
    assert stored["run:21"]["outcome"] == "passed" and stored["run:21"]["attrs"]["run_attempt"] == 2
    assert stored["job:21:201"]["outcome"] is None and stored["job:21:201"]["attrs"]["superseded"]
    assert stored["job:21:202"]["outcome"] == "passed"
    assert stored["job:21:203"]["outcome"] == "passed"
    filters = [r[0].args.get("filter") for r in httpserver.log if r[0].path.endswith("/jobs")]
    assert filters == ["latest", "latest", "all"]


def test_actions_job_regimes_404_workflow_unknown_state_and_nothing_new(store, httpserver, caplog):
    caplog.set_level(logging.WARNING)
    fake = FakeActions(httpserver, cap=1000)
    fake.missing.add("gone.yml")
    fake.runs["rocm.yml"] = [
        gh_run(31, "2025-03-01T00:00:00Z"),
        gh_run(32, "2025-03-02T00:00:00Z", conclusion="exploded"),
        gh_run(33, "2025-03-03T00:00:00Z", conclusion="exploded"),
    ]
    fake.jobs[31] = [
        gh_job(
            301,
            31,
            "linux-jammy-cuda12.8-py3.10-gcc11 / test (default, 1, 5, "
            "lf.linux.g5.4xlarge.nvidia.gpu)",
            labels=["lf.linux.g5.4xlarge.nvidia.gpu"],
        ),
        gh_job(302, 31, "linux-jammy-rocm-py3.10 / test (default, 1, 2, linux.rocm.gpu.2)"),
        gh_job(
            303,
            31,
            "macos-py3-arm64 / test (default, 1, 3, macos-m1-stable)",
            "failure",
            labels=["macos-m1-stable"],
        ),
    ]
    spec = SourceSpec(
        id="gha",
        kind="github_actions",
        project="pytorch",
        regime="cuda",
        options={
            "repo": "o/r",
            "api_url": httpserver.url_for(""),
            "workflows": [
                {"file": "gone.yml", "regime": "cuda"},
                {"file": "rocm.yml", "regime": "cuda"},
            ],
            "job_regimes": [
                {"match": "*rocm*", "regime": "rocm"},
                {"match": "*cuda*", "regime": "cuda"},
                {"match": "*", "regime": "none"},
            ],
        },
    )
    since = datetime(2025, 3, 1, tzinfo=UTC)
    first = one(run_sources(cfg(spec), store, since=since))
    assert first.status == "ok" and first.items_skipped == 1
    assert any("gha: skipped workflow gone.yml: HTTP 404" in r.getMessage() for r in caplog.records)
    stored = rows(store, "gha")
    assert {k: (v["regime"], v["outcome"]) for k, v in stored.items() if k.startswith("job:")} == {
        "job:31:301": ("cuda", "passed"),
        "job:31:302": ("rocm", "passed"),
        "job:31:303": ("none", "failed"),
    }
    assert stored["run:31"]["regime"] == "cuda"  # the run keeps the workflow's regime
    assert stored["run:32"]["outcome"] is None and stored["run:32"]["state"] == "exploded"
    assert len([r for r in caplog.records if "unknown CI state 'exploded'" in r.getMessage()]) == 1

    # Nothing new upstream: the GitHub listing answers 304 to the conditional request.
    httpserver.clear_log()
    before = len(rows(store, "gha"))
    second = one(run_sources(cfg(spec), store, since=since))
    assert second.events_new == 0 and len(rows(store, "gha")) == before
    # No job lists are fetched again: concluded runs are remembered in the source state.
    assert not [r for r in httpserver.log if r[0].path.endswith("/jobs")]


def test_actions_second_run_costs_one_conditional_request_per_workflow(store, httpserver):
    path = "/repos/o/r/actions/workflows/rocm.yml/runs"
    httpserver.expect_request(path, headers={"If-None-Match": '"w1"'}).respond_with_data(
        "", status=304
    )
    httpserver.expect_request(path).respond_with_json(
        {"total_count": 1, "workflow_runs": [gh_run(41, "2025-03-01T00:00:00Z")]},
        headers={"ETag": '"w1"'},
    )
    httpserver.expect_request("/repos/o/r/actions/runs/41/jobs").respond_with_json(
        {"total_count": 1, "jobs": [gh_job(401, 41, "test")]}
    )
    spec = actions_spec(httpserver)
    since = datetime(2025, 3, 1, tzinfo=UTC)
    assert one(run_sources(cfg(spec), store, since=since)).events_new == 2
    second = one(run_sources(cfg(spec), store, since=since))
    assert (second.events_new, second.requests, second.not_modified) == (0, 1, 1)


class FlakyActions(FakeActions):
    """FakeActions where a path in `broken` answers what its function returns instead."""

    def __init__(self, httpserver, cap: int):
        super().__init__(httpserver, cap)
        self.broken: dict = {}

    def run(self, request):
        answer = self.broken.get(request.path)
        return answer() if answer else super().run(request)

    def job_list(self, request):
        answer = self.broken.get(request.path)
        return answer() if answer else super().job_list(request)


def test_actions_failing_recheck_is_a_skip_and_the_pending_limit_still_applies(
    store, httpserver, caplog
):
    """A run whose re-check keeps failing never blocks its source: each failure is a skip naming
    the run, which stays pending until pending_max_days drops it before any re-check; a rate
    limit still stops the source."""
    caplog.set_level(logging.WARNING)
    fake = FlakyActions(httpserver, cap=1000)
    fake.runs["rocm.yml"] = [gh_run(11, "2025-03-01T00:00:00Z", status="in_progress")]
    spec = actions_spec(httpserver)
    assert one(run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC))).status == "ok"
    entry = {"11": {"workflow": "rocm.yml", "created_at": "2025-03-01T00:00:00Z"}}
    assert store.load_source("gha").state["pending"] == entry

    # Its re-check answers a truncated body; a new run is listed all the same.
    fake.runs["rocm.yml"].append(gh_run(12, "2025-03-06T00:00:00Z"))
    fake.jobs[12] = [gh_job(112, 12, "test")]
    fake.broken["/repos/o/r/actions/runs/11"] = lambda: Response(
        '{"id": 11, "status": "compl', content_type="application/json"
    )
    since = datetime(2025, 3, 5, tzinfo=UTC)
    second = one(run_sources(cfg(spec), store, since=since))
    assert (second.status, second.items_skipped) == ("ok", 1), second.error
    assert sorted(rows(store, "gha")) == ["job:12:112", "run:11", "run:12"]
    assert store.load_source("gha").state["pending"] == entry
    assert any(
        r.getMessage().startswith("gha: skipped run 11: re-check failed, still pending")
        and "truncated or malformed JSON" in r.getMessage()
        for r in caplog.records
    )

    # The run concluded, but its jobs cannot be read: nothing of it is stored half-way.
    fake.runs["rocm.yml"][0] = gh_run(11, "2025-03-01T00:00:00Z", conclusion="failure")
    fake.jobs[11] = [gh_job(111, 11, "test", "failure")]
    fake.broken = {"/repos/o/r/actions/runs/11/jobs": lambda: Response("gone", status=410)}
    third = one(run_sources(cfg(spec), store, since=since))
    assert (third.status, third.items_skipped) == ("ok", 1), third.error
    assert rows(store, "gha")["run:11"]["state"] == "in_progress"
    assert store.load_source("gha").state["pending"] == entry

    # A spent rate limit still stops the source.
    fake.broken = {"/repos/o/r/actions/runs/11": rate_limited}
    limited = one(run_sources(cfg(spec), store, since=since))
    assert limited.status == "partial" and "rate limited" in limited.error
    assert store.load_source("gha").state["pending"] == entry

    # Pending for longer than pending_max_days: dropped before it is re-checked.
    httpserver.clear_log()
    expired = one(
        run_sources(cfg(actions_spec(httpserver, pending_max_days=30)), store, since=since)
    )
    assert (expired.status, expired.items_skipped) == ("ok", 0), expired.error
    assert not [r for r in httpserver.log if r[0].path.startswith("/repos/o/r/actions/runs/11")]
    assert store.load_source("gha").state["pending"] == {}
    assert any(
        "gha: run 11 still not concluded after 30 days" in r.getMessage() for r in caplog.records
    )


def test_actions_listed_item_that_is_not_an_object_is_a_skip(store, httpserver):
    httpserver.expect_request("/repos/o/r/actions/workflows/rocm.yml/runs").respond_with_json(
        {"total_count": 3, "workflow_runs": [gh_run(51, "2025-03-01T00:00:00Z"), None, "x"]}
    )
    httpserver.expect_request("/repos/o/r/actions/workflows/odd.yml/runs").respond_with_json([])
    httpserver.expect_request("/repos/o/r/actions/runs/51/jobs").respond_with_json(
        {"total_count": 2, "jobs": [gh_job(501, 51, "test"), None]}
    )
    spec = actions_spec(httpserver, workflows=[{"file": "rocm.yml"}, {"file": "odd.yml"}])
    result = one(run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC)))
    # the null and the string run, the null job, the listing that is a list, not an object
    assert (result.status, result.items_skipped) == ("ok", 4), result.error
    assert sorted(rows(store, "gha")) == ["job:51:501", "run:51"]


# -- Buildkite ---------------------------------------------------------------------------------


def bk_job(
    job_id, state, queue, *, soft=False, retried=False, retried_in=None, kind="script", name=None
):
    return {
        "id": job_id,
        "type": kind,
        "name": name or f"job {job_id}",
        "state": state,
        "soft_failed": soft,
        "retried": retried,
        "retried_in_job_id": retried_in,
        "agent_query_rules": [f"queue={queue}"] if queue else [],
        "created_at": "2026-05-08T06:01:00Z",
        "started_at": "2026-05-08T06:02:00Z",
        "finished_at": "2026-05-08T06:30:00Z",
        "web_url": f"https://buildkite.com/vllm/ci/builds/1#{job_id}",
    }


def bk_build(number, state, jobs, created="2026-05-08T06:00:00Z"):
    return {
        "id": f"b{number}",
        "number": number,
        "state": state,
        "branch": "main",
        "message": "Full CI run - nightly",
        "commit": "1acd67a",
        "source": "schedule",
        "created_at": created,
        "started_at": created,
        "finished_at": None if state == "running" else "2026-05-08T10:00:00Z",
        "web_url": f"https://buildkite.com/vllm/ci/builds/{number}",
        "jobs": jobs,
    }


def test_buildkite_pages_retries_soft_fails_queues_empty_and_running_builds(
    store, httpserver, monkeypatch, caplog
):
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    jobs = [
        bk_job("a", "failed", "gpu_1_queue", retried=True, retried_in="b"),
        bk_job("b", "passed", "gpu_1_queue"),
        bk_job("c", "failed", "amd_mi300_1", soft=True),
        bk_job("d", "passed", "intel-cpu"),
        bk_job("w", "passed", None, kind="waiter"),
        bk_job("e", "running", "gpu_4_queue"),
    ]
    state = {"build3": bk_build(3, "running", jobs[-1:], created="2026-05-08T07:00:00Z")}
    httpserver.expect_request(path, query_string={"page": "2"}).respond_with_handler(
        lambda r: Response(
            json.dumps([bk_build(1, "failed", jobs[:5]), bk_build(2, "passed", [])]),
            content_type="application/json",
        )
    )
    state["listing"] = [state["build3"]]
    httpserver.expect_request(path).respond_with_handler(
        lambda r: Response(
            json.dumps(state["listing"]),
            content_type="application/json",
            headers={"Link": f'<{httpserver.url_for(path)}?page=2>; rel="next"'}
            if state["listing"]
            else {},
        )
    )
    httpserver.expect_request(f"{path}/3").respond_with_handler(
        lambda r: Response(json.dumps(state["build3"]), content_type="application/json")
    )
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={
            "org": "vllm",
            "pipeline": "ci",
            "api_url": httpserver.url_for(""),
            "pending_max_days": 9999,
            "job_regimes": [
                {"match": "amd*", "regime": "rocm"},
                {"match": "*cpu*", "regime": "none"},
            ],
        },
    )
    since = datetime(2026, 5, 8, tzinfo=UTC)
    first = one(run_sources(cfg(spec), store, since=since))
    assert first.status == "ok"
    assert httpserver.log[0][0].args["include_retried_jobs"] == "true"
    assert httpserver.log[0][0].args["created_from"] == "2026-05-08T00:00:00Z"
    stored = rows(store, "bk")
    assert {k: (v["regime"], v["outcome"]) for k, v in stored.items()} == {
        "build:1": ("cuda", "failed"),
        "build:2": ("none", "passed"),  # no command job: a run of no regime
        "build:3": ("cuda", None),
        "job:1:a": ("cuda", None),  # superseded by its retry
        "job:1:b": ("cuda", "passed"),  # the retry counts
        "job:1:c": ("rocm", "failed"),  # soft-failed is failed; AMD queue -> rocm
        "job:1:d": ("none", "passed"),  # CPU queue
        "job:3:e": ("cuda", None),
    }  # still running; the waiter is not a job
    assert stored["job:1:a"]["attrs"]["superseded"] and stored["job:1:c"]["attrs"]["soft_failed"]
    assert stored["build:2"]["attrs"]["jobs"] == 0
    # the trigger in Buildkite's word, on the build and each of its jobs
    assert {v["attrs"]["trigger"] for v in stored.values()} == {"schedule"}
    assert any("build #2 (passed) has no command jobs" in r.getMessage() for r in caplog.records)
    assert store.load_source("bk").state["pending"] == {"3": {"created_at": "2026-05-08T07:00:00Z"}}

    # Build 3 finishes; it is re-read by number (the next listing no longer includes it).
    state["build3"] = bk_build(
        3, "passed", [dict(jobs[-1], state="passed")], created="2026-05-08T07:00:00Z"
    )
    state["listing"] = []
    second = one(run_sources(cfg(spec), store, since=since))
    assert second.status == "ok" and second.events_new == 0
    stored = rows(store, "bk")
    assert (stored["build:3"]["outcome"], stored["job:3:e"]["outcome"]) == ("passed", "passed")
    assert store.load_source("bk").state["pending"] == {}


def test_buildkite_without_token_is_skipped_with_a_clear_message(store, monkeypatch):
    monkeypatch.delenv("TRACKER_BUILDKITE_TOKEN", raising=False)
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={"org": "vllm", "pipeline": "ci"},
    )
    result = one(run_sources(cfg(spec), store))
    assert result.status == "skipped" and "TRACKER_BUILDKITE_TOKEN" in result.error
    assert result.requests == 0


def test_buildkite_failing_recheck_is_a_skip_and_the_pending_limit_still_applies(
    store, httpserver, monkeypatch, caplog
):
    """A build whose re-check keeps failing never blocks its pipeline: each failure is a skip
    naming the build, which stays pending until pending_max_days drops it before any re-check;
    a rate limit still stops the source."""
    caplog.set_level(logging.WARNING)
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    fake = FakeBuildkite(httpserver, path)
    answer = [lambda: Response('{"number": 3, "state": "pass', content_type="application/json")]
    httpserver.expect_request(f"{path}/3").respond_with_handler(lambda request: answer[0]())
    now = datetime.now(UTC)
    created = ci.iso(now - timedelta(days=3))
    fake.builds = [bk_build(3, "running", [bk_job("e", "running", "gpu_1_queue")], created=created)]

    def spec(max_days):
        return SourceSpec(
            id="bk",
            kind="buildkite",
            project="vllm",
            regime="cuda",
            options={
                "org": "vllm",
                "pipeline": "ci",
                "pending_max_days": max_days,
                "api_url": httpserver.url_for(""),
            },
        )

    first = one(run_sources(cfg(spec(9999)), store, since=now - timedelta(days=4)))
    assert first.status == "ok", first.error
    entry = {"3": {"created_at": created}}
    assert store.load_source("bk").state["pending"] == entry

    # Build 3, now older than the listing's lower bound, is re-read first: a truncated body.
    fake.builds.append(
        bk_build(
            4,
            "passed",
            [bk_job("f", "passed", "gpu_1_queue")],
            created=ci.iso(now - timedelta(hours=2)),
        )
    )
    since = now - timedelta(days=1)
    second = one(run_sources(cfg(spec(9999)), store, since=since))
    assert (second.status, second.items_skipped) == ("ok", 1), second.error
    assert {"build:4", "job:4:f"} <= set(rows(store, "bk"))  # the listing still ran
    assert store.load_source("bk").state["pending"] == entry
    assert any(
        r.getMessage().startswith("bk: skipped build #3: re-check failed, still pending")
        and "truncated or malformed JSON" in r.getMessage()
        for r in caplog.records
    )

    # A spent rate limit still stops the source.
    answer[0] = rate_limited
    limited = one(run_sources(cfg(spec(9999)), store, since=since))
    assert limited.status == "partial" and "rate limited" in limited.error
    assert store.load_source("bk").state["pending"] == entry

    # Running for longer than pending_max_days: dropped before it is re-read.
    httpserver.clear_log()
    expired = one(run_sources(cfg(spec(2)), store, since=since))
    assert (expired.status, expired.items_skipped) == ("ok", 0), expired.error
    assert not [r for r in httpserver.log if r[0].path == f"{path}/3"]
    assert store.load_source("bk").state["pending"] == {}
    assert any(
        "bk: build 3 still not concluded after 2 days" in r.getMessage() for r in caplog.records
    )


def test_buildkite_build_or_job_that_is_not_an_object_is_a_skip(store, httpserver, monkeypatch):
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    path = "/v2/organizations/vllm/pipelines/ci/builds"
    now = datetime.now(UTC)
    created = ci.iso(now - timedelta(hours=3))
    listing = [
        [
            bk_build(5, "passed", [bk_job("a", "passed", "gpu_1_queue"), None]),
            None,
            bk_build("abc", "running", [], created=created),  # not a build number
            bk_build(6, "running", [], created=created),
        ]
    ]
    httpserver.expect_request(path).respond_with_handler(
        lambda request: Response(json.dumps(listing[0]), content_type="application/json")
    )
    httpserver.expect_request(f"{path}/6").respond_with_json([])  # a list, not a build
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        options={
            "org": "vllm",
            "pipeline": "ci",
            "pending_max_days": 9999,
            "api_url": httpserver.url_for(""),
        },
    )
    first = one(run_sources(cfg(spec), store, since=now - timedelta(days=1)))
    # the null build, the null job, build "abc"
    assert (first.status, first.items_skipped) == ("ok", 3), first.error
    assert sorted(rows(store, "bk")) == ["build:5", "build:6", "job:5:a"]
    assert store.load_source("bk").state["pending"] == {"6": {"created_at": created}}

    listing[0] = []  # build 6 is re-read by number: the answer is not a build
    second = one(run_sources(cfg(spec), store, since=now - timedelta(hours=1)))
    assert (second.status, second.items_skipped) == ("ok", 1), second.error
    assert store.load_source("bk").state["pending"] == {"6": {"created_at": created}}

    # A saved document is read the same way.
    ctx = CollectContext(spec=spec)
    got = buildkite.parse(json.dumps([bk_build(7, "passed", []), None]).encode(), ctx)
    assert [e.external_id for e in got] == ["build:7"] and ctx.skipped == 1


# -- the real vLLM nightly builds of 2026-05-08 (corpus) ----------------------------------------


def corpus_events(corpus, file_name, source_id):
    spec = load_config(REPO / "sources.yaml").source(source_id)
    path = corpus / "vllm-ci" / "vllm-ci-dashboard@2d34517" / "buildkite_cache" / file_name
    return list(buildkite.parse(path.read_bytes(), CollectContext(spec=spec)))


def counts(found):
    return Counter((e.kind, e.regime, e.outcome) for e in found)


def test_both_vllm_pipelines_share_one_queue_map_with_amd_cpu_hosts_as_none():
    """Issue 20, item 3: the same queue map in `ci` and `amd-ci`; AMD's CPU hosts (queue names
    of the 2026-05-08 nightly builds: amd-cpu) are no GPU regime in either."""
    config = load_config(REPO / "sources.yaml")
    ci_map, amd_map = (config.source(s).options["job_regimes"] for s in ("vllm-ci", "vllm-amd-ci"))
    assert ci_map == amd_map
    for spec_id in ("vllm-ci", "vllm-amd-ci"):
        spec = config.source(spec_id)
        rules = spec.options["job_regimes"]
        assert ci.job_regime("amd-cpu", rules, spec.regime) == "none"
        assert ci.job_regime("amd_mi300_1", rules, spec.regime) == "rocm"


def test_real_amd_nightly_passed_while_81_of_200_jobs_failed(corpus):
    found = corpus_events(corpus, "builds_amd.json", "vllm-amd-ci")
    run = [e for e in found if e.kind == "ci_run"]
    assert len(run) == 1 and run[0].external_id == "build:8323"
    assert (run[0].state, run[0].outcome) == ("passed", "passed")
    jobs = [e for e in found if e.kind == "ci_job"]
    assert len(jobs) == 200
    # 76 failed + 5 timed out, every one soft_failed: the build still passed.
    assert Counter(e.state for e in jobs) == {"passed": 119, "failed": 76, "timed_out": 5}
    assert all(e.attrs["soft_failed"] for e in jobs if e.state != "passed")
    # the bootstrap and the docker image build ran on the amd-cpu queue: no GPU, regime none
    assert counts(jobs) == {
        ("ci_job", "rocm", "passed"): 117,
        ("ci_job", "rocm", "failed"): 81,
        ("ci_job", "none", "passed"): 2,
    }
    assert {e.attrs["trigger"] for e in found} == {"schedule"}
    assert round(119 / 200, 3) == 0.595  # job-level ~60% vs run-level 100%


def test_real_cuda_nightly_failed_with_16_of_213_counted_jobs_failing(corpus):
    found = corpus_events(corpus, "builds_upstream.json", "vllm-ci")
    run = [e for e in found if e.kind == "ci_run"][0]
    assert (run.external_id, run.state, run.outcome) == ("build:65099", "failed", "failed")
    jobs = [e for e in found if e.kind == "ci_job"]
    assert len(jobs) == 235
    superseded = [e for e in jobs if e.attrs["superseded"]]
    assert len(superseded) == 22 and all(e.outcome is None for e in superseded)
    counted = [e for e in jobs if e.outcome is not None]
    assert len(counted) == 213
    assert Counter(e.outcome for e in counted) == {"passed": 197, "failed": 16}
    assert len([e for e in counted if e.outcome == "failed" and e.attrs["soft_failed"]]) == 7
    assert round(197 / 213, 3) == 0.925  # job-level ~92% vs run-level 0%
    # Per queue (sources.yaml job_regimes): AMD GPU queues are rocm; Intel / Ascend / CPU (the
    # AMD CPU host's docker build included) are none.
    assert counts(counted) == {
        ("ci_job", "cuda", "passed"): 166,
        ("ci_job", "cuda", "failed"): 13,
        ("ci_job", "rocm", "passed"): 8,
        ("ci_job", "rocm", "failed"): 1,
        ("ci_job", "none", "passed"): 23,
        ("ci_job", "none", "failed"): 2,
    }
    queues = Counter(e.attrs["queue"] for e in counted if e.regime == "rocm")
    assert queues == {"amd_mi300_1": 8, "amd_mi250_1": 1}


# -- replay of the shipped cassettes ------------------------------------------------------------

MY_SOURCES = [
    "pytorch-issues-rocm",
    "vllm-issues-rocm",
    "vllm-issues-tpu",
    "vllm-issues-neuron",
    "jax-issues-rocm",
    "jax-issues",
    "torch-xla-issues",
    "neuron-sdk-issues",
    "rocm-issues",
    "vllm-ci",
    "vllm-amd-ci",
]


@pytest.mark.parametrize("source_id", MY_SOURCES)
def test_cassette_replays_and_says_it_is_hand_written(source_id, sqlite_store, monkeypatch):
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    cassette = REPO / "cassettes" / f"{source_id}.yaml"
    assert cassette.read_text().startswith("# Hand-written")
    config = load_config(REPO / "sources.yaml")
    result = one(run_sources(config, sqlite_store, only=[source_id], replay=REPO / "cassettes"))
    assert result.status == "ok", result.error
    assert result.events_new > 0


# GitHub Actions sources with no public record of their runs (issue 54): the shipped cassettes
# list no run, so no figure rests on one; the run shapes live in tests/collect/cassettes/ci-shapes.
NO_RECORD_SOURCES = [
    "pytorch-ci-rocm",
    "pytorch-ci-trunk",
    "jax-ci",
    "torch-xla-ci-tpu",
    "sglang-ci-amd",
    "sglang-ci",
]


@pytest.mark.parametrize("source_id", NO_RECORD_SOURCES)
def test_cassette_without_a_public_record_replays_empty(source_id, sqlite_store):
    cassette = REPO / "cassettes" / f"{source_id}.yaml"
    assert cassette.read_text().startswith("# Hand-written")
    assert "no public CI record" in cassette.read_text()
    config = load_config(REPO / "sources.yaml")
    result = one(run_sources(config, sqlite_store, only=[source_id], replay=REPO / "cassettes"))
    assert result.status == "ok", result.error
    assert result.events_new == 0


# -- rate limit in the middle of a backfill: keep what came before, resume from there ---------


def rate_limited() -> Response:
    """GitHub's primary rate limit spent, resetting in an hour (far past what we wait)."""
    return Response(
        '{"message": "API rate limit exceeded"}',
        status=403,
        content_type="application/json",
        headers={
            "X-RateLimit-Remaining": "0",
            "X-RateLimit-Limit": "5000",
            "X-RateLimit-Reset": str(int(time.time()) + 3600),
        },
    )


def cursor_of(store, source_id):
    return {s["source_id"]: s for s in store.status()}[source_id]["cursor"]


class LimitedActions(FakeActions):
    """FakeActions whose jobs endpoint answers a spent rate limit for the runs in `limited`."""

    def __init__(self, httpserver, cap):
        super().__init__(httpserver, cap)
        self.limited: set[int] = set()
        httpserver.expect_request(
            "/repos/o/r/actions/workflows/cuda.yml/runs"
        ).respond_with_handler(self.listing)

    def job_list(self, request):
        if int(request.path.split("/")[-2]) in self.limited:
            return rate_limited()
        return super().job_list(request)


def test_actions_rate_limit_mid_backfill_keeps_older_runs_and_resumes(
    store, httpserver, monkeypatch
):
    monkeypatch.setattr(github_actions, "LISTING_CAP", 3)
    fake = LimitedActions(httpserver, cap=3)
    # Two workflows whose runs interleave in time: odd days rocm.yml, even days cuda.yml.
    fake.runs["rocm.yml"] = [gh_run(i, f"2025-03-{i:02d}T00:00:00Z") for i in (1, 3, 5, 7)]
    fake.runs["cuda.yml"] = [gh_run(i, f"2025-03-{i:02d}T00:00:00Z") for i in (2, 4, 6, 8)]
    for i in range(1, 9):
        fake.jobs[i] = [gh_job(100 + i, i, "linux-rocm / test (default, 1, 1)")]
    fake.limited = {5}  # the budget runs out when run 5 (the fifth oldest) asks for its jobs
    spec = actions_spec(
        httpserver,
        workflows=[{"file": "rocm.yml", "regime": "rocm"}, {"file": "cuda.yml", "regime": "cuda"}],
    )
    first = one(run_sources(cfg(spec), store, since=datetime(2025, 3, 1, tzinfo=UTC)))
    assert first.status == "partial" and "rate limited" in first.error
    stored = rows(store, "gha")
    # Exactly the four oldest runs of both workflows, merged by creation time, with their jobs.
    assert sorted(stored) == sorted(
        [f"run:{i}" for i in range(1, 5)] + [f"job:{i}:{100 + i}" for i in range(1, 5)]
    )
    assert first.events_new == 8
    assert cursor_of(store, "gha") == datetime(2025, 3, 4, tzinfo=UTC)  # run 4's creation
    # Both workflows' listings were over the cap and read in split windows.
    assert len(fake.windows) > 4 and any(".." in w for w in fake.windows)

    # The next night: the budget is back; the runner starts at the cursor minus 1 look-back day.
    fake.limited = set()
    httpserver.clear_log()
    second = one(run_sources(cfg(spec), store))
    assert second.status == "ok", second.error
    listings = [r[0].args["created"] for r in httpserver.log if r[0].path.endswith("/runs")]
    assert listings[:2] == [">=2025-03-03T00:00:00Z"] * 2  # one open window per workflow first
    # Runs 3 and 4 were saved and are unchanged: their jobs are not fetched again.
    jobs_fetched = sorted(
        int(r[0].path.split("/")[-2]) for r in httpserver.log if r[0].path.endswith("/jobs")
    )
    assert jobs_fetched == [5, 6, 7, 8]
    assert second.events_new == 8
    stored = rows(store, "gha")
    assert len(stored) == 16
    assert sorted(k for k in stored if k.startswith("run:")) == [f"run:{i}" for i in range(1, 9)]
    assert {stored[f"run:{i}"]["regime"] for i in (2, 4, 6, 8)} == {"cuda"}
    assert cursor_of(store, "gha") == datetime(2025, 3, 8, tzinfo=UTC)


def test_actions_events_carry_their_run_creation_as_cursor_time_in_ascending_order(httpserver):
    """Every event's cursor time is its run's creation: a long run's late jobs never move the
    cursor past a run created after it, and the stream is ascending."""
    from tracker.collect.http import HttpClient

    fake = FakeActions(httpserver, cap=1000)
    fake.runs["rocm.yml"] = [
        gh_run(i, f"2025-03-{i:02d}T00:00:00Z", updated=f"2025-03-{i + 5:02d}T00:00:00Z")
        for i in (3, 1, 2)
    ]
    for i in (1, 2, 3):
        fake.jobs[i] = [gh_job(100 + i, i, "test")]  # completed 03-01T01:00 for all
    ctx = CollectContext(
        spec=actions_spec(httpserver), http=HttpClient(), since=datetime(2025, 3, 1, tzinfo=UTC)
    )
    got = list(github_actions.collect(ctx))
    assert [e.external_id for e in got] == [
        "run:1",
        "job:1:101",
        "run:2",
        "job:2:102",
        "run:3",
        "job:3:103",
    ]
    times = [e.cursor_time for e in got]
    assert times == sorted(times)
    assert times[-1] == datetime(2025, 3, 3, tzinfo=UTC)
    run3 = got[4]
    assert run3.ended_at == datetime(2025, 3, 8, tzinfo=UTC)  # when it concluded is kept
    assert run3.attrs["updated_at"] == "2025-03-08T00:00:00Z"


class FakeBuildkite:
    """Answers a pipeline's builds listing like Buildkite: newest first, created_from (on or
    after) / created_to (before) filters, per_page + page with a Link rel="next" header."""

    def __init__(self, httpserver, path):
        self.builds: list[dict] = []
        self.limit_from: str | None = None  # a spent rate limit for this created_from
        self.path = path
        self.url = httpserver.url_for(path)
        httpserver.expect_request(path).respond_with_handler(self.listing)

    def listing(self, request):
        args = request.args
        if self.limit_from and args.get("created_from") == self.limit_from:
            return rate_limited()
        found = sorted(self.builds, key=lambda b: b["created_at"], reverse=True)
        if args.get("created_from"):
            lo = ci.parse_time(args["created_from"])
            found = [b for b in found if ci.parse_time(b["created_at"]) >= lo]
        if args.get("created_to"):
            hi = ci.parse_time(args["created_to"])
            found = [b for b in found if ci.parse_time(b["created_at"]) < hi]
        per_page, page = int(args.get("per_page", 30)), int(args.get("page", 1))
        chunk = found[(page - 1) * per_page : page * per_page]
        headers = {}
        if page * per_page < len(found):
            following = dict(args.items(), page=str(page + 1))
            headers["Link"] = f'<{self.url}?{urlencode(following)}>; rel="next"'
        return Response(json.dumps(chunk), content_type="application/json", headers=headers)


def test_buildkite_rate_limit_mid_backfill_keeps_older_builds_and_resumes(
    store, httpserver, monkeypatch
):
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    # Windows of exactly two days, whatever the time of day the test runs at.
    monkeypatch.setattr(buildkite, "MIN_WINDOW", timedelta(days=2))
    monkeypatch.setattr(buildkite, "MAX_WINDOW", timedelta(days=2))
    fake = FakeBuildkite(httpserver, "/v2/organizations/vllm/pipelines/ci/builds")
    t0 = (datetime.now(UTC) - timedelta(days=10)).replace(hour=0, minute=0, second=0, microsecond=0)

    def created(number):  # nightly at 06:00:07.564 (milliseconds, like Buildkite's)
        return t0 + timedelta(days=number, hours=6, seconds=7, milliseconds=564)

    for n in range(1, 9):
        when = created(n).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        fake.builds.append(
            bk_build(
                n,
                "failed",
                [
                    bk_job(f"{n}a", "passed", "gpu_1_queue"),
                    bk_job(f"{n}b", "failed", "amd_mi300_1"),
                ],
                created=when,
            )
        )
    fake.limit_from = ci.iso(t0 + timedelta(days=4))  # the third window of the backfill
    spec = SourceSpec(
        id="bk",
        kind="buildkite",
        project="vllm",
        regime="cuda",
        lookback_days=1,
        options={
            "org": "vllm",
            "pipeline": "ci",
            "api_url": httpserver.url_for(""),
            "per_page": 2,
            "pending_max_days": 9999,
            "job_regimes": [{"match": "amd*", "regime": "rocm"}],
        },
    )
    first = one(run_sources(cfg(spec), store, since=t0))
    assert first.status == "partial" and "rate limited" in first.error
    windows = [
        (r[0].args.get("created_from"), r[0].args.get("created_to"))
        for r in httpserver.log
        if "page" not in r[0].args
    ]
    assert windows == [
        (ci.iso(t0), None),  # the conditional first page: builds 8 and 7
        (ci.iso(t0), ci.iso(t0 + timedelta(days=2))),
        (ci.iso(t0 + timedelta(days=2)), ci.iso(t0 + timedelta(days=4))),
        (ci.iso(t0 + timedelta(days=4)), ci.iso(t0 + timedelta(days=6))),
    ]
    stored = rows(store, "bk")
    assert sorted(k for k in stored if k.startswith("build:")) == ["build:1", "build:2", "build:3"]
    assert first.events_new == len(stored) == 9  # three builds with two jobs each
    assert stored["job:3:3b"]["regime"] == "rocm"
    assert cursor_of(store, "bk") == created(3)

    fake.limit_from = None
    httpserver.clear_log()
    second = one(run_sources(cfg(spec), store))
    assert second.status == "ok", second.error
    assert httpserver.log[0][0].args["created_from"] == ci.iso(created(3) - timedelta(days=1))
    assert second.events_new == 15  # builds 4 to 8 with their jobs; build 3 is re-read, not new
    stored = rows(store, "bk")
    assert len(stored) == 24
    assert sorted(int(k.split(":")[1]) for k in stored if k.startswith("build:")) == list(
        range(1, 9)
    )
    assert cursor_of(store, "bk") == created(8)


def test_jax_artifact_builds_on_cpu_runners_are_no_gpu_regime():
    """JAX's wheel_tests_continuous.yml builds its CUDA and ROCm wheels on CPU runners
    (linux-x86-n4-16, amd-do-linux.jax.cpu): those jobs are not CUDA or ROCm jobs. Job names
    and runner labels as the real workflow file spells them; the test jobs keep their regime."""
    spec = load_config(REPO / "sources.yaml").source("jax-ci")
    (entry,) = [w for w in spec.options["workflows"] if w["file"] == "wheel_tests_continuous.yml"]
    rules = entry["job_regimes"]
    for name, labels in (
        (
            "Build CUDA artifacts / build-artifacts (linux-x86-n4-16, jax-cuda-plugin)",
            ["linux-x86-n4-16"],
        ),
        ("Build ROCm artifacts (TheRock 7.14.0) / build", ["amd-do-linux.jax.cpu"]),
        ("Build jaxlib artifacts", ["linux-x86-n4-16"]),
    ):
        assert ci.job_regime([name, *labels], rules, "cuda") == "none", name
    assert ci.job_regime(["Pytest CUDA (JAX artifacts version = head)"], rules, "cuda") == "cuda"
    assert ci.job_regime(["Pytest ROCm (TheRock 7.14.0)"], rules, "cuda") == "rocm"
    assert ci.job_regime(["Pytest TPU (JAX artifacts version = head)"], rules, "cuda") == "xla"
