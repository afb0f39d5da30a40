"""MLPerf Training scoring as MLCommons' result summarizer does it, checked against the
summarizer's own published output, and the figure (best per regime beside NVIDIA's best at the
same count, "no submission" rows) on the real result sets of the v5.0 and v5.1 cassettes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.runner import run_sources
from tracker.jobs.config import load_config
from tracker.measure.perf.training import (
    NO_SUBMISSION,
    olympic_mean,
    time_to_train,
    training_figures,
)
from tracker.mentions.accelerators import accelerator_regime

REPO = Path(__file__).resolve().parents[2]
# (run_start, run_stop) time_ms of real result sets, copied from the logs.
# GigaComputing G893-SD1_pytorch llama2_70b_lora, mlcommons/training_results_v5.0 at 0fdc28f
# (scaling.json 1.0511463844797178); the summarizer's score in GigaComputing/summary.json there:
# 11.2653766902.
GIGA_V50 = [(1745309556049, 1745310210172), (1745310595998, 1745311249957),
            (1745311641611, 1745312295572), (1745302342015, 1745302995678),
            (1745303390697, 1745303957733), (1745304372893, 1745305026949),
            (1745305432527, 1745306086106), (1745306476495, 1745307130564),
            (1745307530749, 1745308097813), (1745308492545, 1745309146464)]  # fmt: skip
# Quanta_Cloud_Technology D75T-7U (MI325X) llama2_70b_lora, training_results_v5.1 at 441d65f
# (scaling.json 1.034722222222222); Quanta_Cloud_Technology/summary.json there: 21.6307171586.
QCT_V51 = [(1759212039892, 1759213292074), (1759213459147, 1759214545419),
           (1759214711664, 1759215961052), (1759216127645, 1759217382421),
           (1759217549605, 1759218805465), (1759218972110, 1759220227431),
           (1759220393122, 1759221649674), (1759221815134, 1759223069694),
           (1759223235333, 1759224657691), (1759224823102, 1759226078793)]  # fmt: skip


def result_set(pairs, factor, benchmark="llama2_70b_lora", failed=0):
    runs = [{"start_ms": a, "stop_ms": b, "status": "success"} for a, b in pairs]
    runs += [{"start_ms": 1, "stop_ms": None, "status": None, "problem": "x"}] * failed
    return {"benchmark": benchmark, "runs": runs, "scaling_factor": factor, "unread": 0}


@pytest.mark.parametrize(
    ("pairs", "factor", "published"),
    [(GIGA_V50, 1.0511463844797178, 11.2653766902), (QCT_V51, 1.034722222222222, 21.6307171586)],
)
def test_time_to_train_is_the_summarizers_published_score(pairs, factor, published):
    minutes, why = time_to_train(result_set(pairs, factor))
    assert why is None and minutes == pytest.approx(published, abs=1e-9)
    # not the plain mean, and not without the scaling factor
    assert time_to_train(result_set(pairs, 1.0))[0] != pytest.approx(published, abs=1e-6)


def test_a_failed_run_counts_among_the_slowest_dropped():
    minutes = [float(m) for m in range(1, 10)]  # nine runs converged, one failed
    assert olympic_mean(minutes, 1, "llama2_70b_lora") == pytest.approx(sum(range(2, 10)) / 8)
    assert olympic_mean(minutes, 0, "llama2_70b_lora") == pytest.approx(sum(range(2, 9)) / 7)
    assert olympic_mean(minutes, 2, "llama2_70b_lora") is None  # too many failed runs
    # unet3d drops four at each end
    assert olympic_mean([float(m) for m in range(1, 41)], 0, "unet3d") == pytest.approx(20.5)
    assert time_to_train(result_set(GIGA_V50[:9], 1.0, failed=2)) == (None, "too many failed runs")
    unread = result_set(GIGA_V50, 1.0) | {"unread": 1}
    assert time_to_train(unread) == (None, "result files not read")


def stored_rounds(store, tmp_path: Path, extra: tuple[str, ...] = ()) -> list:
    config = load_config(REPO / "sources.yaml")
    ids = ["mlperf-training-v5-0", "mlperf-training-v5-1", *extra]
    run_sources(config, store, only=ids, replay=REPO / "cassettes")
    return store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result")


def test_the_figure_on_the_real_v50_v51_result_sets(store, tmp_path):
    results = stored_rounds(store, tmp_path)
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    rows = {(r.round, r.benchmark, r.accelerators, r.regime): r for r in figures.rows}
    v50 = rows[("v5.0", "llama2_70b_lora", 8, "rocm")]
    assert (v50.best.part, v50.best.submitter, v50.nvidia.part, v50.nvidia.submitter) == (
        "MI325X", "Supermicro", "GB200", "Oracle")  # fmt: skip
    assert v50.best.minutes == pytest.approx(21.575114583, abs=1e-6)
    assert v50.nvidia.minutes == pytest.approx(10.996333718, abs=1e-6)
    assert v50.ratio == pytest.approx(1.962, abs=5e-4)
    v51 = rows[("v5.1", "llama2_70b_lora", 8, "rocm")]
    assert (v51.best.part, v51.nvidia.part, v51.nvidia.system) == (
        "MI355X", "GB300", "theia_ngpu8_ngc25.09_nemo")  # fmt: skip
    assert v51.ratio == pytest.approx(1.706, abs=5e-4)
    assert "NCCL 2.28.3-1" in v51.nvidia.versions and "ROCm 7.0.0" in v51.best.versions
    silent = {(r.round, r.regime) for r in figures.rows if r.status == NO_SUBMISSION}
    assert silent == {("v5.1", "xla"), ("v5.1", "neuron"), ("v5.0", "neuron")}
    assert [r.round for r in figures.rows][0] == "v5.1"  # newest round first
    # the Dell B200 set with its aborted run is scored (9 runs), not the best of its regime
    dell = [i for i in results if i["attrs"]["system"] == "1xXE9780x8B200-SXM-180GB"][0]["attrs"]
    assert [bool(r.get("problem")) for r in dell["runs"]].count(True) == 1
    assert time_to_train(dell)[0] == pytest.approx(10.0899625, abs=1e-6)


def test_cli_suite_training_csv_and_view(sqlite_store, tmp_path):
    stored_rounds(sqlite_store, tmp_path, extra=("mlperf-training-v6-0",))
    db = f"sqlite:///{tmp_path / 'tracker.db'}"
    result = CliRunner().invoke(
        cli, ["--db", db, "perf", "--suite", "training", "--format", "csv", "--as-of", "2026-08-22"]
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("round,round_date,benchmark,accelerators,regime,status,minutes")
    assert any(x.startswith("v5.0,2025-06-04,llama2_70b_lora,8,rocm,measured,21.58,11.00,1.962")
               for x in lines)  # fmt: skip
    assert any(x.startswith("v5.1,2025-11-12,llama2_70b_lora,8,rocm,measured,10.18,5.97,1.706")
               for x in lines)  # fmt: skip
    assert lines[1].startswith("v6.0,2026-06-16,llama2_70b_lora,8,cuda,measured,5.61")  # newest
    assert any(x.startswith("v6.0,2026-06-16,llama2_70b_lora,8,rocm,measured,8.27,5.61,1.474")
               for x in lines)  # fmt: skip
    assert "v5.1,2025-11-12,(any),,xla,no submission in this round" in result.stdout
    figures = training_figures(
        sqlite_store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result"),
        ["cuda", "rocm", "xla", "neuron"],
    )
    sqlite_store.replace_perf_training(figures.store_rows(datetime(2026, 8, 22, tzinfo=UTC)))
    view = sqlite_store.view_rows("v_perf_training")
    rocm = {
        (r["round"], r["benchmark"], r["accelerators"], round(r["ratio_to_nvidia"], 3))
        for r in view
        if r["regime"] == "rocm"
    }
    assert rocm == {
        ("v5.0", "bert", 8, 32.66),  # tinycorp's tinybox (tinygrad on MI300X)
        ("v5.0", "llama2_70b_lora", 8, 1.962),
        ("v5.0", "llama2_70b_lora", 16, 2.692),
        ("v5.0", "llama2_70b_lora", 32, 3.481),
        ("v5.1", "llama2_70b_lora", 8, 1.706),
        ("v5.1", "llama2_70b_lora", 16, 2.208),
        ("v5.1", "llama31_8b", 8, 1.48),
        ("v6.0", "llama2_70b_lora", 8, 1.474),
    }


def test_digest_says_a_new_round_once(sqlite_store, tmp_path):
    from tracker.digest.perf_lines import new_training_round_lines

    results = stored_rounds(sqlite_store, tmp_path)
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    seen = min(r.first_seen for r in figures.rounds)
    lines = new_training_round_lines(figures, seen, seen + timedelta(days=7))
    texts = {line["text"].split(" (")[0]: line["text"] for line in lines}
    assert (
        "ROCm 1.96x NVIDIA's time on llama2_70b_lora at 8 accelerators (MI325X 21.6 min vs "
        "GB200 11.0 min; of the dense BF16 peak: MI325X FP8 53%-60% vs GB200 FP8 54%-61%); "
        "no submission from Neuron"
    ) in texts["MLPerf Training v5.0"]
    assert "ROCm 1.71x" in texts["MLPerf Training v5.1"] and "no submission from XLA, Neuron" in (
        texts["MLPerf Training v5.1"])  # fmt: skip
    # the realized efficiency beside it, when the round lands (both sides read from the logs)
    assert "of the dense BF16 peak: MI355X FP8 58%-65% vs GB300 FP4 99%-111%" in (
        texts["MLPerf Training v5.1"])  # fmt: skip
    assert new_training_round_lines(figures, seen + timedelta(days=7), seen + timedelta(14)) == []


def test_the_v60_best_is_the_fastest_set_of_its_cassette(store):
    # Every v6.0 result set of the cassette, scored one by one: each regime's row must carry the
    # lowest time to train of its sets, not the first set read (the collector reads the round in
    # path order: AMD's MI350X before its MI355X, Dell's GB300 before NVIDIA's, Oracle's, Quanta's).
    config = load_config(REPO / "sources.yaml")
    run_sources(config, store, only=["mlperf-training-v6-0"], replay=REPO / "cassettes")
    results = store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result")
    scored: dict[str, list[tuple[float, str]]] = {}
    for item in results:
        attrs = item["attrs"]
        regime = accelerator_regime(attrs["accelerator"])
        path = f"{attrs['submitter']}/{attrs['system']}"
        scored.setdefault(regime, []).append((path, time_to_train(attrs)[0], attrs["system"]))
    assert {r: len(sets) for r, sets in scored.items()} == {"rocm": 2, "cuda": 4}
    fastest = {regime: min(s[1:] for s in sets) for regime, sets in scored.items()}
    first = {regime: min(sets)[1:] for regime, sets in scored.items()}  # first in path order
    assert all(first[regime] != fastest[regime] for regime in scored)
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    best = {r.regime: (r.best.minutes, r.best.system) for r in figures.rows if r.best}
    assert best == fastest
    assert best["cuda"][1] == "8GPU.GB300.4.NVL72" and best["cuda"][0] < 5.715521  # not Quanta's


def test_the_v60_row_from_its_cassette(store, tmp_path):
    # v6.0 (cassette read from a public fork of mlcommons/training_results_v6.0 at eabf23a):
    # AMD's MI355X against the fastest GB300 at 8, Oracle's BM.GPU.GB300.4 (2 x 4, cloud), whose
    # ten runs all stopped at 3072 samples in 323.9-328.7 s (scaling 1.03472 by the RCP rule)
    config = load_config(REPO / "sources.yaml")
    run_sources(config, store, only=["mlperf-training-v6-0"], replay=REPO / "cassettes")
    results = store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result")
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    rows = {(r.round, r.benchmark, r.accelerators, r.regime): r for r in figures.rows}
    v60 = rows[("v6.0", "llama2_70b_lora", 8, "rocm")]
    assert (v60.best.part, v60.best.submitter, v60.best.system) == (
        "MI355X", "AMD", "MI355X_EPYC_9575F_primus")  # fmt: skip
    assert (v60.nvidia.part, v60.nvidia.submitter, v60.nvidia.system) == (
        "GB300", "Oracle", "8GPU.GB300.4.NVL72")  # fmt: skip
    assert v60.best.minutes == pytest.approx(8.271402, abs=1e-6)
    assert v60.nvidia.minutes == pytest.approx(5.613252, abs=1e-6)
    assert v60.ratio == pytest.approx(1.4735, abs=5e-4)
    # the RCCL / NCCL gap of issue 47, from the system files' object-valued software stacks
    assert v60.best.versions == "RCCL 2.27.7, ROCm 7.2.0"
    assert "NCCL 2.28.3-1" in v60.nvidia.versions
    silent = {(r.round, r.regime) for r in figures.rows if r.status == NO_SUBMISSION}
    assert silent == {("v6.0", "xla"), ("v6.0", "neuron")}


V51_ROCM_AT_8 = {
    "round": "v5.1",
    "round_date": "2025-11-12",
    "benchmark": "llama2_70b_lora",
    "accelerators": "8",
    "regime": "rocm",
    "status": "measured",
    "minutes": "10.18",
    "nvidia_minutes": "5.97",
    "ratio_to_nvidia": "1.706",
    "accelerator": "AMD Instinct MI355X",
    "system": "MI355X_EPYC_9575F_pytorch",
    "submitter": "AMD",
    "availability": "Available on-premise",
    "software_versions": "ROCm 7.0.0",
    "evidence_url": "https://github.com/mlcommons/training_results_v5.1/tree/"
    "441d65f4445cd59687466533fd9f55399136e7a4/AMD/results/MI355X_EPYC_9575F_pytorch/llama2_70b_lora",
    "nvidia_accelerator": "NVIDIA Blackwell Ultra GPU (GB300)",
    "nvidia_system": "theia_ngpu8_ngc25.09_nemo",
    "nvidia_software_versions": "CUDA 13.0.1.012, cuDNN 9.13.1.26, NCCL 2.28.3-1",
    "nvidia_evidence_url": "https://github.com/mlcommons/training_results_v5.1/tree/"
    "441d65f4445cd59687466533fd9f55399136e7a4/NVIDIA/results/theia_ngpu8_ngc25.09_nemo/"
    "llama2_70b_lora",
    # realized efficiency: 3,456 samples of 8,192 tokens in about 667 s a run on 8 MI355X, FP8
    # by the system file's sw_notes; 4N per token, N = 68.71e9, over 2,516.6 / 5,033.2 TFLOP/s
    "samples_per_second": "0.650",
    "tokens_per_second": "5327",
    "format_used": "FP8",
    "format_evidence": "https://github.com/mlcommons/training_results_v5.1/blob/"
    "441d65f4445cd59687466533fd9f55399136e7a4/AMD/systems/MI355X_EPYC_9575F_pytorch.json",
    "efficiency_bf16": "0.582",
    "efficiency_bf16_attention": "0.650",
    "efficiency_format": "0.291",
    "efficiency_format_attention": "0.325",
}


# The cells the CLI rounds (the report's CSV keeps the full numbers).
ROUNDED = {"round_date", "minutes", "nvidia_minutes", "ratio_to_nvidia", "samples_per_second",
           "tokens_per_second", "efficiency_bf16", "efficiency_bf16_attention",
           "efficiency_format", "efficiency_format_attention"}  # fmt: skip


def test_cli_training_rows_whole_under_their_headers(sqlite_store, tmp_path):
    # Every cell under its own header, in the CSV and in the table: the CLI once wrote the
    # evidence URL under nvidia_accelerator and the accelerator name under evidence_url.
    import csv
    import io

    stored_rounds(sqlite_store, tmp_path)
    db = f"sqlite:///{tmp_path / 'tracker.db'}"
    args = ["--db", db, "perf", "--suite", "training", "--as-of", "2026-08-22"]
    result = CliRunner().invoke(cli, [*args, "--format", "csv"])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    found = [
        r
        for r in rows
        if (r["round"], r["regime"], r["accelerators"], r["benchmark"])
        == ("v5.1", "rocm", "8", "llama2_70b_lora")
    ]
    assert found == [V51_ROCM_AT_8]
    # the same row in the report's perf_training.csv, cell for cell (numbers as the CLI rounds)
    from tracker.report.training_section import training_csv_rows

    figures = training_figures(
        sqlite_store.perf_results(datetime(2026, 8, 22, tzinfo=UTC), "training_result"),
        ["cuda", "rocm", "xla", "neuron"],
    )
    report = [
        r
        for r in training_csv_rows(figures)
        if (r["round"], r["regime"], r["benchmark"], r["accelerators"])
        == ("v5.1", "rocm", "llama2_70b_lora", 8)
    ]
    assert [str(report[0][c]) for c in V51_ROCM_AT_8 if c not in ROUNDED] == [  # fmt: skip
        v for c, v in V51_ROCM_AT_8.items() if c not in ROUNDED
    ]
    # the table: each cell starts where its header starts
    table = CliRunner().invoke(cli, args)
    assert table.exit_code == 0, table.output
    header, _rule, *lines = table.stdout.splitlines()
    names = header.split()
    starts = [header.index(f"  {n} ") + 2 if i else 0 for i, n in enumerate(names[:-1])]
    starts.append(header.rindex(names[-1]))
    line = next(x for x in lines if x.startswith("v5.1") and " rocm " in x and "lora   8 " in x)
    cells = {
        n: line[a:b].strip() for n, a, b in zip(names, starts, [*starts[1:], None], strict=True)
    }
    assert cells == {k: v for k, v in V51_ROCM_AT_8.items() if k in names}
    assert "evidence_url" not in names and len(names) == 22


def test_every_shared_benchmark_and_count_against_nvidias_best(store, tmp_path):
    # Every benchmark and accelerator count where a regime other than CUDA submitted, scored
    # from the cassettes' real logs: AMD's llama3.1-8b at 8 in v5.1 (MI355X 99.71 min vs
    # GB300 67.37 min), MangoBoost's two- and four-node MI300X/MI325X LoRA sets, Google's TPU v5p
    # stable diffusion at 8 (16 TensorCores) in v4.1.
    results = stored_rounds(store, tmp_path, extra=("mlperf-training-v4-1",))
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    rows = {(r.round, r.benchmark, r.accelerators, r.regime): r for r in figures.rows}
    b8 = rows[("v5.1", "llama31_8b", 8, "rocm")]
    assert (b8.best.part, b8.nvidia.part) == ("MI355X", "GB300")
    assert (round(b8.best.minutes, 2), round(b8.nvidia.minutes, 2)) == (99.71, 67.37)
    assert b8.ratio == pytest.approx(1.480, abs=5e-4)
    sd = rows[("v4.1", "stable_diffusion", 8, "xla")]
    assert (sd.best.system, sd.nvidia.system) == (
        "cloud-tpu-v5p-16-maxdiffusion",
        "b200_preview_nemo",
    )
    assert sd.ratio == pytest.approx(49.6766 / 19.5171, abs=5e-4)
    compared = {(r.round, r.benchmark, r.accelerators, r.regime) for r in figures.compared()}
    assert compared == {
        ("v4.1", "gpt3", 512, "xla"), ("v4.1", "gpt3", 3072, "xla"),
        ("v4.1", "stable_diffusion", 8, "xla"), ("v4.1", "stable_diffusion", 64, "xla"),
        ("v4.1", "stable_diffusion", 512, "xla"), ("v4.1", "stable_diffusion", 1024, "xla"),
        ("v5.0", "bert", 8, "rocm"), ("v5.0", "llama2_70b_lora", 8, "rocm"),
        ("v5.0", "llama2_70b_lora", 16, "rocm"), ("v5.0", "llama2_70b_lora", 32, "rocm"),
        ("v5.1", "llama2_70b_lora", 8, "rocm"), ("v5.1", "llama2_70b_lora", 16, "rocm"),
        ("v5.1", "llama31_8b", 8, "rocm"),
    }  # fmt: skip


def test_realized_efficiency_and_format_adoption_from_the_logs(store, tmp_path):
    # v5.0 and v5.1 llama2_70b_lora at 8: throughput from the run logs' samples_count and
    # run_start/run_stop, the format from the system file or the submission's configs (ledger),
    # efficiency over the dense peaks of data/accelerator_peaks.yaml.
    results = stored_rounds(store, tmp_path, extra=("mlperf-training-v4-1", "mlperf-training-v6-0"))
    figures = training_figures(results, ["cuda", "rocm", "xla", "neuron"])
    rows = {(r.round, r.benchmark, r.accelerators, r.regime): r for r in figures.rows}

    def shown(key):
        e = rows[key].best.realized
        return (round(e.tokens_per_s), e.used.label, *(round(x, 3) for x in e.bf16),
                *(round(x, 3) for x in e.at_format))  # fmt: skip

    assert shown(("v5.1", "llama2_70b_lora", 8, "rocm")) == (5327, "FP8", 0.582, 0.65, 0.291, 0.325)
    assert shown(("v5.1", "llama2_70b_lora", 8, "cuda")) == (
        9015, "FP4", 0.991, 1.107, 0.165, 0.185)  # fmt: skip
    assert shown(("v5.0", "llama2_70b_lora", 8, "rocm")) == (
        2544, "FP8", 0.535, 0.597, 0.267, 0.299)  # fmt: skip
    assert shown(("v5.0", "llama2_70b_lora", 8, "cuda")) == (
        4931, "FP8", 0.542, 0.606, 0.271, 0.303)  # fmt: skip
    # a set whose submission names no format: "not stated", no efficiency at a format
    mango = rows[("v5.0", "llama2_70b_lora", 16, "rocm")].best.realized
    assert mango.used.label == "not stated" and mango.at_format == (None, None)
    assert mango.bf16[0] is not None  # the BF16 peak needs no format
    # stable diffusion: throughput in samples, no FLOPs convention, no efficiency
    sd = rows[("v4.1", "stable_diffusion", 8, "xla")].best.realized
    assert round(sd.samples_per_s, 2) == 85.81 and sd.convention is None and sd.bf16 == (None, None)
    adoption = {(a.regime, a.format): a for a in figures.adoption}
    fp4 = adoption[("rocm", "fp4")]
    assert (fp4.first_round, fp4.nvidia_round, fp4.lag_days, fp4.bound) == (
        "v6.0", "v5.1", 216, "exact")  # fmt: skip
    assert "AMD/results/MI355X_EPYC_9575F_primus" in fp4.evidence
    assert "config_common_fp4.sh" in fp4.nvidia_evidence
    fp8 = adoption[("rocm", "fp8")]
    # NVIDIA's v4.1 FP8 is its first stated in the rounds read: a lower bound
    assert (fp8.first_round, fp8.nvidia_round, fp8.lag_days, fp8.bound) == (
        "v5.0", "v4.1", 203, "at least")  # fmt: skip
    assert adoption[("xla", "fp4")].bound == "not stated"  # TPU's sets name no format


def test_a_run_log_names_its_samples_and_precision():
    from tracker.collect.sources.mlperf_training import read_run

    run = read_run(
        ':::MLLOG {"time_ms": 1, "key": "lowest_numerical_precision_linear", "value": "mxfp4"}\n'
        ':::MLLOG {"time_ms": 5, "key": "run_start"}\n'
        ':::MLLOG {"time_ms": 7, "key": "eval_accuracy", "metadata": {"samples_count": 96}}\n'
        ':::MLLOG {"time_ms": 9, "key": "run_stop", "metadata": {"status": "success"}}\n'
    )
    assert (run["samples"], run["precision"]) == (96, "mxfp4")
    stop = read_run(
        ':::MLLOG {"time_ms": 5, "key": "run_start"}\n'
        ':::MLLOG {"time_ms": 7, "key": "eval_accuracy", "metadata": {"samples_count": 96}}\n'
        ':::MLLOG {"time_ms": 9, "key": "run_stop", "metadata": {"status": "success", '
        '"samples_count": 128}}\n'
    )
    assert stop["samples"] == 128 and "precision" not in stop
