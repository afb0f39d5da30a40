"""Day-0 lag of kernel features: days from a kernel existing on CUDA to the first dated evidence
that it exists on a regime (docs/methodology.md, "The kernel layer").

Pure functions over the ledger (tracker.measure.kernels.ledger) and the evidence the store holds
(:class:`KernelFact`: tags and releases, commits, notes). Like framework and model artifacts: an
open cell is right-censored at ``as_of``, a negative lag is kept and flagged, every row keeps
its evidence URL, and a cell whose evidence stream starts after day 0 (or is not collected, or
not tracked at all) is ``unknown`` (listed with its reason, not a row), never open and never
late. The cuda cell is day 0 itself (lag 0). Rows: ``project`` = the library, ``series`` =
the feature id, ``artifact`` = "kernel", ``day0_definition`` = "cuda_kernel".
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tracker.measure.kernels.ledger import KernelFeature, KernelRule
from tracker.measure.lag.samples import LagSample
from tracker.measure.lag.windows import ANY_KIND, Channel, Windows, not_observed
from tracker.versions import normalize_version

DAY0_DEFINITION = "cuda_kernel"


@dataclass(frozen=True)
class KernelFact:
    """One stored event a kernel rule may read: a release, a commit or a note."""

    project: str
    kind: str  # release | commit | note
    occurred_at: datetime
    url: str
    version: str = ""
    text: str = ""  # a note's title and body; a commit's title
    attrs: Mapping[str, Any] = field(default_factory=dict)
    source_id: str = ""  # the source that stored it (its observation window: measure.windows)


@dataclass(frozen=True)
class Hit:
    when: datetime
    url: str


def kernel_projects(ledger: Iterable[KernelFeature]) -> set[str]:
    """Every project a rule of the ledger reads."""
    rules = [r for f in ledger for r in (f.cuda, *f.regimes.values())]
    return {r.project for r in rules if r.project}


def _fact_kind(rule: KernelRule) -> str:
    return {"release": "release", "commit": "commit"}.get(rule.kind, "note")


def _matches(rule: KernelRule, fact: KernelFact) -> bool:
    if rule.kind == "release":
        return normalize_version(fact.version) == normalize_version(rule.version)
    if rule.kind == "commit":
        if fact.attrs.get("path") != rule.path:
            return False
        if rule.sha and not str(fact.attrs.get("sha") or "").startswith(rule.sha):
            return False
        return not rule.pr or fact.attrs.get("pr") == rule.pr
    return re.search(rule.match, fact.text, re.I) is not None


def find(rule: KernelRule, facts: Sequence[KernelFact]) -> Hit | None:
    """The earliest fact the rule accepts (a release: not a pre-release; open and untracked
    rules accept none)."""
    if rule.kind in ("open", "untracked"):
        return None
    kind = _fact_kind(rule)
    best: KernelFact | None = None
    for fact in facts:
        if fact.project != rule.project or fact.kind != kind or not _matches(rule, fact):
            continue
        if kind == "release" and fact.attrs.get("prerelease") is True:
            continue
        if best is None or fact.occurred_at < best.occurred_at:
            best = fact
    return Hit(best.occurred_at, best.url) if best else None


def stream_start(rule: KernelRule, facts: Sequence[KernelFact]) -> datetime | None:
    """Since when the rule's evidence stream was read: a commit source's ``since`` when it has
    one, else its first fact; None when nothing of it was collected. An ``open`` rule reads
    whatever the project's sources hold."""
    kind = None if rule.kind == "open" else _fact_kind(rule)
    mine = [
        f
        for f in facts
        if f.project == rule.project
        and (kind is None or f.kind == kind)
        and (rule.kind != "commit" or f.attrs.get("path") == rule.path)
    ]
    if not mine:
        return None
    declared = [str(f.attrs["since"]) for f in mine if f.attrs.get("since")]
    if declared:
        return datetime.fromisoformat(min(declared) + "T00:00:00+00:00")
    return min(f.occurred_at for f in mine)


