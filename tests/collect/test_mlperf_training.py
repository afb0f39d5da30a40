"""mlperf_training: a round's repository read through the HTTP layer (tree listing, system
files, run logs), on the real files of the v5.1 cassette served locally: one event per result
set, read once per commit, bounded by max_files (the next run goes on), hostile files skipped."""

from __future__ import annotations

import json
from pathlib import Path
from urllib.parse import urlsplit

import yaml

from tracker.collect.runner import run_sources
from tracker.collect.sources import mlperf_training as collector
from tracker.config import Config, SourceSpec
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[2]
CASSETTE = REPO / "cassettes" / "mlperf-training-v5-1.yaml"
COMMIT = "441d65f4445cd59687466533fd9f55399136e7a4"


def serve(httpserver, drop: str | None = None, replace: dict | None = None) -> int:
    """Serve the cassette's answers at their paths; `drop` leaves one path out (a 404)."""
    interactions = yaml.safe_load(CASSETTE.read_text())["interactions"]
    for item in interactions:
        parts = urlsplit(item["request"]["uri"])
        body = item["response"]["body"]["string"]
        if drop and parts.path.endswith(drop):
            httpserver.expect_request(parts.path).respond_with_data("Not Found", status=404)
            continue
        for suffix, text in (replace or {}).items():
            if parts.path.endswith(suffix):
                body = text
        httpserver.expect_request(parts.path, query_string=parts.query or None).respond_with_data(
            body, content_type=item["response"]["headers"]["Content-Type"][0]
        )
    return len(interactions)


def config_for(httpserver, **options) -> Config:
    base = {"repo": "mlcommons/training_results_v5.1", "commit": COMMIT, "round": "v5.1",
            "published": "2025-11-12", "api_url": httpserver.url_for(""),
            "raw_url": httpserver.url_for("")}  # fmt: skip
    spec = SourceSpec(id="mlperf-training", kind="mlperf_training", project="mlperf-training",
                      options=base | options)  # fmt: skip
    return Config(Path("sources.yaml"), (), (spec,))


def test_a_round_is_one_event_per_result_set_and_read_once_per_commit(store, httpserver):
    requests = serve(httpserver)
    config = config_for(httpserver)
    first = run_sources(config, store).results[0]
    assert (first.status, first.events_new, first.requests) == ("ok", 9, requests), first.error
    events = {e["external_id"]: e for e in store.iter_events()}
    dell = events["v5.1:Dell/1xXE9780x8B200-SXM-180GB/llama2_70b_lora"]
    assert dell["kind"] == "training_result" and dell["regime"] == "cuda"
    runs = dell["attrs"]["runs"]
    assert [r["file"] for r in runs][:3] == ["result_0.txt", "result_1.txt", "result_2.txt"]
    # result_0 was stopped (SIGTERM) before run_stop: a failed run; the others succeeded
    assert runs[0]["problem"] == "run_stop not recorded"
    assert all(r["status"] == "success" and "problem" not in r for r in runs[1:])
    assert runs[1]["stop_ms"] == 1759895663796  # the real log's "1: :::MLLOG" rank prefix
    amd = events["v5.1:AMD/MI355X_EPYC_9575F_pytorch/llama2_70b_lora"]
    assert (amd["regime"], amd["attrs"]["accelerators"], amd["attrs"]["scaling_factor"]) == (
        "rocm", 8, 1.0033670033670032)  # fmt: skip
    assert amd["attrs"]["versions"] == {"rocm": "7.0.0"}
    assert amd["url"] == (f"https://github.com/mlcommons/training_results_v5.1/tree/{COMMIT}/AMD/"
                       "results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora")  # fmt: skip
    gb300 = events["v5.1:NVIDIA/theia_ngpu8_ngc25.09_nemo/llama2_70b_lora"]["attrs"]
    assert (gb300["accelerators_per_node"], gb300["nodes"], gb300["accelerators"]) == (4, 2, 8)
    assert gb300["versions"]["nccl"] == "2.28.3-1" and gb300["versions"]["cuda"] == "13.0.1.012"
    again = run_sources(config, store).results[0]
    assert (again.status, again.events_new, again.requests) == ("ok", 0, 0)


def test_max_files_cuts_a_run_short_and_the_next_goes_on(sqlite_store, httpserver):
    serve(httpserver)
    config = config_for(httpserver, max_files=25)
    first = run_sources(config, sqlite_store).results[0]
    assert first.status == "ok" and first.events_new == 2 and first.items_skipped == 1
    counts = [first.events_new]
    for _ in range(5):
        counts.append(run_sources(config, sqlite_store).results[0].events_new)
    assert counts == [2, 2, 2, 2, 1, 0]  # 9 result sets of 11 or 12 files, 25 files a run
    assert len(list(sqlite_store.iter_events())) == 9


