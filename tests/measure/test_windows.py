"""Censoring where we stopped looking: observation windows (a stream observed until a day),
supersession (a series covered by a newer one) and silent channels, on real-shaped records.

Real facts: vLLM 0.11.0 2025-10-04, 0.12.0 2025-12-04, 0.13.0 2025-12-19, 0.14.0 2026-01-20,
0.15.0 2026-01-29, 0.16.0 2026-02-25, 0.17.0 2026-03-07, 0.18.0 2026-03-20 (GitHub releases of
vllm-project/vllm); AMD's images rocm/vllm:rocm6.4.1_vllm_0.9.1_20250715 and
rocm7.0.0_vllm_0.11.1_20251103 (Docker Hub, dated by their build stamps) and the rocm/vllm tag
list snapshot of 2026-01-23 (cassettes/vllm-rocm-docker.yaml); tpu-inference v0.12.0 tagged
2025-12-06, v0.13.2 2025-12-30 and v0.18.0 2026-04-17 (vllm-project/tpu-inference tags);
PyTorch 2.9.0 2025-10-14
... 2.13.0 2026-07-08 and torch_xla 2.9.0 on PyPI 2025-11-17 (pypi.org/project/torch-xla).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

import pytest

from tracker.config.coverage import EvidenceRule, parse_coverage
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact, lag_samples
from tracker.measure.lag.silent import silent_channels
from tracker.measure.lag.windows import Windows, definition_sources, delivered_channels


def day(y: int, m: int, d: int, hh: int = 0, mm: int = 0) -> datetime:
    return datetime(y, m, d, hh, mm, tzinfo=UTC)


def end_of(y: int, m: int, d: int) -> datetime:
    return datetime.combine(date(y, m, d), time.max, tzinfo=UTC)


AS_OF = end_of(2026, 8, 22)
VLLM = [
    ("0.11.0", day(2025, 10, 4)),
    ("0.12.0", day(2025, 12, 4)),
    ("0.13.0", day(2025, 12, 19, 3, 2)),
    ("0.14.0", day(2026, 1, 20, 9, 20)),
    ("0.15.0", day(2026, 1, 29, 10, 21)),
    ("0.16.0", day(2026, 2, 25)),
    ("0.17.0", day(2026, 3, 7)),
    ("0.18.0", day(2026, 3, 20)),
]
UPSTREAM = [
    ReleaseFact(
        "vllm", v, when, f"https://github.com/vllm-project/vllm/releases/tag/v{v}", source_id="vr"
    )
    for v, when in VLLM
]
VLLM_RULE = {
    "project": "vllm",
    "series": "minor",
    "regimes": {
        "rocm": [
            {
                "definition": "rocm_vllm_docker",
                "primary": True,
                "evidence": {"project": "vllm-rocm-docker", "kind": "release"},
            }
        ],
        "xla": [
            {
                "definition": "tpu_inference_release",
                "primary": True,
                "evidence": {"project": "tpu-inference", "kind": "release"},
            }
        ],
    },
}
ROCM_IMAGE = ReleaseFact(
    "vllm-rocm-docker",
    "0.11.1",
    day(2025, 11, 3),
    "https://hub.docker.com/r/rocm/vllm/tags?name=rocm7.0.0_vllm_0.11.1_20251103",
    source_id="vllm-rocm-docker",
)
FIRST_IMAGE = ReleaseFact(
    "vllm-rocm-docker",
    "0.9.1",
    day(2025, 7, 15),
    "https://hub.docker.com/r/rocm/vllm/tags?name=rocm6.4.1_vllm_0.9.1_20250715",
    source_id="vllm-rocm-docker",
)
TPU_012, TPU_0132 = (
    ReleaseFact(
        "tpu-inference",
        version,
        when,
        f"https://github.com/vllm-project/tpu-inference/releases/tag/v{version}",
        source_id="tpu-inference-tags",
    )
    for version, when in (("0.12.0", day(2025, 12, 6, 6, 55)), ("0.13.2", day(2025, 12, 30, 8, 49)))
)
TPU_018 = ReleaseFact(
    "tpu-inference",
    "0.18.0",
    day(2026, 4, 17, 16, 54),
    "https://github.com/vllm-project/tpu-inference/releases/tag/v0.18.0",
    source_id="tpu-inference-tags",
)


def rows(samples, regime):
    return {s.series: s for s in samples if s.regime == regime}


def test_a_stream_observed_until_a_day_censors_there_and_later_series_are_unknown():
    """The rocm/vllm tag list is a snapshot of 2026-01-23: an open series ages to that day,
    not to as-of, and a series released after it is unknown ("not observed since")."""
    facts = [*UPSTREAM, FIRST_IMAGE, ROCM_IMAGE, TPU_018]
    windows = Windows(delivered_channels(facts), {"vllm-rocm-docker": end_of(2026, 1, 23)})
    unknown: list = []
    samples = lag_samples(
        parse_coverage([VLLM_RULE]), facts, [], AS_OF, LagRun(unknown), windows=windows
    )
    rocm = rows(samples, "rocm")
    assert (rocm["0.11"].status, rocm["0.11"].lag_days) == ("covered", 30)  # evidence is evidence
    assert (rocm["0.12"].status, rocm["0.12"].lag_days) == ("open", 50)  # 2025-12-04 .. 01-23
    assert rocm["0.12"].observed_through == end_of(2026, 1, 23)
    assert (rocm["0.14"].status, rocm["0.14"].lag_days) == ("open", 3)
    later = {u.series: u.reason for u in unknown if u.definition == "rocm_vllm_docker"}
    assert set(later) == {"0.15", "0.16", "0.17", "0.18"} and not set(later) & set(rocm)
    assert later["0.15"].startswith("not observed since 2026-01-23")
    # no open row ages past where its definition was looked at
    for s in samples:
        if s.status == "open":
            assert s.observed_through is not None
            assert s.lag_days == (s.observed_through.date() - s.day0.date()).days


def test_a_skipped_series_is_covered_by_the_newer_one_the_regime_ships():
    """tpu-inference shipped no 0.14-0.17: its 0.18 (2026-04-17) covers them, named."""
    unknown: list = []
    samples = lag_samples(
        parse_coverage([VLLM_RULE]), [*UPSTREAM, TPU_012, TPU_018], [], AS_OF, LagRun(unknown)
    )
    xla = rows(samples, "xla")
    for series, lag in (("0.14", 87), ("0.15", 78), ("0.16", 51), ("0.17", 41)):
        assert (xla[series].status, xla[series].lag_days) == ("covered", lag)
        assert xla[series].covered_by == "0.18"
        assert xla[series].available == TPU_018.occurred_at
        assert xla[series].evidence_url == TPU_018.url
    assert (xla["0.18"].lag_days, xla["0.18"].covered_by) == (28, "")  # its own evidence
    # 0.11 precedes the stream (2025-12-06): a newer series' evidence does not make it known
    assert "0.11" not in xla and any(u.series == "0.11" for u in unknown)


def test_own_evidence_is_kept_and_older_evidence_covers_nothing_newer():
    facts = [*UPSTREAM, TPU_012, TPU_0132, TPU_018]
    xla = rows(lag_samples(parse_coverage([VLLM_RULE]), facts, [], AS_OF), "xla")
    assert (xla["0.12"].covered_by, xla["0.12"].lag_days) == ("", 2)
    assert (xla["0.13"].covered_by, xla["0.13"].lag_days) == ("", 11)
    assert xla["0.14"].covered_by == "0.18"  # 0.13.2 is older than 0.14: it covers no 0.14


def test_definition_sources_read_what_each_source_delivers():
    """One mapping for a definition of one or several rules: sources delivering the project's
    facts of the rule's kind; a mentions rule reads notes naming its framework."""
    matrix = NoteFact(
        "rocm",
        day(2025, 11, 26),
        "https://rocm.docs.amd.com/en/docs-7.1.1/compatibility/compatibility-matrix.html",
        (("pytorch", "2.9", "supported"),),
        source_id="rocm-compat-matrix",
    )
    release_notes = NoteFact("rocm", day(2025, 2, 19), "u-rn", (), source_id="rocm-release-notes")
    delivered = delivered_channels([matrix, release_notes, ROCM_IMAGE, TPU_018])
    vendor = EvidenceRule("rocm", "vendor_matrix", True, "rocm", "note", "pytorch")
    images = EvidenceRule("rocm", "rocm_vllm_docker", True, "vllm-rocm-docker", "release")
    tpu = EvidenceRule("xla", "tpu_inference_release", True, "tpu-inference", "release")
    assert definition_sources([vendor], delivered) == {"rocm-compat-matrix"}
    assert definition_sources([images, tpu], delivered) == {
        "vllm-rocm-docker",
        "tpu-inference-tags",
    }
    # the earliest window of all its channels' sources, never after as-of
    windows = Windows(
        delivered,
        {"vllm-rocm-docker": end_of(2026, 1, 23), "tpu-inference-tags": end_of(2026, 8, 22)},
    )
    assert windows.through([images, tpu], AS_OF) == end_of(2026, 1, 23)
    assert windows.through([tpu], day(2026, 5, 1)) == day(2026, 5, 1)


