"""Day-0 coverage lag: censoring, KM medians, definitions kept apart, evidence provenance,
and one lag computed end to end from the real ROCm matrix in the corpus."""

from __future__ import annotations

import csv
from datetime import UTC, datetime

import pytest

from tracker.collect.sources import CollectContext, compat_matrix
from tracker.config import SourceSpec
from tracker.config.coverage import parse_coverage
from tracker.errors import ConfigError
from tracker.measure.lag.coverage import artifact_series
from tracker.measure.lag.rows import LagRun, LagSample
from tracker.measure.lag.samples import NoteFact, ReleaseFact, lag_samples
from tracker.measure.stats.survival import kaplan_meier_median, summarize


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


RULES = parse_coverage(
    [
        {
            "project": "pytorch",
            "series": "minor",
            "regimes": {
                "rocm": [
                    {
                        "definition": "vendor_matrix",
                        "primary": True,
                        "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"},
                    },
                    {
                        "definition": "upstream_wheels",
                        "evidence": {"project": "pytorch-rocm-wheels", "kind": "release"},
                    },
                ],
                "xla": [
                    {
                        "definition": "torch_xla_release",
                        "primary": True,
                        "evidence": {"project": "torch-xla", "kind": "release"},
                    }
                ],
            },
        }
    ]
)

# Real dates: PyTorch 2.8.0 2025-08-06, 2.9.0 2025-10-15, torch_xla 2.8.0 2025-08-08 (tag date).
RELEASES = [
    ReleaseFact(
        "pytorch",
        "2.8.0",
        day(2025, 8, 6),
        "https://github.com/pytorch/pytorch/releases/tag/v2.8.0",
    ),
    ReleaseFact("pytorch", "2.8.1", day(2025, 9, 1), "u-2.8.1"),
    ReleaseFact("pytorch", "2.9.0rc1", day(2025, 9, 20), "u-rc", prerelease=True),
    ReleaseFact("pytorch", "2.9.0rc2", day(2025, 9, 25), "pypi-rc"),  # PyPI: no flag, rc version
    ReleaseFact("torch-xla", "2.9.0rc1", day(2025, 9, 30), "xla-rc"),
    ReleaseFact(
        "pytorch",
        "2.9.0",
        day(2025, 10, 15),
        "https://github.com/pytorch/pytorch/releases/tag/v2.9.0",
    ),
    ReleaseFact(
        "torch-xla", "2.8.0", day(2025, 8, 8), "https://github.com/pytorch/xla/releases/tag/v2.8.0"
    ),
    ReleaseFact("pytorch-rocm-wheels", "2.8.0", day(2025, 8, 6), "wheel-2.8"),
    ReleaseFact("pytorch-rocm-wheels", "2.9.0", day(2025, 10, 15), "wheel-2.9"),
]
NOTES = [
    NoteFact(
        "rocm",
        day(2025, 9, 16),
        "matrix-7.0.0",
        (("pytorch", "2.8", "supported"), ("pytorch", "2.9", "planned")),
    ),
    NoteFact("rocm", day(2025, 7, 1), "old-matrix", (("pytorch", "2.7", "supported"),)),
    NoteFact("rocm", day(2025, 12, 1), "matrix-7.1.1", (("torch", "2.8.0", "supported"),)),
]
AS_OF = day(2025, 12, 31)


def by_key(samples):
    return {(s.series, s.regime, s.definition): s for s in samples}


def test_definitions_are_kept_apart_and_open_artifacts_are_censored():
    samples = by_key(lag_samples(RULES, RELEASES, NOTES, AS_OF))
    matrix = samples[("2.8", "rocm", "vendor_matrix")]
    assert (matrix.lag_days, matrix.status, matrix.evidence_url) == (41, "covered", "matrix-7.0.0")
    assert matrix.primary and matrix.day0 == day(2025, 8, 6)
    wheels = samples[("2.8", "rocm", "upstream_wheels")]
    assert (wheels.lag_days, wheels.primary) == (0, False)
    # "planned" is not support: 2.9 stays open, lag = as_of - day0, no evidence URL
    open_29 = samples[("2.9", "rocm", "vendor_matrix")]
    assert (open_29.status, open_29.lag_days, open_29.evidence_url) == ("open", 77, "")
    assert samples[("2.9", "xla", "torch_xla_release")].status == "open"  # an rc is no release
    assert samples[("2.9", "cuda", "upstream_release")].day0 == day(2025, 10, 15)
    assert samples[("2.8", "cuda", "upstream_release")].lag_days == 0
    assert "2.9.0rc1" not in {s.series for s in samples.values()}


