"""Every AMD naming scheme of rocm/vllm image tags is read; a tag no pattern reads is counted
and kept for the report, never dropped silently (issue 20, item 2).

Real tag names (AMD's docs and Docker Hub): rocm7.0.0_vllm_0.10.2_20251006 (2025-06 scheme),
rocm6.3.1_instinct_vllm0.7.3_20250311 and rocm6.3.1_instinct_vllm0.8.3_20250410,
rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6, rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4,
rocm6.2_mi300_ubuntu22.04_py3.9_vllm_7c5fd50 (names a vLLM commit) and instinct_main. Radeon
builds are named rocm7.12.0_gfx120X-all_<build>_vllm_0.16.0 (the <build> part of that one is
illustrative), ROCm 7.13 and 7.14 ones as the cases below say. Push times are illustrative.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tracker.collect.sources import CollectContext, docker_tags
from tracker.config import SourceSpec

REPO = Path(__file__).resolve().parents[2]
CORPUS = Path(os.environ.get("TRACKER_CORPUS", REPO.parent / "shared" / "corpus"))


def ctx(**options) -> CollectContext:
    spec = SourceSpec(
        id="vllm-rocm-docker",
        kind="docker_tags",
        project="vllm-rocm-docker",
        regime="rocm",
        options={"repository": "rocm/vllm", **options},
    )
    return CollectContext(spec=spec, state={})


def page(*names: str, pushed: str = "2025-04-11T02:00:00.000000Z") -> bytes:
    results = [{"name": n, "last_updated": pushed, "tag_last_pushed": pushed} for n in names]
    return json.dumps({"count": len(names), "next": None, "results": results}).encode()


@pytest.mark.parametrize(
    ("name", "scheme", "version", "rocm", "day"),
    [
        ("rocm7.0.0_vllm_0.10.2_20251006", "current", "0.10.2", "7.0.0", "2025-10-06"),
        ("rocm6.3.1_instinct_vllm0.7.3_20250311", "instinct", "0.7.3", "6.3.1", "2025-03-11"),
        ("rocm6.3.1_instinct_vllm0.8.3_20250410", "instinct", "0.8.3", "6.3.1", "2025-04-10"),
        (
            "rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6",
            "platform",
            "0.6.6",
            "6.3.1",
            "2025-04-11",  # no date in the name: the push time
        ),
        ("rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4", "platform", "0.6.4", "6.2", "2025-04-11"),
        (
            "rocm7.12.0_gfx120X-all_ubuntu24.04_py3.12_vllm_0.16.0",
            "radeon",
            "0.16.0",
            "7.12.0",
            "2025-04-11",
        ),
        (  # ROCm 7.13's images (ROCm docs; github.com/kyuz0/amd-r9700-vllm-toolboxes/issues/4)
            "rocm7.13.0_gfx120X-all_ubuntu24.04_py3.13_pytorch_2.10.0_vllm_0.19.1",
            "radeon",
            "0.19.1",
            "7.13.0",
            "2025-04-11",
        ),
        (  # ROCm 7.14's: one image per GPU family (rocm.docs.amd.com, ai-ecosystem vLLM page)
            "rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0",
            "family",
            "0.23.0",
            "7.14.0",
            "2025-04-11",
        ),
        (
            "rocm7.14.1_rdna_ubuntu24.04_py3.14_pytorch_2.11_vllm_0.23.0",
            "family",
            "0.23.0",
            "7.14.1",
            "2025-04-11",
        ),
    ],
)
def test_every_amd_naming_scheme_is_read(name, scheme, version, rocm, day):
    context = ctx()
    (event,) = docker_tags.parse(page(name), context)
    assert (event.version, event.attrs["scheme"], event.attrs["rocm"]) == (version, scheme, rocm)
    assert event.occurred_at.date().isoformat() == day
    assert event.attrs["date_source"] == ("name" if day != "2025-04-11" else "tag_last_pushed")
    assert context.skipped == 0


def test_platform_and_radeon_names_keep_their_parts():
    (mi300,) = docker_tags.parse(page("rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6"), ctx())
    assert (mi300.attrs["gpu"], mi300.attrs["ubuntu"], mi300.attrs["python"]) == (
        "mi300",
        "22.04",
        "3.12",
    )
    (radeon,) = docker_tags.parse(
        page("rocm7.12.0_gfx120X-all_ubuntu24.04_py3.12_vllm_0.16.0"), ctx()
    )
    assert radeon.attrs["gpu"] == "gfx120X-all"


def test_tags_no_pattern_reads_are_counted_and_kept():
    context = ctx()
    names = ["latest", "instinct_main", "rocm6.2_mi300_ubuntu22.04_py3.9_vllm_7c5fd50"]
    events = list(docker_tags.parse(page(*names, "rocm7.0.0_vllm_0.10.2_20251006"), context))
    assert [e.version for e in events] == ["0.10.2"]
    assert context.skipped == 3
    assert context.state["unmatched_tags"] == {"count": 3, "tags": names}
    assert all(n in context.warnings[0] for n in names)


def test_a_custom_pattern_list_replaces_the_defaults():
    context = ctx(name_pattern=[r"^v(?P<version>\d+\.\d+\.\d+)$", r"^nightly-(?P<version>\S+)$"])
    events = list(
        docker_tags.parse(
            page("v0.9.2", "nightly-0.10.0", "rocm7.0.0_vllm_0.10.2_20251006"), context
        )
    )
    assert [(e.version, e.attrs["scheme"]) for e in events] == [
        ("0.9.2", "name_pattern[0]"),
        ("0.10.0", "name_pattern[1]"),
    ]
    assert context.state["unmatched_tags"]["tags"] == ["rocm7.0.0_vllm_0.10.2_20251006"]


def test_every_rocm_vllm_image_amd_docs_name_is_read_or_counted():
    # The vLLM benchmark pages of github.com/ROCm/ROCm, read in place: every rocm/vllm tag they
    # name is either evidence (a version) or counted as unread, never lost.
    folder = CORPUS / "models" / "regimes"
    if not folder.is_dir():
        pytest.skip(f"corpus folder {folder} is absent (set TRACKER_CORPUS)")
    names = set()
    for path in folder.rglob("*"):
        if path.is_file() and path.suffix in (".rst", ".yaml", ".md"):
            text = path.read_text(encoding="utf-8", errors="replace")
            names |= set(re.findall(r"rocm/vllm[:/]([A-Za-z0-9][A-Za-z0-9._-]+)", text))
    names = {n for n in names if not n.startswith("images")}
    assert len(names) >= 4, names
    context = ctx()
    events = list(docker_tags.parse(page(*sorted(names)), context))
    unread = context.state["unmatched_tags"]["tags"]
    assert len(events) + len(unread) == len(names)
    read = {e.attrs["tag"] for e in events}
    assert {
        "rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4",
        "rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6",
        "rocm6.3.1_instinct_vllm0.7.3_20250311",
    } <= read
    # only tags without a vLLM version stay unread
    assert all(not re.search(r"vllm_?\d+\.\d+", n) for n in unread), unread
