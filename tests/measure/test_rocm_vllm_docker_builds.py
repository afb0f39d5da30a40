"""AMD's own vLLM images (rocm/vllm) are a channel whose builds any stored text can name
(issue 46): the shipped sources.yaml declares their pattern beside the rocm_vllm_docker
definition, and it reads the vLLM version (so the series) out of every naming scheme AMD used,
never a tag naming a vLLM commit, no version, or another repository (rocm/vllm-dev).

Tag names are real: AMD's vLLM docker history page (ROCm docs), the vLLM benchmark pages of
github.com/ROCm/ROCm, ROCm 7.13's and 7.14's documented images, vllm-project/vllm#28052."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tracker.jobs.config import load_config
from tracker.measure.lag.builds import TextRecord, build_facts, named_builds
from tracker.versions import series

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def rules():
    return load_config(REPO / "sources.yaml").coverage


def _channel(rules):
    (vllm,) = [r for r in rules if r.project == "vllm"]
    return next(e for e in vllm.evidence if e.definition == "rocm_vllm_docker")


@pytest.mark.parametrize(
    ("text", "version", "minor"),
    [
        ("rocm/vllm:rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4", "0.6.4", "0.6"),
        ("docker pull rocm/vllm:rocm6.3.1_instinct_vllm0.8.3_20250410", "0.8.3", "0.8"),
        ("``rocm/vllm:rocm6.4.1_vllm_0.9.0.1_20250605``", "0.9.0.1", "0.9"),
        ("docker.io/rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006", "0.10.2", "0.10"),
        ("FROM rocm/vllm:rocm7.0.0_vllm_0.11.2_20251210", "0.11.2", "0.11"),
        (
            "rocm/vllm:rocm7.13.0_gfx120X-all_ubuntu24.04_py3.13_pytorch_2.10.0_vllm_0.19.1",
            "0.19.1",
            "0.19",
        ),
        (
            "docker pull rocm/vllm:rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0",
            "0.23.0",
            "0.23",
        ),
    ],
)
def test_every_naming_scheme_is_read_as_the_vllm_series_it_carries(rules, text, version, minor):
    (pattern,) = _channel(rules).builds
    assert [v for v, _ in pattern.versions(text)] == [version]
    assert series(version, "minor") == minor


@pytest.mark.parametrize(
    "text",
    [
        "rocm/vllm:rocm6.2_mi300_ubuntu22.04_py3.9_vllm_7c5fd50",  # a vLLM commit
        "rocm/vllm:instinct_main",
        "rocm/vllm:latest",
        "rocm/vllm:rocm7.0_vllm_qwen3coder_next",
        "rocm/vllm-dev:nightly_main_20250911",  # AMD's dev repository, not the channel
        "rocm/vllm-dev:vllm-0.23.1-rocm723-mi35x-mori-0625",
    ],
)
def test_tags_naming_no_vllm_version_are_no_builds(rules, text):
    (pattern,) = _channel(rules).builds
    assert pattern.versions(text) == []


def test_an_issue_naming_an_image_is_a_build_of_the_channel(rules):
    """vllm-project/vllm#28052 (opened 2025-11-04, label rocm) names two rocm/vllm images in
    its title and body: each is a release of vllm-rocm-docker at the issue's date."""
    record = TextRecord(
        "vllm-issues-rocm",
        "issue",
        datetime(2025, 11, 4, tzinfo=UTC),
        "https://github.com/vllm-project/vllm/issues/28052",
        "[Bug]: rocm/vllm:rocm7.0.0_vllm_0.11.1_20251103 has an error with flash attention\n"
        "(works with rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006)",
    )
    releases, notes = build_facts(named_builds(rules, [record]))
    assert notes == []
    mine = sorted((f.version, f.source_id) for f in releases if f.project == "vllm-rocm-docker")
    assert mine == [("0.10.2", "vllm-issues-rocm"), ("0.11.1", "vllm-issues-rocm")]
