"""A chart that fails, never answers or whose process dies fails `tracker report` at once with
one line naming the chart: no process left behind (alive or unreaped), no staging folder, the
previous report in place."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.errors import TrackerError
from tracker.report import charts, side_by_side
from tracker.report.report_folders import PREVIOUS, published, reports_folder
from tracker.report.side_by_side import ChartDrawers

REPO = Path(__file__).resolve().parents[2]
BOUND = 15.0  # seconds a failing report may take (it takes about one on this machine)

pytestmark = pytest.mark.skipif(not side_by_side.can_fork(), reason="draws in forked processes")


def children() -> set[int]:
    """This process's child processes, alive or ended but not reaped (zombies), from /proc."""
    me, found = os.getpid(), set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:  # ended meanwhile
            continue
        if int(text[text.rindex(")") + 2 :].split()[1]) == me:  # field 4: the parent's pid
            found.add(int(stat.parent.name))
    return found


def raises(*_args):
    raise RuntimeError("chart backend crashed\nsecond line of the message")


def never_answers(*_args):
    time.sleep(120)


def dies(*_args):
    os._exit(3)  # as if killed: no answer, no exception


@pytest.fixture
def drawers_seen(tmp_path, monkeypatch):
    """The pids of the drawing processes started from now on (each notes its pid on starting)."""
    folder = tmp_path / "pids"
    folder.mkdir()
    monkeypatch.setattr(side_by_side, "_warm_up", lambda: (folder / str(os.getpid())).touch())
    return lambda: {int(p.name) for p in folder.iterdir()}


@pytest.mark.parametrize(
    ("chart", "timeout", "error"),
    [
        (raises, 600.0, "the lag chart failed: RuntimeError: chart backend crashed;"),
        (never_answers, 2.0, "the lag chart was not drawn within 2 s;"),
        (dies, 600.0, "the lag chart was not drawn: its process ended (exit code 3);"),
    ],
    ids=["raises", "never-answers", "dies"],
)
def test_a_failing_chart_fails_the_report_at_once_and_leaves_nothing_behind(
    chart, timeout, error, tmp_path, monkeypatch, drawers_seen
):
    db = f"sqlite:///{tmp_path / 'tracker.db'}"
    out = tmp_path / "www"
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", db, "init-db"]).exit_code == 0
    assert runner.invoke(cli, ["--db", db, "report", "--out", str(out)]).exit_code == 0
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert "index.html" in before

    monkeypatch.setattr(charts, "lag_chart", chart)
    monkeypatch.setattr(side_by_side, "TIMEOUT", timeout)
    kids = children()
    started = time.monotonic()
    result = runner.invoke(cli, ["--db", db, "report", "--out", str(out)])
    took = time.monotonic() - started

    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"tracker: error: report: {error} nothing was published, the previous report is in place"
    ]
    assert took < BOUND
    assert side_by_side.multiprocessing.active_children() == []
    assert children() <= kids  # none alive, none a zombie
    seen = drawers_seen()
    assert seen and not [pid for pid in seen if Path(f"/proc/{pid}").exists()]  # nor orphaned
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert out.is_dir() and published(out) is None  # DIR a plain folder (publish.py)
    reports = reports_folder(out)
    kept = {PREVIOUS, os.readlink(reports / PREVIOUS) if (reports / PREVIOUS).is_symlink() else ""}
    assert {p.name for p in reports.iterdir()} <= kept  # the new report's folder is gone


def test_fifty_failing_charts_in_a_row_each_end_in_bounded_time(tmp_path, drawers_seen):
    kids = children()
    slowest = 0.0
    for run in range(50):
        started = time.monotonic()
        with pytest.raises(TrackerError, match="the broken chart failed: RuntimeError"):
            with ChartDrawers() as drawers:
                drawers.draw("fine", __name__, "noted", tmp_path / f"fine-{run}")
                drawers.draw("broken", __name__, "raises")
                drawers.draw("after", __name__, "noted", tmp_path / f"after-{run}")
                drawers.drawn()
        slowest = max(slowest, time.monotonic() - started)
        assert side_by_side.multiprocessing.active_children() == []
        assert children() <= kids
    assert slowest < BOUND
    assert len(drawers_seen()) >= 50  # one at least answered each time
    assert not [pid for pid in drawers_seen() if Path(f"/proc/{pid}").exists()]


def noted(path: Path) -> bool:
    path.write_text("drawn")
    return True
