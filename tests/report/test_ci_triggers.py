"""Nightly (scheduled) and per-merge CI builds are kept apart: the headline counts what the
source's ``trigger`` selector names, the rest is shown per trigger and labelled (issue 20,
item 1); unread docker tags reach the report's data-quality section (item 2).

Real shapes: vLLM's ``amd-ci`` nightly build 8323 (``"source": "schedule"``, ``AMD Full CI Run
- nightly``, created 2026-05-08T06:00:03Z, commit 1acd67a7) from the corpus. The per-merge build
is hand-written in the real shape of a Buildkite build started by a push to main (``"source":
"webhook"``, the merge commit's title as message); its number, commit and jobs are illustrative.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.configs import typed_config
from tracker.collect.runner import run_sources
from tracker.collect.sources import CollectContext, buildkite
from tracker.config import Config, Regime, SourceSpec
from tracker.errors import ConfigError
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.measure.ci.rates import ci_rate_rows

REPO = Path(__file__).resolve().parents[2]
SHAPES = REPO / "tests" / "collect" / "cassettes" / "ci-shapes"  # illustrative run shapes
REGIMES = (Regime("cuda", reference=True), Regime("rocm"), Regime("none"))
QUEUES = [{"match": "amd-cpu*", "regime": "none"}, {"match": "amd*", "regime": "rocm"}]


def amd_ci(**extra) -> SourceSpec:
    return SourceSpec(
        id="vllm-amd-ci",
        kind="buildkite",
        project="vllm",
        regime="rocm",
        options={"org": "vllm", "pipeline": "amd-ci", "job_regimes": QUEUES, **extra},
    )


def job(uuid: str, queue: str, state: str) -> dict:
    return {
        "id": uuid,
        "type": "script",
        "name": f"job {uuid}",
        "state": state,
        "agent_query_rules": [f"queue={queue}"],
        "created_at": "2026-05-07T14:00:00Z",
        "finished_at": "2026-05-07T15:00:00Z",
    }


def merge_build(number: int, jobs: list[dict]) -> dict:
    return {
        "id": f"merge-{number}",
        "number": number,
        "state": "failed" if any(j["state"] == "failed" for j in jobs) else "passed",
        "branch": "main",
        "message": "[ROCm] a merged change",
        "source": "webhook",
        "commit": "0" * 40,
        "created_at": "2026-05-07T14:00:00Z",
        "finished_at": "2026-05-07T15:00:00Z",
        "jobs": jobs,
    }


def collect(store, spec, corpus=None):
    events = []
    ctx = CollectContext(spec=spec)
    if corpus is not None:
        folder = corpus / "vllm-ci" / "vllm-ci-dashboard@2d34517" / "buildkite_cache"
        events += buildkite.parse((folder / "builds_amd.json").read_bytes(), ctx)
    merges = [
        merge_build(8310, [job("m1", "amd_mi300_1", "passed"), job("m2", "amd_mi300_1", "failed")]),
        # only the bootstrap on the AMD CPU host: no GPU job, no ROCm run
        merge_build(8311, [job("m3", "amd-cpu", "passed")]),
    ]
    events += buildkite.parse(json.dumps(merges).encode(), ctx)
    with store.transaction() as conn:
        store.upsert_events(conn, events)
    return events


def test_a_bootstrap_only_build_is_no_rocm_run(sqlite_store):
    events = collect(sqlite_store, amd_ci())
    runs = {e.external_id: e for e in events if e.kind == "ci_run"}
    assert runs["build:8311"].regime == "none" and runs["build:8311"].outcome == "passed"
    assert runs["build:8310"].regime == "rocm"
    assert {e.attrs["trigger"] for e in events} == {"webhook"}


def test_headline_counts_the_nightly_and_shows_merges_apart(store, corpus, tmp_path):
    spec = amd_ci(trigger=["schedule"])
    collect(store, spec, corpus)
    config = typed_config(REGIMES, (spec,))
    headline, other = ci_rate_rows(config, store)
    rocm = [r for r in headline if r["regime"] == "rocm"]
    # build 8323 only: passed, 117 of its 198 GPU jobs passed (2 amd-cpu jobs are regime none)
    assert [(r["week"], r["runs_passed"], r["runs_failed"], r["jobs_passed"]) for r in rocm] == [
        ("2026-W19", 1, 0, 117)
    ]
    assert rocm[0]["jobs_failed"] == 81 and rocm[0]["triggers"] == "schedule"
    merged = {(r["regime"], r["trigger"]): r for r in other}
    assert set(merged) == {("rocm", "webhook"), ("none", "webhook")}
    assert (merged["rocm", "webhook"]["runs_failed"], merged["rocm", "webhook"]["jobs_passed"]) == (
        1,
        1,
    )
    assert merged["none", "webhook"]["runs_passed"] == 1  # the bootstrap-only build

    # without a selector every trigger counts, and the headline row says so
    blended, rest = ci_rate_rows(typed_config(REGIMES, (amd_ci(),)), store)
    row = next(r for r in blended if r["regime"] == "rocm")
    assert row["triggers"] == "every trigger" and row["runs_failed"] == 1 and rest == []

    out = tmp_path / "report"
    publish_report(config, store, out)
    csv = (out / "ci_pass_rate_weekly.csv").read_text().splitlines()
    assert csv[0].endswith(",triggers")
    assert any(line.startswith("vllm,rocm,2026-W19,1,0,117,81,") for line in csv), csv
    other_csv = (out / "ci_pass_rate_other_triggers.csv").read_text()
    assert "vllm,rocm,webhook,2026-W19,0,1,1,1,0.0,0.5" in other_csv
    html = (out / "index.html").read_text()
    assert "Per-merge and other triggers (not in the headline)" in html
    summary = json.loads((out / "summary.json").read_text())
    assert {r["trigger"] for r in summary["ci_pass_rate_other_triggers"]} == {"webhook"}


def test_trigger_selector_must_be_a_list_of_names():
    assert typed_config(REGIMES, (amd_ci(trigger=["Schedule "]),)).triggers == {
        "vllm-amd-ci": frozenset({"schedule"})
    }
    with pytest.raises(ConfigError, match="'vllm-amd-ci': key 'trigger'"):
        typed_config(REGIMES, (amd_ci(trigger=[1]),))
    for empty in ([], [" "]):
        with pytest.raises(ConfigError, match="'vllm-amd-ci': key 'trigger': expected a list of"):
            typed_config(REGIMES, (amd_ci(trigger=empty),))


def test_every_shipped_ci_source_names_its_headline_trigger():
    """No CI source of the shipped sources.yaml blends triggers: each says what its headline
    counts, from its workflows' real `on:` (the comments beside each source say why)."""
    selectors = load_config(REPO / "sources.yaml").triggers
    assert selectors == {
        "pytorch-ci-rocm": {"push"},  # its schedule runs are periodic test modes, apart
        "pytorch-ci-trunk": {"push"},
        "jax-ci": {"schedule"},  # wheel_tests_continuous.yml, every 3 hours
        "torch-xla-ci-tpu": {"push"},  # build_and_test.yml has no schedule
        "sglang-ci-amd": {"schedule"},
        "sglang-ci": {"schedule"},
        "vllm-ci": {"schedule"},
        "vllm-amd-ci": {"schedule"},
        # AMD's CI dashboard kept no trigger: its runs are "unknown", and the headline says so;
        # SGLang's PR Test is not the nightly's peer: its runs (none nameable) are apart
        "pytorch-ci-dashboard-rocm": {"unknown"},
        "pytorch-ci-dashboard-trunk": {"unknown"},
        "jax-ci-dashboard-rocm": {"unknown"},
        "jax-ci-dashboard-cuda": {"unknown"},
        "sglang-ci-dashboard-amd": {"unknown"},
        "sglang-ci-dashboard-pr": {"schedule"},
        "openxla-ci-dashboard-rocm": {"unknown"},
        "openxla-ci-dashboard-gpu": {"unknown"},
    }


