"""An independent benchmark in the model layer: first configurations per family and regime, the
NVIDIA / AMD pair, the benchmark_cuda day 0 and the independent_benchmark rows, on hand-built
configuration notes shaped like the InferenceX ones (real families, runners and frameworks)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tracker.config.coverage import parse_model_coverage
from tracker.errors import ConfigError
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import BenchConfig, NoteFact
from tracker.measure.models.benchmark import benchmark_day0, benchmark_figures, first_configs
from tracker.measure.models.lag import model_lag_samples
from tracker.mentions.families import parse_families

AS_OF = datetime(2026, 8, 22, tzinfo=UTC)
TABLE = parse_families(
    {
        "vllm_releases": {},
        "families": [
            {"id": "glm-5", "aliases": ["GLM-5"]},
            {"id": "kimi-k3", "aliases": ["Kimi-K3"]},
            {"id": "deepseek-r1", "aliases": ["DeepSeek-R1"]},
            {"id": "kimi-k2.6", "aliases": ["Kimi-K2.6"]},
        ],
    },
    "test",
)


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def config(when: str, family: str, regime: str, runner: str, fw: str = "vllm", base=False):
    hardware = runner.rsplit(":", 1)[-1].split("-")[0]
    return NoteFact(
        "bench",
        day(when),
        f"https://github.com/o/r/commit/{when}-{runner}",
        (),
        ((family, "supported", ""),),
        regime,
        config=BenchConfig(regime, hardware, runner, fw, f"org/{family}", base),
    )


NOTES = [
    config("2025-11-03T18:05:50", "deepseek-r1", "cuda", "b200", "trt", base=True),
    config("2025-11-03T18:05:50", "deepseek-r1", "rocm", "mi355x", "sglang", base=True),
    config("2026-03-07T04:37:40", "glm-5", "rocm", "mi355x", "sglang"),
    config("2026-03-19T06:26:37", "glm-5", "cuda", "h200", "sglang"),
    config("2026-04-01T00:00:00", "glm-5", "cuda", "b200", "vllm"),  # later: not the first
    config("2026-07-28T15:55:41", "kimi-k3", "cuda", "b300", "vllm"),
    config("2026-08-12T16:28:29", "kimi-k3", "rocm", "cluster:mi355x-amds", "vllm"),
    config("2026-07-15T14:47:40", "kimi-k2.6", "cuda", "b300", "vllm"),
    config("2026-05-01T00:00:00", "kimi-k3", "unknown", "tpu7x-pod"),  # on no regime
    config("2026-05-02T00:00:00", "glm-5", "unknown", "tpu7x-pod"),
]


def test_first_configuration_per_family_and_regime_skips_unknown_runners():
    first = first_configs(NOTES, "bench")
    assert first[("glm-5", "rocm")].when == day("2026-03-07T04:37:40")
    assert first[("glm-5", "cuda")].hardware == "h200"
    assert first[("kimi-k3", "cuda")].when == day("2026-07-28T15:55:41")  # not the tpu7x-pod one
    assert all(regime != "unknown" for _, regime in first)
    assert first_configs(NOTES, "other") == {}


def test_pairs_days_apart_open_and_baseline():
    fig = benchmark_figures(NOTES, "bench", AS_OF)
    pairs = {p.family: p for p in fig.pairs}
    assert pairs["glm-5"].days == -12  # AMD first: 2026-03-07 against 2026-03-19
    assert pairs["glm-5"].reference.framework == "sglang"
    assert pairs["kimi-k3"].days == 15
    assert pairs["kimi-k3"].other.runner == "cluster:mi355x-amds"
    assert pairs["kimi-k2.6"].other is None and pairs["kimi-k2.6"].days is None
    assert pairs["deepseek-r1"].days is None  # configured by the first commit read: unknown
    assert [p.family for p in fig.pairs] == ["deepseek-r1", "glm-5", "kimi-k2.6", "kimi-k3"]
    (runner,) = fig.unknown_runners
    assert (runner.runner, runner.hardware, runner.entries) == ("tpu7x-pod", "tpu7x", 2)
    assert fig.entries == len(NOTES) and fig.commits == len({n.url for n in NOTES})


def test_as_of_leaves_later_configurations_out():
    fig = benchmark_figures(NOTES, "bench", day("2026-08-01T00:00:00"))
    pairs = {p.family: p for p in fig.pairs}
    assert pairs["kimi-k3"].other is None  # the AMD recipe landed on 2026-08-12


def test_benchmark_day0_is_the_first_nvidia_configuration_unless_baseline():
    known, why = benchmark_day0(NOTES, "bench")
    assert known["glm-5"] == (day("2026-03-19T06:26:37"), NOTES[3].url)
    assert "deepseek-r1" not in known and "since when is not known" in why["deepseek-r1"]


RAW_RULE = {
    "project": "models",
    "artifact": "model",
    "day0": ["benchmark_cuda"],
    "regimes": {
        "cuda": [
            {
                "definition": "vllm_release",
                "primary": True,
                "evidence": {"project": "vllm", "kind": "model_registry"},
            },
            {
                "definition": "independent_benchmark",
                "evidence": {"project": "bench", "kind": "benchmark_config"},
            },
        ],
        "rocm": [
            {
                "definition": "rocm_vllm_docker",
                "primary": True,
                "evidence": {"project": "vllm-rocm-docker", "kind": "note"},
            },
            {
                "definition": "independent_benchmark",
                "evidence": {"project": "bench", "kind": "benchmark_config"},
            },
        ],
    },
}


def test_independent_benchmark_rows_are_the_pair_under_benchmark_cuda():
    (rule,) = parse_model_coverage([RAW_RULE], "test")
    unknown: list = []
    samples = model_lag_samples([rule], TABLE, [], NOTES, AS_OF, LagRun(unknown))
    rows = {
        s.series: s
        for s in samples
        if s.regime == "rocm" and s.definition == "independent_benchmark"
    }
    pairs = {p.family: p for p in benchmark_figures(NOTES, "bench", AS_OF).pairs}
    for fam in ("glm-5", "kimi-k3"):
        assert rows[fam].status == "covered" and rows[fam].lag_days == pairs[fam].days
        assert rows[fam].evidence_url == pairs[fam].other.url
        assert rows[fam].day0_url == pairs[fam].reference.url
        assert not rows[fam].primary  # beside the engines' definitions, never the headline
    assert rows["kimi-k2.6"].status == "open" and rows["kimi-k2.6"].lag_days == 38
    assert "deepseek-r1" not in rows  # no benchmark_cuda day 0 (baseline)
    assert ("models", "deepseek-r1", "benchmark_cuda") in {
        (u.project, u.series, u.definition) for u in unknown if u.day0_unknown
    }


def test_benchmark_cuda_day0_needs_a_cuda_benchmark_entry():
    raw = {**RAW_RULE, "regimes": {**RAW_RULE["regimes"], "cuda": RAW_RULE["regimes"]["cuda"][:1]}}
    with pytest.raises(ConfigError, match="benchmark_cuda needs a cuda entry"):
        parse_model_coverage([raw], "test")


def test_a_family_the_benchmark_never_ran_is_unknown_not_open():
    """Under a day 0 of its own (first public weights), a family the benchmark configured on
    no hardware says nothing of any regime: unknown on both, never "open" (not benchmarked is
    not late); one configured on NVIDIA only stays open on AMD."""
    table = parse_families(
        {
            "vllm_releases": {},
            "families": [
                {"id": "kimi-k2.6", "aliases": ["Kimi-K2.6"],
                 "weights": {"date": "2026-07-10", "url": "https://hf.co/k26"}},
                {"id": "mistral-large-3", "aliases": ["Mistral-Large-3"],
                 "weights": {"date": "2025-12-02", "url": "https://hf.co/ml3"}},
            ],
        },
        "test",
    )  # fmt: skip
    (rule,) = parse_model_coverage([dict(RAW_RULE, day0=["public_weights"])], "test")
    unknown: list = []
    samples = model_lag_samples([rule], table, [], NOTES, AS_OF, LagRun(unknown))
    rows = {(s.series, s.regime): s for s in samples if s.definition == "independent_benchmark"}
    assert rows[("kimi-k2.6", "rocm")].status == "open"  # run on NVIDIA, not yet on AMD
    assert ("mistral-large-3", "rocm") not in rows and ("mistral-large-3", "cuda") not in rows
    reasons = {
        (u.series, u.regime): u.reason for u in unknown if u.definition == "independent_benchmark"
    }
    assert reasons[("mistral-large-3", "rocm")] == "bench configured it on no hardware"
    assert reasons[("mistral-large-3", "cuda")] == "bench configured it on no hardware"