def rule_channels(rule: KernelRule) -> list[Channel]:
    """The channels a ledger rule reads (measure.windows): its project's releases, commits or
    notes; every kind of fact for an ``open`` rule; none when untracked."""
    if rule.kind == "untracked" or not rule.project:
        return []
    return [Channel(rule.project, ANY_KIND if rule.kind == "open" else _fact_kind(rule))]


def kernel_lag_samples(
    ledger: Sequence[KernelFeature],
    facts: Sequence[KernelFact],
    as_of: datetime,
    unknown: list | None = None,
    spans: dict | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """One row per (feature, regime) the evidence dates or leaves open; the rest go to
    `unknown` as (library, feature, regime, definition, reason). An open cell is censored
    where its rule's sources were last looked at (`windows`, measure.windows); a feature whose
    day 0 is after that is unknown there."""
    samples: list[LagSample] = []
    known = [f for f in facts if f.occurred_at <= as_of]
    for feature in ledger:
        day0 = find(feature.cuda, known)
        if day0 is None:
            if unknown is not None:
                why = _why_missing(feature.cuda, known, None)
                unknown.append(
                    (feature.library, feature.id, "all", DAY0_DEFINITION, f"day 0 unknown: {why}")
                )
            continue
        samples.append(_sample(feature, "cuda", feature.cuda, day0, day0))
        for regime, rule in feature.regimes.items():
            hit = find(rule, known)
            if spans is not None and rule.project:
                start = stream_start(rule, known)
                spans[(feature.library, regime, rule.definition)] = (
                    (start, as_of) if start else None
                )
            through = (windows or Windows()).through(rule_channels(rule), as_of)
            if hit is not None:
                samples.append(_sample(feature, regime, rule, day0, hit, through))
                continue
            why = _why_missing(rule, known, day0.when) or not_observed(day0.when, through)
            if why is None:
                samples.append(_sample(feature, regime, rule, day0, None, through))
            elif unknown is not None:
                unknown.append((feature.library, feature.id, regime, rule.definition, why))
    return samples


def _why_missing(
    rule: KernelRule, facts: Sequence[KernelFact], day0: datetime | None
) -> str | None:
    """Why a cell without evidence is unknown; None when it is open (its stream was read from
    before day 0 and found nothing)."""
    if rule.kind == "untracked":
        return f"not tracked: {rule.reason}"
    start = stream_start(rule, facts)
    what = {"release": "releases", "commit": f"commits of {rule.path}"}.get(rule.kind, "notes")
    if start is None:
        return f"no {what} of {rule.project} collected"
    if rule.kind == "open":  # the ledger read the project's whole history: nothing there yet
        return None
    if day0 is not None and start > day0:
        return (
            f"the {rule.project} {what} collected start {start.date()}, after day 0 {day0.date()}"
        )
    if day0 is None:
        return f"{rule.project} {rule.kind} {rule.version or rule.sha or rule.pr} not collected"
    return None


def _sample(
    feature: KernelFeature,
    regime: str,
    rule: KernelRule,
    day0: Hit,
    hit: Hit | None,
    through: datetime | None = None,
) -> LagSample:
    """A cell's row; open cells are censored at `through` (the rule's observed-through)."""
    if hit is not None:
        lag, status, available, url = (
            (hit.when.date() - day0.when.date()).days,
            "covered",
            hit.when,
            hit.url,
        )
    else:
        assert through is not None
        lag, status, available, url = (through.date() - day0.when.date()).days, "open", None, ""
    return LagSample(
        feature.library,
        feature.id,
        regime,
        rule.definition,
        True,  # one rule per cell: each is the cell's headline
        day0.when,
        day0.url,
        available,
        lag,
        status,
        url,
        status == "covered" and lag < 0,
        "kernel",
        DAY0_DEFINITION,
        observed_through=through if regime != "cuda" else None,
    )
