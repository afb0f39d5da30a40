"""wheel_index: a PEP 503 / PEP 691 project page -> one dated release per version and build.

The shipped cassettes (cassettes/pytorch-rocm-wheels.yaml, pytorch-rocm71-wheels.yaml) are
replayed end to end through the real HTTP client; the hostile pages are served on loopback.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, wheel_index
from tracker.config import SourceSpec

REPO = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 8, 22, tzinfo=UTC)


def _shipped(spec_id: str, state: dict | None = None) -> CollectContext:
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source(spec_id)
    return CollectContext(spec, http=HttpClient(), state=state or {}, now=NOW)


def _replay(ctx: CollectContext) -> list:
    cassette = REPO / "cassettes" / f"{ctx.spec.id}.yaml"
    with vcr.use_cassette(str(cassette), record_mode="none"):
        return list(wheel_index.collect(ctx))


def _spec(url: str, **options) -> SourceSpec:
    return SourceSpec(
        id="wheels",
        kind="wheel_index",
        project="pytorch-rocm-wheels",
        regime="rocm",
        options={"url": url, "package": "torch", **options},
    )


def test_pytorch_rocm_index_gives_one_release_per_build_dated_by_a_head_of_one_file():
    ctx = _shipped("pytorch-rocm71-wheels")
    events = _replay(ctx)
    by = {e.external_id: e for e in events}
    assert sorted(by) == [
        "build:2.10.0+rocm7.1",
        "build:2.11.0+rocm7.1",
        "build:2.12.0+rocm7.1",
        "build:2.12.1+rocm7.1",
        "build:2.13.0+rocm7.1",
    ]
    first = by["build:2.10.0+rocm7.1"]
    assert first.version == "2.10.0" and first.project == "pytorch-rocm-wheels"
    assert first.regime == "rocm" and first.kind == "release"
    assert first.attrs["rocm"] == "7.1" and first.attrs["date_source"] == "last-modified"
    assert first.occurred_at == datetime(2026, 1, 20, 20, 12, 51, tzinfo=UTC)
    assert first.url == (
        "https://download.pytorch.org/whl/rocm7.1/"
        "torch-2.10.0%2Brocm7.1-cp312-cp312-manylinux_2_28_x86_64.whl"
    )
    assert ctx.skipped == 0


def test_a_rerun_asks_nothing_for_dated_builds_and_emits_nothing_new():
    ctx = _shipped("pytorch-rocm-wheels")
    assert len(_replay(ctx)) == 4
    again = _shipped("pytorch-rocm-wheels", json.loads(json.dumps(ctx.state)))
    # the same page again (a server without validators): every build is dated, no HEAD is asked
    with vcr.use_cassette(
        str(REPO / "cassettes" / "pytorch-rocm-wheels.yaml"), record_mode="none"
    ) as cassette:
        assert list(wheel_index.collect(again)) == []
        assert cassette.play_count == 1  # the page; no HEAD


def test_pep691_json_dates_by_upload_time_without_any_head(httpserver):
    page = {
        "meta": {"api-version": "1.1"},
        "name": "torch",
        "files": [
            {"filename": "torch-2.13.0+rocm7.2-cp313-cp313-manylinux_2_28_x86_64.whl",
             "url": "../torch-2.13.0%2Brocm7.2-cp313.whl", "upload-time": "2026-07-08T15:00:00Z"},
            {"filename": "torch-2.13.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl",
             "url": "../torch-2.13.0%2Brocm7.2-cp312.whl", "upload-time": "2026-07-07T09:30:00Z"},
        ],
    }  # fmt: skip
    httpserver.expect_request("/simple/torch/").respond_with_data(
        json.dumps(page), content_type="application/vnd.pypi.simple.v1+json"
    )
    ctx = CollectContext(_spec(httpserver.url_for("/simple/torch/")), http=HttpClient(), now=NOW)
    events = list(wheel_index.collect(ctx))
    assert [(e.version, e.occurred_at, e.attrs["date_source"]) for e in events] == [
        ("2.13.0", datetime(2026, 7, 7, 9, 30, tzinfo=UTC), "upload-time")
    ]
    assert all(request.method == "GET" for request, _ in httpserver.log)


def test_hostile_names_are_skipped_one_line_each_and_the_page_goes_on(httpserver):
    page = """<html><body>
    <a href="../../etc/passwd">../../etc/passwd.whl</a>
    <a href="x">torch-2.13.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl/../../x.whl</a>
    <a href="y">torchvision-0.28.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>
    <a href="z">torch-not-a-version-cp312.whl</a>
    <a href="w">README.txt</a>
    <a href="t2">torch-2.13.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>
    <a href="far">torch-2.99.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>
    <a href="gone">torch-2.11.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>
    <a href="unclosed">torch-2.12.0
    </body>"""
    httpserver.expect_request("/idx/").respond_with_data(page, content_type="text/html")
    httpserver.expect_request("/idx/t2", method="HEAD").respond_with_data(
        "", headers={"Last-Modified": "Wed, 08 Jul 2026 15:43:03 GMT"}
    )
    httpserver.expect_request("/idx/far", method="HEAD").respond_with_data(
        "", headers={"Last-Modified": "Fri, 01 Jan 9999 00:00:00 GMT"}
    )
    httpserver.expect_request("/idx/gone", method="HEAD").respond_with_data("", status=404)
    ctx = CollectContext(_spec(httpserver.url_for("/idx/")), http=HttpClient(), now=NOW)
    events = list(wheel_index.collect(ctx))
    assert [e.external_id for e in events] == ["build:2.13.0+rocm7.2"]
    # 2 path-like, another distribution, not a version, not a wheel, a far date, a file gone
    # (HEAD 404); the unclosed link is no link at all
    assert ctx.skipped == 7
    assert any("HTTP 404" in w for w in ctx.warnings)
    assert all(w.startswith("wheels: skipped file ") for w in ctx.warnings)
    assert any("out of range" in w for w in ctx.warnings)
    assert all("Traceback" not in w for w in ctx.warnings)


def test_head_budget_bounds_a_backfill_and_the_next_run_dates_the_rest(httpserver):
    files = "".join(
        f'<a href="/f{n}">torch-2.{n}.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>'
        for n in range(10, 14)
    )
    httpserver.expect_request("/idx/").respond_with_data(files, content_type="text/html")
    for n in range(10, 14):
        httpserver.expect_request(f"/f{n}", method="HEAD").respond_with_data(
            "", headers={"Last-Modified": f"Mon, {n} Jan 2026 00:00:00 GMT"}
        )
    spec = _spec(httpserver.url_for("/idx/"), max_dates=3)
    ctx = CollectContext(spec, http=HttpClient(), now=NOW)
    assert len(list(wheel_index.collect(ctx))) == 3
    assert ctx.read_again  # the page must be read again: one build waits for a date
    heads = sum(1 for request, _ in httpserver.log if request.method == "HEAD")
    assert heads == 3
    again = CollectContext(spec, http=HttpClient(), state=ctx.state, now=NOW)
    assert [e.version for e in wheel_index.collect(again)] == ["2.13.0"]


def test_malformed_pages_never_raise_anything_but_a_source_error():
    spec = _spec("https://example.invalid/idx/")
    for content in (b"<a href=", b"\xff\xfe<<<>>>", b"<a>" * 50, b'{"files": 3}', b"{"):
        ctx = CollectContext(spec, state={}, now=NOW)
        try:
            assert list(wheel_index.parse(content, ctx)) == []
        except Exception as exc:  # the documented error: FatalHTTPError naming the source
            assert type(exc).__name__ == "FatalHTTPError" and "wheels" in str(exc)


def test_a_failing_server_ends_the_heads_of_this_run_not_the_source(httpserver):
    files = "".join(
        f'<a href="f{n}">torch-2.{n}.0+rocm7.2-cp312-cp312-manylinux_2_28_x86_64.whl</a>'
        for n in range(10, 13)
    )
    httpserver.expect_request("/idx/").respond_with_data(files, content_type="text/html")
    httpserver.expect_request("/idx/f10", method="HEAD").respond_with_data(
        "", headers={"Last-Modified": "Tue, 20 Jan 2026 20:12:51 GMT"}
    )
    httpserver.expect_request("/idx/f11", method="HEAD").respond_with_data("", status=503)
    ctx = CollectContext(_spec(httpserver.url_for("/idx/")), http=HttpClient(retries=0), now=NOW)
    assert [e.version for e in wheel_index.collect(ctx)] == ["2.10.0"]
    assert ctx.read_again and ctx.skipped == 1 and "next run" in ctx.warnings[0]
    heads = [r.path for r, _ in httpserver.log if r.method == "HEAD"]
    assert heads == ["/idx/f10", "/idx/f11"]  # none for 2.12.0 after the failure
