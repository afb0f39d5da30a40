"""The demo's "How long do users wait?": the section and its chart are on the page, every
issue is a real public thread (its URL), each regime has the issues its cassettes hold, and the
stored first response of each is, read back from the stored comments here (not through
tracker.measure), the earliest comment by neither the author nor a bot."""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime

from sqlalchemy import select

from tracker.store import Store
from tracker.store.tables import events


def _utc(value) -> datetime | None:
    if value is None:
        return None
    when = value if isinstance(value, datetime) else datetime.fromisoformat(str(value))
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def test_the_demo_shows_real_waits_and_no_bot_or_author_answers(demo):
    page = (demo["report"] / "index.html").read_text()
    assert "How long do users wait?" in page and 'src="first_response.png"' in page
    assert "to the day only" in page  # the time precision is said
    store = Store(f"sqlite:///{demo['folder'] / 'tracker.db'}")
    rows = store.view_rows("v_issue_response")
    per_regime = Counter(r["regime"] for r in rows)
    # the issues whose first response the public records establish (cassette headers)
    assert per_regime["rocm"] >= 20 and per_regime["xla"] >= 15 and per_regime["neuron"] >= 15
    assert per_regime["cuda"] >= 25
    assert all(r["url"].startswith("https://github.com/") and "/issues/" in r["url"] for r in rows)

    with store.engine.connect() as conn:
        stored = conn.execute(
            select(events.c.source_id, events.c.kind, events.c.occurred_at, events.c.attrs)
        ).all()
    authors = {
        (e.source_id, e.attrs["number"]): e.attrs["author"] for e in stored if e.kind == "issue"
    }
    comments = [e for e in stored if e.kind == "comment"]
    assert comments
    as_of = _utc(rows[0]["as_of"])
    for row in rows:
        key = (row["source_id"], row["number"])
        human = sorted(
            _utc(c.occurred_at)
            for c in comments
            if (c.source_id, c.attrs["issue"]) == key
            and _utc(c.occurred_at) <= as_of
            and c.attrs["author"].lower() != authors[key].lower()
            and c.attrs["author_type"] != "Bot"
            and not c.attrs["author"].endswith("[bot]")
            and c.attrs["author"] not in ("pytorchmergebot", "facebook-github-bot")
        )
        assert _utc(row["first_response_at"]) == (human[0] if human else None), key

    summary = json.loads((demo["report"] / "summary.json").read_text())["issue_response"]
    assert summary["issues"] == len(rows)
    quarterly = {(r["project"], r["regime"], r["quarter"]): r for r in summary["quarterly"]}
    for view_row in store.view_rows("v_issue_response_quarterly"):
        key = (view_row["project"], view_row["regime"], view_row["quarter"])
        assert quarterly[key]["issues"] == view_row["issues"]
        assert quarterly[key]["median_hours"] == view_row["median_hours"]
