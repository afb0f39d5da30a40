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
from typing import Any, TypeVar

from tracker.config.coverage import SERIES_COMPONENTS, CoverageRule, EvidenceRule
from tracker.measure.lag.coverage import FRAMEWORK_PROJECTS, REFERENCE_DEFINITION, artifact_series
from tracker.measure.lag.decision import COVERED, UNKNOWN, Stream, decide
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
    source_id: str = ""  # the source that stored it (its observation window: measure.windows)


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
    # (model family, status, where the note sits): model-family mentions, see measure.model_lag
    models: tuple[tuple[str, str, str], ...] = ()
    regime: str | None = None  # the tagger's (else the source's): whose support the note states
    source_id: str = ""  # the source that stored it (its observation window: measure.windows)
    config: BenchConfig | None = None  # an independent benchmark's configuration, if it is one


@dataclass(frozen=True)
class LagSample:
    """One artifact on one regime under one definition: a row of `tracker lag`."""

    project: str
    series: str
    regime: str
    definition: str
    primary: bool
    day0: datetime
    day0_url: str
    available: datetime | None
    lag_days: int
    status: str  # covered | open
    evidence_url: str
    negative: bool = False
    artifact: str = "framework"  # framework (a release series) | model (a model family)
    day0_definition: str = REFERENCE_DEFINITION  # models: engine_cuda | vllm_cuda | public_weights
    # models: the serving engine whose evidence this row reads ("vllm", "sglang"); "" for rows
    # of one vendor stream or of "any engine" (not a CSV column: lag.csv keeps its columns)
    engine: str = ""
    # how far the definition's evidence was looked at (measure.windows): an open row's lag is
    # observed_through - day0; None on the reference rows (day 0 itself)
    observed_through: datetime | None = None
    covered_by: str = ""  # the newer series whose evidence covers this one (measure.supersession)
    # an earliest-build row (tracker.measure.lag.channels): the channel definition whose evidence
    # came first; "" for other rows and for open ones
    channel: str = ""
    # the kind of record that dated a covered row (tracker.measure.lag.builds.label_rows):
    # release, note, configuration commit, issue, comment, page revision; "" on open rows
    evidence_kind: str = ""

    def csv_row(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "series": self.series,
            "regime": self.regime,
            "definition": self.definition,
            "primary": str(self.primary).lower(),
            "day0": self.day0.date().isoformat(),
            "available": self.available.date().isoformat() if self.available else "",
            "lag_days": self.lag_days,
            "status": self.status,
            "evidence_url": self.evidence_url,
            # after the original columns, so a reader of columns by position is not misled
            "artifact": self.artifact,
            "day0_definition": self.day0_definition,
            "observed_through": (
                self.observed_through.date().isoformat() if self.observed_through else ""
            ),
            "covered_by": self.covered_by,
            "channel": self.channel,
            "evidence_kind": self.evidence_kind,
        }


_Fact = TypeVar("_Fact", ReleaseFact, NoteFact)

LAG_CSV_COLUMNS = [
    "project",
    "series",
    "regime",
    "definition",
    "primary",
    "day0",
    "available",
    "lag_days",
    "status",
    "evidence_url",
    "artifact",
    "day0_definition",
    "observed_through",
    "covered_by",
    "channel",
    "evidence_kind",
]


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
    unknown: list[tuple[str, str, str, str, str]] | None = None,
    spans: dict[tuple[str, str, str], tuple[datetime, datetime] | None] | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """Every (artifact, regime, definition) with its lag; open artifacts are kept, right-censored
    where the definition's evidence was last looked at (`windows`, measure.windows: lag =
    observed_through - day0, observed_through at most `as_of`; an artifact whose day 0 is after
    it is unknown, "not observed since"). A series is covered by its own evidence or by a newer
    series' (measure.supersession, `covered_by`). Artifacts whose day 0 is after `as_of` are
    left out.

    An artifact whose day 0 precedes everything collected from the evidence stream (or whose
    stream is empty) is neither covered nor open but unknown: without evidence it is not known
    to be open, and with evidence the lag is only an upper bound, unless the evidence is the
    series' first release. It is left out of the samples and, when `unknown` is given, listed
    there as (project, series, regime, definition, reason). Otherwise a partial backfill would
    read as years of open lag, or as a confident lag that earlier evidence would shorten.
    `spans`, when given, receives each (project, regime, definition)'s evidence window.
    """
    samples = []
    # Each rule and evidence stream reads one project's facts: grouped once, in their order,
    # not the whole store scanned again per rule and per stream.
    releases_of = _by_project(releases)
    notes_of = _by_project(notes)
    for rule in rules:
        day0s = day0_by_series(rule, releases_of.get(rule.project, []))
        for key, (day0, day0_url) in sorted(day0s.items(), key=lambda kv: kv[1][0]):
            if day0 > as_of:
                continue
            samples.append(
                LagSample(
                    rule.project,
                    key,
                    rule.reference_regime,
                    REFERENCE_DEFINITION,
                    True,
                    day0,
                    day0_url,
                    day0,
                    0,
                    "covered",
                    day0_url,
                )
            )
        for evidence in rule.evidence:
            own_releases = releases_of.get(evidence.project, [])
            own_notes = notes_of.get(evidence.project, [])
            available = supersede(
                evidence_by_series(rule, evidence, own_releases, own_notes), day0s, as_of
            )
            through = (windows or Windows()).through((evidence,), as_of)
            latest = (windows or Windows()).latest((evidence,), as_of)
            span = evidence_window(evidence, own_releases, own_notes)
            if spans is not None:
                spans[(rule.project, evidence.regime, evidence.definition)] = span
            stream = Stream(
                f"{evidence.project} {evidence.kind}s", span[0] if span else None, through,
                latest=latest,
            )  # fmt: skip
            for key, (day0, day0_url) in sorted(day0s.items(), key=lambda kv: kv[1][0]):
                if day0 > as_of:
                    continue
                # dated by as-of (supersede): found later is not yet
                found = decide(day0, available.get(key), stream)
                if found.status == UNKNOWN:
                    if unknown is not None:
                        unknown.append(
                            (rule.project, key, evidence.regime, evidence.definition, found.reason)
                        )
                    continue
                samples.append(
                    LagSample(
                        rule.project,
                        key,
                        evidence.regime,
                        evidence.definition,
                        evidence.primary,
                        day0,
                        day0_url,
                        found.available,
                        found.lag_days,
                        found.status,
                        found.url,
                        found.status == COVERED and found.lag_days < 0,
                        observed_through=found.through or through,
                        covered_by=found.covered_by,
                    )
                )
    return samples
