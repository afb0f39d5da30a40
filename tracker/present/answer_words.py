"""The headline answer in words: the same phrases in the report, the digest and the console.

Every output leads with :func:`answer_text` (or, in a subject line, :func:`subject_part`), so
the verdict and the number a reader repeats are the same wherever they read them.
"""

from __future__ import annotations

from tracker.measure.headline.answer import DEFINITION, NO_DATA, REFERENCE, Answer
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
    series the answer leaves out as unknown are counted, never silently dropped."""
    return (
        f"day 0 from {a.window_start.isoformat()} to {a.window_end.isoformat()}: "
        f"{a.artifacts} artifact{'' if a.artifacts == 1 else 's'}, {a.open} open, "
        f"{a.not_observed} not observed"
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
