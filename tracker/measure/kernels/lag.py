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
from tracker.measure.lag.decision import UNKNOWN, Decision, Stream, decide
from tracker.measure.lag.rows import LagRun, LagSample, lag_row
from tracker.measure.lag.supersession import Cover
from tracker.measure.lag.windows import ANY_KIND, Channel, Windows
from tracker.names import REFERENCE_REGIME
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
    source_id: str = ""  # the source that stored it (its observation window: measure.lag.windows)


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
    """The channels a ledger rule reads (measure.lag.windows): its project's releases, commits or
    notes; every kind of fact for an ``open`` rule; none when untracked."""
    if rule.kind == "untracked" or not rule.project:
        return []
    return [Channel(rule.project, ANY_KIND if rule.kind == "open" else _fact_kind(rule))]


def kernel_lag_samples(
    ledger: Sequence[KernelFeature],
    facts: Sequence[KernelFact],
    as_of: datetime,
    run: LagRun | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """One row per (feature, regime) the evidence dates or leaves open; the rest are left out
    in `run` (library, feature, regime, definition, reason). An open cell is censored
    where its rule's sources were last looked at (`windows`, measure.lag.windows); a feature whose
    day 0 is after that is unknown there."""
    samples: list[LagSample] = []
    run = run if run is not None else LagRun()
    known = [f for f in facts if f.occurred_at <= as_of]
    for feature in ledger:
        day0 = find(feature.cuda, known)
        if day0 is None:
            run.no_day0(
                feature.library, feature.id, DAY0_DEFINITION, _why_no_day0(feature.cuda, known)
            )
            continue
        samples.append(_sample(feature, REFERENCE_REGIME, feature.cuda, day0))
        for regime, rule in feature.regimes.items():
            hit = find(rule, known)
            if rule.project:
                start = stream_start(rule, known)
                run.span(
                    feature.library, regime, rule.definition, (start, as_of) if start else None
                )
            through = (windows or Windows()).through(rule_channels(rule), as_of)
            if rule.kind == "untracked":
                why = f"not tracked: {rule.reason}"
                run.leave_out(feature.library, feature.id, regime, rule.definition, why)
                continue
            # a ledger rule names its evidence: a hit is the first there can be (exact); a
            # rule of kind `open` reads its project's whole history (no left truncation)
            stream = Stream(
                _label(rule), stream_start(rule, known), through, truncates=rule.kind != "open"
            )
            found = decide(day0.when, Cover(hit.when, hit.url, True) if hit else None, stream)
            if found.status == UNKNOWN:
                run.leave_out(feature.library, feature.id, regime, rule.definition, found.reason)
                continue
            samples.append(_sample(feature, regime, rule, day0, found))
    return samples


def _label(rule: KernelRule) -> str:
    """What reasons call a rule's evidence stream: "aiter commits of csrc/x.cu"."""
    what = {"release": "releases", "commit": f"commits of {rule.path}"}.get(rule.kind, "notes")
    return f"{rule.project} {what}"


def _why_no_day0(rule: KernelRule, facts: Sequence[KernelFact]) -> str:
    """Why a feature's CUDA kernel (its day 0) is not dated."""
    if rule.kind == "untracked":
        return f"not tracked: {rule.reason}"
    if stream_start(rule, facts) is None:
        return f"no {_label(rule)} collected"
    return f"{rule.project} {rule.kind} {rule.version or rule.sha or rule.pr} not collected"


def _sample(
    feature: KernelFeature,
    regime: str,
    rule: KernelRule,
    day0: Hit,
    found: Decision | None = None,
) -> LagSample:
    """A cell's row (`found` None: the cuda cell, day 0 itself)."""
    return lag_row(
        project=feature.library,
        series=feature.id,
        regime=regime,
        definition=rule.definition,
        primary=True,  # one rule per cell: each is the cell's headline
        day0=day0.when,
        day0_url=day0.url,
        found=found,
        artifact="kernel",
        day0_definition=DAY0_DEFINITION,
        observed_through=found.through if found else None,
    )
