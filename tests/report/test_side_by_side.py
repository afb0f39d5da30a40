"""Charts drawn side by side in forked children: the same files and answers as drawn one after
another, and a child's failure is the report's failure (after every child has ended)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tracker.collect.runner import run_sources
from tracker.errors import TrackerError
from tracker.jobs.config import load_config
from tracker.report import side_by_side
from tracker.report.side_by_side import draw_side_by_side
from tracker.report.writer import write_report

REPO = Path(__file__).resolve().parents[2]
# real cassettes enough for the lag, headline and model charts; no CI, nothing tagged: the CI
# and friction charts are not drawn (their children say so)
SOURCES = ["pytorch-releases", "rocm-compat-matrix", "vllm-releases", "vllm-rocm-models"]

pytestmark = pytest.mark.skipif(not side_by_side.can_fork(), reason="draws in forked processes")


def _jobs(folder: Path) -> dict:
    def write(name: str, drawn: bool):
        def job() -> bool:
            if drawn:  # the writer's pid: which process drew it
                (folder / name).write_text(str(os.getpid()))
            return drawn

        return job

    return {"a": write("a", True), "b": write("b", False), "c": write("c", True)}


def test_children_draw_all_but_the_first_and_say_whether_they_drew(tmp_path):
    assert draw_side_by_side(_jobs(tmp_path)) == {"a": True, "b": False, "c": True}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a", "c"]
    assert (tmp_path / "a").read_text() == str(os.getpid())  # the first: drawn here
    assert (tmp_path / "c").read_text() != str(os.getpid())  # the others: in a child
    here = tmp_path / "here"
    here.mkdir()
    assert draw_side_by_side(_jobs(here), fork=False) == {"a": True, "b": False, "c": True}
    assert {(here / n).read_text() for n in ("a", "c")} == {str(os.getpid())}


def test_a_failing_child_fails_the_call_after_the_others_end(tmp_path, capfd):
    def broken() -> bool:
        raise RuntimeError("chart backend crashed")

    jobs = {"first": lambda: True, "broken": broken, "last": _jobs(tmp_path)["c"]}
    with pytest.raises(TrackerError, match="drawing the broken chart"):
        draw_side_by_side(jobs)
    assert (tmp_path / "c").exists()  # the other child finished its chart
    assert "RuntimeError: chart backend crashed" in capfd.readouterr().err


def test_a_report_drawn_side_by_side_is_the_one_drawn_in_turn(sqlite_store, tmp_path, monkeypatch):
    config = load_config(REPO / "sources.yaml")
    assert run_sources(config, sqlite_store, only=SOURCES, replay=REPO / "cassettes").exit_code == 0
    write_report(config, sqlite_store, tmp_path / "forked")
    monkeypatch.setattr(side_by_side, "can_fork", lambda: False)
    write_report(config, sqlite_store, tmp_path / "in-turn")
    forked = {p.name: p.read_bytes() for p in (tmp_path / "forked").iterdir()}
    in_turn = {p.name: p.read_bytes() for p in (tmp_path / "in-turn").iterdir()}
    pictures = {"lag.png", "headline_lag.png", "model_lag_matrix.png"}
    assert {name for name in forked if name.endswith(".png")} == pictures
    assert forked == in_turn
