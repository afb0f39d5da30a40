"""A read-only HOME (cron's service user, HOME=/nonexistent) is normal: the chart processes use
a cache folder tracker owns and reuses (tracker.present.matplotlib_home), so two reports print
nothing of matplotlib and leave no ``matplotlib-*`` folder in the temp folder."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

from tracker.present import matplotlib_home

REPO = Path(__file__).resolve().parents[2]


def _unwritable_home(tmp_path: Path) -> str:
    """A HOME no one can write, root included (a path under a plain file)."""
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    return str(blocker / "home")


def test_two_reports_with_a_read_only_home_print_nothing_and_leave_nothing(sqlite_store, tmp_path):
    temp = tmp_path / "temp"
    temp.mkdir()
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("MPLCONFIGDIR", "XDG_CACHE_HOME")
    }
    env.update(
        HOME=_unwritable_home(tmp_path) if os.getuid() == 0 else "/nonexistent",
        TMPDIR=str(temp),
        TRACKER_SOURCES=str(REPO / "sources.yaml"),
    )
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-m", "tracker", "--db", sqlite_store.url, "report",
             "--out", str(tmp_path / "report"), "--as-of", "2025-12-01"],
            cwd=REPO, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        noise = [line for line in done.stderr.splitlines() if "matplotlib" in line.lower()]
        assert noise == []
    assert sorted(p.name for p in temp.iterdir()) == [f"tracker-{os.getuid()}"]
    own = temp / f"tracker-{os.getuid()}"
    assert stat.S_IMODE(own.stat().st_mode) == 0o700
    assert [p.name for p in (own / "matplotlib").iterdir() if p.name.startswith("fontlist")]


def test_a_temp_folder_someone_else_can_write_is_not_used(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", _unwritable_home(tmp_path))
    monkeypatch.setattr(matplotlib_home.tempfile, "gettempdir", lambda: str(tmp_path))
    shared = tmp_path / f"tracker-{os.getuid()}"
    shared.mkdir()
    shared.chmod(0o777)  # made by someone else's hand: not trusted
    assert matplotlib_home.chosen() is None
    shared.chmod(0o700)
    assert matplotlib_home.chosen() == shared / "matplotlib"


def test_a_writable_cache_home_is_used_first(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert matplotlib_home.chosen() == tmp_path / "cache" / "tracker" / "matplotlib"
