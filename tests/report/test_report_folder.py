"""`--out DIR` is the user's plain folder (issue 49): a copy made with `cp -r` keeps working, a
folder holding files the tracker did not write is never moved (the report refuses, naming one),
the link layout of earlier versions is converted, and `--out` inside a report is never nested.
Publishing is what is tested: the "reports" are a few small files (tracker.report.publish)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.errors import TrackerError
from tracker.measure import figures
from tracker.report.folder_owner import MANIFEST, manifest
from tracker.report.publish import staged
from tracker.report.report_folders import PREVIOUS, new_name, reports_folder

NAMES = ("index.html", "lag.csv", "summary.json")
REPO = Path(__file__).resolve().parents[2]


def publish(out: Path, generation: int, **options) -> None:
    with staged(out, **options) as stage:
        for name in NAMES:
            (stage / name).write_text(f"{generation}\n")


def generations(folder: Path) -> set[str]:
    return {(folder / name).read_text() for name in NAMES}


def lists(found: dict | None) -> dict | None:
    """A manifest's lists of names (its "files" holds each written file's size and hash)."""
    return None if found is None else {key: found[key] for key in ("written", "carried")}


def state(folder: Path) -> dict[str, tuple[int, bytes]]:
    return {p.name: (p.stat().st_ino, p.read_bytes()) for p in sorted(folder.iterdir())}


def test_a_folder_the_user_made_is_refused_naming_one_file_and_left_as_it_was(tmp_path):
    out = tmp_path / "www"
    out.mkdir()
    (out / "index.html").write_text("my own page")
    (out / "notes.txt").write_text("my notes")
    folder, before = out.stat().st_ino, state(out)
    with pytest.raises(TrackerError) as refused:
        publish(out, 1)
    message = str(refused.value)
    assert message == (
        f"report: will not publish into {out}: {out / 'index.html'} (and 1 more) was not "
        "written by tracker's report, and publishing replaces the folder; give --out a new or "
        "empty folder, or pass --out-carry-foreign to carry such files into each new report"
    )
    assert out.stat().st_ino == folder and state(out) == before
    assert not reports_folder(out).exists()


def test_the_report_command_refuses_in_one_line(sqlite_store, tmp_path, monkeypatch):
    out = tmp_path / "www"
    out.mkdir()
    (out / "notes.txt").write_text("my notes")
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))

    def computed(*args, **kwargs):  # the refusal comes first: nothing computed, nothing saved
        raise AssertionError("figures computed for a report that is refused")

    real = figures.compute_figures
    monkeypatch.setattr(figures, "compute_figures", computed)
    result = CliRunner().invoke(
        cli, ["--db", sqlite_store.url, "report", "--out", str(out), "--as-of", "2025-12-01"]
    )
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"tracker: error: report: will not publish into {out}: {out / 'notes.txt'} was not "
        "written by tracker's report, and publishing replaces the folder; give --out a new or "
        "empty folder, or pass --out-carry-foreign to carry such files into each new report"
    ]
    assert (out / "notes.txt").read_text() == "my notes" and len(list(out.iterdir())) == 1
    monkeypatch.setattr(figures, "compute_figures", real)
    allowed = CliRunner().invoke(
        cli,
        ["--db", sqlite_store.url, "report", "--out", str(out), "--as-of", "2025-12-01",
         "--out-carry-foreign"],
    )  # fmt: skip
    assert allowed.exit_code == 0, allowed.output
    assert (out / "notes.txt").read_text() == "my notes" and (out / "index.html").is_file()


def test_a_file_the_user_adds_later_is_refused_and_carried_files_stay_allowed(tmp_path):
    out = tmp_path / "www"
    out.mkdir()
    (out / "robots.txt").write_text("User-agent: *\n")
    publish(out, 1, carry_foreign=True)
    assert lists(manifest(out)) == {"written": list(NAMES), "carried": ["robots.txt"]}
    publish(out, 2)  # allowed once: carried from then on
    assert generations(out) == {"2\n"} and (out / "robots.txt").read_text() == "User-agent: *\n"
    (out / "draft.md").write_text("mine")
    with pytest.raises(TrackerError, match=f"{out / 'draft.md'} was not written"):
        publish(out, 3)
    assert generations(out) == {"2\n"} and (out / "draft.md").read_text() == "mine"


def test_a_copy_made_with_cp_r_still_works_after_later_reports(tmp_path):
    out, copy = tmp_path / "www", tmp_path / "copy"
    publish(out, 1)
    publish(out, 2)
    assert out.is_dir() and not out.is_symlink()
    subprocess.run(["cp", "-r", str(out), str(copy)], check=True)
    for generation in (3, 4, 5):
        publish(out, generation)
    assert generations(copy) == {"2\n"}
    assert generations(out) == {"5\n"}
    # only the previous report is kept beside DIR
    reports = reports_folder(out)
    assert sorted(p.name for p in reports.iterdir()) == sorted(
        [PREVIOUS, os.readlink(reports / PREVIOUS)]
    )


def test_the_link_layout_of_earlier_versions_becomes_a_plain_folder(tmp_path):
    out = tmp_path / "www"
    reports = reports_folder(out)
    old = reports / new_name(pid=0)  # written by a run of this host that has ended
    old.mkdir(parents=True)
    for name in NAMES:
        (old / name).write_text("0\n")
    (old / "robots.txt").write_text("User-agent: *\n")  # carried by the earlier version
    out.symlink_to(f"{reports.name}/{old.name}")

    publish(out, 1)  # no option needed: that folder was the tracker's
    assert out.is_dir() and not out.is_symlink()
    assert generations(out) == {"1\n"}
    assert (out / "robots.txt").read_text() == "User-agent: *\n"
    assert lists(manifest(out)) == {"written": list(NAMES), "carried": ["robots.txt"]}
    publish(out, 2)
    assert sorted(p.name for p in reports.iterdir()) == sorted(
        [PREVIOUS, os.readlink(reports / PREVIOUS)]
    )
    assert not old.exists()


def test_out_inside_a_report_version_is_the_report_folder(tmp_path, monkeypatch):
    out = tmp_path / "www"
    publish(out, 1)
    publish(out, 2)
    replaced = Path(os.path.realpath(reports_folder(out) / PREVIOUS))  # generation 1's folder
    assert generations(replaced) == {"1\n"}
    publish(replaced, 3)  # `--out "$(readlink -f ...)"` of a version
    assert generations(out) == {"3\n"}
    monkeypatch.chdir(Path(os.path.realpath(reports_folder(out) / PREVIOUS)))
    publish(Path("."), 4)  # `--out .` in a shell still inside the replaced folder
    assert generations(out) == {"4\n"}
    nested = [p for p in tmp_path.rglob("*.reports") if p != reports_folder(out)]
    assert nested == []


def test_out_below_a_report_folder_is_refused(tmp_path):
    out = tmp_path / "www"
    publish(out, 1)
    for inside in (out / "sub", reports_folder(out), reports_folder(out) / "x" / "y"):
        with pytest.raises(TrackerError, match="inside the report folder"):
            publish(inside, 2)
    assert generations(out) == {"1\n"} and sorted(p.name for p in out.iterdir()) == sorted(
        [*NAMES, MANIFEST]
    )
