"""Property tests: every parser that reads upstream bytes or text survives any input.

Generated JSON listings (every collector's item shapes, values of every type, hostile dates and
numbers), arbitrary bytes, release notes, changelogs, compatibility matrices, feeds, model lists,
tag names, version strings and model / framework mentions. The property: no exception other than
the documented FatalHTTPError for a document whose top level is not the expected shape (that
fails the source with a message naming it), and each input parsed within hypothesis's deadline
of 1 s. Example counts are kept modest so the suite stays fast.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tracker.collect.sources import (
    CollectContext,
    atom_feed,
    buildkite,
    changelog_markdown,
    compat_matrix,
    docker_tags,
    github_issues,
    github_releases,
    github_tags,
    model_list,
    pypi,
    release_notes,
    wheel_index,
)
from tracker.collect.sources._actions_events import job_event, run_event
from tracker.config import SourceSpec
from tracker.errors import FatalHTTPError
from tracker.events import parse_time
from tracker.mentions.mentions import extract_mentions_at
from tracker.mentions.model_mentions import extract_model_mentions
from tracker.versions import normalize_version, parse_version, series

FAST = settings(
    max_examples=25, deadline=1000, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)

# Field names the collectors read, so that generated objects reach their code paths.
FIELDS = [
    "tag_name", "name", "published_at", "created_at", "updated_at", "closed_at", "body",
    "prerelease", "draft", "html_url", "number", "title", "labels", "user", "login", "state",
    "state_reason", "comments", "pull_request", "commit", "sha", "committer", "date", "results",
    "next", "tag_last_pushed", "last_updated", "info", "releases", "upload_time_iso_8601",
    "upload_time", "yanked", "yanked_reason", "jobs", "id", "type", "finished_at", "started_at",
    "agent_query_rules", "soft_failed", "retried", "retried_in_job_id", "exit_status", "web_url",
    "message", "branch", "run_attempt", "conclusion", "status", "run_started_at", "head_branch",
    "event", "workflow_id", "steps", "labels", "runner_name", "completed_at", "files",
    "filename", "url", "upload-time",
]  # fmt: skip
TIMES = st.sampled_from(
    [
        "2024-10-22T20:48:54Z",
        "2024-10-22T16:48:54-04:00",
        "0001-01-01T00:00:00+01:00",
        "9999-12-31T23:59:59-01:00",
        "2024-02-30T00:00:00Z",
        "yesterday",
        "",
    ]
)
VERSIONS = st.sampled_from(
    ["v0.10.1", "jax-v0.4.35", "rocm-6.3.0", "2.9.0+rocm6.4", "1" * 4301, "0.4.35rc1", "latest"]
)
scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40)
    | TIMES
    | VERSIONS
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), inner, max_size=8)
    ),
    max_leaves=30,
)
items = st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=12)


def ctx(kind: str, **options) -> CollectContext:
    spec = SourceSpec(id="prop", kind=kind, project="jax", regime="cuda", options=options)
    return CollectContext(spec=spec, now=datetime(2026, 1, 1, tzinfo=UTC))


def survives(parse, content: bytes, context: CollectContext) -> None:
    try:
        list(parse(content, context))
    except FatalHTTPError:
        pass  # the top level is not a listing of this kind: the documented source error


def encode(value) -> bytes:
    return json.dumps(value, allow_nan=False).encode()


def test_a_number_of_5000_digits_is_one_odd_value_not_a_failed_page():
    release = b'{"tag_name": "jax-v0.4.35", "published_at": "2024-10-22T20:48:54Z", "id": '
    content = b"[" + release + b"1" * 5000 + b"}]"
    (event,) = github_releases.parse(content, ctx("github_releases"))
    assert event.external_id == "release:jax-v0.4.35"


LISTING_KINDS = [
    (github_releases.parse, "github_releases", {}),
    (github_tags.parse, "github_tags", {"tag_pattern": "jax-v*"}),
    (github_issues.parse, "github_issues", {"include_pulls": True}),
    (buildkite.parse, "buildkite", {"pipeline": "ci"}),
]


@FAST
@given(st.lists(items | json_values, max_size=6))
def test_json_listings_of_every_listing_collector(listing):
    for parse, kind, options in LISTING_KINDS:
        survives(parse, encode(listing), ctx(kind, **options))


@FAST
@given(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6), st.lists(items))
def test_docker_hub_and_pypi_documents(document, results):
    survives(docker_tags.parse, encode({**document, "results": results}), ctx("docker_tags"))
    survives(docker_tags.parse, encode(document), ctx("docker_tags"))
    releases = {str(k): v for k, v in document.items()}
    survives(pypi.parse, encode({"info": document.get("info"), "releases": releases}), ctx("pypi"))
    survives(pypi.parse, encode(document), ctx("pypi"))


WHEELS = {"url": "https://download.pytorch.org/whl/rocm7.2/torch/", "package": "torch"}


@FAST
@given(st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=6), st.lists(items))
def test_pep691_wheel_index_documents(document, files):
    survives(wheel_index.parse, encode({**document, "files": files}), ctx("wheel_index", **WHEELS))
    survives(wheel_index.parse, encode(document), ctx("wheel_index", **WHEELS))


@FAST
@given(items, items, items)
def test_actions_runs_and_jobs(run, job, workflow):
    context = ctx("github_actions", repo="pytorch/pytorch")
    if run.get("id") and parse_time(run.get("created_at")):  # what collect checks first
        run_event(run, workflow, context)
    job_event(job, run, workflow, context, superseded=False)


@FAST
@given(st.binary(max_size=300))
def test_arbitrary_bytes_into_every_json_parser(content):
    for parse, kind, options in [
        *LISTING_KINDS,
        (docker_tags.parse, "docker_tags", {}),
        (pypi.parse, "pypi", {}),
        (wheel_index.parse, "wheel_index", WHEELS),
    ]:
        survives(parse, content, ctx(kind, **options))


markdownish = st.lists(
    st.sampled_from(
        ["# ", "## ", "### ", "- ", "* ", "1. ", "**", "`", "|", "---", "\n", "\n\n", "  ", ":"]
    )
    | st.sampled_from(["jax 0.4.35", "ROCm 6.3.0", "v2.9.0", "(Oct 22, 2024)", "2024-10-22"])
    | st.text(max_size=20),
    max_size=40,
).map("".join)
rstish = st.lists(
    st.sampled_from(
        ["\n", "\n\n", "=====\n", "-----\n", ".. ", "::", "* ", "   ", "`", ":ref:`x`", "|"]
    )
    | st.sampled_from(["Neuron 2.21.0 (12/20/2024)", "PyTorch 2.5", "Release notes", "Date:"])
    | st.text(max_size=20),
    max_size=40,
).map("".join)


@FAST
@given(markdownish, st.binary(max_size=40))
def test_changelogs_and_markdown_release_notes(text, noise):
    for content in (text.encode(), text.encode() + noise):
        survives(changelog_markdown.parse, content, ctx("changelog_markdown", url="x.md"))
        notes = ctx("release_notes", format="markdown", url="x.md", release_date="2024-10-22")
        survives(release_notes.parse, content, notes)
        survives(compat_matrix.parse, content, ctx("compat_matrix", format="csv", url="x.csv"))


@FAST
@given(rstish)
def test_rst_release_notes_and_matrices(text):
    content = text.encode()
    notes = ctx("release_notes", format="rst", url="x.rst", releases=True)
    survives(release_notes.parse, content, notes)
    survives(compat_matrix.parse, content, ctx("compat_matrix", format="rst", url="x.rst"))


FEED_PARTS = ["<feed", "<entry>", "<title>", "</title>", "<updated>", "</entry>", "</feed>"]
feedish = st.lists(
    st.sampled_from([*FEED_PARTS, "<link href='x'/>"]) | st.text(max_size=15) | TIMES | VERSIONS,
    max_size=30,
).map("".join)


@FAST
@given(feedish)
def test_atom_feeds(text):
    survives(atom_feed.parse, text.encode(), ctx("atom_feed", url="https://github.com/x.atom"))


@FAST
@given(markdownish, st.sampled_from(["x.csv", "x.md"]))
def test_model_lists(text, url):
    page = {"url": url, "version": "2.21.0", "date": "2024-12-20", "hardware": "trn1"}
    try:
        list(model_list.parse_page(text.encode(), page, ctx("model_list", pages=[page])))
    except FatalHTTPError:
        pass


@FAST
@given(st.text(max_size=300) | VERSIONS | st.from_regex(r"[a-z-]{0,10}v?\d{1,6}(\.\d{1,8}){0,6}"))
def test_tag_names_and_version_strings(name):
    parsed = parse_version(name)
    assert parsed is None or normalize_version(name) == parsed.version
    for granularity in ("major", "minor", "release"):
        series(name, granularity)
    context = ctx("github_tags", repo="jax-ml/jax")
    github_tags.tag_event(name, "2024-10-22T20:48:54Z", "81991d8", context)
    github_tags.tag_matcher("jax-v*")(name)
    document = {"results": [{"name": name, "tag_last_pushed": "2025-07-15T20:00:00Z"}]}
    list(docker_tags.tag_events(document, ctx("docker_tags", repository="rocm/vllm")))


@FAST
@given(st.text(max_size=400) | markdownish)
def test_model_and_framework_mentions(text):
    extract_model_mentions(text)
    anchors = [("zzfw_pytorch", i) for i in range(0, len(text), 37)]
    extract_mentions_at(text, anchors)
