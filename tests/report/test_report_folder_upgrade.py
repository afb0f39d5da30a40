"""Upgrading a report folder written before the manifest recorded each file's content: the
files its manifest lists cannot be proven the tracker's, so they are kept whole in a dated
folder beside the report versions, said in one warning line naming it, and the report is
published as usual; what it does not list is refused as before (folder_owner.set_aside).
Publishing is what is tested: the "reports" are a few small files (tracker.report.publish)."""

from __future__ import annotations

import errno
import json
import logging
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.errors import TrackerError
from tracker.report import publish as publish_module
from tracker.report.folder_owner import MANIFEST, manifest
from tracker.report.publish import refuse_strangers, staged
from tracker.report.report_folders import PREVIOUS, new_name, reports_folder

NAMES = ("index.html", "lag.csv", "summary.json")
REPO = Path(__file__).resolve().parents[2]


def publish(out: Path, generation: int, **options) -> None:
    with staged(out, **options) as stage:
        for name in NAMES:
            (stage / name).write_text(f"{generation}\n")


def earlier_report(folder: Path, written=NAMES, carried=(), extra=()) -> dict[str, bytes]:
    """A report folder as the version before the hashes wrote it (main at bdb722a:
    folder_owner.write_manifest), with its files' bytes."""
    folder.mkdir(parents=True)
    for name in [*written, *carried, *extra]:
        (folder / name).write_bytes(f"old {name}\n\x00\xff".encode())
    document = {
        "about": "files tracker's report wrote here, and files it carries from report to report",
        "written": sorted(written),
        "carried": sorted(carried),
    }
    (folder / MANIFEST).write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return {p.name: p.read_bytes() for p in folder.iterdir()}


def kept_folders(out: Path) -> list[Path]:
    return sorted(p for p in reports_folder(out).iterdir() if p.name.startswith("kept-"))


def warnings(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]


def test_a_folder_of_the_version_before_the_hashes_is_published_and_its_files_kept(
    tmp_path, caplog
):
    out = tmp_path / "www"
    before = earlier_report(out)
    assert refuse_strangers(out) == out  # what the report job asks before computing
    with caplog.at_level(logging.WARNING, logger="tracker.report"):
        publish(out, 1)
    assert {(out / name).read_text() for name in NAMES} == {"1\n"}
    assert manifest(out)["files"].keys() == set(NAMES)  # the new format from now on
    (kept,) = kept_folders(out)
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before  # byte for byte
    said = warnings(caplog)
    assert len(said) == 1 and "\n" not in said[0]
    assert str(kept) in said[0] and str(out) in said[0] and "3 files" in said[0]

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="tracker.report"):
        publish(out, 2)  # nothing more is needed, nothing more is said
        publish(out, 3)
    assert warnings(caplog) == []
    assert {(out / name).read_text() for name in NAMES} == {"3\n"}
    assert kept_folders(out) == [kept]  # never tidied away
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before
    reports = reports_folder(out)
    assert sorted(p.name for p in reports.iterdir()) == sorted(
        [PREVIOUS, os.readlink(reports / PREVIOUS), kept.name]
    )


def test_the_report_command_upgrades_an_earlier_folder_and_exits_0(
    sqlite_store, tmp_path, monkeypatch, caplog
):
    out = tmp_path / "www"
    before = earlier_report(out)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    with caplog.at_level(logging.WARNING, logger="tracker.report"):
        result = CliRunner().invoke(
            cli, ["--db", sqlite_store.url, "report", "--out", str(out), "--as-of", "2025-12-01"]
        )
    assert result.exit_code == 0, result.output
    assert (out / "index.html").read_bytes() != before["index.html"]
    (kept,) = kept_folders(out)
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before
    assert len([m for m in warnings(caplog) if str(kept) in m]) == 1


def test_a_users_file_an_earlier_manifest_lists_is_kept_never_deleted(tmp_path):
    out = tmp_path / "www"
    before = earlier_report(out, written=(*NAMES, "notes.txt"))  # listed by hand, say
    publish(out, 1)
    (kept,) = kept_folders(out)
    assert not (out / "notes.txt").exists()
    for generation in (2, 3, 4):  # the old folder is tidied away: the kept one stays
        publish(out, generation)
    assert (kept / "notes.txt").read_bytes() == before["notes.txt"]


def test_an_earlier_manifest_still_refuses_what_it_does_not_list_and_carries_its_carried(
    tmp_path,
):
    out = tmp_path / "www"
    before = earlier_report(out, carried=("robots.txt",), extra=("draft.md",))
    with pytest.raises(TrackerError, match=f"{out / 'draft.md'} was not written"):
        publish(out, 1)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert not reports_folder(out).exists() or kept_folders(out) == []

    publish(out, 1, carry_foreign=True)
    assert (out / "draft.md").read_bytes() == before["draft.md"]
    assert (out / "robots.txt").read_bytes() == before["robots.txt"]
    (kept,) = kept_folders(out)
    assert sorted(p.name for p in kept.iterdir()) == sorted([*NAMES, MANIFEST])
    publish(out, 2)  # carried from now on, without the option
    assert (out / "draft.md").read_bytes() == before["draft.md"]


@pytest.mark.parametrize("files", ["kept", {}, None], ids=["hashes", "emptied", "null"])
def test_a_name_added_by_hand_to_a_manifest_of_today_is_still_refused(tmp_path, files):
    """A guard, passing before the upgrade path too: only a manifest without "files" at all
    is of the earlier format; one of today's, edited, proves nothing and moves nothing."""
    out = tmp_path / "www"
    publish(out, 1)
    (out / "notes.txt").write_text("my notes")
    document = json.loads((out / MANIFEST).read_text())
    document["written"].append("notes.txt")
    if files != "kept":
        document["files"] = files
    (out / MANIFEST).write_text(json.dumps(document))
    with pytest.raises(TrackerError, match="was not written by tracker's report"):
        publish(out, 2)
    assert (out / "notes.txt").read_text() == "my notes" and kept_folders(out) == []


def test_the_link_layout_with_an_earlier_manifest_is_upgraded(tmp_path, caplog):
    out = tmp_path / "www"
    reports = reports_folder(out)
    old = reports / new_name(pid=0)
    before = earlier_report(old, carried=("robots.txt",))
    out.symlink_to(f"{reports.name}/{old.name}")
    with caplog.at_level(logging.WARNING, logger="tracker.report"):
        publish(out, 1)
    assert out.is_dir() and not out.is_symlink()
    assert {(out / name).read_text() for name in NAMES} == {"1\n"}
    assert (out / "robots.txt").read_bytes() == before["robots.txt"]
    (kept,) = kept_folders(out)
    assert len(warnings(caplog)) == 1 and str(kept) in warnings(caplog)[0]
    publish(out, 2)
    assert not old.exists()
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == {
        name: content for name, content in before.items() if name != "robots.txt"
    }


def test_an_earlier_folder_where_there_is_no_exchange_is_upgraded_as_a_link(tmp_path, monkeypatch):
    out = tmp_path / "www"
    before = earlier_report(out)

    def cross_device(_a, b):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(b))

    monkeypatch.setattr(publish_module, "exchange", cross_device)
    publish(out, 1)
    assert out.is_symlink() and {(out / name).read_text() for name in NAMES} == {"1\n"}
    (kept,) = kept_folders(out)
    publish(out, 2)
    publish(out, 3)
    assert {p.name: p.read_bytes() for p in kept.iterdir()} == before
