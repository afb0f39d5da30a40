"""Pure metric functions: day-0 coverage lag with censoring (docs/methodology.md, coverage
lag) and its summaries. No database, no I/O: the report feeds facts in and gets samples out.

Definitions are never collapsed: every LagSample names its regime *and* definition, and keeps the
URL of the evidence it rests on, so any number in a report can be traced.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import TypeVar

from tracker.config.coverage import SERIES_COMPONENTS, CoverageRule, EvidenceRule
from tracker.measure.lag.coverage import FRAMEWORK_PROJECTS, REFERENCE_DEFINITION, artifact_series
from tracker.measure.lag.decision import UNKNOWN, Stream, decide
from tracker.measure.lag.rows import LagRun, LagSample, due, lag_row
from tracker.measure.lag.supersession import supersede
from tracker.measure.lag.windows import Windows
from tracker.versions import parse_version


@dataclass(frozen=True)
class ReleaseFact:
    project: str
    version: str
    occurred_at: datetime
    url: str
    prerelease: bool = False
    draft: bool = False  # a GitHub draft: not published, dated by its tag commit
    source_id: str = ""  # the source that stored it (its observation window: measure.lag.windows)


@dataclass(frozen=True)
class BenchConfig:
    """A benchmark configuration a note records (collect.sources.config_history): a model on one
    runner with one framework, and whose regime that runner's hardware is."""

    regime: str  # the runner map's regime; "unknown" when the map does not name its hardware
    hardware: str
    runner: str
    framework: str
    model: str
    baseline: bool  # in the first version of the history read: configured by then, not since


@dataclass(frozen=True)
class NoteFact:
    """A vendor note with the framework versions it names and their status."""

    project: str
    occurred_at: datetime
    url: str
    mentions: tuple[tuple[str, str, str], ...]  # (framework project, version, status)
    # (model family, status, where the note sits): model-family mentions, see measure.models.lag
    models: tuple[tuple[str, str, str], ...] = ()
    regime: str | None = None  # the tagger's (else the source's): whose support the note states
    source_id: str = ""  # the source that stored it (its observation window: measure.lag.windows)
    config: BenchConfig | None = None  # an independent benchmark's configuration, if it is one


_Fact = TypeVar("_Fact", ReleaseFact, NoteFact)


def is_final(fact: ReleaseFact) -> bool:
    """A final release: not a draft (unpublished, so it sets no day 0), not marked pre-release
    by its source, and no pre/dev version either (PyPI lists rc versions without a flag)."""
    if fact.prerelease or fact.draft:
        return False
    parsed = parse_version(fact.version)
    return parsed is not None and not parsed.prerelease


@lru_cache(maxsize=1 << 16)  # asked for every mention of every note, per evidence stream
def is_prerelease(version: str) -> bool:
    """A pre-release or dev version by its own number (PyPI lists rc versions without a flag)."""
    parsed = parse_version(version)
    return parsed is not None and parsed.prerelease


def day0_by_series(
    rule: CoverageRule, releases: Iterable[ReleaseFact]
) -> dict[str, tuple[datetime, str]]:
    """Publish date (and URL) of each series' first final release of the rule's project."""
    first: dict[str, tuple[datetime, str]] = {}
    for fact in releases:
        if fact.project != rule.project or not is_final(fact):
            continue
        key = artifact_series(fact.version, rule.granularity)
        if key and (key not in first or fact.occurred_at < first[key][0]):
            first[key] = (fact.occurred_at, fact.url)
    return first


def evidence_by_series(
    rule: CoverageRule,
    evidence: EvidenceRule,
    releases: Iterable[ReleaseFact],
    notes: Iterable[NoteFact],
) -> dict[str, tuple[datetime, str, bool]]:
    """Earliest dated evidence per series under one definition (the earliest wins and keeps
    its provenance; later contradicting evidence changes nothing here): (date, URL, first),
    where `first` says no earlier evidence of the series can exist: a release that is the
    series' first version (2.7.0 for series 2.7). A vendor note never is: an earlier note may
    have said the same."""
    found: dict[str, tuple[datetime, str, bool]] = {}

    def offer(version: str, when: datetime, url: str) -> None:
        if evidence.version_map:
            # A package that numbers differently: a version the map does not name would be
            # read in the upstream's numbering (torch-neuronx 1.10.1 as PyTorch 1.10): ignore it.
            if version not in evidence.version_map:
                return
            version = evidence.version_map[version]
        key = artifact_series(version, rule.granularity)
        parsed = parse_version(version) if key else None  # a series key: a parsed version
        if parsed and key and (key not in found or when < found[key][0]):
            first = evidence.kind == "release" and not any(
                parsed.parsed.release[SERIES_COMPONENTS[rule.granularity] :]
            )
            found[key] = (when, url, first)

    if evidence.kind == "release":
        for fact in releases:
            if fact.project == evidence.project and is_final(fact):
                offer(fact.version, fact.occurred_at, fact.url)
    else:
        wanted = FRAMEWORK_PROJECTS.get(evidence.mentions or "", evidence.mentions)
        for note in notes:
            if note.project != evidence.project:
                continue
            mine = [
                (version, status)
                for framework, version, status in note.mentions
                if FRAMEWORK_PROJECTS.get(framework, framework) == wanted
            ]
            # A note that also calls a series planned or dropped ("2.10 support is planned ...
            # when upgrading to PyTorch 2.10") is no evidence that it is supported: a mixed
            # sentence can lend a mention the wrong cue, and planned must not read as covered.
            denied = {
                artifact_series(version, rule.granularity)
                for version, status in mine
                if status in ("planned", "dropped")
            }
            for version, status in mine:
                if (
                    status == "supported"
                    and not is_prerelease(version)
                    and artifact_series(version, rule.granularity) not in denied
                ):
                    offer(version, note.occurred_at, note.url)
    return found


