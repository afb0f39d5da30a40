"""MLPerf Training results as a hostile or broken results repository writes them (issue 60): a
run time the summarizer would not accept is a failed run, a scaling factor outside its
plausible range refuses its set, a zero reference never divides, a submitted set that cannot be
scored says so, and a set no run can read is refused with its size, never a silent block."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.runner import run_sources
from tracker.config import Config, Regime, SourceSpec
from tracker.digest.perf_lines import new_training_round_lines
from tracker.events import Event
from tracker.jobs.report import publish_report
from tracker.measure.perf.training import (
    NO_NVIDIA,
    NO_SUBMISSION,
    time_to_train,
    training_figures,
)
from tracker.report.training_section import training_section

REGIMES = ["cuda", "rocm", "xla", "neuron"]
AS_OF = datetime(2026, 8, 22, tzinfo=UTC)
# Ten real-looking runs of about 10 minutes each (600,000 ms), 20 minutes apart.
GOOD = [(1_745_300_000_000 + i * 1_200_000, 1_745_300_600_000 + i * 1_200_000) for i in range(10)]


def runs(pairs):
    return [{"start_ms": a, "stop_ms": b, "status": "success"} for a, b in pairs]


def attrs(pairs=GOOD, factor=1.0, accelerator="AMD Instinct MI355X", **extra):
    return {
        "round": "v5.1", "division": "closed", "submitter": "AMD", "system": "sys",
        "benchmark": "llama2_70b_lora", "accelerator": accelerator, "accelerators": 8,
        "availability": "Available on-premise", "runs": runs(pairs), "scaling_factor": factor,
        "unread": 0,
    } | extra  # fmt: skip


def stored(item: dict, url: str = "https://example.org/x") -> dict:
    when = datetime(2025, 11, 12, tzinfo=UTC)
    return {"attrs": item, "version": "v5.1", "occurred_at": when, "first_seen_at": when,
            "url": url}  # fmt: skip


def test_runs_that_stop_before_they_start_are_failed_runs():
    backwards = [(b, a) for a, b in GOOD]
    assert time_to_train(attrs(backwards)) == (None, "too many failed runs")
    three_back = [(b, a) if i < 3 else (a, b) for i, (a, b) in enumerate(GOOD)]
    assert time_to_train(attrs(three_back)) == (None, "too many failed runs")
    one_back = [(b, a) if i == 0 else (a, b) for i, (a, b) in enumerate(GOOD)]
    minutes, why = time_to_train(attrs(one_back))
    assert why is None and minutes == pytest.approx(10.0)  # dropped among the slowest


@pytest.mark.parametrize(
    "bad",
    [(0, 0), (5, 5), (0, 1e300), (1_745_300_000_000, 1_745_300_000_000 + 31 * 86_400_000),
     (float("nan"), 5.0), (0, float("inf")), (True, 5)],
)  # fmt: skip
def test_a_zero_non_finite_or_unbounded_run_time_is_a_failed_run(bad):
    minutes, why = time_to_train(attrs([bad, *GOOD[1:]]))
    assert why is None and minutes == pytest.approx(10.0)
    assert time_to_train(attrs([bad, bad, *GOOD[2:]])) == (None, "too many failed runs")
    zero = time_to_train(attrs([(5, 5)] * 10))
    assert zero == (None, "too many failed runs")


@pytest.mark.parametrize(
    ("factor", "why"),
    [(1e-300, "scaling factor 1e-300 outside the plausible 0.1-10"),
     (1e308, "scaling factor 1e+308 outside the plausible 0.1-10"),
     (None, "scaling.json without a finite scaling_factor"),  # Infinity, stored as null
     ("2", "scaling factor 2 outside the plausible 0.1-10"),
     (0, "scaling factor 0 outside the plausible 0.1-10")],
)  # fmt: skip
def test_a_scaling_factor_outside_its_range_refuses_the_set(factor, why):
    assert time_to_train(attrs(factor=factor)) == (None, why)
    assert time_to_train(attrs(factor=1.0511463844797178))[1] is None


def test_nvidia_runs_of_zero_ms_never_divide():
    nvidia = attrs([(7, 7)] * 10, accelerator="NVIDIA B200", submitter="NVIDIA")
    figures = training_figures([stored(nvidia, "n"), stored(attrs(), "a")], REGIMES)
    rocm = [r for r in figures.rows if r.regime == "rocm"][0]
    assert rocm.status == NO_NVIDIA and rocm.ratio is None and rocm.best is not None


def test_a_submitted_set_that_cannot_be_scored_is_not_no_submission():
    nvidia = attrs(accelerator="NVIDIA B200", submitter="NVIDIA")
    nan_runs = attrs([(float("nan"), float("nan"))] * 10)
    figures = training_figures([stored(nvidia, "n"), stored(nan_runs, "a")], REGIMES)
    rocm = [r for r in figures.rows if r.regime == "rocm"]
    assert [r.status for r in rocm] == ["submitted, not scored: too many failed runs"]
    assert {r.status for r in figures.rows if r.regime == "xla"} == {NO_SUBMISSION}
    assert figures.store_rows(AS_OF) == [  # the stored view holds the scored rows only
        r.store_row(AS_OF) for r in figures.rows if r.regime == "cuda"
    ]
    section = training_section(figures)["rounds"][0]
    assert "ROCm" not in " ".join(section["silent"])
    assert section["not_scored"] == ["ROCm (too many failed runs)"]
    digest = new_training_round_lines(figures, datetime(2025, 11, 1, tzinfo=UTC), AS_OF)[0]["text"]
    assert "no submission from ROCm" not in digest
    assert "ROCm submitted, not scored: too many failed runs" in digest


def event(item: dict, name: str) -> Event:
    return Event("mlperf-training-v5-1", "mlperf-training", "training_result", f"v5.1:{name}",
                 datetime(2025, 11, 12, tzinfo=UTC), f"MLPerf Training v5.1 {name}",
                 url=f"https://example.org/{name}", version="v5.1", attrs=item)  # fmt: skip


def test_zero_ms_nvidia_runs_end_neither_perf_nor_report_in_a_traceback(sqlite_store, tmp_path):
    nvidia = attrs([(7, 7)] * 10, accelerator="NVIDIA B200", submitter="NVIDIA")
    rocm = attrs([(b, a) for a, b in GOOD])  # every run stopped before it started
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, [event(nvidia, "nvidia"), event(rocm, "amd")])
    result = CliRunner().invoke(
        cli,
        ["--db", sqlite_store.url, "perf", "--suite", "training", "--format", "csv",
         "--as-of", "2026-08-22"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "v5.1,2025-11-12,(any),,rocm,submitted, not scored: too many failed runs" in (
        result.stdout.replace('"', "")
    )
    assert "-" not in "".join(line.split(",")[6] for line in result.stdout.splitlines()[1:])
    config = Config(Path("sources.yaml"), (Regime("cuda", reference=True), Regime("rocm")), ())
    publish_report(config, sqlite_store, tmp_path / "www", as_of=AS_OF)
    page = (tmp_path / "www" / "index.html").read_text()
    assert "submitted, not scored: ROCm (too many failed runs)" in page


def test_a_set_larger_than_a_run_reads_is_refused_with_its_size_and_the_round_goes_on(
    sqlite_store, httpserver
):
    tree = [{"path": "AAA/systems/big.json", "type": "blob"},
            {"path": "ZZZ/systems/small.json", "type": "blob"}]  # fmt: skip
    tree += [
        {"path": f"AAA/results/big/llama2_70b_lora/result_{i}.txt", "type": "blob"}
        for i in range(40)
    ]  # sorted first, larger than max_files: it blocked the round forever
    tree += [{"path": "ZZZ/results/small/llama2_70b_lora/result_0.txt", "type": "blob"}]
    commit = "0" * 40
    httpserver.expect_request(f"/repos/o/r/git/trees/{commit}").respond_with_json({"tree": tree})
    system = {"submitter": "x", "division": "closed", "accelerator_model_name": "AMD Instinct "
              "MI355X", "accelerators_per_node": "8", "number_of_nodes": "1"}  # fmt: skip
    for path in ("AAA/systems/big.json", "ZZZ/systems/small.json"):
        httpserver.expect_request(f"/o/r/{commit}/{path}").respond_with_data(json.dumps(system))
    httpserver.expect_request(
        f"/o/r/{commit}/ZZZ/results/small/llama2_70b_lora/result_0.txt"
    ).respond_with_data(
        ':::MLLOG {"key": "run_start", "time_ms": 1}\n'
        ':::MLLOG {"key": "run_stop", "time_ms": 600001, "metadata": {"status": "success"}}\n'
    )
    options = {"repo": "o/r", "commit": commit, "round": "v5.1", "published": "2025-11-12",
               "api_url": httpserver.url_for(""), "raw_url": httpserver.url_for(""),
               "max_files": 20}  # fmt: skip
    spec = SourceSpec(id="mlperf-training", kind="mlperf_training", project="mlperf-training",
                      options=options)  # fmt: skip
    config = Config(Path("sources.yaml"), (), (spec,))
    result = run_sources(config, sqlite_store).results[0]
    assert result.status == "ok" and result.events_new == 2, result.error
    events = {e["attrs"]["system"]: e["attrs"] for e in sqlite_store.iter_events()}
    assert events["big"]["unread"] == 40 and events["big"]["runs"] == []
    assert time_to_train(events["big"]) == (None, "result files not read")
    assert len(events["small"]["runs"]) == 1
    assert run_sources(config, sqlite_store).results[0].requests == 0  # read whole: done
