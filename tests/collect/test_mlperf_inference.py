"""mlperf_inference: a round's summary file, read once through the HTTP layer, one `result`
event per row whatever the layout (v4.x-v6.0 summary_results.json, v6.1 summary.json); an
unknown layout is one error line naming the file."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.runner import run_sources
from tracker.collect.sources import CollectContext
from tracker.collect.sources import mlperf_inference as collector
from tracker.config import Config, SourceSpec

# Two rows of summary_results.json as v6.0 published them (values copied from
# mlcommons/inference_results_v6.0 at ab33b21; other fields left out).
V60_ROWS = [
    {"Submitter": "AMD", "Availability": "available", "Category": "closed",
     "Suite": "datacenter", "System": "AMD MI355X Custom Cluster",
     "Model": "llama2-70b-99", "Scenario": "Interactive", "Nodes": 11,
     "Accelerator": "AMD Instinct MI355X 288GB HBM3e (x87)", "a#": 8, "Total Accelerators": 88,
     "Location": "./closed/AMD/results/87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive/"
                 "performance/run_1",
     "Software": "PyTorch 2.9.1+git8907517, ROCm 7.0.0", "version": "v6.0", "inferred": 1,
     "weight_data_types": "fp4", "Performance_Result": 785522.0, "Performance_Units": "Tokens/s"},
    {"Submitter": "AMD", "Availability": "available", "Category": "closed",
     "Suite": "datacenter", "System": "Supermicro AS-8125GS-TNMR2",
     "Model": "llama2-70b-99", "Scenario": "Offline", "Nodes": 1,
     "Accelerator": "", "a#": "", "Location": "closed/X/results/cpu/llama2-70b-99/Offline",
     "Software": "", "version": "v6.0", "inferred": 0, "weight_data_types": "fp8",
     "Performance_Result": 1.5, "Performance_Units": "Tokens/s"},
]  # fmt: skip
# Two rows of summary.json as v6.1 publishes it (mlcommons/inference_results_v6.1 at 10ecdffd;
# values copied, a few fields left out): an object of numbered rows, other field names.
V61 = {
    "6": {"Organization": "AMD", "Availability": "available", "Division": "closed",
          "SystemType": "datacenter", "SystemName": "smci355-ccs-aus-m13-13 (AS -4126GS-NMR-LCC)",
          "Model": "gpt-oss-120b", "Scenario": "Offline", "Result": 121818.0,
          "number_of_nodes": 1, "accelerator_model_name": "AMD Instinct MI355X 288GB HBM3e",
          "accelerators_per_node": 8, "total_accelerators": 8,
          "Location": "./closed/AMD/results/8xMI355X_2xEPYC_9575F/gpt-oss-120b/Offline/"
                      "performance/run_1",
          "framework": "PyTorch 2.10.0+git8514f05, ROCm 7.2.2", "version": "v6.1",
          "inferred": 0, "Units": "Tokens/s", "weight_data_types": "fp4"},
    "3": {"Organization": "AMD", "Availability": "available", "Division": "closed",
          "SystemType": "datacenter", "SystemName": "Quanta Grand Teton 1.5 MI350",
          "Model": "wan-2.2-t2v-a14b", "Scenario": "SingleStream", "Result": 20.603024726,
          "number_of_nodes": 1, "accelerator_model_name": "AMD Instinct MI350X 288GB HBM3e",
          "accelerators_per_node": 8, "total_accelerators": 8,
          "Location": "./closed/AMD/results/8xMI350X_2xEPYC_9655/wan-2.2-t2v-a14b/SingleStream/"
                      "performance/run_1",
          "framework": "xDiT, xfuser 0.4.5, PyTorch 2.9.1+gitff65f5b, ROCm 7.13.0",
          "version": "v6.1", "inferred": 0, "Units": "Latency (s)",
          "weight_data_types": "bf16, fp8, fp4"},
}  # fmt: skip


def spec(**options) -> SourceSpec:
    base = {"repo": "mlcommons/inference_results_v6.0", "commit": "ab33b21", "round": "v6.0",
            "published": "2026-03-26"}  # fmt: skip
    return SourceSpec(id="mlperf", kind="mlperf_inference", project="mlperf-inference",
                      options=base | options)  # fmt: skip


def test_summary_results_rows_become_result_events():
    ctx = CollectContext(spec=spec())
    items = list(collector.parse(json.dumps(V60_ROWS).encode(), ctx))
    assert [i.kind for i in items] == ["result", "result"]
    first = items[0]
    assert first.occurred_at == datetime(2026, 3, 26, tzinfo=UTC)
    assert (first.version, first.regime) == ("v6.0", "rocm")
    assert first.url == (
        "https://github.com/mlcommons/inference_results_v6.0/tree/ab33b21/closed/AMD/results/"
        "87xMI355X_22xEPYC_9575F/llama2-70b-99/Interactive/performance/run_1"
    )
    assert first.attrs["total_accelerators"] == 88 and first.attrs["accelerators_per_node"] == 8
    assert first.attrs["inferred"] == 1 and first.attrs["benchmark"] == "llama2-70b-99"
    # A CPU-only row: no accelerator, no regime, a# "" read as no number.
    assert items[1].regime is None and items[1].attrs["accelerators_per_node"] is None


def test_summary_json_of_v61_reads_into_the_same_fields():
    ctx = CollectContext(spec=spec(round="v6.1", published="2026-09-01"))
    items = {i.attrs["benchmark"]: i for i in collector.parse(json.dumps(V61).encode(), ctx)}
    row = items["gpt-oss-120b"].attrs
    assert (row["submitter"], row["division"], row["suite"]) == ("AMD", "closed", "datacenter")
    assert (row["result"], row["units"], row["total_accelerators"]) == (121818.0, "Tokens/s", 8)
    assert row["software"] == "PyTorch 2.10.0+git8514f05, ROCm 7.2.2"
    assert items["gpt-oss-120b"].regime == "rocm"
    assert items["wan-2.2-t2v-a14b"].attrs["units"] == "Latency (s)"


def run(*args: str):
    return CliRunner().invoke(cli, list(args))


def test_parse_an_unknown_layout_is_one_error_line_naming_the_file(tmp_path):
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"results": [{"Model": "x"}]}))
    result = run("parse", str(path), "--kind", "mlperf_inference", "--option",
                 "published=2026-01-01")  # fmt: skip
    assert result.exit_code != 0
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tracker: error: ")
    assert "summary.json" in lines[0] and "not an MLPerf Inference summary" in lines[0]


def test_parse_a_local_file_prints_its_events(tmp_path):
    path = tmp_path / "summary_results.json"
    path.write_text(json.dumps(V60_ROWS))
    result = run("parse", str(path), "--kind", "mlperf_inference", "--option",
                 "published=2026-03-26")  # fmt: skip
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["kind"] for e in events] == ["result", "result"]
    assert events[0]["version"] == "v6.0"  # the round from the rows when no option names it
    missing = run("parse", str(path), "--kind", "mlperf_inference")
    assert missing.exit_code != 0 and "published=YYYY-MM-DD" in missing.output


def test_a_round_is_read_once_and_reruns_change_nothing(store, httpserver):
    httpserver.expect_request("/summary_results.json").respond_with_data(
        json.dumps(V60_ROWS), content_type="text/plain", headers={"ETag": '"r1"'}
    )
    config = Config(
        Path("sources.yaml"), (), (spec(url=httpserver.url_for("/summary_results.json")),)
    )
    first = run_sources(config, store).results[0]
    assert (first.status, first.events_new, first.requests) == ("ok", 2, 1), first.error
    second = run_sources(config, store).results[0]
    assert (second.status, second.events_new, second.requests) == ("ok", 0, 0)
    assert len(httpserver.log) == 1
    assert len(list(store.iter_events())) == 2
