"""Issue 22: charts that read at a glance. Too-thin series become sentences, shares carry their
counts and are never joined across thin or missing periods, open trend ends are worded, and the
model matrix's lag scale cannot be mistaken for a regime colour."""

from __future__ import annotations

from datetime import UTC, date, datetime

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.colors import to_rgb  # noqa: E402

from tracker.measure.lag.rows import LagSample  # noqa: E402
from tracker.present import palette  # noqa: E402
from tracker.present.share_chart import (  # noqa: E402
    MIN_PERIODS,
    MIN_SHARE_EVENTS,
    Tally,
    draw_shares,
    pool,
    sparse_sentence,
)
from tracker.present.trend_words import days, plain_range  # noqa: E402
from tracker.report import chart_data, charts, model_charts  # noqa: E402


def _lab(colour) -> np.ndarray:
    """CIE L*a*b* (D65) of an sRGB colour: distances there follow what people see."""
    rgb = np.array(to_rgb(colour))
    rgb = np.where(rgb > 0.04045, ((rgb + 0.055) / 1.055) ** 2.4, rgb / 12.92)
    m = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
    xyz = m @ rgb / np.array([0.95047, 1.0, 1.08883])
    f = np.where(xyz > (6 / 29) ** 3, np.cbrt(xyz), xyz / (3 * (6 / 29) ** 2) + 4 / 29)
    return np.array([116 * f[1] - 16, 500 * (f[0] - f[1]), 200 * (f[1] - f[2])])


def _distance(a, b) -> float:
    return float(np.linalg.norm(_lab(a) - _lab(b)))


def _hue_apart(a, b) -> float:
    """Degrees between two colours' CIE LCh hues; 360 when either is near-grey (chroma under
    10: no hue to be confused by)."""
    la, lb = _lab(a), _lab(b)
    if min(np.hypot(la[1], la[2]), np.hypot(lb[1], lb[2])) < 10:
        return 360.0
    ha, hb = (np.degrees(np.arctan2(x[2], x[1])) % 360 for x in (la, lb))
    return float(min(abs(ha - hb), 360 - abs(ha - hb)))


def _mistakable(colour, regime_colour) -> bool:
    """Close in colour (CIE76 delta E under 30; 2.3 is just noticeable) or in hue (under 30
    degrees: a light green still reads as "green" however pale)."""
    return _distance(colour, regime_colour) < 30 or _hue_apart(colour, regime_colour) < 30


def test_shares_carry_their_counts_and_join_only_solid_neighbours():
    fig, ax = plt.subplots()
    tallies = [
        Tally("2026-W01", 9, 10),
        Tally("2026-W02", 4, 8),
        Tally("2026-W03", 1, 2),  # under MIN_SHARE_EVENTS: hollow, not joined
        Tally("2026-W04", 6, 6),
        Tally("2026-W06", 3, 5),  # W05 missing: not joined to W04
    ]
    draw_shares(ax, "rocm", [0, 1, 2, 3, 5], tallies, adjacent=1.5, label="rocm")
    lines = [ln for ln in ax.get_lines() if len(ln.get_xdata())]
    assert [list(ln.get_xdata()) for ln in lines] == [[0, 1]]
    assert lines[0].get_color() == palette.colour("rocm")
    [points] = ax.collections
    faces = points.get_facecolors()
    assert [bool(f[3]) for f in faces] == [True, True, False, True, True]  # alpha 0 = hollow
    assert points.get_sizes()[0] > points.get_sizes()[2]  # 10 events: a bigger point than 2
    assert [t.get_text() for t in ax.texts] == ["10", "8", "2", "6", "5"]
    # the legend shows the regime's marker and line, not the first point's look
    [entry] = [ln for ln in ax.get_lines() if ln.get_label() == "rocm"]
    assert entry.get_marker() == palette.marker("rocm")
    plt.close(fig)


def test_pool_counts_and_sparse_sentence():
    rows = [
        {"regime": "rocm", "week": "2026-W02", "friction": 3, "optimization": 0, "neutral": 5},
        {"regime": "rocm", "week": "2026-W02", "friction": 1, "optimization": 1, "neutral": 0},
        {"regime": None, "week": "2026-W03", "friction": 0, "optimization": 0, "neutral": 2},
    ]
    pooled = pool(
        rows, "friction", "optimization", lambda r: r["regime"] or "none", lambda r: r["week"]
    )
    assert pooled == {"rocm": [Tally("2026-W02", 4, 5)]}  # neutral-only rows are no share
    assert sparse_sentence("ROCm", "CI jobs", ["2026-W19"], ["6/8 jobs passed"]) == (
        "ROCm: CI jobs in 1 week(s) only (2026-W19): 6/8 jobs passed (too little for a chart)"
    )
    months = [date(2026, 1, 1), date(2026, 3, 1)]
    assert "in 2 month(s) only (2026-01, 2026-03)" in sparse_sentence("xla", "events", months, [])


