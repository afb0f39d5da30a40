"""Builds named in any record (tracker.measure.lag.builds): one mechanism, the channels'
patterns from sources.yaml, over records of every kind; the earliest record dates a series;
a vendor plugin's version is read as the upstream series it carries; a page listing a later
revision withdraws before anything confirms it dates nothing.

Records are real-shaped: the texts and dates of InferenceX's configuration history, an issue
quoting a wheel, aws-neuron-sdk's component index and release-content page."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tests.configs import typed_config
from tracker.config import Regime
from tracker.errors import ConfigError
from tracker.measure.lag.builds import (
    TextRecord,
    build_facts,
    label_rows,
    named_builds,
    text_record,
)
from tracker.measure.lag.samples import ReleaseFact, lag_samples

IMAGE = {
    "contains": "vllm-openai-rocm:",
    "pattern": r"vllm/vllm-openai-rocm:v(?P<version>\d+\.\d+\.\d+)\b",
}
WHEEL = {"contains": "+rocm", "pattern": r"\bvllm(?:==|-)(?P<version>\d+\.\d+\.\d+)\+rocm\d{3}\b"}
PLUGIN = [
    {
        "contains": "vllm_neuron-",
        "carries": 3,
        "pattern": r"\bvllm_neuron-(?P<version>\d+(?:\.\d+){5})\b",
    },
    {
        "contains": "(supports vLLM version",
        "carries": 3,
        "pattern": r"\b(?P<version>\d+(?:\.\d+){5}) \(supports vLLM version",
    },
]


def _config(rocm_builds=None, neuron_builds=None, extra: dict | None = None):
    rocm = [
        {
            "definition": "earliest_build",
            "primary": True,
            "channels": ["vllm_rocm_image", "vllm_rocm_wheels"],
        },
        {
            "definition": "vllm_rocm_image",
            "evidence": {"project": "vllm-rocm-image", "kind": "release"},
        }
        | ({"builds": rocm_builds} if rocm_builds else {}),
        {
            "definition": "vllm_rocm_wheels",
            "evidence": {"project": "vllm-rocm-wheels", "kind": "release"},
            "builds": [WHEEL],
        },
    ]
    neuron = {
        "definition": "neuron_sdk",
        "primary": True,
        "evidence": {"project": "neuron-sdk", "kind": "note", "mentions": "vllm"},
    }
    if neuron_builds:
        neuron["builds"] = neuron_builds
    neuron |= extra or {}
    regimes = [Regime("cuda", reference=True), Regime("rocm"), Regime("neuron")]
    return typed_config(
        regimes, coverage=[{"project": "vllm", "regimes": {"rocm": rocm, "neuron": [neuron]}}]
    )


def _at(day: str, hour: int = 12) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, tzinfo=UTC)


def _vllm(series: str, day: str) -> ReleaseFact:
    return ReleaseFact(
        "vllm",
        f"{series}.0",
        _at(day, 0),
        f"https://github.com/vllm-project/vllm/releases/tag/v{series}.0",
    )


def test_the_builds_of_a_channel_are_read_once_into_typed_patterns():
    config = _config([IMAGE], PLUGIN)
    (rule,) = config.coverage
    image = next(e for e in rule.evidence if e.definition == "vllm_rocm_image")
    neuron = next(e for e in rule.evidence if e.definition == "neuron_sdk")
    assert image.builds[0].versions("image: vllm/vllm-openai-rocm:v0.14.0") == [("0.14.0", 7)]
    assert image.builds[0].versions("vllm/vllm-openai-rocm:nightly-04c2a8d") == []
    # a plugin version carries the upstream one in its first three parts
    wheel = "vllm-neuron  vllm_neuron-0.24.0.1.1.0+e8242a9-py3-none-any.whl"
    assert [v for v, _ in neuron.builds[0].versions(wheel)] == ["0.24.0"]
    assert neuron.builds[0].versions("vllm_neuron-0.5.0-py3-none-any.whl") == []


@pytest.mark.parametrize(
    ("build", "why"),
    [
        (
            {"contains": "vllm-openai-rocm:", "pattern": r"vllm/vllm-openai-rocm:v(\d+\.\d+)"},
            "needs a group named 'version'",
        ),
        (
            {"contains": "vllm/vllm-openai", "pattern": r"vllm-openai-rocm:v(?P<version>[\d.]+)"},
            "is not written in the pattern",
        ),
        (
            {"contains": "rocm:", "pattern": r"vllm/vllm-openai-rocm:v(?P<version>[\d.]+"},
            "not a regular expression",
        ),
        (
            {"contains": "rocm:", "pattern": r"rocm:v(?P<version>[\d.]+)", "carries": 0},
            "key 'carries'",
        ),
        ({"contains": "rocm", "pattern": r"rocm:v(?P<version>[\d.]+)", "named": 1}, "unknown key"),
    ],
)
def test_a_wrong_build_pattern_is_one_config_error_naming_the_channel(build, why):
    with pytest.raises(ConfigError) as caught:
        _config([build])
    assert why in str(caught.value) and "vllm_rocm_image" in str(caught.value)


def test_every_kind_of_record_is_evidence_and_the_earliest_dates_the_series():
    """A configuration commit, an issue and a comment name builds of two channels: each is a
    build of the channel at its record's date; the earliest record dates the series."""
    (rule,) = _config([IMAGE], PLUGIN).coverage
    records = [
        TextRecord(
            "vllm-issues-rocm",
            "issue",
            _at("2026-01-23"),
            "https://github.com/vllm-project/vllm/issues/1",
            "Docker Image: vllm/vllm-openai-rocm:v0.14.0",
        ),
        TextRecord(
            "inferencex-configs",
            "commit",
            _at("2026-01-21", 23),
            "https://github.com/SemiAnalysisAI/InferenceX/commit/25bda3d71ed0",
            "vllm/vllm-openai-rocm:v0.14.0",
        ),
        TextRecord(
            "vllm-issues-rocm",
            "comment",
            _at("2026-05-20"),
            "https://github.com/vllm-project/vllm/issues/2#issuecomment-3",
            "pip install vllm==0.21.0+rocm722 and it works",
        ),
    ]
    found = named_builds([rule], records)
    releases, notes = build_facts(found)
    assert notes == []
    assert {
        (f.project, f.version, f.occurred_at.date().isoformat(), f.source_id) for f in releases
    } == {
        ("vllm-rocm-image", "0.14.0", "2026-01-23", "vllm-issues-rocm"),
        ("vllm-rocm-image", "0.14.0", "2026-01-21", "inferencex-configs"),
        ("vllm-rocm-wheels", "0.21.0", "2026-05-20", "vllm-issues-rocm"),
    }
    day0 = [_vllm("0.14", "2026-01-20"), _vllm("0.21", "2026-05-15")]
    samples = lag_samples([rule], day0 + releases, [], _at("2026-08-22"))
    labels = {b.record.url: b.record.kind for b in found}
    rows = {(s.series, s.definition): s for s in label_rows(samples, [rule], labels)}
    image = rows[("0.14", "vllm_rocm_image")]
    assert image.available.date().isoformat() == "2026-01-21" and image.lag_days == 1
    assert image.evidence_url.endswith("25bda3d71ed0") and image.evidence_kind == "commit"
    wheel = rows[("0.21", "vllm_rocm_wheels")]
    assert (wheel.lag_days, wheel.evidence_kind) == (5, "comment")


