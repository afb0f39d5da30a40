"""The one window rule (docs/methodology.md, "Observation windows"): a channel whose window ends
before a series' day 0 takes no part in it (neither covers nor censors); a combined row is
unknown only when no channel of its definition observed the series, else open censored at the
latest window among the channels that watched it, or covered; every headline counts what it
leaves out.

Real facts (as the demo's cassettes hold them): vLLM 0.13.0 2025-12-19, 0.14.0 2026-01-20,
0.15.0 2026-01-29, 0.24.0 2026-06-30, 0.25.0 2026-07-12 (GitHub releases of vllm-project/vllm);
AMD's rocm/vllm image rocm7.0.0_vllm_0.11.1_20251103 and the tag list read up to 2026-01-23;
vLLM's own vllm/vllm-openai-rocm images v0.14.0 (first named 2026-01-28), v0.15.0 (2026-02-20)
and v0.24.0 (2026-07-04), read up to 2026-08-22. The model-family case uses the dates of
tests/measure/test_engines.py (illustrative listings).
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time

from tracker.config.coverage import parse_coverage, parse_model_coverage
from tracker.measure.facts import LagFacts
from tracker.measure.headline.answer import answers
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.measure.lag.windows import Windows, delivered_channels
from tracker.measure.models.lag import model_lag_samples
from tracker.measure.stats.trend import POOLED, lag_trends
from tracker.mentions.families import load_families
from tracker.present.answer_words import answer_text


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def end_of(y: int, m: int, d: int) -> datetime:
    return datetime.combine(date(y, m, d), time.max, tzinfo=UTC)


AS_OF = end_of(2026, 8, 22)
AMD_READ, IMAGES_READ = end_of(2026, 1, 23), end_of(2026, 8, 22)
RULE = {
    "project": "vllm",
    "series": "minor",
    "regimes": {
        "rocm": [
            {"definition": "earliest_build", "primary": True,
             "channels": ["vllm_rocm_image", "rocm_vllm_docker"]},
            {"definition": "vllm_rocm_image",
             "evidence": {"project": "vllm-rocm-image", "kind": "release"}},
            {"definition": "rocm_vllm_docker",
             "evidence": {"project": "vllm-rocm-docker", "kind": "release"}},
        ]
    },
}  # fmt: skip


def release(project: str, version: str, when: datetime, source: str) -> ReleaseFact:
    return ReleaseFact(project, version, when, f"https://x/{project}/{version}", source_id=source)


UPSTREAM = [
    release("vllm", v, when, "vllm-releases")
    for v, when in (
        ("0.13.0", day(2025, 12, 19)),
        ("0.14.0", day(2026, 1, 20)),
        ("0.15.0", day(2026, 1, 29)),
        ("0.24.0", day(2026, 6, 30)),
        ("0.25.0", day(2026, 7, 12)),
    )
]
AMD = [release("vllm-rocm-docker", "0.11.1", day(2025, 11, 3), "vllm-rocm-docker")]
IMAGES = [
    release("vllm-rocm-image", v, when, "vllm-rocm-image")
    for v, when in (
        ("0.14.0", day(2026, 1, 28)),
        ("0.15.0", day(2026, 2, 20)),
        ("0.24.0", day(2026, 7, 4)),
    )
]


def compute(releases: list[ReleaseFact]):
    windows = Windows(
        delivered_channels(releases),
        {"vllm-rocm-docker": AMD_READ, "vllm-rocm-image": IMAGES_READ},
    )
    facts = LagFacts(tuple(parse_coverage([RULE], "s.yaml")), (), releases, [], windows=windows)
    unknown: list = []
    samples = facts.samples(AS_OF, LagRun(unknown))
    rows = {(s.series, s.definition): s for s in samples if s.regime == "rocm"}
    return samples, rows, unknown


def test_a_series_after_one_channels_window_is_open_where_another_channel_watched_it():
    """vLLM 0.25: AMD's tag list was read up to 2026-01-23, before its day 0, so AMD's channel
    takes no part; vLLM's own images were read up to 2026-08-22 with no 0.25 image: open, 41 d
    (on today's main it was unknown, "not observed since 2026-01-23", while 0.15-0.24, covered
    by the same images, were kept: windows applied by outcome)."""
    _, rows, unknown = compute([*UPSTREAM, *AMD, *IMAGES])
    late = rows[("0.25", "earliest_build")]
    assert (late.status, late.lag_days, late.observed_through) == ("open", 41, IMAGES_READ)
    assert not any(u.series == "0.25" and u.definition == "earliest_build" for u in unknown)
    # AMD's own row of 0.25 stays unknown: its window ended before day 0
    assert ("0.25", "rocm_vllm_docker") not in rows
    # a covered series is dated as before, its window the latest among those that watched it
    covered = rows[("0.24", "earliest_build")]
    assert (covered.status, covered.lag_days, covered.channel) == ("covered", 4, "vllm_rocm_image")
    assert covered.observed_through == IMAGES_READ
    # the latest window among the channels that watched a series, not among all: vLLM 0.13
    # (day 0 2025-12-19) precedes vLLM's images (from 2026-01-28), only AMD's list watched it;
    # the images' first build, of the newer 0.14, covers it from its day (an upper bound)
    row = rows[("0.13", "earliest_build")]
    assert (row.status, row.lag_days, row.observed_through) == ("covered", 40, AMD_READ)
    assert (row.channel, row.covered_by) == ("vllm_rocm_image", "0.14")
    # without vLLM's images it is open, censored where AMD's list was last read
    _, rows, _ = compute([*UPSTREAM, *AMD])
    row = rows[("0.13", "earliest_build")]
    assert (row.status, row.lag_days, row.observed_through) == ("open", 35, AMD_READ)


def test_a_channel_whose_window_ends_before_day0_covers_nothing():
    """A build on a channel read only up to before the series' day 0 (a hypothetical AMD tag
    of 0.25.0 dated 2026-01-10) neither covers the series there nor in the combined row."""
    early = release("vllm-rocm-docker", "0.25.0", day(2026, 1, 10), "vllm-rocm-docker")
    _, rows, unknown = compute([*UPSTREAM, *AMD, early, *IMAGES])
    assert ("0.25", "rocm_vllm_docker") not in rows
    assert any(u.series == "0.25" and u.definition == "rocm_vllm_docker" for u in unknown)
    late = rows[("0.25", "earliest_build")]
    assert (late.status, late.lag_days) == ("open", 41)


def test_every_headline_counts_what_it_leaves_out():
    """Without vLLM's images nothing watched 0.15-0.25 after AMD's 2026-01-23: a combined row
    is unknown only then, and the pooled trend row and the answer count what they leave out."""
    samples, rows, unknown = compute([*UPSTREAM, *AMD])
    assert ("0.25", "earliest_build") not in rows
    reasons = [u.reason for u in unknown if u.series == "0.25" and u.definition == "earliest_build"]
    assert reasons == ["no channel observed it from its day 0 (vllm_rocm_image, rocm_vllm_docker)"]
    trends = lag_trends(samples, AS_OF, "cuda", samples_n=50, unknown=unknown)
    pooled = next(t for t in trends if t.group == POOLED and t.regime == "rocm")
    assert (pooled.not_observed, pooled.recent_not_observed) == (3, 3)  # 0.15, 0.24, 0.25
    answer = next(a for a in answers(trends, ["cuda", "rocm"], "cuda", AS_OF) if a.regime == "rocm")
    assert (answer.artifacts, answer.not_observed) == (2, 3)
    assert answer_text(answer).endswith("2 artifacts, 2 open, 3 not observed)")
    assert answer.row()["not_observed"] == 3


MODEL_RULE = {
    "project": "models",
    "artifact": "model",
    "day0": ["engine_cuda"],
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


def test_any_engine_is_open_when_one_engine_watched_the_family():
    """gemma3 (engine_cuda day 0 2025-03-17, SGLang's CUDA listing): AMD's list, read from
    2025-01-01, watched it and never named it; SGLang's ROCm images begin 2025-04-07, after
    day 0, so that engine did not watch it. Open (on today's main: unknown, because not every
    engine watched)."""
    as_of = day(2026, 1, 1)
    notes = [
        NoteFact("sglang-models", day(2024, 11, 5), "https://x/sg/mixtral", (),
                 (("mixtral", "supported", "Supported models"),), "cuda"),
        NoteFact("sglang-models", day(2025, 3, 17), "https://x/sg/gemma3", (),
                 (("gemma3", "supported", "Supported models"),), "cuda"),
        NoteFact("amd", day(2025, 1, 1), "https://x/amd/first-list", ()),
    ]  # fmt: skip
    images = [ReleaseFact("sg-docker", "0.4.5", day(2025, 4, 7), "https://hub/v0.4.5")]
    unknown: list = []
    out = model_lag_samples(
        parse_model_coverage([MODEL_RULE], "test"),
        load_families(),
        images,
        notes,
        as_of,
        LagRun(unknown),
    )
    rows = {(s.series, s.regime, s.definition): s for s in out}
    row = rows[("gemma3", "rocm", "any_engine")]
    assert (row.status, row.day0, row.lag_days) == ("open", day(2025, 3, 17), 290)
    assert ("gemma3", "rocm", "sg_rocm") not in rows  # that engine's own row stays unknown


def test_evidence_of_a_fresher_source_covers_where_another_source_was_read_earlier():
    """One definition fed by two sources of the same evidence (JAX's ROCm plugin: ROCm/rocm-jax
    releases readable to 2026-05-05, PyPI's uploads searched to 2026-08-22; here AMD's tag list
    read to 2026-01-23 and a second record of the same images read to 2026-08-22). A build the
    fresher source holds covers the series; absence is still known only through the earlier."""
    hub = release("vllm-rocm-docker", "0.24.0", day(2026, 7, 5), "vllm-rocm-docker-hub")
    releases = [*UPSTREAM, *AMD, hub]
    windows = Windows(
        delivered_channels(releases),
        {"vllm-rocm-docker": AMD_READ, "vllm-rocm-docker-hub": IMAGES_READ},
    )
    facts = LagFacts(tuple(parse_coverage([RULE], "s.yaml")), (), releases, [], windows=windows)
    unknown: list = []
    rows = {
        (s.series, s.definition): s
        for s in facts.samples(AS_OF, LagRun(unknown))
        if s.regime == "rocm"
    }
    row = rows[("0.24", "rocm_vllm_docker")]
    assert (row.status, row.lag_days, row.observed_through) == ("covered", 5, IMAGES_READ)
    # 0.25 has no build anywhere: unknown there, "not observed since" the earlier read
    assert ("0.25", "rocm_vllm_docker") not in rows
    assert any(
        u.series == "0.25" and u.definition == "rocm_vllm_docker" and "since 2026-01-23" in u.reason
        for u in unknown
    )
