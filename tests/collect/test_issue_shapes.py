"""Issues vs pull requests in both shapes of GitHub's issues listing (issue 20, item 4).

Today a plain issue has no ``pull_request`` key and a pull request has one whose ``html_url``
links it. Older API responses put ``"pull_request": {"html_url": null, "diff_url": null,
"patch_url": null}`` on every plain issue. Real facts: vLLM issue #36615 (opened 2026-03-10,
closed) and pull request #14671 "[ROCm][Bugfix] Fix ROCm build failure", which closed issue
#14669; times of day are illustrative.
"""

from __future__ import annotations

import json

import pytest

from tracker.collect.sources import CollectContext, github_issues
from tracker.config import SourceSpec

ISSUE = {
    "number": 36615,
    "title": "[Bug]: unknown error trying to run vllm v0.17.0 with ROCm on Radeon 8060S (gfx1151)",
    "body": None,
    "html_url": "https://github.com/vllm-project/vllm/issues/36615",
    "state": "closed",
    "created_at": "2026-03-10T12:00:00Z",
    "updated_at": "2026-03-12T12:00:00Z",
    "closed_at": "2026-03-12T12:00:00Z",
    "labels": [{"name": "rocm"}],
    "user": {"login": "someone"},
}
PULL = {
    "number": 14671,
    "title": "[ROCm][Bugfix] Fix ROCm build failure",
    "body": "FIX #14669",
    "html_url": "https://github.com/vllm-project/vllm/pull/14671",
    "state": "closed",
    "created_at": "2025-03-12T09:00:00Z",
    "updated_at": "2025-03-12T15:00:00Z",
    "closed_at": "2025-03-12T15:00:00Z",
    "labels": [{"name": "rocm"}],
    "user": {"login": "someone"},
    "pull_request": {
        "url": "https://api.github.com/repos/vllm-project/vllm/pulls/14671",
        "html_url": "https://github.com/vllm-project/vllm/pull/14671",
        "diff_url": "https://github.com/vllm-project/vllm/pull/14671.diff",
        "patch_url": "https://github.com/vllm-project/vllm/pull/14671.patch",
    },
}
OLD_SHAPE_LINKS = {"html_url": None, "diff_url": None, "patch_url": None}


def parse(items, **options):
    spec = SourceSpec(
        id="vllm-issues-rocm", kind="github_issues", project="vllm", regime="rocm", options=options
    )
    return list(github_issues.parse(json.dumps(items).encode(), CollectContext(spec=spec)))


@pytest.mark.parametrize(
    "issue",
    [ISSUE, {**ISSUE, "pull_request": OLD_SHAPE_LINKS}],
    ids=["current shape: no key", "older shape: null links"],
)
def test_a_plain_issue_is_an_issue_in_both_shapes(issue):
    got = parse([issue, PULL])
    assert [e.external_id for e in got] == ["issue:36615"]
    assert got[0].attrs["pull"] is False
    with_pulls = parse([issue, PULL], include_pulls=True)
    assert [(e.external_id, e.attrs["pull"]) for e in with_pulls] == [
        ("issue:36615", False),
        ("pull:14671", True),
    ]


def test_is_pull_request_reads_the_link_not_the_key():
    assert github_issues.is_pull_request(PULL)
    assert not github_issues.is_pull_request(ISSUE)
    assert not github_issues.is_pull_request({**ISSUE, "pull_request": OLD_SHAPE_LINKS})
    assert not github_issues.is_pull_request({**ISSUE, "pull_request": None})
