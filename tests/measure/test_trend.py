"""Is the gap closing? The censoring-aware slope bracket worked by hand, verdicts only when the
data support them, open artifacts never dropped, and the two-proportion interval checked against
Newcombe's published values."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from tracker.measure.lag.rows import LagSample
from tracker.measure.stats import bootstrap
from tracker.measure.stats.rate_trend import (
    ci_trends,
    friction_trends,
    newcombe_interval,
    week_windows,
    wilson,
)
from tracker.measure.stats.trend import (
    CANNOT_TELL,
    CLOSING,
    IMPROVING,
    MIN_TREND_ARTIFACTS,
    NO_CLEAR_CHANGE,
    POOLED,
    TOO_FEW,
    WIDENING,
    WORSENING,
    bootstrap_interval,
    lag_trend,
    lag_trends,
    pair_bounds,
    slope_bracket,
    slope_verdict,
)

START = datetime(2024, 1, 1, tzinfo=UTC)


def sample(day0, lag, status="covered", project="pytorch", regime="rocm", definition="m"):
    return LagSample(
        project,
        f"{day0:%Y%m%d}",
        regime,
        definition,
        True,
        day0,
        "d",
        day0 + timedelta(days=lag) if status == "covered" else None,
        lag,
        status,
        "e" if status == "covered" else "",
    )


def monthly(lags, statuses=None):
    statuses = statuses or ["covered"] * len(lags)
    return [
        sample(START + timedelta(days=round(30.44 * k)), lag, status)
        for k, (lag, status) in enumerate(zip(lags, statuses, strict=True))
    ]


# -- the bracket, by hand ---------------------------------------------------------------------
def test_pair_bounds_by_hand_with_ties_in_x_and_in_lag():
    # x = 0, 1, 2, 2 (two artifacts share a day 0); lags 10, 30, 20, 50; the last one open.
    # pairs: (0,1) 20; (0,2) 5; (0,3) >= 20; (1,2) -10; (1,3) >= 20; (2,3) same x: no slope
    low, high = pair_bounds([0, 1, 2, 2], [10, 30, 20, 50], [True, True, True, False])
    assert sorted(low) == [-10, 5, 20, 20, 20]
    assert sorted(high) == [-10, 5, 20, math.inf, math.inf]
    assert slope_bracket([0, 1, 2, 2], [10, 30, 20, 50], [True, True, True, False]) == (20, 20)
    # ties in lag: a flat line is slope 0 exactly, the same-x pair still left out
    assert slope_bracket([0, 1, 1, 2], [40, 40, 40, 40], [True] * 4) == (0, 0)


def test_an_open_earlier_artifact_bounds_the_slope_from_above_only():
    # day 0 at years 0, 1, 2; the first still open at 100 days, the others took 30 and 20:
    # pairs (0,1) <= -70, (0,2) <= -40, (1,2) = -10 -> lows (-inf, -inf, -10), highs (-70, -40, -10)
    assert slope_bracket([0, 1, 2], [100, 30, 20], [False, True, True]) == (-math.inf, -40)


def test_without_open_artifacts_the_bracket_is_the_theil_sen_slope():
    # Sen's estimator by hand: slopes of all pairs with distinct x, median.
    x, y = [0.0, 0.5, 1.0, 2.0, 3.5], [50.0, 80.0, 40.0, 10.0, 30.0]
    slopes = sorted((y[j] - y[i]) / (x[j] - x[i]) for i in range(5) for j in range(i + 1, 5))
    assert slope_bracket(x, y, [True] * 5) == (slopes[5] / 2 + slopes[4] / 2,) * 2


def test_the_bracket_holds_for_any_final_lags_of_the_open_artifacts():
    rng = np.random.default_rng(4)
    x = np.sort(rng.uniform(0, 3, 9))
    y = rng.uniform(0, 200, 9)
    observed = [True, True, False, True, True, False, True, False, True]
    low, high = slope_bracket(x, y, observed)
    for _ in range(200):  # any completion: each open lag grows by something
        complete = y + np.where(observed, 0, rng.exponential(150, 9))
        exact, _ = slope_bracket(x, complete, [True] * 9)
        assert low <= exact <= high


# -- verdicts ---------------------------------------------------------------------------------
def test_lag_halving_over_two_years_is_closing_with_an_interval_excluding_zero():
    rng = np.random.default_rng(7)
    lags = [round(120 * 0.5 ** (k / 24) + rng.normal(0, 8)) for k in range(25)]
    trend = lag_trend(monthly(lags), START + timedelta(days=800), "pytorch", "rocm", "m")
    assert trend.verdict == CLOSING
    assert trend.ci_high < 0  # the whole 90% interval is below 0
    assert -45 < trend.slope_low == trend.slope_high < -20  # about -30 days per year
    assert trend.ci_low < trend.slope_low < trend.ci_high
    assert (trend.artifacts, trend.open) == (25, 0)


def test_a_flat_noisy_lag_is_no_clear_change():
    # A 90% interval misses the true slope 0 about one time in ten: over 20 independent flat
    # noisy series, "no clear change" must be the usual verdict, and it always means the
    # interval spans 0.
    verdicts = []
    for seed in range(20):
        rng = np.random.default_rng(seed)
        lags = [round(90 + rng.normal(0, 25)) for _ in range(25)]
        trend = lag_trend(monthly(lags), START + timedelta(days=800), "pytorch", "rocm", "m")
        verdicts.append(trend.verdict)
        if trend.verdict == NO_CLEAR_CHANGE:
            assert trend.ci_low <= 0 <= trend.ci_high
    assert verdicts.count(NO_CLEAR_CHANGE) >= 16, verdicts


def test_three_artifacts_are_too_few_even_with_a_perfect_trend():
    trend = lag_trend(monthly([300, 200, 100]), START + timedelta(days=100), "p", "rocm", "m")
    assert trend.slope_low < -1000  # the slope exists ...
    assert trend.verdict == TOO_FEW  # ... but no verdict from 3 artifacts
    assert MIN_TREND_ARTIFACTS > 3
    assert slope_verdict(MIN_TREND_ARTIFACTS - 1, -50, -10) == TOO_FEW
    assert slope_verdict(MIN_TREND_ARTIFACTS, -50, -10) == CLOSING
    assert slope_verdict(MIN_TREND_ARTIFACTS, 10, math.inf) == WIDENING
    assert slope_verdict(MIN_TREND_ARTIFACTS, -math.inf, -5) == CLOSING


def test_young_open_artifacts_cannot_make_the_gap_look_closing():
    # Lags flat at about 100 days, then the four newest series still open at 40, 30, 20 and 10
    # days. Read as lags (open dropped into the numbers) they say "closing"; counted as what
    # they are, lower bounds, they cannot.
    lags = [100, 104, 97, 101, 99, 103, 98, 102, 100, 40, 30, 20, 10]
    statuses = ["covered"] * 9 + ["open"] * 4
    as_of = START + timedelta(days=round(30.44 * 12) + 10)
    naive = lag_trend(monthly(lags), as_of, "p", "rocm", "m")
    honest = lag_trend(monthly(lags, statuses), as_of, "p", "rocm", "m")
    assert naive.verdict == CLOSING
    assert honest.verdict != CLOSING and honest.slope_high == math.inf
    assert (honest.artifacts, honest.open) == (13, 4)  # counted, not dropped


def test_an_all_open_period_counts_and_has_no_median():
    # 2025: six covered series; the last 12 months: four series, all still open.
    as_of = datetime(2026, 6, 1, tzinfo=UTC)
    old = [sample(datetime(2025, m, 1, tzinfo=UTC), 60 + m) for m in (1, 2, 3, 4, 5, 6)]
    young = [
        sample(datetime(2025, m, 15, tzinfo=UTC), (as_of - datetime(2025, m, 15, tzinfo=UTC)).days)
        for m in (7, 9, 11)
    ] + [sample(datetime(2026, 3, 1, tzinfo=UTC), 92)]
    young = [s.__class__(**{**s.__dict__, "status": "open", "available": None}) for s in young]
    trend = lag_trend(old + young, as_of, "p", "rocm", "m")
    assert (trend.recent_artifacts, trend.recent_open, trend.recent_median) == (4, 4, None)
    # not reached: at least the lower median of the current lags 92, 198, 259, 321 days
    assert trend.recent_at_least == 198
    assert (trend.prior_artifacts, trend.prior_open, trend.prior_median) == (6, 0, 63)
    assert (trend.artifacts, trend.open) == (10, 4)
    assert trend.verdict in (WIDENING, NO_CLEAR_CHANGE)  # never closing
    # a group where every artifact is open bounds nothing: no verdict either way, and "no
    # clear change" would read as "stable"
    only_open = lag_trend(young + young[:2], as_of, "p", "rocm", "m")
    assert (only_open.slope_low, only_open.slope_high) == (-math.inf, math.inf)
    assert (only_open.ci_low, only_open.ci_high) == (-math.inf, math.inf)
    assert only_open.verdict == CANNOT_TELL


def test_bootstrap_is_reproducible_and_skips_single_x_resamples():
    x, y, obs = [0, 1, 2, 3, 4, 5], [9, 8, 7, 6, 5, 4], [True] * 6
    assert bootstrap_interval(x, y, obs) == bootstrap_interval(x, y, obs)
    assert bootstrap_interval(x, y, obs) == (-1, -1)  # a perfect line: every resample says -1
    assert all(math.isnan(v) for v in bootstrap_interval([1, 1], [2, 3], [True, True]))


def test_groups_per_project_and_pooled_per_regime_without_the_reference():
    samples = monthly([10, 20, 30]) + [
        sample(START, 0, regime="cuda", definition="upstream_release"),
        sample(START + timedelta(days=40), 5, project="jax"),
    ]
    trends = {(t.group, t.regime, t.definition): t for t in lag_trends(samples, START)}
    assert set(trends) == {
        ("pytorch", "rocm", "m"),
        ("jax", "rocm", "m"),
        (POOLED, "rocm", "primary"),
    }
    assert trends[(POOLED, "rocm", "primary")].artifacts == 4
    models = lag_trends(samples, START, group_of=lambda s: "models")
    assert {t.group for t in models} == {"models", POOLED}


# -- rates ------------------------------------------------------------------------------------
def test_newcombe_interval_matches_the_published_examples():
    # Newcombe (1998), Statistics in Medicine 17:873, method 10, 95%: 56/70 - 48/80 and 9/10 - 3/10
    assert newcombe_interval(56, 70, 48, 80, 0.95) == pytest.approx((0.0524, 0.3339), abs=1e-4)
    assert newcombe_interval(9, 10, 3, 10, 0.95) == pytest.approx((0.1705, 0.8090), abs=1e-4)
    # Wilson score interval of 81/263 at 95% (the same paper's single-proportion example set)
    assert wilson(81, 263, 1.959963984540054) == pytest.approx((0.2553, 0.3662), abs=1e-4)


def test_week_windows_are_the_last_four_iso_weeks_and_the_eight_before():
    recent, prior = week_windows(datetime(2026, 5, 8, tzinfo=UTC))  # Friday of 2026-W19
    assert recent == ["2026-W16", "2026-W17", "2026-W18", "2026-W19"]
    assert prior[0] == "2026-W08" and prior[-1] == "2026-W15" and len(prior) == 8


def test_ci_pass_rate_trend_counts_and_verdicts():
    as_of = datetime(2026, 5, 8, tzinfo=UTC)
    rows = [
        # rocm: 60% of 400 jobs before, 80% of 200 jobs in the last 4 weeks
        {
            "project": "vllm",
            "regime": "rocm",
            "week": "2026-W10",
            "jobs_passed": 240,
            "jobs_failed": 160,
        },
        {
            "project": "vllm",
            "regime": "rocm",
            "week": "2026-W18",
            "jobs_passed": 160,
            "jobs_failed": 40,
        },
        # cuda: 92% both times
        {
            "project": "vllm",
            "regime": "cuda",
            "week": "2026-W12",
            "jobs_passed": 368,
            "jobs_failed": 32,
        },
        {
            "project": "vllm",
            "regime": "cuda",
            "week": "2026-W19",
            "jobs_passed": 184,
            "jobs_failed": 16,
        },
        # xla: 10 jobs only; and a week outside both windows, ignored
        {
            "project": "vllm",
            "regime": "xla",
            "week": "2026-W19",
            "jobs_passed": 5,
            "jobs_failed": 5,
        },
        {
            "project": "vllm",
            "regime": "xla",
            "week": "2026-W01",
            "jobs_passed": 900,
            "jobs_failed": 0,
        },
    ]
    by = {t.regime: t for t in ci_trends(rows, as_of)}
    assert (by["rocm"].recent_hits, by["rocm"].recent_total) == (160, 200)
    assert (by["rocm"].prior_hits, by["rocm"].prior_total) == (240, 400)
    assert by["rocm"].verdict == IMPROVING and by["rocm"].ci_low > 0
    assert by["cuda"].verdict == NO_CLEAR_CHANGE
    assert by["xla"].verdict == "too few jobs" and by["xla"].prior_total == 0
    friction = [
        {"regime": "rocm", "week": "2026-W09", "friction": 10, "optimization": 30},
        {"regime": "rocm", "week": "2026-W17", "friction": 30, "optimization": 10},
    ]
    [rocm] = friction_trends(friction, as_of)
    assert rocm.verdict == WORSENING  # friction share 25% -> 75%: a higher share is worse


def test_the_lag_chart_draws_each_regimes_trend_line(tmp_path, monkeypatch):
    import matplotlib.pyplot as plt

    from tracker.report import charts

    drawn = []
    monkeypatch.setattr(charts, "_save", lambda fig, path: drawn.append(fig))
    covered = monthly([120, 110, 100, 90, 80, 70])
    still_open = [  # the four newest series, still open at 50, 40, 30 and 20 days
        sample(START + timedelta(days=round(30.44 * k)), lag, "open")
        for k, lag in ((6, 50), (7, 40), (8, 30), (9, 20))
    ]
    reference = [sample(s.day0, 0, regime="cuda", definition="upstream_release") for s in covered]
    assert charts.lag_chart(tmp_path / "lag.png", covered + reference, START)
    [line] = [ln for ln in drawn[0].axes[0].get_lines() if "trend" in str(ln.get_label())]
    assert line.get_label() == "rocm trend -120 d/yr" and line.get_linestyle() == "--"
    plt.close(drawn[0])
    # with open artifacts the label gives the range they leave
    drawn.clear()
    charts.lag_chart(tmp_path / "lag.png", covered + still_open, START)
    labels = [str(ln.get_label()) for ln in drawn[0].axes[0].get_lines()]
    # by hand: 45 pairs; 6 open-open (-inf), 24 covered-open with lower ends -120 - 120/d
    # (d = months apart: 1, 2, 2, 3 x3, 4 x4, 5 x4, 6 x4, ...), 15 covered at -120; the 23rd
    # lowest is the 17th covered-open end, d = 6: -140. 30 upper ends are +inf: open, so the
    # label reads "at least -140 d/yr", the table's words (issue 22: no "unbounded" for people).
    # the bracket straddles zero: no line is drawn (the low end alone, through the open
    # artifacts' current lags, would slope down as if closing); the legend keeps the figure
    assert "rocm trend at least -140 d/yr (open): direction unknown" in labels
    [entry] = [ln for ln in drawn[0].axes[0].get_lines() if "trend" in str(ln.get_label())]
    assert len(entry.get_xdata()) == 0
    plt.close(drawn[0])
    # one old open artifact in a falling series leaves the slope below zero at both ends:
    # a line is drawn (at the end nearer zero, the conservative reading of "closing")
    drawn.clear()
    early_open = [sample(START - timedelta(days=31), 130, "open")]
    charts.lag_chart(tmp_path / "lag.png", covered + early_open, START)
    [line] = [ln for ln in drawn[0].axes[0].get_lines() if "trend" in str(ln.get_label())]
    assert "unknown" not in str(line.get_label()) and len(line.get_xdata()) == 2
    first, last = line.get_ydata()
    assert last < first
    plt.close(drawn[0])


def test_the_headline_says_when_a_window_holds_no_ci_jobs():
    """A regime whose CI stream ended long before as-of reads as "no CI jobs in the last 12
    weeks" in the table, not as a bare dash that could mean "not measured"."""
    from tracker.measure.headline.trends import compute_trends
    from tracker.present.trend_words import headline

    as_of = datetime(2026, 8, 22, tzinfo=UTC)
    old_ci = [
        {
            "project": "vllm",
            "regime": "rocm",
            "week": "2026-W13",
            "jobs_passed": 90,
            "jobs_failed": 10,
        }
    ]
    [row] = [
        r
        for r in headline(compute_trends(monthly([60, 50, 40]), as_of, old_ci))
        if r["regime"] == "rocm"
    ]
    # issue 22: the cell says when the data end and how long before the report date (W13 ends
    # Sunday 2026-03-29, 146 days before 2026-08-22), not only that the window is empty
    assert row["ci"] == (
        "CI data ends 2026-W13 (2026-03-29), 146 d before the as-of date: "
        "nothing in the last 12 weeks to compare"
    )
    assert row["friction"] == (
        "no friction / optimization events collected for this regime: nothing to compare"
    )