# aws-neuron-sdk's component index (release-notes/components/index.rst), its vLLM row at
# ee7d6e00 (07-07), 993f75b6 (07-10) and a3247f5b (08-18), and release-content's Beta wheel
ROW = (
    "   * - :doc:`vLLM plugin for Neuron </release-notes/components/nxd-inference>`\n"
    "     - **2.31.0**\n"
)
LISTED = ROW + "     - 0.21.0.1.0.0 (supports vLLM version 0.21.0; vllm-neuron version is 1.0.0)"
CORRECTED = ROW + "     - 0.16.0.* (vllm-neuron version is 0.5.0)"
INDEX = "neuron-sdk-pages|release-notes/components/index.rst"


def _revision(day: str, sha: str, added: str, removed: str = "", page: str = INDEX) -> TextRecord:
    path = page.split("|")[1]
    return TextRecord(
        "neuron-sdk-pages",
        "commit",
        _at(day),
        f"https://github.com/aws-neuron/aws-neuron-sdk/blob/{sha}/{path}",
        added,
        page,
        removed,
    )


def _neuron_dates(records) -> dict[str, str]:
    (rule,) = _config(neuron_builds=PLUGIN).coverage
    _, notes = build_facts(named_builds([rule], records))
    out: dict[str, str] = {}
    for note in sorted(notes, key=lambda n: n.occurred_at):
        for _fw, version, _status in note.mentions:
            out.setdefault(version, note.occurred_at.date().isoformat())
    return out


def test_a_listing_withdrawn_by_the_next_revision_dates_nothing_a_later_one_does():
    beta = _revision(
        "2026-07-21",
        "6cc93e4e",
        "vllm-neuron  vllm_neuron-0.21.0.1.0.0+794754d-py3-none-any.whl",
        page="neuron-sdk-pages|release-notes/releasecontent.rst",
    )
    records = [
        _revision("2026-07-07", "ee7d6e00", LISTED),
        _revision("2026-07-10", "993f75b6", CORRECTED, removed=LISTED),
        beta,
    ]
    assert _neuron_dates(records) == {"0.21.0": "2026-07-21"}
    # without the correction the index's listing would stand, from 07-07
    assert _neuron_dates([records[0], beta]) == {"0.21.0": "2026-07-07"}


def test_a_newer_build_in_its_place_or_a_record_before_the_withdrawal_keeps_a_listing():
    moved_on = CORRECTED.replace(
        "0.16.0.* (vllm-neuron version is 0.5.0)", "0.24.0.1.1.0 (supports vLLM version 0.24.0)"
    )
    superseded = [
        _revision("2026-07-07", "ee7d6e00", LISTED),
        _revision("2026-08-18", "a3247f5b", moved_on, removed=LISTED),
    ]
    assert _neuron_dates(superseded) == {"0.21.0": "2026-07-07", "0.24.0": "2026-08-18"}
    confirmed = [
        _revision("2026-07-07", "ee7d6e00", LISTED),
        TextRecord(
            "vllm-neuron-issues",
            "issue",
            _at("2026-07-08"),
            "https://github.com/vllm-project/vllm-neuron/issues/9",
            "installed vllm_neuron-0.21.0.1.0.0",
        ),
        _revision("2026-07-10", "993f75b6", CORRECTED, removed=LISTED),
    ]
    assert _neuron_dates(confirmed) == {"0.21.0": "2026-07-07"}


def test_a_stored_row_becomes_a_record_and_untrusted_values_are_read_safely():
    row = {
        "source_id": "neuron-sdk-pages",
        "kind": "commit",
        "occurred_at": _at("2026-07-10"),
        "url": "u",
        "title": "t",
        "body": CORRECTED,
        "attrs": {"revision": {"path": "release-notes/components/index.rst", "removed": LISTED}},
    }
    record = text_record(row)
    assert record is not None and record.page == INDEX and record.removed == LISTED
    assert text_record(row | {"occurred_at": "2026-07-10"}) is None
    odd = text_record(row | {"attrs": {"revision": ["x"]}, "body": None})
    assert odd is not None and odd.page == "" and odd.removed == ""
