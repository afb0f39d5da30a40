"""`report --out DIR` publishes whole: a report that fails half-way leaves the previous one as
it was (no new CSVs beside the old index.html), and files it does not write stay when allowed
(--out-carry-foreign). DIR stays a plain folder, exchanged with the report's folder beside it
in one step; where there is no exchange, DIR is a link renamed over (tracker.report.publish)."""

from __future__ import annotations

import errno
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tracker.config import Config, Regime
from tracker.errors import TrackerError
from tracker.events import Event
from tracker.jobs.report import publish_report
from tracker.report import model_charts, publish
from tracker.report.report_folders import PREVIOUS, published, reports_folder

CONFIG = Config(Path("sources.yaml"), (Regime("cuda", reference=True), Regime("rocm")), ())
AS_OF = datetime(2025, 12, 1, tzinfo=UTC)


def _beside(out: Path) -> set[str]:
    """What the reports folder beside DIR holds besides the report shown and the previous one."""
    reports = reports_folder(out)
    shown = published(out)  # the link layout only
    keep = {PREVIOUS, os.readlink(reports / PREVIOUS) if (reports / PREVIOUS).is_symlink() else ""}
    return {p.name for p in reports.iterdir()} - keep - {shown.name if shown else ""}


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_report_that_fails_half_way_leaves_the_old_one_whole(sqlite_store, tmp_path, monkeypatch):
    out = tmp_path / "www"
    out.mkdir()
    (out / "robots.txt").write_text("User-agent: *\n")  # not the report's: must stay
    publish_report(CONFIG, sqlite_store, out, as_of=AS_OF, carry_foreign=True)
    assert out.is_dir() and not out.is_symlink()
    before = _snapshot(out)
    assert {"index.html", "lag.csv", "summary.json", "robots.txt"} <= set(before)

    # new data, then a failure after the CSVs and summary.json are written, before index.html
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(
            conn,
            [
                Event(
                    "pytorch-releases",
                    "pytorch",
                    "release",
                    "release:v2.9.0",
                    datetime(2025, 10, 15, tzinfo=UTC),
                    "PyTorch 2.9.0",
                    version="2.9.0",
                )
            ],
        )

    def broken(*_args, **_kwargs):
        raise RuntimeError("chart backend crashed")

    monkeypatch.setattr(model_charts, "model_matrix_chart", broken)
    with pytest.raises(TrackerError, match="the model chart failed: RuntimeError: chart backend"):
        publish_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    assert _snapshot(out) == before  # byte for byte: no new CSV beside the old index.html
    assert _beside(out) == set()  # the new report's folder is gone

    monkeypatch.undo()
    publish_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    after = _snapshot(out)
    assert (
        after["summary.json"] != before["summary.json"] and b"2025-12-02" in after["summary.json"]
    )
    assert after["robots.txt"] == before["robots.txt"]
    assert _beside(out) == set()


def _files(folder: Path) -> dict[str, tuple[int, bytes]]:
    """name -> (inode, bytes): a file replaced by the same bytes still shows (a new inode)."""
    return {
        p.name: (p.stat().st_ino, p.read_bytes() if p.is_file() else b"folder")
        for p in sorted(folder.iterdir())
    }


def test_a_folder_where_a_file_goes_stops_the_report_before_any_file_is_replaced(
    sqlite_store, tmp_path
):
    out = tmp_path / "www"
    publish_report(CONFIG, sqlite_store, out, as_of=AS_OF)
    (out / "summary.json").unlink()
    (out / "summary.json").mkdir()  # sorted after the CSVs: they used to be replaced first
    (out / "summary.json" / "kept").write_text("someone's")
    before = _files(out)

    with pytest.raises(TrackerError) as failed:  # a folder of the user's: refused, not carried
        publish_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    assert f"{out / 'summary.json'} was not written by tracker's report" in str(failed.value)
    with pytest.raises(TrackerError) as failed:
        publish_report(
            CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC), carry_foreign=True
        )
    assert str(failed.value) == (
        f"report: cannot publish {out / 'summary.json'}: it is a folder, where the report writes "
        "a file; nothing was published, the previous report is in place"
    )
    assert _files(out) == before
    assert (out / "summary.json" / "kept").read_text() == "someone's"
    assert _beside(out) == set()


def test_a_swap_that_fails_leaves_the_previous_report_and_no_new_folder(
    sqlite_store, tmp_path, monkeypatch
):
    out = tmp_path / "www"
    publish_report(CONFIG, sqlite_store, out, as_of=AS_OF)
    before, folder = _files(out), out.stat().st_ino

    def refused(*_args):  # what a busy folder answers
        raise OSError(errno.EBUSY, os.strerror(errno.EBUSY))

    monkeypatch.setattr(publish, "exchange", refused)
    with pytest.raises(TrackerError) as failed:
        publish_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    assert str(failed.value) == (
        f"report: cannot publish {out}: {os.strerror(errno.EBUSY)}; nothing was published, the "
        "previous report is in place"
    )
    assert out.stat().st_ino == folder
    assert _files(out) == before
    assert _beside(out) == set()


@pytest.mark.parametrize("exchange", ["renameat2", "none"])
def test_a_folder_from_an_earlier_version_is_replaced_keeping_its_report_as_previous(
    exchange, sqlite_store, tmp_path, monkeypatch
):
    out = tmp_path / "www"
    (out / "extra").mkdir(parents=True)
    (out / "extra" / "page.html").write_text("someone's page")
    (out / "robots.txt").write_text("User-agent: *\n")
    (out / "about.html").write_text("the old page")
    # an earlier version's killed run, by its name: the content of a name is never dropped
    (out / (publish.STAGE_PREFIX + "abc")).mkdir()
    out.chmod(0o750)  # readable by a web server's group only
    if exchange == "none":  # an old kernel, NFS, another system

        def missing(*_args):
            raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS))

        monkeypatch.setattr(publish, "exchange", missing)
    publish_report(CONFIG, sqlite_store, out, as_of=AS_OF, carry_foreign=True)

    if exchange == "none":  # the link layout
        assert out.is_symlink() and published(out) is not None
    else:
        assert out.is_dir() and not out.is_symlink()
    assert stat.S_IMODE(out.stat().st_mode) == 0o750
    assert (out / "robots.txt").read_text() == "User-agent: *\n"
    assert (out / "extra" / "page.html").read_text() == "someone's page"
    assert b"2025-12-01" in (out / "summary.json").read_bytes()
    assert (out / "about.html").read_text() == "the old page"
    assert (out / (publish.STAGE_PREFIX + "abc")).is_dir()
    previous = reports_folder(out) / PREVIOUS
    assert (previous / "about.html").read_text() == "the old page"
    assert _beside(out) == set()
