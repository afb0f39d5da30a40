"""vLLM's own ROCm images (vllm/vllm-openai-rocm) and SGLang's moved ROCm repository
(lmsysorg/sglang-rocm), read with the shipped sources.yaml entries (issue 38).

Real tag names: vllm/vllm-openai-rocm:v0.14.1, v0.24.0 and
nightly-b8336c3c7c298e0878f22a7bf70f4e295b2f4e01 (named in public records, see the cassette);
lmsysorg/sglang-rocm:v0.5.17-rocm724-mi30x-20260821 and -mi35x-20260821; the older
lmsysorg/sglang names v0.5.6-rocm700-mi30x. Push times below are illustrative.
"""

from __future__ import annotations

import json
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, docker_tags

REPO = Path(__file__).resolve().parents[2]


def _ctx(source_id: str, http: bool = False) -> CollectContext:
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source(source_id)
    return CollectContext(spec, http=HttpClient() if http else None, state={})


def _page(*names: str) -> bytes:
    pushed = "2026-08-21T09:00:00.000000Z"
    results = [{"name": n, "last_updated": pushed, "tag_last_pushed": pushed} for n in names]
    return json.dumps({"count": len(names), "next": None, "results": results}).encode()


def test_sglang_rocm_repository_feeds_the_same_evidence_project():
    moved, old = _ctx("sglang-rocm-image"), _ctx("sglang-rocm-docker")
    assert moved.spec.project == old.spec.project == "sglang-rocm-docker"
    names = [
        "v0.5.17-rocm724-mi30x-20260821",  # the new repository's scheme, with a build date
        "v0.5.17-rocm724-mi35x",
        "v0.5.6-rocm700",
        "latest",
        "v0.5.17-rocm724-mi30x-latest",
        "v0.5.17-cu129",  # not a ROCm image: no pattern reads it, so it is counted
    ]
    events = list(docker_tags.parse(_page(*names), moved))
    read = {(e.attrs["tag"], e.version, e.attrs.get("gpu"), e.occurred_at.date().isoformat())
            for e in events}  # fmt: skip
    assert read == {
        ("v0.5.17-rocm724-mi30x-20260821", "0.5.17", "mi30x", "2026-08-21"),
        ("v0.5.17-rocm724-mi35x", "0.5.17", "mi35x", "2026-08-21"),
        ("v0.5.6-rocm700", "0.5.6", None, "2026-08-21"),
    }
    assert moved.state["unmatched_tags"] == {"count": 1, "tags": ["v0.5.17-cu129"]}


def test_vllm_rocm_image_reads_release_tags_and_passes_over_nightlies():
    ctx = _ctx("vllm-rocm-image")
    names = ["v0.24.0", "v0.14.1", "nightly-b8336c3c7c298e0878f22a7bf70f4e295b2f4e01", "latest"]
    events = list(docker_tags.parse(_page(*names), ctx))
    assert sorted(e.version for e in events) == ["0.14.1", "0.24.0"]
    assert ctx.skipped == 0 and ctx.state["unmatched_tags"]["count"] == 0


def test_shipped_cassettes_replay_with_every_tag_read_or_passed_over():
    for source_id, versions in (
        ("vllm-rocm-image", {"0.14.0", "0.14.1", "0.16.0", "0.18.0", "0.21.0", "0.24.0"}),
        ("sglang-rocm-image", {"0.5.17"}),
    ):
        ctx = _ctx(source_id, http=True)
        with vcr.use_cassette(str(REPO / "cassettes" / f"{source_id}.yaml"), record_mode="none"):
            events = list(docker_tags.collect(ctx))
        assert versions <= {e.version for e in events}
        assert ctx.skipped == 0 and ctx.state["unmatched_tags"]["count"] == 0
        assert all(e.project.endswith(("image", "docker")) and e.regime == "rocm" for e in events)
