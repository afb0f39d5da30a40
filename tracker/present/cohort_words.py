"""The quarterly cohorts in words: a point of the headline chart ("65 d (7 artifacts, 3 open)")
and the comparison beside it ("median lag from 65 d (2025-Q3, 7 artifacts) to at least 66 d
(2026-Q2: 10 of 12 still open)"), computed by tracker.measure.headline.quarters."""

from __future__ import annotations

from tracker.measure.headline.quarters import (
    MIN_POINT_ARTIFACTS,
    TOO_FEW,
    VERDICT_QUARTERS,
    CohortComparison,
    MedianPoint,
)


def plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


def point_text(p: MedianPoint) -> str:
    """ "65 d (7 artifacts, 3 open)", "at least 96 d (10 artifacts, 10 open)"."""
    if not p.artifacts:
        return "no artifacts"
    value = f"{p.median:.0f} d" if p.median is not None else f"at least {p.bound:.0f} d"
    return f"{value} ({plural(p.artifacts, 'artifact')}, {p.open} open)"


def _end(p: MedianPoint) -> str:
    if p.median is not None:
        return f"{p.median:.0f} d ({p.period}, {plural(p.artifacts, 'artifact')})"
    return f"at least {p.bound:.0f} d ({p.period}: {p.open} of {p.artifacts} still open)"


def cohort_sentence(c: CohortComparison) -> str:
    """What the comparison rests on, in one sentence."""
    if c.direction == TOO_FEW or c.first is None or c.last is None:
        span = f"{c.span[0]} to {c.span[1]}" if c.span else f"the last {VERDICT_QUARTERS} quarters"
        return (
            f"not enough artifacts to say: {c.counted} in {span}, and fewer than two quarters "
            f"with at least {MIN_POINT_ARTIFACTS}"
        )
    text = f"median lag from {_end(c.first)} to {_end(c.last)}"
    if c.young is not None:
        text += (
            f"; more than half of {c.young.period} is still open, so its median is only known "
            "to be at least that"
        )
    if c.stale:
        text += (
            f"; {c.last.open_stale} of its {c.last.open} open artifacts wait on a stale "
            "evidence stream (their lag grows with the stream's silence)"
        )
    return text
