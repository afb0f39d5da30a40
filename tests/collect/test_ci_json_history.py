"""ci_json_history: CI runs a dashboard commits as JSON, read version by version -> each distinct
run once with its last recorded conclusion, its jobs, and test counts where given (issue 54,
item 2).

The shipped cassettes (AMD's CI dashboard's data/<project>/test_results.json history, trimmed as
their headers say) are replayed through the real HTTP client; the replacement of a run's
conclusion and the hostile versions are checked on a small cassette written here.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import vcr
import yaml

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, ci_json_history
from tracker.config import SourceSpec
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[2]
DASHBOARD = "AndreasKaratzas/vllm-internal-project-dashboard"


def replay(source_id: str, state: dict | None = None):
    spec = load_config(REPO / "sources.yaml").source(source_id)
    ctx = CollectContext(spec, http=HttpClient(), state={} if state is None else state)
    cassette = str(REPO / "cassettes" / f"{source_id}.yaml")
    with vcr.use_cassette(cassette, record_mode="none", allow_playback_repeats=True):
        return list(ci_json_history.collect(ctx)), ctx


def last(events, kind: str) -> dict:
    """The last event of each external id (what the store keeps: a later one replaces it)."""
    return {e.external_id: e for e in events if e.kind == kind}


def test_pytorch_rocm_runs_once_each_with_their_test_counts():
    events, _ = replay("pytorch-ci-dashboard-rocm")
    runs = last(events, "ci_run")
    assert len(runs) == 142
    assert Counter(e.outcome for e in runs.values()) == {"passed": 101, "failed": 41}
    run = runs["run:24054428195"]  # the dashboard's last PyTorch rocm-mi300 run, 2026-04-07
    assert run.regime == "rocm" and run.attrs["trigger"] is None
    assert run.url == "https://github.com/pytorch/pytorch/actions/runs/24054428195"
    assert run.occurred_at.isoformat() == "2026-04-07T00:43:08+00:00"
    assert "latest completed run" in run.attrs["sample"]
    tests = last(events, "ci_tests")["tests:rocm-mi300:24054428195:rocm-mi300"]
    assert (tests.attrs["passed"], tests.attrs["failed"], tests.attrs["skipped"]) == (
        65098,
        7,
        15592,
    )
    assert not [e for e in events if e.kind == "ci_job"]  # its suites are test suites, no jobs


def test_jax_cuda_jobs_keep_their_names_and_conclusions_and_a_rerun_reads_nothing():
    state: dict = {}
    events, _ = replay("jax-ci-dashboard-cuda", state)
    assert len(last(events, "ci_run")) == 193
    jobs = last(events, "ci_job")
    assert jobs["job:24058525875:Bazel multiple H100 CUDA tests"].outcome == "failed"
    assert jobs["job:24058525875:Bazel single B200 CUDA tests"].outcome == "passed"
    assert {e.regime for e in jobs.values()} == {"cuda"}
    again, _ = replay("jax-ci-dashboard-cuda", state)
    assert again == []


def _cassette(path: Path, versions: list[tuple[str, str]]) -> None:
    """A listing of `versions` (sha, body) and each version's file."""
    file = "data/x/test_results.json"
    listing = [
        {"sha": sha, "commit": {"committer": {"date": f"2026-03-0{i + 1}T00:00:00Z"}}}
        for i, (sha, _) in enumerate(versions)
    ][::-1]
    q = f"path={file.replace('/', '%2F')}&per_page=100"

    def answer(uri: str, body: str, code: int = 200) -> dict:
        return {
            "request": {"body": None, "headers": {}, "method": "GET", "uri": uri},
            "response": {
                "status": {"code": code, "message": "OK" if code == 200 else "Not Found"},
                "headers": {"Content-Type": ["application/json"]},
                "body": {"string": body},
            },
        }

    interactions = [
        answer(f"https://api.github.com/repos/{DASHBOARD}/commits?{q}", json.dumps(listing))
    ]
    for sha, body in versions:
        url = f"https://raw.githubusercontent.com/{DASHBOARD}/{sha}/{file}"
        interactions.append(answer(url, body, 404 if body == "404" else 200))
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))


def test_a_run_keeps_its_last_recorded_conclusion_and_hostile_versions_are_skipped(tmp_path):
    def side(conclusion, run_id=7, jobs=()):
        return {
            "workflow_name": "CI",
            "run_id": run_id,
            "run_url": "javascript:alert(1)",
            "run_date": "2026-03-01T01:00:00Z",
            "conclusion": conclusion,
            "suites": [{"name": n, "conclusion": c} for n, c in jobs] + ["not a suite"],
        }

    shas = [f"{i:040x}" for i in range(1, 8)]
    _cassette(
        tmp_path / "x.yaml",
        [
            (shas[0], json.dumps({"rocm": side("failure", jobs=[("a", "failure")])})),
            (shas[1], json.dumps({"rocm": side("failure", jobs=[("a", "failure")])})),  # same
            (shas[2], json.dumps({"rocm": side("success", jobs=[("a", "success")])})),
            (shas[3], "not json"),
            (shas[4], json.dumps({"rocm": side("success", run_id="8")})),
            (shas[5], json.dumps({"rocm": {**side("success", run_id=9), "run_date": "soon"}})),
            (shas[6], "404"),
        ],
    )
    spec = SourceSpec(
        id="x",
        kind="ci_json_history",
        project="x",
        regime="rocm",
        options={"repo": DASHBOARD, "path": "data/x/test_results.json", "key": "rocm"},
    )
    ctx = CollectContext(spec, http=HttpClient(), state={})
    with vcr.use_cassette(str(tmp_path / "x.yaml"), record_mode="none"):
        events = list(ci_json_history.collect(ctx))
    runs, jobs = last(events, "ci_run"), last(events, "ci_job")
    assert list(runs) == ["run:7"] and runs["run:7"].outcome == "passed"
    assert runs["run:7"].url == ""  # not a github.com link: left out
    assert jobs["job:7:a"].outcome == "passed"
    # the repeated version yields nothing: run 7 twice (failure, then success), its job twice
    assert [e.kind for e in events] == ["ci_run", "ci_job", "ci_run", "ci_job"]
    assert ctx.skipped == 4  # not JSON, a run id that is text, no run date, gone (404)