def test_ranges_with_open_ends_are_said_in_words():
    """An open end of a slope range is "at least" / "at most", an interval open at both ends
    says nothing ("not enough covered artifacts to say"), and an exact 0 is "0", not "+0"."""
    from tracker.present.trend_words import plain_range

    inf = math.inf
    assert plain_range(-86.4, inf) == "at least -86 d/yr"
    assert plain_range(-inf, 12.0) == "at most +12 d/yr"
    assert plain_range(-inf, inf) == "not enough covered artifacts to say"
    assert plain_range(0.0, 14.2) == "0 to +14 d/yr"
    assert plain_range(-3.25, -3.25) == "-3.2 d/yr"
    assert plain_range(None, 1.0) == "-"


def test_model_families_get_their_own_rows_per_day0_definition_and_stay_out_of_the_pool():
    """Model families have two day-0 definitions (one row each); a trend over both would count
    each family twice, and pooling them with framework series would mix two kinds of lag."""
    from dataclasses import replace

    from tracker.measure.stats.trend import POOLED, lag_trends

    frameworks = monthly([120, 110, 100, 90, 80, 70])
    models = [
        replace(
            s, project="models", artifact="model", day0_definition=d0, primary=d0 == "vllm_cuda"
        )
        for s in monthly([40, 30, 20, 60, 50, 10, 5])
        for d0 in ("vllm_cuda", "public_weights")
    ]
    trends = lag_trends(frameworks + models, START + timedelta(days=400), samples_n=200)
    by_key = {(t.group, t.definition): t for t in trends}
    assert by_key[("models", "m, day 0 vllm_cuda")].artifacts == 7
    assert by_key[("models", "m, day 0 public_weights")].artifacts == 7
    assert by_key[(POOLED, "primary")].artifacts == 6  # the framework series only


