"""Serving engines combined per regime (tracker.measure.models.engines) on hand-made facts."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tracker.config.coverage import parse_model_coverage
from tracker.errors import ConfigError
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.measure.models.lag import model_lag_samples
from tracker.mentions.families import load_families

AS_OF = datetime(2026, 1, 1, tzinfo=UTC)
RULE = {
    "project": "models",
    "artifact": "model",
    "day0": ["engine_cuda", "vllm_cuda"],
    "regimes": {
        "cuda": [
            {"definition": "any_engine", "primary": True, "engines": ["vllm_release", "sg"]},
            {"definition": "vllm_release", "engine": "vllm",
             "evidence": {"project": "vllm", "kind": "model_registry"}},
            {"definition": "sg", "engine": "sglang",
             "evidence": {"project": "sglang-models", "kind": "note"}},
        ],
        "rocm": [
            {"definition": "any_engine", "primary": True, "engines": ["amd_list", "sg_rocm"]},
            {"definition": "amd_list", "engine": "vllm",
             "evidence": {"project": "amd", "kind": "note"}},
            {"definition": "sg_rocm", "engine": "sglang",
             "evidence": {"project": "sglang-models", "kind": "note", "image": "sg-docker"}},
        ],
    },
}  # fmt: skip


def d(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def listing(fam: str, when: str, project: str = "sglang-models") -> NoteFact:
    return NoteFact(project, d(when), f"https://x/{project}/{fam}", (),
                    ((fam, "supported", "Supported models"),), "cuda")  # fmt: skip


def run(notes, releases=()):
    rules = parse_model_coverage([RULE], "test")
    unknown: list = []
    out = model_lag_samples(rules, load_families(), list(releases), notes, AS_OF, LagRun(unknown))
    return {(s.series, s.regime, s.definition, s.day0_definition): s for s in out}, unknown


BASE = listing("mixtral", "2024-11-05")  # the first page read: its families are baseline
IMAGES = [
    ReleaseFact("sg-docker", "0.4.5", d("2025-04-07"), "https://hub/v0.4.5"),
    ReleaseFact("sg-docker", "0.4.6.post5", d("2025-05-24"), "https://hub/v0.4.6.post5"),
]
AMD_WINDOW = NoteFact("amd", d("2025-01-01"), "https://x/amd/first-list", ())  # names nothing


def test_any_engine_takes_the_earliest_engine_and_keeps_its_url():
    notes = [
        BASE,
        AMD_WINDOW,
        listing("qwen3", "2025-04-29"),
        listing("qwen3", "2025-10-06", "amd"),
    ]
    rows, _ = run(notes, IMAGES)
    rocm = rows[("qwen3", "rocm", "any_engine", "engine_cuda")]
    # vLLM v0.8.4 (the table's 2025-04-14) is qwen3's first CUDA engine; on ROCm SGLang's first
    # image after its listing (2025-04-29) wins over AMD's list
    assert rocm.primary and rocm.status == "covered"
    assert (rocm.available, rocm.evidence_url) == (d("2025-05-24"), "https://hub/v0.4.6.post5")
    assert rocm.lag_days == 40
    assert rows[("qwen3", "rocm", "amd_list", "engine_cuda")].lag_days == 175
    assert rows[("qwen3", "rocm", "sg_rocm", "engine_cuda")].engine == "sglang"
    assert not rows[("qwen3", "rocm", "sg_rocm", "engine_cuda")].primary


def test_engine_cuda_day0_is_the_earliest_engine_and_sglang_can_be_first():
    rows, _ = run([BASE, listing("gemma3", "2025-03-17"), listing("gemma3", "2025-06-01", "amd")])
    cuda = rows[("gemma3", "cuda", "any_engine", "engine_cuda")]
    assert cuda.day0 == d("2025-03-17") and cuda.lag_days == 0  # before vLLM v0.8.0 (03-19)
    # under vllm_cuda the same SGLang listing is two days *before* day 0: kept and flagged
    early = rows[("gemma3", "cuda", "sg", "vllm_cuda")]
    assert early.lag_days < 0 and early.negative


def test_baseline_listing_never_dates_a_day0_and_missing_image_leaves_open():
    rows, unknown = run([BASE, AMD_WINDOW, listing("gpt-oss", "2025-09-07")], IMAGES)
    # mixtral is on the first page read (2024-11-05): vLLM's v0.2.4 (2023) is its engine_cuda
    assert rows[("mixtral", "cuda", "any_engine", "engine_cuda")].day0.year == 2023
    # gpt-oss: no vLLM date in the table, so SGLang's listing is its day 0; no SGLang image
    # after the listing and AMD's list never names it: open on ROCm, not unknown
    gpt = rows[("gpt-oss", "rocm", "any_engine", "engine_cuda")]
    assert gpt.day0 == d("2025-09-07") and gpt.status == "open"
    # a family whose day 0 precedes one engine's evidence is unknown under any_engine, not open
    assert any(u.series == "mixtral" and u.definition == "any_engine" for u in unknown)
    assert ("mixtral", "rocm", "any_engine", "engine_cuda") not in rows


def test_baseline_family_listed_before_every_other_engine_has_no_engine_cuda_day0():
    rows, unknown = run([listing("kimi-linear", "2024-11-05")])
    assert ("kimi-linear", "cuda", "any_engine", "engine_cuda") not in rows
    why = [u.reason for u in unknown if u.series == "kimi-linear" and u.definition == "engine_cuda"]
    assert why and "history starts" in why[0]


def test_engines_entry_must_name_engine_definitions_of_its_regime():
    bad = {**RULE, "regimes": {"cuda": [
        {"definition": "any_engine", "primary": True, "engines": ["nope"]},
        {"definition": "vllm_release", "engine": "vllm",
         "evidence": {"project": "vllm", "kind": "model_registry"}}]}}  # fmt: skip
    with pytest.raises(ConfigError, match="'nope'"):
        parse_model_coverage([bad], "test")