def test_earliest_evidence_wins_and_negative_lag_is_flagged_not_clamped():
    notes = NOTES + [
        NoteFact("rocm", day(2025, 8, 1), "preannounce", (("pytorch", "2.8", "supported"),))
    ]
    sample = by_key(lag_samples(RULES, RELEASES, notes, AS_OF))[("2.8", "rocm", "vendor_matrix")]
    assert (sample.lag_days, sample.negative, sample.evidence_url) == (-5, True, "preannounce")


def test_artifacts_older_than_the_evidence_stream_are_unknown_not_open():
    releases = RELEASES + [ReleaseFact("pytorch", "2.5.0", day(2024, 10, 17), "u-2.5")]
    unknown = []
    samples = by_key(lag_samples(RULES, releases, NOTES, AS_OF, LagRun(unknown)))
    # torch-xla evidence starts 2025-08-08: PyTorch 2.5 (2024-10-17) cannot be called open there
    assert ("2.5", "xla", "torch_xla_release") not in samples
    assert ("pytorch", "2.5", "xla", "torch_xla_release") in [
        (u.project, u.series, u.regime, u.definition) for u in unknown
    ]
    # but the ROCm notes reach back to 2025-07-01... still after 2024-10-17: unknown as well
    assert ("2.5", "rocm", "vendor_matrix") not in samples


def test_coarse_mentions_name_no_series():
    assert artifact_series("0.4", "release") is None
    assert artifact_series("0.4.31", "release") == "0.4.31"
    assert artifact_series("2", "minor") is None
    assert artifact_series("2.9.1", "minor") == "2.9"


def test_kaplan_meier_median_counts_open_artifacts():
    assert kaplan_meier_median([(10, True), (20, True), (30, True)]) == 20
    # three of four still open at 100 days: survival never falls to 0.5 -> not reached
    assert kaplan_meier_median([(10, True), (100, False), (100, False), (100, False)]) is None
    assert kaplan_meier_median([(10, True), (100, False), (100, False), (20, True)]) == 20
    # dropping the open ones would say 15; counting them, the median is the 3rd event (40)
    assert kaplan_meier_median([(10, True), (20, True), (25, False), (40, True), (90, True)]) == 40


def test_summary_shares_only_count_artifacts_old_enough():
    samples = lag_samples(RULES, RELEASES, NOTES, day(2025, 10, 20))
    rocm = next(
        s
        for s in summarize(samples, day(2025, 10, 20))
        if s.regime == "rocm" and s.definition == "vendor_matrix" and s.period == "all"
    )
    assert (rocm.artifacts, rocm.covered, rocm.open) == (2, 1, 1)
    assert rocm.within[7] == (0, 1)  # 2.9 is 5 days old: not yet judged at 7 days
    assert rocm.within[30] == (0, 1)  # 2.8 took 41 days
    assert rocm.within[90] == (0, 0)  # 2.8 is 75 days old: too young to judge at 90


def test_bad_coverage_rules_name_the_key():
    with pytest.raises(ConfigError, match="exactly one definition marked primary"):
        parse_coverage(
            [
                {
                    "project": "jax",
                    "regimes": {
                        "rocm": [
                            {
                                "definition": "a",
                                "evidence": {"project": "rocm-jax", "kind": "release"},
                            }
                        ]
                    },
                }
            ]
        )
    with pytest.raises(ConfigError, match="needs 'mentions"):
        parse_coverage(
            [
                {
                    "project": "jax",
                    "regimes": {
                        "rocm": [
                            {
                                "definition": "a",
                                "primary": True,
                                "evidence": {"project": "rocm", "kind": "note"},
                            }
                        ]
                    },
                }
            ]
        )


def test_negative_lags_enter_the_median_unclamped():
    # pre-announced support (lags -30, -10) and one late series (+50): the median is -10, not 0
    assert kaplan_meier_median([(-30, True), (-10, True), (50, True)]) == -10
    samples = [
        LagSample(
            "pytorch",
            series,
            "rocm",
            "vendor_matrix",
            True,
            day(2025, 1, 1),
            "d",
            day(2025, 1, 1),
            lag,
            "covered",
            "e",
            lag < 0,
        )
        for series, lag in (("2.6", -30), ("2.7", -10), ("2.8", 50))
    ]
    [summary] = summarize(samples, AS_OF, by_quarter=False)
    assert summary.km_median_days == -10