def test_actions_run_shapes_split_by_their_workflows_real_triggers(sqlite_store):
    """The shipped sources.yaml over the test fixtures of tests/collect/cassettes/ci-shapes
    (illustrative runs with their workflows' real triggers; the shipped cassettes hold no run of
    these workflows, issue 54): JAX's headline is its scheduled continuous workflow; its
    dispatch-only TPU workflow and push-only ROCm post-merge check are apart; PyTorch's
    headline is the push to main, its daily periodic-mode run apart."""
    config = load_config(REPO / "sources.yaml")
    ids = ["jax-ci", "pytorch-ci-rocm", "pytorch-ci-trunk", "torch-xla-ci-tpu"]
    for result in run_sources(config, sqlite_store, only=ids, replay=SHAPES).results:
        assert result.status == "ok", result.error
    headline, other = ci_rate_rows(config, sqlite_store)
    counts = ("runs_passed", "runs_failed", "jobs_passed", "jobs_failed")
    head = {(r["project"], r["regime"]): (r["triggers"], *(r[c] for c in counts)) for r in headline}
    assert head == {
        # the 09:07 scheduled run of wheel_tests_continuous.yml: the CUDA, ROCm and CPU jobs passed,
        # the TPU job failed, so the run (regime cuda, the workflow's) failed
        ("jax", "cuda"): ("schedule", 0, 1, 1, 0),
        ("jax", "rocm"): ("schedule", 0, 0, 1, 0),  # its ROCm job (pytest_rocm.yml)
        ("jax", "xla"): ("schedule", 0, 0, 0, 1),
        ("jax", "none"): ("schedule", 0, 0, 1, 0),
        # the push run of rocm-mi300.yml: build and shard 1 passed, shard 2 failed
        ("pytorch", "rocm"): ("push", 0, 1, 2, 1),
        # the push run of trunk.yml: default shard passed, distributed failed; macOS and
        # Windows CPU jobs are none
        ("pytorch", "cuda"): ("push", 1, 0, 1, 1),
        ("pytorch", "none"): ("push", 0, 0, 2, 0),
        ("torch-xla", "xla"): ("push", 1, 0, 1, 0),
    }
    apart = {(r["project"], r["regime"], r["trigger"]): tuple(r[c] for c in counts) for r in other}
    assert apart == {
        ("jax", "xla", "workflow_dispatch"): (1, 0, 1, 0),  # cloud-tpu-ci-nightly.yml
        ("jax", "rocm", "push"): (1, 0, 1, 0),  # rocm-ci.yml, post-merge
        # the daily 08:29 run in periodic modes: rerun_disabled_tests failed
        ("pytorch", "rocm", "schedule"): (0, 1, 2, 1),
        ("pytorch", "cuda", "schedule"): (0, 1, 1, 1),
    }


def test_unread_tags_reach_the_data_quality_section(sqlite_store, tmp_path):
    spec = SourceSpec(
        id="vllm-rocm-docker",
        kind="docker_tags",
        project="vllm-rocm-docker",
        regime="rocm",
        options={"repository": "rocm/vllm"},
    )
    unread = {"count": 2, "tags": ["latest", "rocm6.2_mi300_ubuntu22.04_py3.9_vllm_7c5fd50"]}
    with sqlite_store.transaction() as conn:
        sqlite_store.save_source(conn, spec.id, values={"state": {"unmatched_tags": unread}})
    out = tmp_path / "report"
    publish_report(Config(Path("s"), REGIMES, (spec,), ()), sqlite_store, out)
    html = (out / "index.html").read_text()
    assert "image tags no name pattern reads" in html
    assert "rocm6.2_mi300_ubuntu22.04_py3.9_vllm_7c5fd50" in html
    summary = json.loads((out / "summary.json").read_text())
    assert summary["unread_tags"][0]["count"] == 2
