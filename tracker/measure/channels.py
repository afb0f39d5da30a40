"""Install channels in the framework lag: the earliest official build a user can install.

A release series is usable on a regime from the first build a user can install there, from
the upstream project (PyTorch's ROCm wheels, vLLM's ROCm images) or from the vendor (TheRock,
AMD's images), whichever came first. Each channel is a named definition of its own; a
combined definition over them (read and checked by tracker.config.coverage) is usually the
regime's primary one::

    rocm:
      - {definition: earliest_build, primary: true, channels: [upstream_wheels, therock]}
      - {definition: upstream_wheels, evidence: {project: pytorch-rocm-wheels, kind: release}}
      - {definition: therock, evidence: {project: therock, kind: note, mentions: pytorch}}
      - {definition: vendor_matrix, evidence: {project: rocm, kind: note, mentions: pytorch}}

A vendor-validated stack (the compatibility matrix) is not an install channel: it stays a
definition beside the combined one and is never merged into it.

The combined row of a series (the model layer's "any engine", tracker.measure.engines, on
install channels):

- **covered** on the earliest covered channel date, with that channel's evidence URL, naming
  the channel (``LagSample.channel``); of two channels on the same day, the one listed first;
- **open** when no channel covers it and some channel watched it from its day 0 (has an open
  row): the combined stream is the channels together, and it starts where the first of them
  starts. A channel whose first build came after the series' day 0 (vLLM's own ROCm images
  began with 0.15) or that has nothing collected (a source not enabled) adds no evidence; it
  cannot make a watched series unknown;
- **unknown** when its day 0 precedes every channel's evidence (no channel has a row): listed
  with the reason like any truncated row, never counted as open.

Its evidence span runs from the first fact of any channel to the last of any (silent only
when every channel is). Pure functions over the channels' own rows; no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from tracker.config.coverage import Combined, CoverageRule
from tracker.measure.coverage import REFERENCE_DEFINITION
from tracker.measure.lag import LagSample


def with_earliest_builds(
    rules: Sequence[CoverageRule],
    samples: Sequence[LagSample],
    unknown: list | None = None,
    spans: dict | None = None,
) -> list[LagSample]:
    """`samples` (the framework rows of `rules`) with each rule's combined rows right after
    its own; the combined definitions' spans go into `spans` when given (module doc)."""
    rows_of: dict[str, list[LagSample]] = {}
    for s in samples:
        rows_of.setdefault(s.project, []).append(s)
    combined_of = {r.project: r for r in rules if r.combined}
    out: list[LagSample] = []
    for project, rows in rows_of.items():
        out += rows
        rule = combined_of.get(project)
        if rule is None:
            continue
        for combo in rule.combined:
            out += earliest_build(rule, combo, rows, unknown)
            if spans is not None:
                spans[(rule.project, combo.regime, combo.definition)] = combined_span(
                    [spans.get((rule.project, combo.regime, part)) for part in combo.parts]
                )
    return out


def earliest_build(
    rule: CoverageRule,
    combo: Combined,
    rows: Sequence[LagSample],
    unknown: list | None = None,
) -> list[LagSample]:
    """The rows of one combined definition from its channels' rows (`rows`: the rule's rows,
    the reference ones included: they say which series have a day 0 by as-of)."""
    series = [
        s.series
        for s in rows
        if s.regime == rule.reference_regime and s.definition == REFERENCE_DEFINITION
    ]
    by_series: dict[str, dict[str, LagSample]] = {}
    for s in rows:
        if s.regime == combo.regime and s.definition in combo.parts:
            by_series.setdefault(s.series, {})[s.definition] = s
    order = {part: index for index, part in enumerate(combo.parts)}
    out = []
    for key in series:
        mine = by_series.get(key, {})
        covered = [s for s in mine.values() if s.status == "covered"]
        if covered:
            # whole days, as lags are counted: on one day, the channel listed first
            first = min(covered, key=lambda s: (s.lag_days, order[s.definition]))
            out.append(_as_combined(first, combo, first.definition))
        elif mine:
            watching = next(mine[p] for p in combo.parts if p in mine)
            out.append(_as_combined(watching, combo, ""))
        elif unknown is not None:
            unknown.append(
                (
                    rule.project,
                    key,
                    combo.regime,
                    combo.definition,
                    "day 0 precedes the evidence collected from every channel "
                    f"({', '.join(combo.parts)})",
                )
            )
    return out


def _as_combined(row: LagSample, combo: Combined, channel: str) -> LagSample:
    return replace(row, definition=combo.definition, primary=combo.primary, channel=channel)


def combined_span(
    parts: Sequence[tuple[datetime, datetime] | None],
) -> tuple[datetime, datetime] | None:
    """From the first fact of any channel to the last of any (None when none has any)."""
    known = [p for p in parts if p]
    if not known:
        return None
    return min(p[0] for p in known), max(p[1] for p in known)
