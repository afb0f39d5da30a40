"""`report --out DIR` publishes whole: a report that fails half-way leaves the previous one as
it was (no new CSVs beside the old index.html), and files it does not write stay."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tracker.config import Config, Regime
from tracker.errors import TrackerError
from tracker.records import Event
from tracker.report import model_charts
from tracker.report.publish import STAGE_PREFIX
from tracker.report.writer import write_report

CONFIG = Config(Path("sources.yaml"), (Regime("cuda", reference=True), Regime("rocm")), ())
AS_OF = datetime(2025, 12, 1, tzinfo=UTC)


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def test_a_report_that_fails_half_way_leaves_the_old_one_whole(sqlite_store, tmp_path, monkeypatch):
    out = tmp_path / "www"
    out.mkdir()
    (out / "robots.txt").write_text("User-agent: *\n")  # not the report's: must stay
    write_report(CONFIG, sqlite_store, out, as_of=AS_OF)
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
        write_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    assert _snapshot(out) == before  # byte for byte: no new CSV beside the old index.html
    assert not list(out.glob(STAGE_PREFIX + "*"))  # the staging folder is gone

    monkeypatch.undo()
    write_report(CONFIG, sqlite_store, out, as_of=datetime(2025, 12, 2, tzinfo=UTC))
    after = _snapshot(out)
    assert (
        after["summary.json"] != before["summary.json"] and b"2025-12-02" in after["summary.json"]
    )
    assert after["robots.txt"] == before["robots.txt"]
    assert not list(out.glob(STAGE_PREFIX + "*"))
