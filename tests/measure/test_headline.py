"""The headline series: pooled Kaplan-Meier median lag per regime and quarter of day 0, its
lower bound while half or more are open, and the verdict sentence (issue 22).

The samples are shaped like the demo store's: ROCm 2024-Q2 held four PyTorch/JAX series with
lags -6, 0, 8 and 101 days (KM lower median 0 d); a late quarter holds only open artifacts
whose evidence stream went stale.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime, timedelta

from tracker.measure.headline.quarters import (
    CANNOT_TELL,
    LONGER,
    SHORTER,
    TOO_FEW,
    compare_cohorts,
    latest_reached,
    median_point,
    quarterly_series,
)
from tracker.measure.lag.rows import LagSample
from tracker.present.cohort_words import cohort_sentence, point_text

AS_OF = datetime(2026, 8, 22, tzinfo=UTC)


def verdict(points) -> tuple[str, str]:
    """The direction measure computes and the sentence present words it in."""
    comparison = compare_cohorts(points, AS_OF)
    return comparison.direction, cohort_sentence(comparison)


def s(day0: date, lag: int, status="covered", project="pytorch", regime="rocm", primary=True):
    when = datetime(day0.year, day0.month, day0.day, tzinfo=UTC)
    if status == "open":
        lag = (AS_OF - when).days  # an open lag is its age at as-of, as lag_samples censors it
    return LagSample(
        project,
        f"{project}-{day0:%Y%m%d}",
        regime,
        "vendor_matrix",
        primary,
        when,
        "https://example.org/day0",
        when + timedelta(days=lag) if status == "covered" else None,
        lag,
        status,
        "https://example.org/evidence" if status == "covered" else "",
    )


def test_a_quarter_pools_projects_under_their_primary_definition_and_keeps_open_ones():
    q2 = [
        s(date(2024, 4, 24), -6),
        s(date(2024, 5, 9), 0, project="jax"),
        s(date(2024, 5, 21), 8, project="jax"),
        s(date(2024, 6, 5), 101),
    ]
    other = [replace(x, primary=False, definition="upstream_wheels", lag_days=400) for x in q2]
    model = [replace(q2[0], artifact="model", lag_days=900)]
    series = quarterly_series(q2 + other + model, AS_OF)
    first = series["rocm"][0]
    # the lower median of -6, 0, 8, 101 (KM with nothing censored): non-primary and model rows
    # are not in the pool, or 400 / 900 would be among the values
    assert (first.period, first.artifacts, first.open, first.median) == ("2024-Q2", 4, 0, 0)
    assert first.projects == ("jax", "pytorch")
    # every quarter up to as-of's is a point, empty ones with 0 artifacts (a gap, not a join)
    assert [p.period for p in series["rocm"]][-1] == "2026-Q3"
    assert series["rocm"][1].artifacts == 0 and point_text(series["rocm"][1]) == "no artifacts"


def test_more_than_half_open_is_not_reached_with_its_lower_bound():
    q = [
        s(date(2026, 4, 8), 20),
        s(date(2026, 4, 29), 0, "open"),  # 115 d old
        s(date(2026, 5, 27), 0, "open"),  # 87 d
        s(date(2026, 6, 11), 0, "open"),  # 72 d
    ]
    point = median_point(q, "rocm", "2026-Q2", date(2026, 4, 1))
    assert point.median is None and point.open == 3
    # lags now 20, 72, 87, 115: the lower median 72 is the least the final median can be
    assert point.bound == 72
    assert point_text(point) == "at least 72 d (4 artifacts, 3 open)"
    # young open artifacts (censored at 12 and 21 days) never pull the median down: one
    # covered at 200 d beside them keeps 200, it does not become 21
    young = [s(date(2026, 8, 1), 0, "open"), s(date(2026, 8, 10), 0, "open")]
    point = median_point([s(date(2026, 1, 5), 200), *young], "rocm", "x", date(2026, 1, 1))
    assert point.median == 200 and point.bound == 21


def quarter(label_start: date, lags: list[int], opened: int = 0, stale: bool = False):
    """A quarter's samples: covered ones with `lags`, plus `opened` open ones at its start."""
    out = [s(label_start + timedelta(days=3 * k), lag) for k, lag in enumerate(lags)]
    out += [s(label_start + timedelta(days=40 + k), 0, "open") for k in range(opened)]
    return out


def test_the_verdict_uses_the_last_four_complete_quarters_and_says_what_it_rests_on():
    samples = (
        quarter(date(2025, 7, 1), [60, 70, 80])  # 2025-Q3: 70 d
        + quarter(date(2025, 10, 1), [50, 55, 65])  # 2025-Q4
        + quarter(date(2026, 1, 1), [30, 40, 45])  # 2026-Q1
        + quarter(date(2026, 4, 1), [20, 25, 30, 35])  # 2026-Q2: 25 d
        + quarter(date(2026, 7, 1), [400, 500])  # running quarter: never in the verdict
    )
    points = quarterly_series(samples, AS_OF)["rocm"]
    direction, text = verdict(points)
    assert direction == SHORTER
    assert text == ("median lag from 70 d (2025-Q3, 3 artifacts) to 25 d (2026-Q2, 4 artifacts)")
    assert latest_reached(points).period == "2026-Q3"


def test_an_unreached_median_can_show_longer_but_never_shorter():
    base = quarter(date(2025, 7, 1), [60, 70, 80])
    # 2026-Q2: 1 covered, 3 open at 72-115 days: at least 72 > 70: longer whatever happens
    late = [s(date(2026, 4, 8), 20)] + [
        s(d, 0, "open") for d in (date(2026, 4, 29), date(2026, 5, 27), date(2026, 6, 11))
    ]
    direction, text = verdict(quarterly_series(base + late, AS_OF)["rocm"])
    assert direction == LONGER
    assert "to at least 72 d (2026-Q2: 3 of 4 still open)" in text
    # against a slower start (100 d) the same bound says nothing yet
    slow = quarter(date(2025, 7, 1), [90, 100, 110])
    direction, text = verdict(quarterly_series(slow + late, AS_OF)["rocm"])
    assert direction == CANNOT_TELL and "more than half of 2026-Q2 is still open" in text


def test_open_artifacts_on_a_stale_stream_make_the_verdict_cannot_tell():
    base = quarter(date(2025, 7, 1), [60, 70, 80])
    late = [s(date(2026, 4, 8), 20)] + [
        s(d, 0, "open") for d in (date(2026, 4, 29), date(2026, 5, 27), date(2026, 6, 11))
    ]
    stale = {("pytorch", "rocm", "vendor_matrix")}
    points = quarterly_series(base + late, AS_OF, stale)["rocm"]
    assert points[-2].open_stale == 3
    direction, text = verdict(points)
    assert direction == CANNOT_TELL
    assert "3 of its 3 open artifacts wait on a stale evidence stream" in text


def test_too_few_artifacts_get_no_direction():
    # one artifact a quarter (the demo's XLA through 2025-Q3): nothing to compare
    one_each = [s(date(2025, m, 15), 1, regime="xla") for m in (7, 10)] + [
        s(date(2026, m, 15), 2, regime="xla") for m in (1, 4)
    ]
    direction, text = verdict(quarterly_series(one_each, AS_OF)["xla"])
    assert direction == TOO_FEW
    assert text.startswith("not enough artifacts to say: 4 in 2025-Q3 to 2026-Q2")