def test_lag_trend_filters_pick_rows_and_never_relabel_a_filtered_pool(capsys):
    """`tracker lag --trend --project pytorch` once pooled pytorch alone and called it
    "all projects"; the pool is computed from everything, and a project filter drops it."""
    import csv as csv_module
    from dataclasses import replace

    from tracker.cli.lag import _print_trend
    from tracker.measure.stats.trend import POOLED

    torch = monthly([120, 110, 100, 90, 80, 70])
    jax = [replace(s, project="jax") for s in monthly([10, 20, 30, 40, 50, 60])]
    other = [replace(s, definition="other", primary=False) for s in torch]
    samples = torch + jax + other
    as_of = START + timedelta(days=400)

    def rows(kept, primary=None):
        _print_trend(samples, as_of, "csv", "cuda", kept, primary)
        out = capsys.readouterr().out
        return {
            (r["artifact_group"], r["definition"]): r
            for r in csv_module.DictReader(out.splitlines())
        }

    everything = rows({("pytorch", "rocm"), ("jax", "rocm")})
    assert everything[(POOLED, "primary")]["artifacts"] == "12"
    assert ("pytorch", "other") in everything
    only_torch = rows({("pytorch", "rocm")})
    assert (POOLED, "primary") not in only_torch and ("jax", "m") not in only_torch
    assert only_torch[("pytorch", "m")]["artifacts"] == "6"
    primary = {("pytorch", "rocm", "m"), ("jax", "rocm", "m")}
    primary_only = rows({("pytorch", "rocm"), ("jax", "rocm")}, primary)
    assert ("pytorch", "other") not in primary_only and (POOLED, "primary") in primary_only


