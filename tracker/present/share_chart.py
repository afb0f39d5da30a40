"""Shares over time (CI job pass rate, friction share) as the report and the digest draw them:
when a series is too thin for a chart, and how each point shows what it stands on.

The rules are the same in both (the report and the digest never import each other, so they
live here):

- a series (a project's CI, a regime's CI or friction) with data in fewer than MIN_PERIODS
  periods gets a sentence with its counts (:func:`sparse_sentence`), not a near-empty chart;
- every point's area grows with its count, and the count is written beside it;
- a point over fewer than MIN_SHARE_EVENTS is drawn hollow and never joined by a line (one
  event is a share of 0 or 1, not a trend), and a line joins two points only when their
  periods are adjacent, so a quiet stretch is a gap, not a slope.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracker.present import palette

MIN_PERIODS = 3  # a series with data in fewer periods gets a sentence, not a chart
MIN_SHARE_EVENTS = 5  # a share over fewer events is hollow and never joined by a line


@dataclass(frozen=True)
class Tally:
    """`hits` of `total` in one period (passed jobs of all jobs; friction events of friction +
    optimization events). `period` is an ISO week ("2026-W19") or a month's first day."""

    period: Any
    hits: int
    total: int

    @property
    def share(self) -> float:
        return self.hits / self.total

    @property
    def solid(self) -> bool:
        """Enough events to be drawn filled and joined to its neighbours."""
        return self.total >= MIN_SHARE_EVENTS


def pool(
    rows: Iterable[dict],
    hit: str,
    miss: str,
    key: Callable[[dict], Hashable],
    period: Callable[[dict], Any],
) -> dict[Hashable, list[Tally]]:
    """Rows summed into one Tally per (key, period), periods in order; hits = the `hit` column,
    total = `hit` + `miss` (so neutral events or other columns never count). Periods with a
    total of 0 are left out: nothing happened there, which is not a share of 0."""
    sums: dict[Hashable, dict[Any, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for row in rows:
        hits, misses = int(row.get(hit) or 0), int(row.get(miss) or 0)
        if hits + misses:
            pair = sums[key(row)][period(row)]
            pair[0] += hits
            pair[1] += hits + misses
    return {
        k: [Tally(p, h, t) for p, (h, t) in sorted(periods.items())] for k, periods in sums.items()
    }


def is_sparse(tallies: Sequence[Tally]) -> bool:
    """Too few periods with data for a chart (fewer than MIN_PERIODS)."""
    return len({t.period for t in tallies if t.total}) < MIN_PERIODS


def sparse_sentence(
    subject: str,
    what: str,
    periods: Sequence[Any],
    parts: Sequence[str],
    scope: str = "",
    note: str = "",
) -> str:
    """What a too-thin series says instead of a chart, with its counts: "vllm: CI jobs in 1
    week(s) only (2025-W38){scope}: rocm 0/1 jobs passed (too little for a chart{note})".
    Periods are ISO weeks or months."""
    listed = ", ".join(_period_text(p) for p in sorted(set(periods)))
    unit = "week(s)" if all(isinstance(p, str) for p in periods) else "month(s)"
    return (
        f"{subject}: {what} in {len(set(periods))} {unit} only ({listed}){scope}: "
        + ("; ".join(parts) or "nothing counted")
        + f" (too little for a chart{note})"
    )


def _period_text(period: Any) -> str:
    return period if isinstance(period, str) else f"{period:%Y-%m}"


def draw_shares(
    ax,
    regime: str,
    xs: Sequence[float],
    tallies: Sequence[Tally],
    adjacent: float,
    label: str | None,
    font: float = 7,
    below: bool = False,
) -> None:
    """One regime's shares on `ax` at `xs` (numbers: matplotlib date numbers or positions),
    in the regime's colour, marker and line style. Points grow with their totals and carry
    them as labels; solid points (MIN_SHARE_EVENTS or more) are filled and joined when no more
    than `adjacent` apart, the others hollow and alone. The legend entry (`label`) shows the
    regime's marker and line, whatever the first point looks like. `below` writes the counts
    under the points (alternate it between regimes that run close together)."""
    colour = palette.colour(regime)
    run: list[tuple[float, float]] = []
    for x, t in [(x, t) for x, t in zip(xs, tallies, strict=True) if t.solid] + [(None, None)]:
        if run and (x is None or x - run[-1][0] > adjacent):
            if len(run) > 1:
                ax.plot(
                    [p for p, _ in run],
                    [v for _, v in run],
                    color=colour,
                    linestyle=palette.line_style(regime),
                    linewidth=1.2,
                )
            run = []
        if x is not None and t is not None:
            run.append((x, t.share))
    ax.scatter(
        list(xs),
        [t.share for t in tallies],
        s=[10 + 8 * min(t.total, 12) for t in tallies],  # grows up to 12 events, then caps
        marker=palette.marker(regime),
        facecolors=[colour if t.solid else "none" for t in tallies],
        edgecolors=colour,
        zorder=3,
    )
    for x, t in zip(xs, tallies, strict=True):
        ax.annotate(
            str(t.total),
            (x, t.share),
            xytext=(5, -11 if below else 4),
            textcoords="offset points",
            fontsize=font,
            color=colour,
        )
    if label:
        ax.plot(
            [],
            [],
            color=colour,
            marker=palette.marker(regime),
            linestyle=palette.line_style(regime),
            label=label,
        )


def split_sparse(
    series: Mapping[Hashable, Sequence[Tally]],
) -> tuple[dict[Hashable, Sequence[Tally]], dict[Hashable, Sequence[Tally]]]:
    """(series with enough periods for a chart, the too-thin ones), each by its key."""
    dense = {k: v for k, v in series.items() if not is_sparse(v)}
    return dense, {k: v for k, v in series.items() if k not in dense}
