"""The kernel layer: the ledger, the cells it dates (covered, open, unknown with a reason), the
report's matrix and medians, and its absence from the headline answer's pool."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tracker.errors import ConfigError
from tracker.measure.headline.answer import answers
from tracker.measure.kernels.lag import KernelFact, kernel_lag_samples
from tracker.measure.kernels.ledger import load_ledger, parse_ledger
from tracker.measure.kernels.summary import closed_cells, kernel_csv_rows, kernel_layer
from tracker.measure.lag.rows import LagRun, LagSample
from tracker.measure.stats.trend import POOLED, lag_trends

AS_OF = datetime(2026, 8, 22, 23, 59, tzinfo=UTC)


def t(text: str) -> datetime:
    return datetime.fromisoformat(text).astimezone(UTC)


LEDGER = {
    "features": [
        {
            "id": "mla_decode",
            "name": "MLA decode",
            "library": "flashmla",
            "cuda": {"kind": "commit", "project": "flashmla", "path": "k.h", "sha": "414a2f3e"},
            "regimes": {
                "rocm": {
                    "kind": "commit",
                    "project": "aiter",
                    "path": "aiter/mla.py",
                    "pr": 161,
                    "channel": "AMD's aiter library",
                },
                "xla": {"kind": "release", "project": "tpu-inference", "version": "0.12.0"},
                "neuron": {"kind": "release_note", "project": "neuron-sdk", "match": "MLA kernel"},
            },
        },  # fmt: skip
        {
            "id": "flash_attention_2",
            "name": "FlashAttention-2",
            "library": "flash-attention",
            "cuda": {"kind": "release", "project": "flash-attention", "version": "2.0.0"},
            "regimes": {
                "rocm": {
                    "kind": "release",
                    "project": "flash-attention",
                    "version": "2.6.2",
                    "label": "beta",
                },
                "xla": {"kind": "open", "project": "jax", "reason": "none yet"},
            },
        },  # fmt: skip
    ]
}
FACTS = [
    KernelFact("flashmla", "commit", t("2025-02-24T09:20:23+08:00"),
               "https://github.com/deepseek-ai/FlashMLA/commit/414a2f3e",
               attrs={"sha": "414a2f3eedeb", "path": "k.h"}),
    # a later commit on the same aiter path, and one naming the PR on another path: neither
    KernelFact("aiter", "commit", t("2025-03-10T00:00:00Z"), "https://x/later",
               attrs={"sha": "b" * 40, "path": "aiter/mla.py", "pr": 200, "since": "2024-11-01"}),
    KernelFact("aiter", "commit", t("2025-02-20T00:00:00Z"), "https://x/other-path",
               attrs={"sha": "c" * 40, "path": "other.py", "pr": 161, "since": "2024-11-01"}),
    KernelFact("aiter", "commit", t("2025-02-28T23:19:15+08:00"),
               "https://github.com/ROCm/aiter/commit/ef6d4db6",
               attrs={"sha": "ef6d4db6", "path": "aiter/mla.py", "pr": 161, "since": "2024-11-01"}),
    KernelFact("tpu-inference", "release", t("2025-10-15T15:27:33-07:00"), "https://x/v0.11.1",
               version="0.11.1"),
    KernelFact("tpu-inference", "release", t("2025-12-05T22:55:20-08:00"),
               "https://github.com/vllm-project/tpu-inference/releases/tag/v0.12.0",
               version="0.12.0"),
    KernelFact("neuron-sdk", "note", t("2026-01-01T00:00:00Z"), "https://x/n1", text="a note"),
    KernelFact("flash-attention", "release", t("2023-07-17T06:21:34-07:00"),
               "https://github.com/Dao-AILab/flash-attention/releases/tag/v2.0.0",
               version="2.0.0"),
    KernelFact("flash-attention", "release", t("2024-07-20T00:00:00Z"), "https://x/rc",
               version="2.6.2rc1", attrs={"prerelease": True}),
    KernelFact("flash-attention", "release", t("2024-07-23T02:30:05-07:00"),
               "https://github.com/Dao-AILab/flash-attention/releases/tag/v2.6.2",
               version="2.6.2"),
    KernelFact("jax", "release", t("2023-01-01T00:00:00Z"), "https://x/jax", version="0.4.1"),
]  # fmt: skip


def cells(as_of=AS_OF, facts=FACTS):
    unknown: list = []
    ledger = parse_ledger(LEDGER, "test.yaml")
    samples = kernel_lag_samples(ledger, facts, as_of, LagRun(unknown))
    return ledger, samples, unknown, {(s.series, s.regime): s for s in samples}


def test_cells_are_dated_by_the_rule_the_ledger_names():
    _, samples, unknown, by = cells()
    assert all(s.artifact == "kernel" and s.day0_definition == "cuda_kernel" for s in samples)
    mla = by[("mla_decode", "rocm")]
    # the commit merging #161 on the path, not the later commit nor the PR on another path
    assert (mla.project, mla.lag_days, mla.status) == ("flashmla", 4, "covered")
    assert mla.evidence_url == "https://github.com/ROCm/aiter/commit/ef6d4db6"
    assert mla.definition == "aiter_commit"
    assert by[("mla_decode", "cuda")].lag_days == 0
    assert by[("mla_decode", "xla")].lag_days == 285  # the release, not the one before it
    fa = by[("flash_attention_2", "rocm")]
    assert fa.lag_days == 372 and fa.available == t("2024-07-23T02:30:05-07:00")  # not the rc
    # open: the ledger reads jax and finds nothing; censored at as-of
    xla = by[("flash_attention_2", "xla")]
    assert (xla.status, xla.lag_days, xla.evidence_url) == ("open", 1132, "")
    reasons = {(u.series, u.regime): u.reason for u in unknown}
    # neuron notes start after day 0 and name no MLA kernel: unknown, not open
    assert reasons[("mla_decode", "neuron")] == (
        "day 0 2025-02-24 precedes the first neuron-sdk notes collected (2026-01-01)"
    )
    assert reasons[("flash_attention_2", "neuron")] == "not tracked: not in the ledger"
    assert ("mla_decode", "neuron") not in by


def test_a_note_rule_matches_a_line_and_evidence_after_as_of_is_unseen():
    note = KernelFact("neuron-sdk", "note", t("2026-07-20T00:00:00Z"), "https://x/nki",
                      text="NKI library: new MLA kernel for decode")  # fmt: skip
    early = KernelFact("neuron-sdk", "note", t("2024-01-01T00:00:00Z"), "https://x/n0", text="x")
    _, _, _, by = cells(facts=[*FACTS, note, early])
    assert by[("mla_decode", "neuron")].evidence_url == "https://x/nki"
    _, _, unknown, by = cells(as_of=t("2025-03-01T00:00:00Z"), facts=[*FACTS, note, early])
    assert by[("mla_decode", "neuron")].status == "open"  # the stream reaches back, no line yet
    assert ("mla_decode", "xla") not in by  # tpu-inference releases start after day 0
    # a pre-release is not the release the rule names: open until 2.6.2 itself
    _, _, _, by = cells(as_of=t("2024-07-21T00:00:00Z"))
    assert by[("flash_attention_2", "rocm")].status == "open"


def test_day0_unknown_leaves_the_feature_out_with_its_reason():
    facts = [f for f in FACTS if f.project != "flashmla"]
    _, samples, unknown, _ = cells(facts=facts)
    assert not [s for s in samples if s.series == "mla_decode"]
    assert ("flashmla", "mla_decode", "cuda_kernel") in {
        (u.project, u.series, u.definition) for u in unknown if u.day0_unknown
    }


def test_matrix_medians_and_closings():
    ledger, samples, unknown, _ = cells()
    layer = kernel_layer(ledger, samples, unknown)
    assert [r.feature.id for r in layer.rows] == ["mla_decode", "flash_attention_2"]  # newest
    statuses = {(r.feature.id, g): c.status for r in layer.rows for g, c in r.cells.items()}
    assert statuses[("flash_attention_2", "neuron")] == "unknown"
    assert statuses[("flash_attention_2", "xla")] == "open"
    medians = {m.regime: m for m in layer.medians}
    assert (medians["rocm"].median, medians["rocm"].covered) == (4, 2)  # KM: S(4) = 0.5
    assert (medians["xla"].covered, medians["xla"].open) == (1, 1)
    assert (medians["neuron"].median, medians["neuron"].unknown) == (None, 2)
    rows = kernel_csv_rows(layer)
    assert len(rows) == 8 and {r["status"] for r in rows} == {"covered", "open", "unknown"}
    week_before = kernel_lag_samples(ledger, FACTS, t("2025-02-27T00:00:00Z"))
    closed = {(s.series, s.regime) for s in closed_cells(samples, week_before)}
    assert ("mla_decode", "rocm") in closed and ("mla_decode", "cuda") not in closed
    assert closed_cells(samples, samples) == []


def sample(regime, lag, status, artifact, day0):
    return LagSample("p", "s" + str(day0.toordinal()), regime, "d", True, day0, "https://d",
                     day0 + timedelta(days=lag) if status == "covered" else None, lag, status,
                     "https://e" if status == "covered" else "", False, artifact)  # fmt: skip


def test_kernel_rows_stay_out_of_the_headline_pool():
    base = datetime(2025, 9, 1, tzinfo=UTC)
    framework = [sample("rocm", 30 + 5 * i, "covered", "framework", base + timedelta(days=20 * i))
                 for i in range(8)]  # fmt: skip
    kernel = [sample("rocm", 900, "open", "kernel", base + timedelta(days=7 * i)) for i in range(9)]
    alone = lag_trends(framework, AS_OF, samples_n=200)
    mixed = lag_trends(framework + kernel, AS_OF, samples_n=200)
    pooled = [t for t in mixed if t.group == POOLED]
    assert [(t.artifacts, t.open) for t in pooled] == [(8, 0)]
    assert not [t for t in mixed if t.group == "p" and t.artifacts == 9]  # no kernel trend rows
    assert answers(mixed, ["rocm"], "cuda", AS_OF) == answers(alone, ["rocm"], "cuda", AS_OF)


def test_shipped_ledger_has_the_issue_features_on_every_regime():
    ledger = load_ledger()
    ids = [f.id for f in ledger]
    for word in ("flash_attention_2", "paged_kv", "memory_efficient_attention",
                 "bitsandbytes_4bit", "mla_decode", "fp8_blockscale_gemm", "sparse_mla",
                 "mxfp4", "nvfp4", "flashinfer"):  # fmt: skip
        assert any(word in i for i in ids), word
    assert all(set(f.regimes) == {"rocm", "xla", "neuron"} for f in ledger)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"cuda": {"kind": "open", "project": "x", "reason": "r"}}, "day 0 is a release"),
        ({"id": "Bad Id"}, "id must be"),
        ({"regimes": {"tpu": {"kind": "untracked", "reason": "r"}}}, "regimes must be"),
        ({"regimes": {"rocm": {"kind": "commit", "project": "aiter"}}}, "needs 'path'"),
        ({"regimes": {"rocm": {"kind": "listed", "project": "a", "match": "("}}}, "not a regular"),
        ({"regimes": {"rocm": {"kind": "release", "project": "a", "version": "1", "colour": 1}}},
         "unknown key 'colour'"),
    ],
)  # fmt: skip
def test_ledger_errors_name_the_file_feature_and_key(change, message):
    entry = {**LEDGER["features"][1], **change}
    with pytest.raises(ConfigError, match=message) as caught:
        parse_ledger({"features": [entry]}, "ledger.yaml")
    assert str(caught.value).startswith("ledger.yaml: feature ")
