"""Every chart of the demo's report and digest keeps its labels and bars inside its panels:
each text drawn in a panel (point labels, "no comparison", the NVIDIA rule's name) lies within
the panel's box, and no bar reaches the top of its panel (a bar cut by the frame reads as
"more than shown").

The figures are the real ones: the demo's store, its report and digest written again with
matplotlib's savefig wrapped (the charts drawn in this process, not the report's drawing
processes), so that each figure is measured, laid out as saved, before it is written.
"""

from __future__ import annotations

from os import PathLike
from pathlib import Path

import pytest
from matplotlib.container import BarContainer
from matplotlib.figure import Figure

from tests.conftest import DEMO_WEEK
from tracker.report import side_by_side

SLACK_PX = 1.0  # rounding of text extents
HEADROOM = 0.04  # of the panel's height, kept free above the tallest bar


def _problems(fig: Figure, name: str) -> list[str]:
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    found = []
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        panel = ax.get_window_extent(renderer)
        for text in ax.texts:
            if not text.get_visible() or not text.get_text().strip():
                continue
            box = text.get_window_extent(renderer)
            if (
                box.x0 < panel.x0 - SLACK_PX
                or box.x1 > panel.x1 + SLACK_PX
                or box.y0 < panel.y0 - SLACK_PX
                or box.y1 > panel.y1 + SLACK_PX
            ):
                found.append(
                    f"{name} [{ax.get_title()}]: label {text.get_text()!r} crosses its panel"
                )
        low, high = ax.get_ylim()
        for bars in ax.containers:
            if not isinstance(bars, BarContainer):
                continue
            for bar in bars:
                top = bar.get_y() + bar.get_height()
                if bar.get_height() > 0 and top > high - HEADROOM * (high - low):
                    found.append(f"{name} [{ax.get_title()}]: a bar reaches {top:g} of {high:g}")
    return found


@pytest.fixture(scope="module")
def measured(demo, tmp_path_factory):
    """(chart file name, problems) for every figure the report and the digest save."""
    seen: list[tuple[str, list[str]]] = []
    original = Figure.savefig

    def measuring(self, fname, *args, **kwargs):
        name = Path(fname).name if isinstance(fname, str | PathLike) else "a digest chart"
        seen.append((name, _problems(self, name)))
        return original(self, fname, *args, **kwargs)

    out = tmp_path_factory.mktemp("labels")
    mp = pytest.MonkeyPatch()
    mp.setattr(Figure, "savefig", measuring)
    mp.setattr(side_by_side, "can_fork", lambda: False)  # drawn here, where they are measured
    try:
        demo["run"]("report", "--out", str(out / "report"))
        demo["run"]("digest", "--week", DEMO_WEEK, "--dry-run", str(out / "digest.eml"))
    finally:
        mp.undo()
    return seen


def test_every_chart_was_measured(measured):
    names = {name for name, _ in measured}
    # the charts with point labels or bars, wide and narrow
    for chart in (
        "headline_lag.png",
        "headline_lag_narrow.png",
        "delivered_performance.png",
        "delivered_training_performance.png",
        "delivered_training_performance_narrow.png",
        "first_response.png",
    ):
        assert chart in names, sorted(names)
    assert len(measured) >= 10, sorted(names)


def test_no_label_or_bar_crosses_its_panel(measured):
    problems = [p for _, found in measured for p in found]
    assert problems == []
