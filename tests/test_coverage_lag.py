"""Day-0 coverage lag: censoring, KM medians, definitions kept apart, evidence provenance,
and one lag computed end to end from the real ROCm matrix in the corpus."""

from __future__ import annotations

import csv
from datetime import datetime, timezone

import pytest

from tracker.collectors import CollectContext, compat_matrix
from tracker.config import SourceSpec
from tracker.errors import ConfigError
from tracker.metrics import (NoteFact, ReleaseFact, artifact_series, kaplan_meier_median,
                             lag_samples, parse_coverage, summarize)


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=timezone.utc)


RULES = parse_coverage([
    {"project": "pytorch", "series": "minor", "regimes": {
        "rocm": [{"definition": "vendor_matrix", "primary": True,
                  "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"}},
                 {"definition": "upstream_wheels",
                  "evidence": {"project": "pytorch-rocm-wheels", "kind": "release"}}],
        "xla": [{"definition": "torch_xla_release", "primary": True,
                 "evidence": {"project": "torch-xla", "kind": "release"}}]}}])

# Real dates: PyTorch 2.8.0 2025-08-06, 2.9.0 2025-10-15, torch_xla 2.8.0 2025-08-08 (tag date).
RELEASES = [
    ReleaseFact("pytorch", "2.8.0", day(2025, 8, 6), "https://github.com/pytorch/pytorch/releases/tag/v2.8.0"),
    ReleaseFact("pytorch", "2.8.1", day(2025, 9, 1), "u-2.8.1"),
    ReleaseFact("pytorch", "2.9.0rc1", day(2025, 9, 20), "u-rc", prerelease=True),
    ReleaseFact("pytorch", "2.9.0rc2", day(2025, 9, 25), "pypi-rc"),  # PyPI: no flag, rc version
    ReleaseFact("torch-xla", "2.9.0rc1", day(2025, 9, 30), "xla-rc"),
    ReleaseFact("pytorch", "2.9.0", day(2025, 10, 15), "https://github.com/pytorch/pytorch/releases/tag/v2.9.0"),
    ReleaseFact("torch-xla", "2.8.0", day(2025, 8, 8), "https://github.com/pytorch/xla/releases/tag/v2.8.0"),
    ReleaseFact("pytorch-rocm-wheels", "2.8.0", day(2025, 8, 6), "wheel-2.8"),
    ReleaseFact("pytorch-rocm-wheels", "2.9.0", day(2025, 10, 15), "wheel-2.9"),
]
NOTES = [
    NoteFact("rocm", day(2025, 9, 16), "matrix-7.0.0", (("pytorch", "2.8", "supported"),
                                                         ("pytorch", "2.9", "planned"))),
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
    notes = NOTES + [NoteFact("rocm", day(2025, 8, 1), "preannounce", (("pytorch", "2.8", "supported"),))]
    sample = by_key(lag_samples(RULES, RELEASES, notes, AS_OF))[("2.8", "rocm", "vendor_matrix")]
    assert (sample.lag_days, sample.negative, sample.evidence_url) == (-5, True, "preannounce")


def test_artifacts_older_than_the_evidence_stream_are_unknown_not_open():
    releases = RELEASES + [ReleaseFact("pytorch", "2.5.0", day(2024, 10, 17), "u-2.5")]
    unknown = []
    samples = by_key(lag_samples(RULES, releases, NOTES, AS_OF, unknown))
    # torch-xla evidence starts 2025-08-08: PyTorch 2.5 (2024-10-17) cannot be called open there
    assert ("2.5", "xla", "torch_xla_release") not in samples
    assert ("pytorch", "2.5", "xla", "torch_xla_release") in [u[:4] for u in unknown]
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
    rocm = next(s for s in summarize(samples, day(2025, 10, 20))
                if s.regime == "rocm" and s.definition == "vendor_matrix" and s.period == "all")
    assert (rocm.artifacts, rocm.covered, rocm.open) == (2, 1, 1)
    assert rocm.within[7] == (0, 1)  # 2.9 is 5 days old: not yet judged at 7 days
    assert rocm.within[30] == (0, 1)  # 2.8 took 41 days
    assert rocm.within[90] == (0, 0)  # 2.8 is 75 days old: too young to judge at 90


def test_bad_coverage_rules_name_the_key():
    with pytest.raises(ConfigError, match="exactly one definition marked primary"):
        parse_coverage([{"project": "jax", "regimes": {"rocm": [
            {"definition": "a", "evidence": {"project": "rocm-jax", "kind": "release"}}]}}])
    with pytest.raises(ConfigError, match="needs 'mentions"):
        parse_coverage([{"project": "jax", "regimes": {"rocm": [
            {"definition": "a", "primary": True, "evidence": {"project": "rocm", "kind": "note"}}]}}])


def test_real_rocm_matrix_gives_pytorch_2_4_its_vendor_matrix_lag(corpus):
    """PyTorch 2.4 went stable 2024-07-23 (pytorch/test-infra stable-version bump, read from the
    corpus); the first ROCm release whose historical matrix lists 2.4 is 6.3.0, released
    2024-12-03 per docs/release/versions.md: 133 days."""
    rocm = corpus / "rocm" / "ROCm@develop-e396b48" / "docs"
    spec = SourceSpec("rocm-compat-matrix-historical", "compat_matrix", "rocm", options={
        "url": str(rocm / "compatibility" / "compatibility-matrix-historical-6.0.csv"),
        "format": "csv", "history_url": str(rocm / "release" / "versions.md")})
    ctx = CollectContext(spec)
    notes = [NoteFact("rocm", e.occurred_at, e.url,
                      tuple((m["framework"], m["version"], m["status"]) for m in e.attrs["mentions"]))
             for e in compat_matrix.parse((rocm / "compatibility" /
                                           "compatibility-matrix-historical-6.0.csv").read_bytes(), ctx)]
    with (corpus / "_derived" / "pytorch_test-infra_stable_version_commits.tsv").open() as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    stable = next(r for r in rows if r["CURRENT_STABLE_VERSION"] == "2.4.0")
    day0 = datetime.fromisoformat(stable["committer_date"]).astimezone(timezone.utc)
    rule = parse_coverage([{"project": "pytorch", "series": "minor", "regimes": {"rocm": [
        {"definition": "vendor_matrix", "primary": True,
         "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"}}]}}])
    samples = by_key(lag_samples(rule, [ReleaseFact("pytorch", "2.4.0", day0, "test-infra")],
                                 notes, day(2025, 3, 21)))
    sample = samples[("2.4", "rocm", "vendor_matrix")]
    assert sample.available == day(2024, 12, 3)
    assert day0.date().isoformat() == "2024-07-23"
    assert (sample.lag_days, sample.status) == (133, "covered")
