"""Version normalisation: a table of real spellings, series, and the real tag lists of the
corpus."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import pytest

from tracker.versions import normalize_version, parse_version, series, version_in_text

CORPUS = Path(
    os.environ.get("TRACKER_CORPUS", Path(__file__).resolve().parents[2] / "shared" / "corpus")
)
DERIVED = CORPUS / "_derived"


@pytest.mark.parametrize(
    "text, version, local, prerelease",
    [
        ("v0.10.1", "0.10.1", None, False),
        ("0.10.1.1", "0.10.1.1", None, False),
        ("2.9.0+rocm6.4", "2.9.0", "rocm6.4", False),
        ("torch-2.9.0+rocm6.4", "2.9.0", "rocm6.4", False),
        ("rocm-6.3.0", "6.3.0", None, False),
        ("jax-v0.4.30", "0.4.30", None, False),
        ("jax-v0.4.24-rc", "0.4.24rc0", None, True),
        ("jax-v0.9.0.1", "0.9.0.1", None, False),
        ("tags/rocm-jaxlib-v0.4.28", "0.4.28", None, False),
        ("tag-rocm-jaxlib-v0.4.23", "0.4.23", None, False),
        ("rocm-jax-v0.9.0-rc2", "0.9.0rc2", None, True),
        ("v2.2.0-rc2", "2.2.0rc2", None, True),
        ("v2.21.0.beta", "2.21.0b0", None, True),
        ("0.6.1.post1", "0.6.1.post1", None, False),
        ("2.10.0.dev20250101", "2.10.0.dev20250101", None, True),
        (" v2.9.0 ", "2.9.0", None, False),
    ],
)
def test_versions_normalise(text, version, local, prerelease):
    parsed = parse_version(text)
    assert parsed is not None, text
    assert (parsed.version, parsed.local, parsed.prerelease) == (version, local, prerelease)
    assert parsed.raw == text
    assert normalize_version(text) == version


@pytest.mark.parametrize(
    "text",
    [
        None,
        "",
        "latest",
        "nightly",
        "main",
        "nightly-2024",
        "rocm-jax-v0.8.2-alpha-sdk",
        "rocm6.4.1_vllm_0.9.1_20250715",
        "release-candidate",
    ],
)
def test_non_versions_are_none(text):
    assert parse_version(text) is None
    assert normalize_version(text) is None


@pytest.mark.parametrize(
    "version, granularity, expected",
    [
        ("2.9.0", "minor", "2.9"),
        ("2.9.1", "minor", "2.9"),
        ("v2.9.0+rocm6.4", "minor", "2.9"),
        ("2.10.0rc1", "minor", "2.10"),
        ("0.7.1", "release", "0.7.1"),
        ("0.9.0.1", "release", "0.9.0"),
        ("0.10", "release", "0.10.0"),
        ("0.10.1.1", "minor", "0.10"),
        ("6.3.0", "major", "6"),
        ("not-a-version", "minor", None),
    ],
)
def test_series(version, granularity, expected):
    assert series(version, granularity) == expected


def test_series_rejects_unknown_granularity():
    with pytest.raises(ValueError, match="granularity"):
        series("2.9.0", "patch")


@pytest.mark.parametrize(
    "text, expected",
    [
        ("0.10.1", "0.10.1"),
        ("PyTorch 2.9.0 Release, SDK for Blackwell", "2.9.0"),
        ("vLLM v0.11.0", "0.11.0"),
        ("JAX release (v0.8.2).", "0.8.2"),
        ("Release 2024", None),
        ("Nightly build", None),
    ],
)
def test_version_in_text(text, expected):
    found = version_in_text(text)
    assert (found.version if found else None) == expected


def _tags(name: str) -> list[dict]:
    path = DERIVED / name
    if not path.exists():
        pytest.skip(f"corpus file {path} absent (set TRACKER_CORPUS to the shared corpus)")
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def test_every_rocm_release_tag_normalises():
    rows = _tags("ROCm_ROCm_tags.tsv")
    assert len(rows) == 14
    for row in rows:
        assert row["tag"].startswith("rocm-")
        assert normalize_version(row["tag"]) == row["tag"].removeprefix("rocm-")


def test_jax_tags_normalise_with_rc_marked():
    rows = _tags("jax-ml_jax_tags.tsv")
    parsed = {row["tag"]: parse_version(row["tag"]) for row in rows}
    assert all(p is not None for p in parsed.values())
    assert parsed["jax-v0.4.24-rc"].prerelease and parsed["jax-v0.4.24-rc"].version == "0.4.24rc0"
    assert parsed["jax-v0.9.0.1"].version == "0.9.0.1"
    finals = {p.version for t, p in parsed.items() if not p.prerelease}
    assert {"0.4.30", "0.7.1", "0.8.2", "0.11.0"} <= finals
    assert series("0.9.0.1", "release") == "0.9.0"


def test_pytorch_xla_tags_normalise():
    rows = _tags("pytorch_xla_tags.tsv")
    parsed = {row["tag"]: parse_version(row["tag"]) for row in rows}
    assert all(p is not None for p in parsed.values())
    finals = sorted(
        {p.version for p in parsed.values() if not p.prerelease},
        key=lambda v: parse_version(v).parsed,
    )
    assert finals[-1] == "2.9.0"
    assert "2.8.1" in finals and "2.6.1" in finals
    assert parsed["v2.3.0-rc12"].version == "2.3.0rc12"


def test_rocm_jax_tags_only_alpha_sdk_is_not_a_version():
    rows = _tags("ROCm_rocm-jax_tags.tsv")
    bad = [row["tag"] for row in rows if parse_version(row["tag"]) is None]
    assert bad == ["rocm-jax-v0.8.2-alpha-sdk"]


def test_neuron_and_tpu_inference_tags_normalise():
    for name in (
        "aws-neuron-sdk_tags.tsv",
        "vllm-project_tpu-inference_tags.tsv",
        "vllm-project_vllm-neuron_tags.tsv",
        "ROCm_jax_tags.tsv",
    ):
        for row in _tags(name):
            assert parse_version(row["tag"]) is not None, (name, row["tag"])
