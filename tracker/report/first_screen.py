"""The report's first screen: the headline answer per regime, worded as every output words it,
and beside it, labelled, the quarterly cohorts' comparison the headline chart draws."""

from __future__ import annotations

from typing import Any

from tracker.measure.figures import Figures
from tracker.measure.headline import quarters as headline
from tracker.present import palette
from tracker.present.answer_words import (
    LAYER_NAMES,
    answer_text,
    layer_cell,
    layer_text,
    median_phrase,
    window_phrase,
)
from tracker.present.cohort_words import cohort_sentence, point_text


def answer_rows(figures: Figures) -> list[dict[str, Any]]:
    """Per regime (sources.yaml's order), what the first screen says: the headline answer
    (tracker.measure.headline.answer, word for word as in summary.json, the digest and `lag
    --trend`),
    then, labelled, the quarterly cohorts' comparison the chart beside it draws."""
    rows = []
    for a in figures.answers:
        points = figures.series.get(a.regime, [])
        if a.regime == figures.reference:
            change, cohorts = "reference", "0 d by definition (builds ship with the release)"
        elif points:
            comparison = headline.compare_cohorts(points, figures.as_of)
            change, cohorts = comparison.direction, cohort_sentence(comparison)
        else:
            change, cohorts = "no data", "no framework artifacts"
        latest = headline.latest_reached(points)
        rows.append(
            {
                "regime": a.regime,
                "name": palette.name(a.regime),
                "verdict": a.verdict,
                "median": median_phrase(a),
                "text": answer_text(a),
                "window": window_phrase(a).capitalize(),
                "reference": a.regime == figures.reference,
                "change": change,
                "cohorts": cohorts,
                "latest": f"{latest.period}: {point_text(latest)}" if latest else "none yet",
                "newest": f"{points[-1].period}: {point_text(points[-1])}" if points else "none",
            }
        )
    return rows


def layer_table(figures: Figures) -> dict[str, Any]:
    """The first screen's compact layer x regime table: per layer (framework first, the lead)
    a cell per regime other than the reference, worded as summary.json, the digest and
    `lag --trend` word it (present.answer_words), the full sentence as the cell's title."""
    regimes = [a.regime for a in figures.answers if a.regime != figures.reference]
    by_key = {(la.layer, la.answer.regime): la for la in figures.layers}
    rows = []
    for layer, name in LAYER_NAMES.items():
        cells = []
        for regime in regimes:
            la = by_key.get((layer, regime))
            cells.append(
                {"text": layer_cell(la), "title": layer_text(la), "reason": bool(la.reason)}
                if la
                else {"text": "-", "title": "", "reason": False}
            )
        rows.append({"layer": name, "cells": cells})
    return {"regimes": [(r, palette.name(r)) for r in regimes], "rows": rows}