def test_kaplan_meier_median_is_exact_at_one_half():
    # 24 events: survival after the 12th is exactly 1/2 (floats said 0.5000000000000001 -> 13)
    assert kaplan_meier_median([(d, True) for d in range(1, 25)]) == 12
    assert kaplan_meier_median([(d, True) for d in range(1, 23)]) == 11


def test_evidence_found_after_a_late_start_is_a_bound_not_a_lag():
    # torch-xla releases collected only from 2025-09-01: 2.8.1 (not the series' first release)
    # is evidence for PyTorch 2.8, but an uncollected 2.8.0 may be older: unknown, with the bound.
    releases = [r for r in RELEASES if r.project != "torch-xla"] + [
        ReleaseFact("torch-xla", "2.8.1", day(2025, 9, 1), "xla-2.8.1"),
        ReleaseFact("torch-xla", "2.9.0", day(2025, 10, 20), "xla-2.9.0"),
    ]
    unknown = []
    samples = by_key(lag_samples(RULES, releases, NOTES, AS_OF, LagRun(unknown)))
    assert ("2.8", "xla", "torch_xla_release") not in samples
    [reason] = [
        u.reason
        for u in unknown
        if (u.project, u.series, u.regime, u.definition)
        == ("pytorch", "2.8", "xla", "torch_xla_release")
    ]
    assert "at most 26 days" in reason
    # 2.9.0 is the first release of its series: nothing earlier can exist, the lag is exact
    assert samples[("2.9", "xla", "torch_xla_release")].lag_days == 5


def test_pre_release_mentions_are_not_support_of_the_series():
    notes = NOTES + [
        NoteFact("rocm", day(2025, 10, 1), "rc-note", (("pytorch", "2.9.0rc1", "supported"),))
    ]
    sample = by_key(lag_samples(RULES, RELEASES, notes, AS_OF))[("2.9", "rocm", "vendor_matrix")]
    assert sample.status == "open"


def test_a_version_map_ignores_versions_it_does_not_name():
    rules = parse_coverage(
        [
            {
                "project": "pytorch",
                "regimes": {
                    "neuron": [
                        {
                            "definition": "torch_neuronx",
                            "primary": True,
                            "version_map": {"1.10.0": "2.10.0"},
                            "evidence": {"project": "torch-neuronx", "kind": "release"},
                        }
                    ]
                },
            }
        ]
    )
    releases = [
        ReleaseFact("pytorch", "2.10.0", day(2026, 1, 21), "pt-2.10"),
        ReleaseFact("pytorch", "1.10.0", day(2021, 10, 21), "pt-1.10"),
        ReleaseFact("torch-neuronx", "1.10.0", day(2026, 2, 1), "nx-1.10.0"),
        ReleaseFact("torch-neuronx", "1.10.1", day(2026, 3, 1), "nx-1.10.1"),
        ReleaseFact("torch-neuronx", "1.0.0", day(2021, 1, 1), "nx-1.0.0"),
    ]  # stream reach
    samples = by_key(lag_samples(rules, releases, [], day(2026, 6, 1), LagRun()))
    assert samples[("2.10", "neuron", "torch_neuronx")].lag_days == 11
    # 1.10.1 is not PyTorch 1.10: 1.10 is covered only by the newer 2.10 (supersession,
    # dated by torch-neuronx 1.10.0), never by its own series
    old = samples[("1.10", "neuron", "torch_neuronx")]
    assert (old.covered_by, old.evidence_url) == ("2.10", "nx-1.10.0")


def test_a_note_that_also_calls_a_series_planned_or_dropped_is_no_evidence_of_it():
    # Neuron 2.28's PyTorch page: "2.10 support (planned for a future Neuron release) ... when
    # upgrading to PyTorch 2.10": the tagger reads one mention planned, one supported.
    notes = NOTES + [
        NoteFact(
            "rocm",
            day(2025, 10, 20),
            "mixed",
            (
                ("pytorch", "2.9", "planned"),
                ("pytorch", "2.9.0", "supported"),
                ("pytorch", "2.8", "supported"),
            ),
        )
    ]
    samples = by_key(lag_samples(RULES, RELEASES, notes, AS_OF))
    assert samples[("2.9", "rocm", "vendor_matrix")].status == "open"
    assert (
        samples[("2.8", "rocm", "vendor_matrix")].evidence_url == "matrix-7.0.0"
    )  # earlier anyway


