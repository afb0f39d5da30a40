"""`--out DIR` against a careless neighbour (issue 60): a file is removed only when its content
is the tracker's, a reports folder beside DIR that the tracker did not make is refused and never
followed, the manifest is read only as a bounded regular file, names in messages are shown with
their controls written out, and a folder that cannot be exchanged is published as a link.
Publishing is what is tested: the "reports" are a few small files (tracker.report.publish)."""

from __future__ import annotations

import errno
import json
import logging
import os
import signal
import stat
import time
import tracemalloc
from pathlib import Path

import pytest

from tracker.errors import TrackerError
from tracker.report import publish as publish_module
from tracker.report.folder_owner import MANIFEST
from tracker.report.publish import staged
from tracker.report.report_folders import PREVIOUS, published, reports_folder

NAMES = ("index.html", "lag.csv", "summary.json")
VERSION = "20250101T000000.4242.0badc0de.{host}"  # named as the tracker names a report version


def publish(out: Path, generation: int, **options) -> None:
    with staged(out, **options) as stage:
        for name in NAMES:
            (stage / name).write_text(f"{generation}\n")


def refusal(out: Path, generation: int = 9, **options) -> str:
    with pytest.raises(TrackerError) as refused:
        publish(out, generation, **options)
    message = str(refused.value)
    assert "\n" not in message and "\x1b" not in message and "\u202e" not in message
    return message


@pytest.fixture
def no_hang():
    """A read that would block (a FIFO) fails the test instead of hanging it."""

    def hung(*_args):
        raise AssertionError("publishing blocked on a read")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def test_a_name_added_to_the_manifest_by_hand_does_not_make_the_file_the_trackers(tmp_path):
    out = tmp_path / "www"
    publish(out, 1)
    (out / "notes.txt").write_text("my notes")
    document = json.loads((out / MANIFEST).read_text())
    document["written"].append("notes.txt")
    (out / MANIFEST).write_text(json.dumps(document))
    message = refusal(out)
    assert f"{out / 'notes.txt'} was not written by tracker's report" in message
    assert (out / "notes.txt").read_text() == "my notes"
    # a second attempt, and one allowed to carry: the notes are never lost
    refusal(out)
    publish(out, 2, carry_foreign=True)
    publish(out, 3)
    assert (out / "notes.txt").read_text() == "my notes"
    assert (out / "index.html").read_text() == "3\n"


def test_a_report_file_edited_since_is_the_users_and_never_replaced(tmp_path):
    out = tmp_path / "www"
    publish(out, 1)
    (out / "index.html").write_text("my edited page")
    message = refusal(out)
    assert f"{out / 'index.html'} was not written by tracker's report" in message
    message = refusal(out, carry_foreign=True)
    assert f"{out / 'index.html'} was not written by tracker's report (or was changed" in message
    assert "writes a file of that name" in message
    assert (out / "index.html").read_text() == "my edited page"
    assert (out / "lag.csv").read_text() == "1\n"


def test_a_reports_folder_made_beforehand_as_a_link_is_refused_and_not_followed(tmp_path):
    out = tmp_path / "www"
    publish(out, 1)
    (out / "index.html").read_text()
    others = tmp_path / "someone"
    others.mkdir(mode=0o700)
    others.chmod(0o700)
    host = os.uname().nodename.replace(os.sep, "_") or "localhost"
    for entry in (VERSION.format(host=host), VERSION.format(host=host).replace("4242", "4243")):
        (others / entry).mkdir()
        (others / entry / "theirs.txt").write_text("theirs")
        os.utime(others / entry, (time.time() - 3 * 86400,) * 2)  # old enough to be "leftover"
    before = sorted(p.name for p in others.iterdir())
    reports = reports_folder(out)
    for entry in list(reports.iterdir()):
        if entry.is_dir() and not entry.is_symlink():
            os.rename(entry, tmp_path / entry.name)
        else:
            entry.unlink()
    reports.rmdir()
    reports.symlink_to(others)
    message = refusal(out)
    assert message == (
        f"report: cannot publish {out}: {reports}: it is a link, and the report never follows "
        "one there; nothing was published, the previous report is in place"
    )
    assert stat.S_IMODE(others.stat().st_mode) == 0o700
    assert sorted(p.name for p in others.iterdir()) == before
    assert all((others / name / "theirs.txt").read_text() == "theirs" for name in before)


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's folder needs root")
def test_a_reports_folder_of_another_user_is_refused(tmp_path):
    out = tmp_path / "www"
    reports = reports_folder(out)
    reports.mkdir()
    host = os.uname().nodename.replace(os.sep, "_") or "localhost"
    theirs = reports / VERSION.format(host=host)
    theirs.mkdir()
    os.utime(theirs, (time.time() - 3 * 86400,) * 2)
    os.chown(reports, 54321, 54321)
    message = refusal(out)
    assert message.endswith(
        f"{reports}: it is a folder of another user (uid 54321); nothing was published, the "
        "previous report is in place"
    )
    assert theirs.is_dir() and not out.exists()