def test_a_regime_with_friction_in_too_few_months_is_a_sentence_not_points(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(charts, "_save", lambda fig, path: drawn.append(fig))
    dense = [
        {"regime": "rocm", "week": week, "friction": 3, "optimization": 3, "neutral": 0}
        for week in ("2026-W02", "2026-W06", "2026-W10")  # January, February, March
    ]
    thin = [{"regime": "xla", "week": "2026-W02", "friction": 1, "optimization": 0, "neutral": 0}]
    assert MIN_PERIODS == 3
    assert charts.friction_chart(tmp_path / "f.png", dense + thin)
    ax = drawn[0].axes[0]
    assert [str(ln.get_label()) for ln in ax.get_lines() if ln.get_label()[0] != "_"] == ["rocm"]
    [points] = ax.collections  # rocm's three months; nothing of xla's lone month
    assert len(points.get_offsets()) == 3
    plt.close(drawn[0])
    assert chart_data.sparse_friction(dense + thin) == [
        "xla: friction / optimization events in 1 month(s) only (2026-01): 1 friction of 1 "
        "friction + optimization (too little for a chart; every week is in friction_weekly.csv)"
    ]
    assert chart_data.sparse_friction(dense) == []
    # only thin regimes: no chart at all, the sentence says it
    assert not charts.friction_chart(tmp_path / "g.png", thin)


def test_ci_chart_labels_every_week_with_its_jobs(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr(charts, "_save", lambda fig, path: drawn.append(fig))
    rows = [
        {"project": "vllm", "regime": "rocm", "week": w, "jobs_passed": p, "jobs_failed": f}
        for w, p, f in (("2026-W10", 90, 10), ("2026-W11", 2, 1), ("2026-W12", 40, 0))
    ]
    assert charts.ci_pass_rate_chart(tmp_path / "c.png", rows)
    ax = drawn[0].axes[0]
    assert sorted(t.get_text() for t in ax.texts) == ["100", "3", "40"]
    # W11 has fewer than MIN_SHARE_EVENTS jobs: hollow, so no line runs through it
    assert MIN_SHARE_EVENTS > 3
    assert not [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 1]
    plt.close(drawn[0])


def test_open_trend_ends_are_worded_for_people():
    inf = float("inf")
    assert plain_range(-140, inf) == "at least -140 d/yr"
    assert plain_range(-inf, 12) == "at most +12 d/yr"
    assert plain_range(-inf, inf) == "not enough covered artifacts to say"
    assert "unbounded" not in days(inf) and "inf" not in days(-inf)


def _model(regime: str, lag: int, status: str, family: str = "qwen3") -> LagSample:
    day0 = datetime(2025, 4, 21, tzinfo=UTC)
    return LagSample(
        "models",
        family,
        regime,
        "any_engine",
        True,
        day0,
        "https://d",
        None if status == "open" else day0,
        lag,
        status,
        "https://e",
        artifact="model",
        day0_definition="engine_cuda",
    )


def test_matrix_colours_cannot_be_read_as_regime_colours(tmp_path, monkeypatch):
    regimes = {r: palette.colour(r) for r in palette.REGIME_ORDER}
    # every lag on the scale, 0 to past a year, is far in colour and in hue from every
    # regime's colour (the green-to-red scale it replaced sat 1 degree from CUDA's green), and
    # darker for a longer lag: one hue read by lightness, so colour-blind readers see it too
    scale = [model_charts.cell_colour(d) for d in range(-3, 400, 7)]
    for fill in scale:
        for regime, colour in regimes.items():
            assert not _mistakable(fill[:3], colour), (fill, regime)
    lightness = [_lab(c[:3])[0] for c in scale]
    assert lightness == sorted(lightness, reverse=True) and lightness[0] - lightness[-1] > 40
    assert not any(_mistakable(model_charts.OPEN_INK, c) for c in regimes.values())
    # drawn: covered cells filled from the scale, open cells white and hatched in OPEN_INK
    figures = []
    monkeypatch.setattr(model_charts.plt, "close", figures.append)
    samples = [
        _model("cuda", 0, "covered"),
        _model("rocm", 33, "covered"),
        _model("neuron", 488, "open"),
    ]
    assert model_charts.model_matrix_chart(tmp_path / "m.png", samples, datetime(2026, 8, 22))
    patches = figures[0].axes[0].patches
    hatched = [p for p in patches if p.get_hatch()]
    assert len(hatched) == 1 and hatched[0].get_facecolor()[:3] == (1.0, 1.0, 1.0)
    assert _distance(hatched[0].get_edgecolor()[:3], model_charts.OPEN_INK) < 1
    filled = [p.get_facecolor() for p in patches if not p.get_hatch() and p.get_facecolor()[3]]
    assert pytest.approx(filled[1]) == model_charts.cell_colour(33)
    for fill in filled:
        assert not any(_mistakable(fill[:3], c) for c in regimes.values())
    plt.close(figures[0])


def test_equal_values_past_the_axis_of_one_quarter_get_labels_apart():
    """Two regimes open at the same "at least" lag in one quarter (ROCm and Neuron at 613 d on
    the demo): their labels at the axis's edge sit on different lines, not on each other."""
    from tracker.measure.headline.quarters import MedianPoint
    from tracker.present import headline_chart

    periods = ["2024-Q3", "2024-Q4"]

    def point(regime, period, artifacts, median, bound):
        start = date(2024, 7, 1) if period == "2024-Q3" else date(2024, 10, 1)
        return MedianPoint(regime, period, start, artifacts, 0, 0, median, bound)

    series = {
        r: [point(r, "2024-Q3", 5, 50.0, None), point(r, "2024-Q4", 4, None, 613.0)]
        for r in ("rocm", "neuron")
    }
    fig = headline_chart.draw(periods, periods, series, "t", (6, 4), reference="cuda")
    labels = [t for t in fig.axes[0].texts if t.get_text() == "≥613 d ↑"]
    assert len(labels) == 2
    assert labels[0].xyann != labels[1].xyann
    plt.close(fig)
