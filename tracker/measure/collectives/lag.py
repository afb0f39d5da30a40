"""Day-0 lag of the collectives layer (docs/methodology.md, "The collectives layer").

Artifacts are NCCL minor series (2.27); day 0 is the series' first NCCL release (tag
``v2.27.3-1``). A regime whose library tracks NCCL's versions (ROCm's RCCL) carries a series
from the first of its releases whose library is, or claims compatibility with, a version of it:
the changelog section "RCCL 2.26.6 for ROCm 7.0.0" with its "Compatibility with NCCL 2.23.4"
lines. The section is dated by the release it names (its GA date: the earliest release fact of
that version among the rule's ``releases`` projects), never by the changelog's text, which is
edited after the fact; a section whose release is not (yet) dated, or is marked unreleased,
dates nothing.

Those dated claims become release facts of one evidence stream per regime, and the lag engine
(tracker.measure.lag.samples.lag_samples) decides covered / open / unknown, the observation
window and supersession (a skipped series is covered by the next) exactly as for framework
series: this module declares what differs (day 0 from NCCL tags, evidence from dated sections)
and calls the engine in one place, :func:`_decide`. Rows: ``project`` = the rule's project
(nccl), ``artifact`` = "collective", ``day0_definition`` = "nccl_release". A regime with no NCCL
mapping (Neuron, XLA) gets no rows: sources.yaml states why (``reason``), and every output
shows that sentence instead of a number.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from tracker.config.collective_layer import CollectiveLayerRule, CollectiveRegime
from tracker.config.coverage import CoverageRule, EvidenceRule
from tracker.measure.lag.rows import LagRun, LagSample
from tracker.measure.lag.samples import ReleaseFact, is_final, lag_samples
from tracker.measure.lag.windows import Windows, delivered_channels
from tracker.names import REFERENCE_REGIME
from tracker.versions import parse_version

ARTIFACT = "collective"
DAY0_DEFINITION = "nccl_release"


@dataclass(frozen=True)
class Section:
    """One changelog section: a release of the regime (as written) and the NCCL versions its
    library is or claims compatibility with."""

    project: str  # the carrier project (rccl)
    release: str  # "7.0.0", "7.11"
    nccl: tuple[str, ...]
    url: str
    source_id: str = ""
    unreleased: bool = False


def release_key(version: str) -> tuple[int, ...] | None:
    """One key per release however it is spelled: 7.14 and 7.14.0 are one release (TheRock
    tags two components, ROCm/ROCm three); None for a version that does not parse."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    numbers = list(parsed.parsed.release)
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def release_dates(
    regime: CollectiveRegime, releases: Iterable[ReleaseFact]
) -> dict[tuple[int, ...], tuple[datetime, str]]:
    """GA date and URL per release version of the regime: the earliest final release fact of
    that version among the regime's ``releases`` projects (the record behind the date)."""
    out: dict[tuple[int, ...], tuple[datetime, str]] = {}
    for fact in releases:
        key = release_key(fact.version)
        if fact.project not in regime.releases or not is_final(fact) or key is None:
            continue
        if key not in out or fact.occurred_at < out[key][0]:
            out[key] = (fact.occurred_at, fact.url)
    return out


def carried_facts(
    regime: CollectiveRegime, releases: Iterable[ReleaseFact], sections: Iterable[Section]
) -> list[ReleaseFact]:
    """The regime's evidence stream: each NCCL version a dated section names, as a release fact
    dated by that section's release (project ``<carrier>@<regime>``, the section's source)."""
    dates = release_dates(regime, releases)
    stream = evidence_project(regime)
    out = []
    for section in sections:
        if section.project != regime.carrier or section.unreleased:
            continue
        key = release_key(section.release)
        hit = dates.get(key) if key is not None else None
        if hit is None:
            continue  # a release not dated by any release fact: it dates nothing (yet)
        for version in section.nccl:
            out.append(ReleaseFact(stream, version, hit[0], hit[1], source_id=section.source_id))
    return out


def evidence_project(regime: CollectiveRegime) -> str:
    return f"{regime.carrier}@{regime.regime}"


def _from_since(fact: ReleaseFact, since: str) -> bool:
    if not since:
        return True
    mine, first = parse_version(fact.version), parse_version(since)
    return mine is not None and first is not None and mine.parsed >= first.parsed


def collective_samples(
    rule: CollectiveLayerRule,
    releases: Sequence[ReleaseFact],
    sections: Sequence[Section],
    as_of: datetime,
    run: LagRun | None = None,
    windows: Windows | None = None,
    reference_regime: str = REFERENCE_REGIME,
) -> list[LagSample]:
    """Lag samples of every NCCL series from ``since`` on every measured regime (module doc);
    the reference rows (day 0 itself) once."""
    day0 = [f for f in releases if f.project == rule.project and _from_since(f, rule.since)]
    out: dict[tuple, LagSample] = {}
    for regime in rule.measured():
        stream = carried_facts(regime, releases, sections)
        evidence = EvidenceRule(
            regime.regime, regime.definition, True, evidence_project(regime), "release"
        )
        coverage = CoverageRule(rule.project, "minor", (evidence,), reference_regime)
        observed = windows.observed if windows else {}
        own = Windows(delivered_channels(stream), observed)
        for sample in _decide(coverage, [*day0, *stream], as_of, run, own):
            key = (sample.series, sample.regime, sample.definition)
            out.setdefault(key, replace(sample, artifact=ARTIFACT, day0_definition=DAY0_DEFINITION))
    return list(out.values())


def _decide(
    coverage: CoverageRule,
    releases: list[ReleaseFact],
    as_of: datetime,
    run: LagRun | None,
    windows: Windows,
) -> list[LagSample]:
    """The one call into the lag engine: covered / open / unknown, window and supersession
    are the engine's (re-point here when the engine's decision moves)."""
    return lag_samples([coverage], releases, [], as_of, run, windows)