def test_a_fifo_manifest_is_no_manifest_and_never_read(tmp_path, no_hang):
    out = tmp_path / "www"
    publish(out, 1)
    (out / MANIFEST).unlink()
    os.mkfifo(out / MANIFEST)
    message = refusal(out)
    assert f"{out / MANIFEST}" in message and "was not written by tracker's report" in message
    assert stat.S_ISFIFO(os.lstat(out / MANIFEST).st_mode)


def test_a_manifest_linked_to_dev_zero_is_no_manifest(tmp_path, no_hang):
    out = tmp_path / "www"
    publish(out, 1)
    (out / MANIFEST).unlink()
    (out / MANIFEST).symlink_to("/dev/zero")
    tracemalloc.start()
    try:
        message = refusal(out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert f"{out / MANIFEST}" in message
    assert peak < 16 * 1024 * 1024


def test_a_huge_manifest_is_not_read(tmp_path, no_hang):
    out = tmp_path / "www"
    publish(out, 1)
    with open(out / MANIFEST, "r+b") as handle:  # a 310 MB manifest, sparse on disk
        handle.truncate(310 * 1024 * 1024)
    tracemalloc.start()
    try:
        message = refusal(out)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "was not written by tracker's report" in message
    assert peak < 16 * 1024 * 1024


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        ("a\nreport: error: forged", "a<U+000A>report: error: forged"),
        ("txt.\u202eexe", "txt.<U+202E>exe"),
        ("x\x1b[2Jy", "x<U+001B>[2Jy"),
        ("zero\u200bwidth", "zero<U+200B>width"),
    ],
)
def test_a_foreign_name_is_shown_with_its_controls_written_out(tmp_path, name, shown):
    out = tmp_path / "www"
    out.mkdir()
    (out / name).write_text("mine")
    message = refusal(out)
    assert f"{out}/{shown} was not written by tracker's report" in message
    assert (out / name).read_text() == "mine"


def test_no_exchange_for_these_two_names_publishes_as_a_link_saying_so_once(
    tmp_path, monkeypatch, caplog
):
    out = tmp_path / "www"
    publish(out, 1)

    def cross_device(_a, b):  # a folder of an overlay's lower layer answers this
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(b))

    monkeypatch.setattr(publish_module, "exchange", cross_device)
    with caplog.at_level(logging.WARNING, logger="tracker.report"):
        publish(out, 2)
    assert out.is_symlink() and published(out) is not None
    assert {(out / name).read_text() for name in NAMES} == {"2\n"}
    said = [r.getMessage() for r in caplog.records if "no atomic exchange" in r.getMessage()]
    assert len(said) == 1 and os.strerror(errno.EXDEV) in said[0]
    assert {(reports_folder(out) / PREVIOUS / name).read_text() for name in NAMES} == {"1\n"}
    monkeypatch.undo()
    publish(out, 3)  # where the exchange works again, DIR is a plain folder again
    assert out.is_dir() and not out.is_symlink()
    assert {(out / name).read_text() for name in NAMES} == {"3\n"}


def test_a_folder_that_cannot_be_renamed_at_all_says_why_in_one_line(tmp_path, monkeypatch):
    out = tmp_path / "www"
    publish(out, 1)

    def cross_device(*args):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(args[-1]))

    monkeypatch.setattr(publish_module, "exchange", cross_device)
    real_rename = os.rename

    def rename(source, target, *args, **kwargs):
        if Path(source) == out:
            cross_device(source, target)
        return real_rename(source, target, *args, **kwargs)

    monkeypatch.setattr(publish_module.os, "rename", rename)
    message = refusal(out)
    assert "overlay's lower layer" in message and "give --out a folder made at run time" in message
    monkeypatch.undo()
    assert out.is_dir() and {(out / name).read_text() for name in NAMES} == {"1\n"}