PYTORCH = [
    ("2.9.0", day(2025, 10, 14)),
    ("2.10.0", day(2026, 1, 20)),
    ("2.11.0", day(2026, 3, 23)),
    ("2.12.0", day(2026, 5, 12)),
    ("2.13.0", day(2026, 7, 8)),
]
XLA_RULE = {
    "project": "pytorch",
    "series": "minor",
    "regimes": {
        "xla": [
            {
                "definition": "torch_xla_release",
                "primary": True,
                "evidence": {"project": "torch-xla", "kind": "release"},
            }
        ]
    },
}


def test_a_channel_silent_while_upstream_released_three_series_is_listed():
    """PyTorch/XLA stopped at 2.9 (PyPI 2025-11-17) while PyTorch released 2.10-2.13."""
    facts = [
        *(ReleaseFact("pytorch", v, when, f"u-{v}", source_id="pt") for v, when in PYTORCH),
        ReleaseFact(
            "torch-xla",
            "2.9.0",
            day(2025, 11, 17, 21, 23),
            "https://pypi.org/project/torch-xla/2.9.0/",
            source_id="pypi-torch-xla",
        ),
    ]
    spans: dict = {}
    windows = Windows(delivered_channels(facts), {"pypi-torch-xla": end_of(2026, 4, 23)})
    samples = lag_samples(
        parse_coverage([XLA_RULE]), facts, [], AS_OF, LagRun(spans=spans), windows
    )
    [silent] = silent_channels(samples, spans, AS_OF, 3)
    assert silent.row() | {"hint": ""} == {
        "project": "pytorch",
        "regime": "xla",
        "definition": "torch_xla_release",
        "last_evidence": "2025-11-17",
        "observed_through": "2026-04-23",
        "series_released_since": 4,
        "newest_series": "2.13",
        "hint": "",
    }
    assert "moved" in silent.row()["hint"]
    assert silent_channels(samples, spans, AS_OF, 5) == []  # configurable: 4 < 5


def test_silent_after_series_is_a_checked_report_setting():
    from tracker.config.report import parse_report_settings
    from tracker.errors import ConfigError

    assert parse_report_settings(None, "s.yaml").silent_after_series == 3
    assert parse_report_settings({"silent_after_series": 5}, "s.yaml").silent_after_series == 5
    for bad in (0, "3", True, 2.5):
        with pytest.raises(ConfigError, match="s.yaml: report: silent_after_series"):
            parse_report_settings({"silent_after_series": bad}, "s.yaml")
