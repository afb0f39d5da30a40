"""What the report shows of the definitions beside the primary one: every framework series
with each of its definitions on one row (the primary first, an earliest-build row naming the
channel it rests on), how many series each channel of an earliest-build definition dated, and
the regimes whose install channel is in transition (sources.yaml `in_transition:`).

A pivot of the lag samples for display; the lags themselves are tracker.measure's."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from tracker.config.coverage import CoverageRule
from tracker.measure.lag.rows import LagSample
from tracker.versions import parse_version


def transitions(rules: Sequence[CoverageRule]) -> dict[tuple[str, str], str]:
    """(project, regime) -> why its channel is in transition."""
    return {(r.project, regime): why for r in rules for regime, why in r.transition.items()}


def channel_counts(samples: Sequence[LagSample]) -> dict[tuple[str, str, str], str]:
    """(project, regime, definition) of an earliest-build definition -> "upstream_wheels 3,
    therock 2": the covered series each channel came first for."""
    counts: dict[tuple[str, str, str], Counter] = {}
    for s in samples:
        if s.channel and s.artifact == "framework":
            counts.setdefault((s.project, s.regime, s.definition), Counter())[s.channel] += 1
    return {
        key: ", ".join(f"{name} {n}" for name, n in sorted(c.items(), key=lambda kv: -kv[1]))
        for key, c in counts.items()
    }


def series_rows(samples: Sequence[LagSample], reference: str) -> list[dict[str, Any]]:
    """One row per framework series and regime with two or more definitions: the primary
    definition's row, then every other definition's, each named, oldest series first."""
    grouped: dict[tuple[str, str, str], list[LagSample]] = {}
    for s in samples:
        if s.artifact == "framework" and s.regime != reference:
            grouped.setdefault((s.project, s.regime, s.series), []).append(s)
    rows = []
    for (project, regime, series), mine in grouped.items():
        if len(mine) < 2:
            continue
        mine.sort(key=lambda s: (not s.primary, s.definition))
        rows.append(
            {
                "project": project,
                "regime": regime,
                "series": series,
                "day0": mine[0].day0,
                "cells": mine,
            }
        )
    return sorted(rows, key=lambda r: (r["project"], r["regime"], _order(r["series"])))


def _order(series: str) -> tuple:
    parsed = parse_version(series)
    return (0, parsed.parsed) if parsed is not None else (1, series)