def test_hostile_files_are_skipped_one_by_one(sqlite_store, httpserver):
    serve(
        httpserver,
        drop="AMD/results/MI350X_EPYC_9575F_pytorch/llama2_70b_lora/result_3.txt",
        replace={"NVIDIA/systems/tyche_ngpu8_ngc25.09_nemo.json": "[1, 2]",
                 "AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora/result_0.txt":
                     ':::MLLOG {"key": "run_start", "time_ms": "soon"}\n:::MLLOG {bad\n'},
    )  # fmt: skip
    result = run_sources(config_for(httpserver), sqlite_store).results[0]
    assert result.status == "ok" and result.events_new == 8, result.error
    events = {
        (e["attrs"]["system"], e["attrs"]["benchmark"]): e["attrs"]
        for e in sqlite_store.iter_events()
    }
    lora = "llama2_70b_lora"
    assert ("tyche_ngpu8_ngc25.09_nemo", lora) not in events  # its system file is no object
    assert events[("MI350X_EPYC_9575F_pytorch", lora)]["unread"] == 1  # a 404: no score later
    assert events[("MI355X_EPYC_9575F_pytorch", lora)]["runs"][0]["problem"] == (
        "run_start not recorded")  # fmt: skip


def test_system_fields_of_real_shapes():
    # v4.0 NVIDIA wrote "onprem"; AMD's stack is text, NVIDIA's an object (values from the files)
    amd = collector.system_fields({
        "submitter": "AMD", "division": "closed", "status": "Available on-premise",
        "accelerator_model_name": "AMD Instinct MI355X", "accelerators_per_node": "8",
        "number_of_nodes": "1",
        "framework": "PyTorch 2.8.0.dev20251001+rocm7.0.0.git64359f59, ROCm 7.0.0",
        "other_software_stack": "hipblaslt-1.1.0.70000-crdcbr.91~22.04, Nemo 2.3.0"})  # fmt: skip
    assert amd["accelerators"] == 8 and amd["versions"] == {"rocm": "7.0.0"}
    nvidia = collector.system_fields({
        "division": "closed", "status": "onprem", "accelerators_per_node": "4",
        "number_of_nodes": "x", "other_software_stack": {"cuda_version": "12.2.1.020",
        "nccl_version": "v2.28.3-1", "dali_version": "1.29.0"}})  # fmt: skip
    assert nvidia["availability"] == "Available on-premise" and nvidia["accelerators"] is None
    assert nvidia["versions"] == {"cuda": "12.2.1.020", "nccl": "2.28.3-1"}
    aborted = collector.read_run(
        ':::MLLOG {"time_ms": 5, "key": "run_start"}\n'
        ':::MLLOG {"time_ms": 9, "key": "run_stop", "metadata": {"status": "aborted"}}\n'
    )
    assert aborted["problem"] == "run_stop status 'aborted'"
    assert json.dumps(aborted)  # stored as JSON


def test_the_v60_shape_replayed_from_its_cassette(sqlite_store):
    # v6.0: tree entries without sha or size, AMD's software stack an object naming RCCL and
    # ROCm, NVIDIA's GB300 system of 2 nodes x 4; every result set carries a scaling.json
    config = load_config(REPO / "sources.yaml")
    result = run_sources(config, sqlite_store, only=["mlperf-training-v6-0"],
                         replay=REPO / "cassettes").results[0]  # fmt: skip
    assert (result.status, result.events_new, result.items_skipped) == ("ok", 6, 0), result.error
    events = {e["external_id"]: e for e in sqlite_store.iter_events()}
    amd = events["v6.0:AMD/MI355X_EPYC_9575F_primus/llama2_70b_lora"]
    attrs = amd["attrs"]
    assert (amd["regime"], attrs["accelerators"], attrs["versions"]) == (
        "rocm", 8, {"rccl": "2.27.7", "rocm": "7.2.0"})  # fmt: skip
    assert attrs["scaling_factor"] == 1.0033670033670032 and attrs["unread"] == 0
    assert [r["status"] for r in attrs["runs"]] == ["success"] * 10
    gb300 = events["v6.0:NVIDIA/theia_ngpu8_ngc26.04_nemo/llama2_70b_lora"]["attrs"]
    assert (gb300["accelerators_per_node"], gb300["nodes"], gb300["accelerators"]) == (4, 2, 8)
    assert gb300["versions"]["nccl"] == "2.30.4-1"
