"""Every cap says so (issue 49): a collector that stops at a bound (files per wheel index page,
pages of one issue's comments, entries of one file, a body) names the source and the bound once
on stderr and in `tracker status`, and the source is partial (exit code 3), not ok; a listing
that never ends cannot hold a source at the same place run after run; docker_tags says its
unread tags once per source, not once per page. Servers on 127.0.0.1 (pytest-httpserver)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from click.testing import CliRunner
from werkzeug import Request, Response

from tracker.cli.main import cli
from tracker.collect.runner import run_sources
from tracker.collect.sources import wheel_index
from tracker.config import Config, SourceSpec


def cfg(*specs: SourceSpec) -> Config:
    return Config(Path("sources.yaml"), (), specs)


def capped_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if "cut short by" in r.getMessage()]


def test_a_wheel_index_page_over_max_files_is_partial_and_says_so_once(
    sqlite_store, httpserver, caplog, monkeypatch
):
    monkeypatch.setattr(wheel_index, "MAX_FILES", 40)
    files = [
        {
            "filename": f"torch-2.{minor}.{patch}+rocm6.2-cp312-cp312-linux_x86_64.whl",
            "url": f"torch-2.{minor}.{patch}.whl",
            "upload-time": f"2024-{1 + minor % 12:02d}-{1 + patch:02d}T00:00:00Z",
        }
        for minor in range(10)
        for patch in range(6)
    ]  # 60 files, one build each
    httpserver.expect_request("/whl/torch/").respond_with_data(
        json.dumps({"meta": {"api-version": "1.1"}, "name": "torch", "files": files}),
        content_type="application/vnd.pypi.simple.v1+json",
    )
    spec = SourceSpec(
        id="wheels", kind="wheel_index", project="pytorch-rocm-wheels", regime="rocm",
        options={"url": httpserver.url_for("/whl/torch/"), "package": "torch"},
    )  # fmt: skip
    caplog.set_level(logging.WARNING)
    summary = run_sources(cfg(spec), sqlite_store)
    (result,) = summary.results
    assert result.status == "partial" and summary.exit_code == 3
    assert result.error == (
        "cut short by MAX_FILES: the index page lists 60 files: only the first 40 are read, "
        "the builds of the rest are not dated"
    )
    assert capped_lines(caplog) == [f"wheels: {result.error}"]
    assert result.events_new == 40  # what was read is saved
    state = sqlite_store.load_source("wheels")
    assert len(state.state["dated"]) == 40  # and the source moved on with it

    status = CliRunner().invoke(cli, ["--db", sqlite_store.url, "status"])
    assert status.exit_code == 0, status.output
    assert "partial" in status.output and "cut short by MAX_FILES" in status.output


def issue(number: int, comments: int) -> dict:
    return {
        "number": number,
        "title": f"issue {number}",
        "created_at": "2025-10-01T00:00:00Z",
        "updated_at": f"2025-10-0{number + 1}T00:00:00Z",
        "state": "open",
        "labels": [],
        "comments": comments,
        "user": {"login": "alice"},
        "body": None,
        "html_url": f"https://github.com/o/r/issues/{number}",
    }


def comment(ident: int, number: int) -> dict:
    return {
        "id": ident,
        "created_at": "2025-10-01T05:00:00Z",
        "user": {"login": "bob", "type": "User"},
        "author_association": "MEMBER",
        "issue_url": f"https://api.github.com/repos/o/r/issues/{number}",
        "html_url": f"https://github.com/o/r/issues/{number}#issuecomment-{ident}",
    }


def test_a_comment_listing_that_never_ends_holds_the_source_at_no_issue(
    sqlite_store, httpserver, caplog
):
    asked: list[str] = []

    def endless(request: Request) -> Response:  # issue 1's comments: a fresh page, forever
        page = int(request.args.get("page", "1"))
        asked.append(f"1:{page}")
        nxt = httpserver.url_for(f"/repos/o/r/issues/1/comments?per_page=3&page={page + 1}")
        return Response(
            json.dumps([comment(1000 + 3 * page + k, 1) for k in range(3)]),
            content_type="application/json",
            headers={"Link": f'<{nxt}>; rel="next"'},
        )

    def second(request: Request) -> Response:
        asked.append("2")
        return Response(json.dumps([comment(7, 2)]), content_type="application/json")

    httpserver.expect_request("/repos/o/r/issues").respond_with_json([issue(1, 9), issue(2, 1)])
    httpserver.expect_request("/repos/o/r/issues/1/comments").respond_with_handler(endless)
    httpserver.expect_request("/repos/o/r/issues/2/comments").respond_with_handler(second)
    spec = SourceSpec(
        id="r-issues", kind="github_issues", project="r", regime="rocm", max_pages=3,
        options={"repo": "o/r", "api_url": httpserver.url_for(""), "per_page": 3,
                 "comments": True},
    )  # fmt: skip
    caplog.set_level(logging.WARNING)
    summary = run_sources(cfg(spec), sqlite_store)
    (result,) = summary.results
    assert result.status == "partial" and summary.exit_code == 3
    assert "cut short by max_pages" in result.error and "page cap of 3 pages" in result.error
    assert len(capped_lines(caplog)) == 1
    assert asked == ["1:1", "1:2", "1:3", "2"]  # issue 2 is read after issue 1's cap
    state = sqlite_store.load_source("r-issues")
    assert state.cursor is not None and set(state.state["comments_read"]) == {"1", "2"}

    asked.clear()
    run_sources(cfg(spec), sqlite_store)  # the next run: nothing changed, issue 1 not re-read
    assert not [a for a in asked if a.startswith("1:")]


def test_docker_tags_say_unread_tags_once_for_the_whole_listing(sqlite_store, httpserver, caplog):
    path = "/v2/repositories/rocm/vllm/tags"
    pages = 3
    for page in range(1, pages + 1):
        nxt = httpserver.url_for(f"{path}?page={page + 1}") if page < pages else None
        httpserver.expect_request(path, query_string=f"page={page}").respond_with_json(
            {
                "results": [
                    {"name": f"rocm6.4.1_vllm_0.9.{page}_20250715",
                     "tag_last_pushed": "2025-07-15T20:00:00Z"},
                    {"name": f"instinct_main_{page}", "tag_last_pushed": "2025-07-15T20:00:00Z"},
                ],
                "next": nxt,
            }
        )  # fmt: skip
    spec = SourceSpec(
        id="vllm-rocm-docker", kind="docker_tags", project="vllm-rocm-docker", regime="rocm",
        options={"repository": "rocm/vllm", "url": httpserver.url_for(f"{path}?page=1")},
    )  # fmt: skip
    caplog.set_level(logging.WARNING)
    (result,) = run_sources(cfg(spec), sqlite_store).results
    assert result.status == "ok" and result.events_new == 3
    said = [r.getMessage() for r in caplog.records if "match no name pattern" in r.getMessage()]
    assert said == [
        "vllm-rocm-docker: 3 tag(s) match no name pattern, not read: instinct_main_1, "
        "instinct_main_2, instinct_main_3"
    ]
