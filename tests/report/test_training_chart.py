"""The training chart's point labels: laid out so that none covers another or its own line.

Real figures: the demo's llama2_70b_lora rows at 8 accelerators (MLPerf Training v5.0, v5.1,
v6.0; ratios 1.962, 1.706, 1.430 as the summarizer scores the cassettes' result sets) and
TPU's gpt3 rows at 512 (v4.0 2.263, v4.1 2.050). The figure is drawn by the real chart code;
only its saving is intercepted so that the laid-out artists can be measured.
"""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import combinations

import pytest
from matplotlib.path import Path as MplPath
from matplotlib.text import Annotation

from tracker.measure.perf.training import Entry, TrainingRow
from tracker.report import training_chart as chart_module

ROUNDS = ["v4.0", "v4.1", "v5.0", "v5.1", "v6.0"]
DATES = ["2024-06-12", "2024-11-13", "2025-06-04", "2025-11-12", "2026-06-16"]


def entry(minutes: float, accelerator: str) -> Entry:
    return Entry(minutes, accelerator, "s", "system", "available", "sw", "", "https://e/x")


def row(round_: str, benchmark: str, count: int, regime: str, mine: Entry, nvidia: Entry):
    day = datetime.fromisoformat(DATES[ROUNDS.index(round_)]).replace(tzinfo=UTC)
    return TrainingRow(round_, day, benchmark, count, regime, "compared", mine, nvidia)


ROWS = [
    row("v5.0", "llama2_70b_lora", 8, "rocm", entry(21.58, "MI325X"), entry(11.0, "GB200")),
    row("v5.1", "llama2_70b_lora", 8, "rocm", entry(10.18, "MI355X"), entry(5.967, "GB300")),
    row("v6.0", "llama2_70b_lora", 8, "rocm", entry(8.271, "MI355X"), entry(5.783, "GB300")),
    row("v4.0", "gpt3", 512, "xla", entry(113.1, "TPU-v5p"), entry(49.98, "H100")),
    row("v4.1", "gpt3", 512, "xla", entry(102.5, "TPU-trillium"), entry(50.0, "H100")),
]


@pytest.fixture
def drawn(monkeypatch, tmp_path):
    """The figure training_chart lays out, drawn, with its renderer."""
    kept = {}

    def keep(fig, path):
        kept["fig"] = fig

    monkeypatch.setattr(chart_module, "save_png", keep)
    assert chart_module.training_chart(
        tmp_path / "t.png", ROWS, ["llama2_70b_lora", "gpt3"], ROUNDS, DATES
    )
    fig = kept["fig"]
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def test_no_point_label_covers_another(drawn):
    fig, renderer = drawn
    for ax in fig.axes:
        boxes = [a.get_window_extent(renderer) for a in ax.texts if isinstance(a, Annotation)]
        assert boxes, ax.get_title()
        for one, other in combinations(boxes, 2):
            assert not one.overlaps(other), (ax.get_title(), one, other)


def test_no_point_label_lies_on_its_own_line(drawn):
    fig, renderer = drawn
    for ax in fig.axes:
        labels = [a for a in ax.texts if isinstance(a, Annotation)]
        for line in ax.get_lines():
            xy = line.get_xydata()
            if line.get_marker() in (None, "None", "") or len(xy) < 2:
                continue  # the NVIDIA = 1 rule is a line too, without markers; labels may cover it
            path = MplPath(ax.transData.transform(xy))
            for label in labels:
                box = label.get_window_extent(renderer)
                assert not path.intersects_bbox(box, filled=False), (ax.get_title(), label)


def test_every_point_label_lies_inside_its_panel(drawn):
    # TPU-trillium's label at v4.1 goes left of its point, towards the y axis: laid out
    # beside the point, "2.05x / TPU-trillium vs H100" ran through the axis into the tick labels
    fig, renderer = drawn
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        panel = ax.get_window_extent(renderer)
        for label in ax.texts:
            box = label.get_window_extent(renderer)
            assert panel.x0 <= box.x0 and box.x1 <= panel.x1, (ax.get_title(), label, box, panel)
            assert panel.y0 <= box.y0 and box.y1 <= panel.y1, (ax.get_title(), label, box, panel)
