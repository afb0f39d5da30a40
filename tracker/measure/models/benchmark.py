"""An independent benchmark's configurations in the model layer (docs/methodology.md,
"Independent benchmark"): when each model family first got a configuration on each regime's
hardware, the NVIDIA / AMD pair per family, and the runners the runner map does not place.

The notes are config_history's (one per configuration entry, dated by the commit that added it;
``NoteFact.config`` says on whose hardware). Pure functions, no I/O: the model lag reads
:func:`first_configs` for its ``benchmark_config`` evidence and its ``benchmark_cuda`` day 0,
and :func:`benchmark_figures` gives the report, the digest and summary.json the same pairs.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tracker.measure.lag.samples import NoteFact
from tracker.names import REFERENCE_REGIME

Hits = dict[str, tuple[datetime, str]]
UNKNOWN_REGIME = "unknown"


@dataclass(frozen=True)
class FirstConfig:
    """A family's first configuration on one regime's hardware."""

    family: str
    regime: str
    when: datetime
    url: str  # the commit that added it
    hardware: str
    runner: str
    framework: str
    model: str
    baseline: bool  # in the first version read: configured by then, since when is not known


@dataclass(frozen=True)
class BenchmarkPair:
    """One family's first configuration on the reference regime's hardware and on another's."""

    family: str
    reference: FirstConfig | None
    other: FirstConfig | None

    @property
    def days(self) -> int | None:
        """Days from the reference configuration to the other's (negative: the other came
        first); None when either is missing or the reference one is a baseline (no day 0: the
        lag rows under ``benchmark_cuda`` say the same number, or have no row)."""
        if self.reference is None or self.other is None or self.reference.baseline:
            return None
        return (self.other.when.date() - self.reference.when.date()).days


@dataclass(frozen=True)
class UnknownRunner:
    """A runner whose hardware the runner map does not name: counted, never guessed."""

    runner: str
    hardware: str
    entries: int
    first_url: str


@dataclass
class BenchmarkFigures:
    """The benchmark part of one as-of date's figures."""

    project: str
    reference: str  # the reference regime ("cuda")
    other: str  # the regime paired with it ("rocm")
    pairs: list[BenchmarkPair] = field(default_factory=list)
    unknown_runners: list[UnknownRunner] = field(default_factory=list)
    entries: int = 0  # configuration notes collected up to as-of
    commits: int = 0  # distinct commits they were added by


def _config_notes(notes: Sequence[NoteFact], project: str, as_of: datetime | None = None):
    return [
        n
        for n in notes
        if n.project == project
        and n.config is not None
        and (as_of is None or n.occurred_at <= as_of)
    ]


def first_configs(
    notes: Sequence[NoteFact], project: str, as_of: datetime | None = None
) -> dict[tuple[str, str], FirstConfig]:
    """(family, regime) -> the family's first configuration on that regime's hardware (the
    earliest note; of two at the same time the first read). Runners of unknown hardware and
    entries whose model no alias names place nothing."""
    first: dict[tuple[str, str], FirstConfig] = {}
    for note in _config_notes(notes, project, as_of):
        config = note.config
        assert config is not None
        if config.regime == UNKNOWN_REGIME:
            continue
        for family, status, _context in note.models:
            key = (family, config.regime)
            if status != "supported" or (key in first and first[key].when <= note.occurred_at):
                continue
            first[key] = FirstConfig(
                family,
                config.regime,
                note.occurred_at,
                note.url,
                config.hardware,
                config.runner,
                config.framework,
                config.model,
                config.baseline,
            )
    return first


def benchmark_evidence(
    notes: Sequence[NoteFact], project: str, regime: str
) -> tuple[Hits, datetime | None]:
    """(family -> (first configuration on ``regime``'s hardware, its commit URL), the first
    configuration read at all: the window the history reaches back to)."""
    found = {
        fam: (fc.when, fc.url)
        for (fam, reg), fc in first_configs(notes, project).items()
        if reg == regime
    }
    times = [n.occurred_at for n in _config_notes(notes, project)]
    return found, (min(times) if times else None)


def configured_families(notes: Sequence[NoteFact], project: str, as_of: datetime) -> set[str]:
    """The families the benchmark configured on any hardware by `as_of` (any regime, a runner
    on no regime included): one it never ran says nothing of any regime's lag."""
    return {fam for (fam, _regime), fc in first_configs(notes, project).items() if fc.when <= as_of}


def benchmark_day0(
    notes: Sequence[NoteFact], project: str, reference: str = REFERENCE_REGIME
) -> tuple[Hits, dict[str, str]]:
    """(family -> day 0, family -> why unknown) under ``benchmark_cuda``: the first
    configuration on the reference regime's hardware; a family configured there in the first
    version read has no day 0 under it (configured by then, since when is not known). Families
    never configured there have none and are not listed."""
    known: Hits = {}
    why: dict[str, str] = {}
    for (fam, regime), fc in sorted(first_configs(notes, project).items()):
        if regime != reference:
            continue
        if fc.baseline:
            why[fam] = (
                f"configured on {reference} hardware in the first version of {project}'s "
                f"history read ({fc.when.date()}): since when is not known"
            )
        else:
            known[fam] = (fc.when, fc.url)
    return known, why


def benchmark_figures(
    notes: Sequence[NoteFact],
    project: str,
    as_of: datetime,
    reference: str = REFERENCE_REGIME,
    other: str = "rocm",
) -> BenchmarkFigures:
    """The pairs (families configured on either regime's hardware, by the reference day, then
    the other's), the unknown runners and the counts, as of ``as_of``."""
    mine = _config_notes(notes, project, as_of)
    first = first_configs(notes, project, as_of)
    families = sorted({fam for fam, regime in first if regime in (reference, other)})
    pairs = [BenchmarkPair(f, first.get((f, reference)), first.get((f, other))) for f in families]
    far = datetime.max.replace(tzinfo=as_of.tzinfo)
    pairs.sort(
        key=lambda p: (
            p.reference.when if p.reference else far,
            p.other.when if p.other else far,
            p.family,
        )
    )
    runners: dict[str, list] = {}
    for note in mine:
        config = note.config
        assert config is not None
        if config.regime == UNKNOWN_REGIME:
            seen = runners.setdefault(config.runner, [config.hardware, 0, note.url])
            seen[1] += 1
    return BenchmarkFigures(
        project,
        reference,
        other,
        pairs,
        [UnknownRunner(r, h, n, url) for r, (h, n, url) in sorted(runners.items())],
        len(mine),
        len({n.url for n in mine}),
    )
