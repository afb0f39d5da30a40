"""Charts drawn by forked processes while the report computes: the same files as drawn one
after another here, and a chart's failure is the report's failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracker.collect.runner import run_sources
from tracker.errors import TrackerError
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.report import side_by_side
from tracker.report.side_by_side import ChartDrawers

REPO = Path(__file__).resolve().parents[2]
# real cassettes enough for the lag, headline and model charts; no CI, nothing tagged: the CI
# and friction charts are not drawn (their processes say so)
SOURCES = ["pytorch-releases", "rocm-compat-matrix", "vllm-releases", "vllm-rocm-models"]

pytestmark = pytest.mark.skipif(not side_by_side.can_fork(), reason="draws in forked processes")


def drawn_by(path: Path, drawn: bool = True) -> bool:
    """A stand-in chart: writes the pid of the process that drew it."""
    if drawn:
        path.write_text(str(os.getpid()))
    return drawn


def broken(path: Path) -> bool:
    raise RuntimeError("chart backend crashed")


def test_charts_are_drawn_by_other_processes_and_say_whether_they_drew(tmp_path):
    here = __name__
    with ChartDrawers() as drawers:
        drawers.draw("a", here, "drawn_by", tmp_path / "a")
        drawers.draw("b", here, "drawn_by", tmp_path / "b", False)
        drawers.draw("c", here, "drawn_by", tmp_path / "c")
        assert drawers.drawn() == {"a": True, "b": False, "c": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "c"]
    pids = {(tmp_path / n).read_text() for n in ("a", "c")}
    assert str(os.getpid()) not in pids
    with ChartDrawers(fork=False) as drawers:
        drawers.draw("d", here, "drawn_by", tmp_path / "d")
        assert drawers.drawn() == {"d": True}
    assert (tmp_path / "d").read_text() == str(os.getpid())


@pytest.mark.parametrize("fork", [True, False], ids=["forked", "in-turn"])
def test_a_failing_chart_raises_one_error_naming_it(tmp_path, fork):
    with ChartDrawers(fork=fork) as drawers:
        with pytest.raises(TrackerError, match="the broken chart failed: RuntimeError: chart back"):
            drawers.draw("fine", __name__, "drawn_by", tmp_path / "fine")
            drawers.draw("broken", __name__, "broken", tmp_path / "broken")
            drawers.drawn()


def test_a_report_drawn_side_by_side_is_the_one_drawn_in_turn(sqlite_store, tmp_path, monkeypatch):
    config = load_config(REPO / "sources.yaml")
    assert run_sources(config, sqlite_store, only=SOURCES, replay=REPO / "cassettes").exit_code == 0
    publish_report(config, sqlite_store, tmp_path / "forked")
    monkeypatch.setattr(side_by_side, "can_fork", lambda: False)
    publish_report(config, sqlite_store, tmp_path / "in-turn")
    forked = {p.name: p.read_bytes() for p in (tmp_path / "forked").iterdir()}
    in_turn = {p.name: p.read_bytes() for p in (tmp_path / "in-turn").iterdir()}
    pictures = {"lag.png", "headline_lag.png", "headline_lag_narrow.png", "model_lag_matrix.png"}
    assert {name for name in forked if name.endswith(".png")} == pictures
    assert forked == in_turn


def asleep(path: Path) -> bool:
    import time

    time.sleep(30)  # a chart whose process never answers
    return True


def test_a_chart_that_never_answers_fails_the_report_in_bounded_time(tmp_path, monkeypatch):
    monkeypatch.setattr(side_by_side, "TIMEOUT", 0.5)
    with ChartDrawers() as drawers:
        drawers.draw("stuck", __name__, "asleep", tmp_path / "stuck")
        with pytest.raises(TrackerError, match="the stuck chart was not drawn within 0.5 s;"):
            drawers.drawn()
