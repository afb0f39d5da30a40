"""End to end on a real SQLite store, through the lag's public entry point (compute_lag): each
source's observation window comes from its runs (docs/methodology.md, "Observation windows"),
and a series skipped by a regime is covered by the newer one it ships ("Supersession").
Facts as in tests/measure/test_windows.py (real vLLM, rocm/vllm and tpu-inference dates)."""

from __future__ import annotations

from datetime import date

from tests.configs import typed_config
from tests.measure.test_windows import (
    AS_OF,
    FIRST_IMAGE,
    ROCM_IMAGE,
    TPU_012,
    TPU_018,
    VLLM,
    VLLM_RULE,
    end_of,
    rows,
)
from tracker.config import SourceSpec
from tracker.events import Event
from tracker.measure.facts import compute_lag
from tracker.measure.lag.rows import LagRun


def test_the_store_reads_each_sources_window_from_its_runs(sqlite_store):
    """End to end: events and runs in a real SQLite store; the replayed rocm/vllm snapshot
    (runs.snapshot_date 2026-01-23) censors its definition, a failed later run does not move
    it, and a source with no successful run narrows nothing."""
    store = sqlite_store
    items = [
        Event("vllm-releases", "vllm", "release", f"v{v}", when, f"v{v}", version=v,
              url=f"https://github.com/vllm-project/vllm/releases/tag/v{v}", regime="cuda")
        for v, when in VLLM
    ] + [
        Event("vllm-rocm-docker", "vllm-rocm-docker", "release", image.url[-30:],
              image.occurred_at, image.url[-30:], version=image.version, url=image.url,
              regime="rocm")
        for image in (FIRST_IMAGE, ROCM_IMAGE)
    ] + [
        Event("tpu-inference-tags", "tpu-inference", "release", tag.url[-8:], tag.occurred_at,
              tag.url[-8:], version=tag.version, url=tag.url, regime="xla")
        for tag in (TPU_012, TPU_018)
    ]  # fmt: skip
    with store.transaction() as conn:
        store.upsert_events(conn, items)
        for source, status, snapshot in (
            ("vllm-releases", "ok", date(2026, 8, 20)),
            ("vllm-rocm-docker", "ok", date(2026, 1, 23)),
            ("vllm-rocm-docker", "failed", None),
        ):
            store.record_run(
                conn,
                {"batch": "b", "source_id": source, "started_at": AS_OF, "finished_at": AS_OF,
                 "status": status, "snapshot_date": snapshot},
            )  # fmt: skip
    sources = [
        SourceSpec("vllm-releases", "github_releases", "vllm", options={"repo": "vllm/vllm"}),
        SourceSpec("vllm-rocm-docker", "docker_tags", "vllm-rocm-docker",
                   options={"repository": "rocm/vllm"}),
        SourceSpec("tpu-inference-tags", "github_tags", "tpu-inference",
                   options={"repo": "vllm-project/tpu-inference"}),
    ]  # fmt: skip
    config = typed_config(sources=sources, coverage=[VLLM_RULE])
    unknown: list = []
    samples = compute_lag(config, store, AS_OF, LagRun(unknown))
    rocm, xla = rows(samples, "rocm"), rows(samples, "xla")
    assert (rocm["0.11"].status, rocm["0.11"].lag_days) == ("covered", 30)
    assert (rocm["0.12"].status, rocm["0.12"].lag_days) == ("open", 50)  # not 261: as-of
    assert (xla["0.14"].status, xla["0.14"].lag_days) == ("covered", 87)  # by 0.18
    assert "0.15" not in rocm and any(
        u.series == "0.15" and u.definition == "rocm_vllm_docker" for u in unknown
    )
    # tpu-inference-tags has no run: it narrows nothing; 0.14 is covered by 0.18
    assert (xla["0.14"].covered_by, xla["0.18"].observed_through) == ("0.18", AS_OF)
    assert rocm["0.12"].observed_through == end_of(2026, 1, 23)


def test_a_source_whose_channel_moved_narrows_no_window(sqlite_store):
    """Two sources feed one definition: the old repository (replayed up to its last tag) and the
    one the vendor moved to (observed to as-of). Declared `moved_to`, the old one's silence no
    longer censors the definition; its facts stay evidence (ROCm/jax -> ROCm/rocm-jax)."""
    store = sqlite_store
    items = [
        Event("vllm-releases", "vllm", "release", f"v{v}", when, f"v{v}", version=v,
              url=f"https://github.com/vllm-project/vllm/releases/tag/v{v}", regime="cuda")
        for v, when in VLLM
    ] + [
        Event("old-images", "vllm-rocm-docker", "release", image.url[-30:], image.occurred_at,
              image.url[-30:], version=image.version, url=image.url, regime="rocm")
        for image in (FIRST_IMAGE, ROCM_IMAGE)
    ]  # fmt: skip
    with store.transaction() as conn:
        store.upsert_events(conn, items)
        for source, snapshot in (
            ("vllm-releases", date(2026, 8, 20)),
            ("old-images", date(2026, 1, 23)),
            ("new-images", date(2026, 8, 20)),
        ):
            store.record_run(
                conn,
                {"batch": "b", "source_id": source, "started_at": AS_OF, "finished_at": AS_OF,
                 "status": "ok", "snapshot_date": snapshot},
            )  # fmt: skip

    def lag(moved: bool) -> dict:
        old = {"repository": "rocm/vllm"}
        sources = [
            SourceSpec("vllm-releases", "github_releases", "vllm", options={"repo": "vllm/vllm"}),
            SourceSpec("old-images", "docker_tags", "vllm-rocm-docker", options=old,
                       moved_to="new-images" if moved else None),
            SourceSpec("new-images", "docker_tags", "vllm-rocm-docker",
                       options={"repository": "vllm/vllm-openai-rocm"}),
        ]  # fmt: skip
        config = typed_config(sources=sources, coverage=[VLLM_RULE])
        return rows(compute_lag(config, store, AS_OF, LagRun()), "rocm")

    before, after = lag(moved=False), lag(moved=True)
    assert before["0.12"].observed_through == end_of(2026, 1, 23)
    assert "0.15" not in before  # not observed since the old repository's snapshot
    # new-images delivered nothing yet, so only old-images is matched to the definition: moved,
    # it narrows nothing and the window is as-of
    assert after["0.12"].observed_through == AS_OF
    assert (after["0.15"].status, after["0.11"].status) == ("open", "covered")
