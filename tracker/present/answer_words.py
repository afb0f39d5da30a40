"""The headline answer in words: the same phrases in the report, the digest and the console.

Every output leads with :func:`answer_text` (or, in a subject line, :func:`subject_part`), so
the verdict and the number a reader repeats are the same wherever they read them.
"""

from __future__ import annotations

from tracker.measure.headline.answer import (
    DEFINITION,
    NO_DATA,
    NOT_MEASURED,
    REFERENCE,
    Answer,
    LayerAnswer,
)
from tracker.names import LAYERS
from tracker.present.palette import short_name


def median_phrase(a: Answer) -> str:
    """ "65 d", "at least 96 d" (median not reached), "0 d" (reference), "-" (no data)."""
    if a.median_days is not None:
        return f"{a.median_days:.0f} d"
    if a.at_least_days is not None:
        return f"at least {a.at_least_days:.0f} d"
    return "-"


def window_phrase(a: Answer) -> str:
    """ "day 0 from 2025-08-23 to 2026-08-22: 39 artifacts, 2 open, 3 not observed": the
    series the answer leaves out as unknown are counted, never silently dropped (where the
    kind counts them per window: framework series)."""
    counted = "" if a.not_observed is None else f", {a.not_observed} not observed"
    return (
        f"day 0 from {a.window_start.isoformat()} to {a.window_end.isoformat()}: "
        f"{a.artifacts} artifact{'' if a.artifacts == 1 else 's'}, {a.open} open{counted}"
    )


def answer_text(a: Answer) -> str:
    """The regime's answer in one sentence (without its name)."""
    if a.verdict == REFERENCE:
        return "the reference: 0 d by definition (builds ship with the upstream release)"
    if a.verdict == NO_DATA:
        return "no lag data"
    return f"{a.verdict}; median lag {median_phrase(a)} ({window_phrase(a)})"


def subject_part(a: Answer) -> str:
    """ "ROCm at least 96 d (no clear change)", for a subject line."""
    return f"{short_name(a.regime)} {median_phrase(a)} ({a.verdict})"


LABEL = DEFINITION  # "headline answer": beside the figure wherever it is shown

# The layers' names as every output shows them (tracker.names.LAYERS), framework first.
LAYER_NAMES = {layer.id: layer.name for layer in LAYERS}


def layer_cell(la: LayerAnswer) -> str:
    """One cell of the layer x regime table: "197 d, no clear change" (or the reason's
    short form, "not measured", "no lag data")."""
    a = la.answer
    if la.reason:
        return NOT_MEASURED
    if a.verdict in (REFERENCE, NO_DATA):
        return answer_text(a) if a.verdict == NO_DATA else "0 d (reference)"
    return f"{median_phrase(a)}, {a.verdict}"


def layer_text(la: LayerAnswer) -> str:
    """The layer's answer on one regime in one sentence (without names): the same verdict
    and number as the table, its counts, or the reason it has no number. The framework layer's
    is the headline answer word for word; a kind whose unknown series are not counted per
    window says how many its evidence does not reach over all day 0."""
    if la.reason:
        return f"{NOT_MEASURED}: {la.reason}"
    a = la.answer
    if a.verdict in (REFERENCE, NO_DATA) or a.not_observed is not None:
        return answer_text(a)
    return (
        f"{a.verdict}; median lag {median_phrase(a)} ({window_phrase(a)}; "
        f"{la.unknown} not observed over all day 0)"
    )
