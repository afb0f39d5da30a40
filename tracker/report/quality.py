"""The report's data-quality sections, compact: per section one summary line with counts, every
item in a collapsed list on the page and one row each in data_quality.csv beside it.

Sections: stale evidence streams, silent channels (definitions without new evidence while
upstream released series), model families without a known day 0, lags dated before day 0,
artifacts not counted because their day 0 precedes the evidence collected or follows where it
was last looked at, stored events dated outside the dates tracker computes with (left out of
every figure), and an independent benchmark's runners whose hardware the runner map does not
name.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from tracker.events import EVENT_TIME_END, EVENT_TIME_START
from tracker.measure.lag.rows import LagSample, Unknown
from tracker.measure.lag.silent import SilentChannel
from tracker.present import palette
from tracker.present.silent_words import silent_detail

QUALITY_COLUMNS = [
    "section",
    "source",
    "project",
    "series",
    "regime",
    "definition",
    "detail",
    "url",
]


def _counts(values: Sequence[str], order_regimes: bool = False) -> str:
    """ "neuron 34, xla 32, rocm 8" (regimes in the charts' order, else most first)."""
    counted = Counter(values)
    keys = (
        palette.ordered(counted)
        if order_regimes
        else sorted(counted, key=lambda k: (-counted[k], k))
    )
    return ", ".join(f"{k} {counted[k]}" for k in keys)


def split_unknown(unknown: Sequence[Unknown]) -> tuple[list[Unknown], list[Unknown]]:
    """The rows no lag is computed for, in the two lists the report names apart: artifacts not
    counted (a regime's evidence does not reach their day 0) and model families without a known
    day 0 (Unknown.day0_unknown)."""
    return [u for u in unknown if not u.day0_unknown], [u for u in unknown if u.day0_unknown]


def not_counted_words(unknown: Sequence[Unknown]) -> str:
    """The console's count of the same rows, under the report's names: "523 artifacts not
    counted, 109 model families without a known day 0"."""
    artifacts, families = split_unknown(unknown)
    words = f"{len(artifacts)} artifacts not counted"
    return words + (f", {len(families)} model families without a known day 0" if families else "")


def quality_sections(
    stale: Sequence[dict],
    sources: int,
    unknown: Sequence[Unknown],
    negative: Sequence[LagSample],
    unread_tags: Sequence[dict] = (),
    far_dated: Mapping[str, Any] | None = None,
    silent: Sequence[SilentChannel] = (),
    unknown_runners: Sequence[Any] = (),
    contradicting: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Summary lines (one per section, with counts) and the rows of data_quality.csv."""
    framework_unknown, day0_unknown = split_unknown(unknown)
    lines: dict[str, str] = {}
    if stale:
        oldest = stale[0]
        lines["stale"] = (
            f"{len(stale)} of {sources} configured sources have no fact in the last "
            f"{stale[0]['stale_after_days']} days (by regime: "
            f"{_counts([r['regime'] or 'none' for r in stale], True)}; oldest "
            f"{oldest['source_id']}, {oldest['days_behind']} d)"
        )
    if silent:
        lines["silent"] = (
            f"{len(silent)} definitions without new evidence while upstream released "
            f"{min(c.series_released_since for c in silent)} or more series (by regime: "
            f"{_counts([c.regime for c in silent], True)})"
        )
    if day0_unknown:
        lines["day0_unknown"] = (
            f"{len(day0_unknown)} model families without a known day 0 (by day-0 definition: "
            f"{_counts([u.definition for u in day0_unknown])})"
        )
    if negative:
        lines["negative"] = (
            f"{len(negative)} lags dated before day 0 (by regime: "
            f"{_counts([s.regime for s in negative], True)}), reported as they are"
        )
    if framework_unknown:
        lines["not_counted"] = (
            f"{len(framework_unknown)} artifacts not counted (by regime: "
            f"{_counts([u.regime for u in framework_unknown], True)}; by project: "
            f"{_counts([u.project for u in framework_unknown])})"
        )
    if unread_tags:
        lines["unread_tags"] = (
            f"{sum(r['count'] for r in unread_tags)} image tags no name pattern reads (by source: "
            + ", ".join(f"{r['source_id']} {r['count']}" for r in unread_tags)
            + ")"
        )
    far = far_dated or {"count": 0, "events": []}
    if far["count"]:
        shown = len(far["events"])
        lines["far_dated"] = (
            f"{far['count']} stored events dated outside {EVENT_TIME_START:%Y-%m-%d} to "
            f"{EVENT_TIME_END:%Y-%m-%d}, left out of every figure"
            + (f" (the first {shown} listed)" if shown < far["count"] else "")
        )
    crossed = contradicting or {"count": 0, "events": []}
    if crossed["count"]:
        shown = len(crossed["events"])
        lines["contradicting"] = (
            f"{crossed['count']} stored events whose times contradict each other (an end before "
            "the start, a response before the opening), left out of every figure"
            + (f" (the first {shown} listed)" if shown < crossed["count"] else "")
        )
    if unknown_runners:
        lines["unknown_runners"] = (
            f"{len(unknown_runners)} benchmark runners whose hardware the runner map does not "
            f"name ({sum(r.entries for r in unknown_runners)} configurations): "
            + ", ".join(r.runner for r in unknown_runners)
        )
    rows: list[dict[str, Any]] = [
        {
            "section": "stale_source",
            "source": r["source_id"],
            "project": r["project"],
            "regime": r["regime"],
            "detail": f"newest fact {r['last_evidence']}, {r['days_behind']} d before as-of",
        }
        for r in stale
    ]
    rows += [
        {
            "section": "silent_channel",
            "project": c.project,
            "regime": c.regime,
            "definition": c.definition,
            "detail": silent_detail(c),
        }
        for c in silent
    ]
    rows += [
        {
            "section": "day0_unknown",
            "project": u.project,
            "series": u.series,
            "definition": u.definition,
            "detail": u.reason,
        }
        for u in day0_unknown
    ]
    rows += [
        {
            "section": "negative_lag",
            "project": s.project,
            "series": s.series,
            "regime": s.regime,
            "definition": s.definition,
            "detail": f"{s.lag_days} days",
            "url": s.evidence_url,
        }
        for s in negative
    ]
    rows += [
        {
            "section": "not_counted",
            "project": u.project,
            "series": u.series,
            "regime": u.regime,
            "definition": u.definition,
            "detail": u.reason,
        }
        for u in framework_unknown
    ]
    rows += [
        {
            "section": "unread_tag",
            "source": r["source_id"],
            "detail": f"{r['repository']}: {tag}",
        }
        for r in unread_tags
        for tag in r["tags"]
    ]
    rows += [
        {
            "section": "far_dated",
            "source": e["source_id"],
            "detail": f"{e['kind']} {e['external_id']} (event {e['id']}) dated {e['occurred_at']}",
        }
        for e in far["events"]
    ]
    rows += [
        {
            "section": "contradicting",
            "source": e["source_id"],
            "detail": f"{e['kind']} {e['external_id']} (event {e['id']}) dated "
            f"{e['occurred_at']}: {e['why']}",
        }
        for e in crossed["events"]
    ]
    rows += [
        {
            "section": "unknown_runner",
            "detail": f"runner {r.runner} (hardware {r.hardware or '?'}): {r.entries} "
            "configurations on no regime",
            "url": r.first_url,
        }
        for r in unknown_runners
    ]
    return {"lines": lines, "rows": rows}