def evidence_window(
    evidence: EvidenceRule, releases: Sequence[ReleaseFact], notes: Sequence[NoteFact]
) -> tuple[datetime, datetime] | None:
    """The earliest and latest facts the store holds from an evidence stream. Before the
    first, the absence of evidence says nothing (not collected that far back); the last tells
    readers how fresh the stream is (a stale vendor page keeps artifacts open)."""
    if evidence.kind == "release":
        times = [f.occurred_at for f in releases if f.project == evidence.project]
    else:
        times = [n.occurred_at for n in notes if n.project == evidence.project]
    return (min(times), max(times)) if times else None


def _by_project(facts: Iterable[_Fact]) -> dict[str, list[_Fact]]:
    grouped: dict[str, list[_Fact]] = {}
    for fact in facts:
        grouped.setdefault(fact.project, []).append(fact)
    return grouped


def lag_samples(
    rules: Sequence[CoverageRule],
    releases: Sequence[ReleaseFact],
    notes: Sequence[NoteFact],
    as_of: datetime,
    run: LagRun | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """Every (artifact, regime, definition) with its lag; open artifacts are kept, right-censored
    where the definition's evidence was last looked at (`windows`, measure.lag.windows: lag =
    observed_through - day0, observed_through at most `as_of`; an artifact whose day 0 is after
    it is unknown, "not observed since"). A series is covered by its own evidence or by a newer
    series' (measure.lag.supersession, `covered_by`). Artifacts whose day 0 is after `as_of` are
    left out.

    An artifact whose day 0 precedes everything collected from the evidence stream (or whose
    stream is empty) is neither covered nor open but unknown: without evidence it is not known
    to be open, and with evidence the lag is only an upper bound, unless the evidence is the
    series' first release. It is left out of the samples and, when `run` is given, recorded
    there (LagRun.unknown) with its reason. Otherwise a partial backfill would read as years
    of open lag, or as a confident lag that earlier evidence would shorten. `run` also
    receives each (project, regime, definition)'s evidence window (LagRun.spans).
    """
    samples = []
    run = run if run is not None else LagRun()
    windows = windows or Windows()
    # Each rule and evidence stream reads one project's facts: grouped once, in their order,
    # not the whole store scanned again per rule and per stream.
    releases_of = _by_project(releases)
    notes_of = _by_project(notes)
    for rule in rules:
        day0s = day0_by_series(rule, releases_of.get(rule.project, []))
        artifacts = due(day0s, as_of)
        for key, day0, day0_url in artifacts:
            samples.append(
                lag_row(
                    project=rule.project,
                    series=key,
                    regime=rule.reference_regime,
                    definition=REFERENCE_DEFINITION,
                    primary=True,
                    day0=day0,
                    day0_url=day0_url,
                )
            )
        for evidence in rule.evidence:
            own_releases = releases_of.get(evidence.project, [])
            own_notes = notes_of.get(evidence.project, [])
            # the as-of cut of evidence: supersede keeps what is dated by as-of
            available = supersede(
                evidence_by_series(rule, evidence, own_releases, own_notes), day0s, as_of
            )
            span = evidence_window(evidence, own_releases, own_notes)
            run.span(rule.project, evidence.regime, evidence.definition, span)
            stream = Stream(
                f"{evidence.project} {evidence.kind}s",
                span[0] if span else None,
                windows.through((evidence,), as_of),
                latest=windows.latest((evidence,), as_of),
            )
            for key, day0, day0_url in artifacts:
                found = decide(day0, available.get(key), stream)
                if found.status == UNKNOWN:
                    run.leave_out(
                        rule.project, key, evidence.regime, evidence.definition, found.reason
                    )
                    continue
                samples.append(
                    lag_row(
                        project=rule.project,
                        series=key,
                        regime=evidence.regime,
                        definition=evidence.definition,
                        primary=evidence.primary,
                        day0=day0,
                        day0_url=day0_url,
                        found=found,
                        observed_through=found.through,
                    )
                )
    return samples
