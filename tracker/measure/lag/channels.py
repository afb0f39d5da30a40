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

The combined row of a series (the model layer's "any engine", tracker.measure.models.engines, on
install channels), decided by tracker.measure.lag.decision.combine under the one window rule:
a channel whose observation window ends before the series' day 0 takes no part in it.

- **covered** on the earliest covered channel date, with that channel's evidence URL, naming
  the channel (``LagSample.channel``); of two channels on the same day, the one listed first;
- **open** when no channel covers it and some channel watched it (has a row of its own: its
  evidence reaches back to day 0 and its window reaches day 0), censored at the latest window
  among the channels that watched it. A channel whose first build came after the series' day
  0 (vLLM's own ROCm images began with 0.14), that has nothing collected (a source not enabled)
  or that was last read before day 0 (AMD's rocm/vllm tags, read up to 2026-01-23) adds no
  evidence; it cannot make a watched series unknown;
- a **release** channel whose evidence starts after day 0 has no row of its own for the series
  (its lag is only bounded), but a build it published is a build a user could install: it
  covers the combined row from its date (an upper bound, like every dated build), and so does
  its build of a newer series where another channel watched the series (supersession; the
  earliest upper bound wins). A note channel's first document says "listed by then", not since
  when: it covers nothing there;
- **unknown** only when no channel watched it and no release channel built it: listed with the
  reason like any truncated row, never counted as open.

Its evidence span runs from the first fact of any channel to the last of any (silent only
when every channel is). Pure functions over the channels' own rows; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from tracker.config.coverage import Combined, CoverageRule
from tracker.measure.lag.coverage import REFERENCE_DEFINITION
from tracker.measure.lag.decision import COVERED, Decision, combine, days
from tracker.measure.lag.rows import LagRun, LagSample, combined_row, lag_row
from tracker.measure.lag.samples import ReleaseFact, evidence_by_series
from tracker.measure.lag.supersession import Cover, supersede
from tracker.measure.lag.windows import Windows, not_observed


def with_earliest_builds(
    rules: Sequence[CoverageRule],
    samples: Sequence[LagSample],
    releases: Sequence[ReleaseFact] = (),
    as_of: datetime | None = None,
    run: LagRun | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """`samples` (the framework rows of `rules` as of `as_of`) with each rule's combined rows
    right after its own; `releases` date the builds of release channels whose evidence does not
    reach back to day 0; the combined definitions' spans go into `run` (module doc; the spans of
    their channels are read from there, so `run` is the one `lag_samples` filled); each
    channel takes part in a series only where its window (`windows`, measure.lag.windows) reaches
    the series' day 0."""
    rows_of: dict[str, list[LagSample]] = {}
    for s in samples:
        rows_of.setdefault(s.project, []).append(s)
    combined_of = {r.project: r for r in rules if r.combined}
    out: list[LagSample] = []
    run = run if run is not None else LagRun()
    for project, rows in rows_of.items():
        out += rows
        rule = combined_of.get(project)
        if rule is None:
            continue
        released = [s.series for s in rows if s.regime == rule.reference_regime]
        for combo in rule.combined:
            builds = _builds(rule, combo, releases, as_of, released)
            through: dict[str, datetime] = {}
            if windows is not None and as_of is not None:
                through = {
                    e.definition: windows.through([e], as_of)
                    for e in rule.evidence
                    if e.regime == combo.regime and e.definition in combo.parts
                }
            out += earliest_build(rule, combo, rows, run, builds, through)
            run.span(
                rule.project,
                combo.regime,
                combo.definition,
                combined_span(
                    [run.spans.get((rule.project, combo.regime, p)) for p in combo.parts]
                ),
            )
    return out


def _builds(
    rule: CoverageRule,
    combo: Combined,
    releases: Sequence[ReleaseFact],
    as_of: datetime | None,
    released: Sequence[str],
) -> dict[str, dict[str, Cover]]:
    """channel -> series -> its first build by as-of, for the release channels (a build is
    published on its own date; a listing's first page is not, so notes are not): the series'
    own or, by supersession, a newer `released` series' build (a user who wanted vLLM 0.12 on
    ROCm could run vLLM's own 0.14.0 image from its day). An upper bound either way: these
    channels' evidence starts after the series' day 0, so an earlier build may exist
    uncollected; the combined row takes the earliest upper bound of all its channels, and a
    newer series' build only where some channel watched the series (:func:`earliest_build`)."""
    until = as_of or datetime.max.replace(tzinfo=UTC)
    out: dict[str, dict[str, Cover]] = {}
    for ev in rule.evidence:
        if ev.regime != combo.regime or ev.definition not in combo.parts or ev.kind != "release":
            continue
        mine = [f for f in releases if f.project == ev.project]
        found = evidence_by_series(rule, ev, mine, [])
        out[ev.definition] = supersede(found, released, until)
    return out


def earliest_build(
    rule: CoverageRule,
    combo: Combined,
    rows: Sequence[LagSample],
    run: LagRun | None = None,
    builds: Mapping[str, Mapping[str, Cover]] | None = None,
    through: Mapping[str, datetime] | None = None,
) -> list[LagSample]:
    """The rows of one combined definition from its channels' rows (`rows`: the rule's rows,
    the reference ones included: they say which series have a day 0 by as-of) and `builds`,
    the dated builds of its release channels (for channels with no row for a series).
    `through`: how far each channel was looked at; a channel whose window ends before a
    series' day 0 takes no part in it (measure.lag.decision.combine)."""
    reference = {
        s.series: s
        for s in rows
        if s.regime == rule.reference_regime and s.definition == REFERENCE_DEFINITION
    }
    by_series: dict[str, dict[str, LagSample]] = {}
    for s in rows:
        if s.regime == combo.regime and s.definition in combo.parts:
            by_series.setdefault(s.series, {})[s.definition] = s
    out = []
    for key, day0 in reference.items():
        mine = by_series.get(key, {})
        # a build of a channel whose evidence starts after day 0 (no row): installable by then
        built = [
            _built(day0, combo.regime, part, hit, (through or {}).get(part))
            for part, found in (builds or {}).items()
            if part not in mine
            and (hit := found.get(key)) is not None
            # a newer series' build bounds a series some channel watched; alone it would date
            # a series whose own builds were never collected by a build years later
            and (mine or not hit.covered_by)
        ]
        # the window rule: a build of a channel no longer watched by day 0 takes no part
        built = [b for b in built if not_observed(b.day0, b.observed_through or b.day0) is None]
        found = combine(day0.day0, combo.parts, mine, built)
        if found.row is None:
            if run is not None:
                run.leave_out(rule.project, key, combo.regime, combo.definition, found.reason)
            continue
        out.append(combined_row(found, combo.definition, combo.primary, name_channel=True))
    return out


def _built(
    day0: LagSample, regime: str, channel: str, hit: Cover, through: datetime | None = None
) -> LagSample:
    """A channel's row-less build as a covered row of that channel (day 0 from the reference;
    `through`: that channel's observation window)."""
    found = Decision(COVERED, days(hit.when, day0.day0), hit.when, hit.url, hit.covered_by, through)
    return lag_row(
        project=day0.project,
        series=day0.series,
        regime=regime,
        definition=channel,
        primary=day0.primary,
        day0=day0.day0,
        day0_url=day0.day0_url,
        found=found,
        observed_through=through,
    )


def combined_span(
    parts: Sequence[tuple[datetime, datetime] | None],
) -> tuple[datetime, datetime] | None:
    """From the first fact of any channel to the last of any (None when none has any)."""
    known = [p for p in parts if p]
    if not known:
        return None
    return min(p[0] for p in known), max(p[1] for p in known)