def test_median_of_pair_bounds_is_the_sorted_definition_with_infinities():
    """bootstrap.median partitions instead of sorting: the same value as the middle of the sorted
    values (the mean of the two middle ones for an even count), infinities included."""
    rng = np.random.default_rng(5)
    for _ in range(500):
        values = rng.integers(-6, 6, int(rng.integers(1, 40))).astype(float)
        draw = rng.random(values.size)
        values[draw < 0.2] = np.inf  # open later lags: no upper end
        ordered, mid = np.sort(values), values.size // 2
        lo, hi = ordered[mid - 1 + values.size % 2], ordered[mid]
        assert bootstrap.median(values) == (lo if lo == hi else lo / 2 + hi / 2)
    assert math.isnan(bootstrap.median(np.array([])))


def test_the_lag_chart_takes_the_brackets_lag_trends_computed(monkeypatch):
    """trend_line with the trends' brackets gives what it computes itself, and does not form
    pairs again; a group whose samples are not exactly its trend's is computed as before."""
    from tracker.measure.stats import trend

    rng = np.random.default_rng(5)
    samples = []
    for regime, n in (("rocm", 40), ("xla", 9), ("neuron", 2)):
        for _ in range(n):
            status = "open" if rng.random() < 0.3 else "covered"
            day0 = START + timedelta(days=int(rng.integers(0, 400)))  # ties in day 0
            samples.append(sample(day0, int(rng.integers(0, 90)), status, regime=regime))
    samples += [
        sample(START, 0, regime="cuda"),
        sample(START + timedelta(days=9), 0, regime="cuda"),
    ]
    trends = lag_trends(samples, START + timedelta(days=500), samples_n=50)
    known = trend.known_brackets(trends, samples)
    assert {key[1] for key in known} == {"rocm", "xla", "neuron"}  # the reference has no trend
    groups = {r: [s for s in samples if s.regime == r] for r in ("rocm", "xla", "neuron")}
    own = {r: trend.trend_line(g) for r, g in groups.items()}
    monkeypatch.setattr(trend, "slope_bracket", lambda *a: pytest.fail("pairs formed again"))
    for regime, group in groups.items():
        assert trend.trend_line(group, known) == own[regime]
    # fewer samples than the trend counted (or two keys): the bracket is computed, not taken
    monkeypatch.undo()
    part = groups["rocm"][:-1]
    computed = []
    monkeypatch.setattr(trend, "slope_bracket", lambda *a: computed.append(1) or (1.0, 2.0))
    assert trend.trend_line(part, known)[2:] == (1.0, 2.0) and computed
    assert trend.trend_line(groups["rocm"] + groups["xla"], known)[2:] == (1.0, 2.0)
    # trends of other samples (a changed count under a key) are not lent at all
    assert ("pytorch", "rocm", "m") not in trend.known_brackets(trends, part + groups["xla"])