def test_coverage_rules_refuse_duplicates_and_unquoted_versions():
    rocm = {
        "definition": "a",
        "primary": True,
        "evidence": {"project": "rocm-jax", "kind": "release"},
    }
    with pytest.raises(ConfigError, match="names definition 'a' twice"):
        parse_coverage(
            [{"project": "jax", "regimes": {"rocm": [rocm, {**rocm, "primary": False}]}}]
        )
    with pytest.raises(ConfigError, match="second rule for the same project"):
        parse_coverage([{"project": "jax", "regimes": {"rocm": [rocm]}}] * 2)
    with pytest.raises(ConfigError, match="quoted strings"):
        parse_coverage(
            [
                {
                    "project": "pytorch",
                    "regimes": {"neuron": [{**rocm, "version_map": {"1.10.0": 2.10}}]},
                }
            ]
        )  # YAML's 2.10 is the float 2.1


def test_stored_facts_are_untrusted(sqlite_store):
    # A mention whose version is a number (import-events takes any JSON) is ignored, not a crash;
    # evidence without a URL is referred to by its event id; notes naming nothing still show how
    # far back the vendor's notes reach.
    from tracker.events import Event
    from tracker.measure.facts import load_facts

    items = [
        Event(
            "m",
            "rocm",
            "note",
            "bad",
            day(2025, 9, 1),
            "x",
            attrs={
                "mentions": [
                    {"framework": "pytorch", "version": 2.7, "status": "supported"},
                    "junk",
                ]
            },
        ),
        Event(
            "m",
            "rocm",
            "note",
            "nourl",
            day(2025, 9, 2),
            "ROCm supports PyTorch 2.8",
            attrs={"mentions": [{"framework": "pytorch", "version": "2.8", "status": "supported"}]},
        ),
        Event("m", "rocm", "note", "plain", day(2024, 1, 10), "Fixed a hang"),
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    _, notes = load_facts(sqlite_store, ["rocm"])
    by_time = sorted(notes, key=lambda n: n.occurred_at)
    assert [n.mentions for n in by_time] == [(), (), (("pytorch", "2.8", "supported"),)]
    assert by_time[2].url == f"event:{items[1].id}"


def test_real_rocm_matrix_gives_pytorch_2_4_its_vendor_matrix_lag(corpus):
    """PyTorch 2.4 went stable 2024-07-23 (pytorch/test-infra stable-version bump, read from the
    corpus); the first ROCm release whose historical matrix lists 2.4 is 6.3.0, released
    2024-12-03 per docs/release/versions.md: 133 days."""
    rocm = corpus / "rocm" / "ROCm@develop-e396b48" / "docs"
    spec = SourceSpec(
        "rocm-compat-matrix-historical",
        "compat_matrix",
        "rocm",
        options={
            "url": str(rocm / "compatibility" / "compatibility-matrix-historical-6.0.csv"),
            "format": "csv",
            "history_url": str(rocm / "release" / "versions.md"),
        },
    )
    ctx = CollectContext(spec)
    notes = [
        NoteFact(
            "rocm",
            e.occurred_at,
            e.url,
            tuple((m["framework"], m["version"], m["status"]) for m in e.attrs["mentions"]),
        )
        for e in compat_matrix.parse(
            (rocm / "compatibility" / "compatibility-matrix-historical-6.0.csv").read_bytes(), ctx
        )
    ]
    with (corpus / "_derived" / "pytorch_test-infra_stable_version_commits.tsv").open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    stable = next(r for r in rows if r["CURRENT_STABLE_VERSION"] == "2.4.0")
    day0 = datetime.fromisoformat(stable["committer_date"]).astimezone(UTC)
    rule = parse_coverage(
        [
            {
                "project": "pytorch",
                "series": "minor",
                "regimes": {
                    "rocm": [
                        {
                            "definition": "vendor_matrix",
                            "primary": True,
                            "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"},
                        }
                    ]
                },
            }
        ]
    )
    samples = by_key(
        lag_samples(
            rule, [ReleaseFact("pytorch", "2.4.0", day0, "test-infra")], notes, day(2025, 3, 21)
        )
    )
    sample = samples[("2.4", "rocm", "vendor_matrix")]
    assert sample.available == day(2024, 12, 3)
    assert day0.date().isoformat() == "2024-07-23"
    assert (sample.lag_days, sample.status) == (133, "covered")