def test_a_stale_ci_stream_shows_its_newest_comparable_weeks():
    """Issue 31: 15 weeks after the newest build, the windows before the as-of date hold
    nothing, and "too few jobs" alone hid seven weeks in which the pass rate fell. The newest
    weeks with enough jobs on both sides are compared instead, their weeks and age named."""
    from tracker.measure.headline.trends import compute_trends
    from tracker.measure.stats.rate_trend import newest_data_trends
    from tracker.present.trend_words import headline

    as_of = datetime(2026, 8, 22, 23, 59, tzinfo=UTC)
    weekly = {f"2026-W{w:02d}": (85, 15) for w in range(8, 16)}  # prior: 680 of 800
    weekly |= {f"2026-W{w:02d}": (65, 35) for w in range(16, 20)}  # recent: 260 of 400
    rows = [
        {"project": "vllm", "regime": "rocm", "week": w, "jobs_passed": p, "jobs_failed": f}
        for w, (p, f) in weekly.items()
    ] + [
        {"project": "jax", "regime": "rocm", "week": "2026-W33", "jobs_passed": 3, "jobs_failed": 1}
    ]
    [newest] = newest_data_trends(rows, as_of, ci_trends, "jobs_passed", "jobs_failed", 30).values()
    assert (newest.recent_weeks, newest.prior_weeks) == ("2026-W16..2026-W19", "2026-W08..2026-W15")
    assert (newest.recent_hits, newest.recent_total, newest.prior_hits, newest.prior_total) == (
        260,
        400,
        680,
        800,
    )
    assert newest.verdict == WORSENING  # 65% against 85%: the interval excludes 0
    [row] = [r for r in headline(compute_trends([], as_of, rows)) if r["regime"] == "rocm"]
    assert row["ci"].startswith("too few jobs: 75% of 4 (last 4 wk) vs none (8 wk before); ")
    assert (
        "newest comparable CI data: 2026-W16 to 2026-W19, 14 weeks before the as-of date: "
        "worsening: 65% of 400 (2026-W16 to 2026-W19) vs 85% of 800 (2026-W08 to 2026-W15)"
    ) in row["ci"]
    # a regime compared as of the as-of date gets no second comparison
    recent = [dict(r, week=f"2026-W{int(r['week'][-2:]) + 15}") for r in rows[:-1]]
    assert newest_data_trends(recent, as_of, ci_trends, "jobs_passed", "jobs_failed", 30) == {}
