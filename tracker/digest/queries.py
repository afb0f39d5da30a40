"""What the digest reads from the store beyond the documented series views: the week's tagged
events (to link the top ones) and the collection runs (for the data-quality footer).

Both are bounded by the digest's week, so a digest of a past week reads the same rows however
much was collected since (reproducible, like `tracker lag --as-of`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Boolean, Float, String, Text, column, select, table

from tracker.store import Store
from tracker.store.tables import Timestamp, runs

# The documented view v_event_tags: the effective class and regime of each tagged event
# (an analyst override wins), the same rows v_friction_weekly counts.
_EVENT_TAGS = table(
    "v_event_tags",
    column("event_id", String),
    column("kind", String),
    column("occurred_at", Timestamp),
    column("title", Text),
    column("url", Text),
    column("vanished_at", Timestamp),
    column("tag", String),
    column("regime", String),
    column("overridden", Boolean),
    column("score", Float),
)


def tagged_events(store: Store, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Friction and optimization issues / release-note items that occurred in [start, end)
    and are still upstream (the rows v_friction_weekly counts), highest tagger score first."""
    v = _EVENT_TAGS
    query = (
        select(v.c.event_id, v.c.occurred_at, v.c.title, v.c.url, v.c.tag, v.c.regime, v.c.score)
        .where(
            v.c.kind.in_(("issue", "note")),
            v.c.vanished_at.is_(None),
            v.c.tag.in_(("friction", "optimization")),
            v.c.occurred_at >= start,
            v.c.occurred_at < end,
        )
        .order_by(v.c.score.desc(), v.c.occurred_at.desc(), v.c.event_id)
    )
    with store.engine.connect() as conn:
        return [dict(r) for r in conn.execute(query).mappings()]


def source_health(
    store: Store,
    source_ids: Iterable[str],
    start: datetime,
    end: datetime,
    stale_days: float,
) -> list[dict[str, Any]]:
    """Sources (of `source_ids`) that failed in [start, end) or whose last successful run is
    `stale_days` or more before `end` (or that never succeeded), from the `runs` table; runs
    after `end` are ignored. Each row: source_id, failures (in the week), last_ok, last_error,
    last_error_at, reason."""
    wanted = sorted(set(source_ids))
    if not wanted:
        return []
    query = (
        select(runs.c.source_id, runs.c.started_at, runs.c.status, runs.c.error)
        .where(runs.c.source_id.in_(wanted), runs.c.started_at < end)
        .order_by(runs.c.started_at)
    )
    by_source: dict[str, list[dict]] = defaultdict(list)
    with store.engine.connect() as conn:
        for row in conn.execute(query).mappings():
            by_source[row["source_id"]].append(dict(row))
    out = []
    for source_id in wanted:
        history = by_source.get(source_id, [])
        failures = [
            r for r in history if r["started_at"] >= start and r["status"] in ("failed", "partial")
        ]
        ok = [r["started_at"] for r in history if r["status"] == "ok"]
        last_ok = ok[-1] if ok else None
        errors = [r for r in history if r["error"]]
        stale = last_ok is None or end - last_ok >= timedelta(days=stale_days)
        if not failures and not stale:
            continue
        if last_ok is None:
            reason = "never succeeded" if history else "never run"
        elif stale:
            reason = f"no success for {(end - last_ok).days} days"
        else:
            reason = f"failed {len(failures)} time{'s' if len(failures) != 1 else ''} this week"
        if failures and stale and last_ok is not None:
            reason += f", failed {len(failures)} time{'s' if len(failures) != 1 else ''} this week"
        out.append(
            {
                "source_id": source_id,
                "failures": len(failures),
                "last_ok": last_ok,
                "last_error": _one_line(errors[-1]["error"]) if errors else "",
                "last_error_at": errors[-1]["started_at"] if errors else None,
                "reason": reason,
            }
        )
    return _group_never_run(out)


def _group_never_run(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sources that had not run at all by the week's end share one footer line (a store
    collected after the week lists every source: one line says it, forty repeat it)."""
    never = [r["source_id"] for r in rows if r["reason"] == "never run"]
    if len(never) < 2:
        return rows
    grouped = {
        "source_id": f"{len(never)} sources",
        "failures": 0,
        "last_ok": None,
        "last_error": "",
        "last_error_at": None,
        "reason": "never run by the week's end (" + ", ".join(never) + ")",
    }
    return [grouped] + [r for r in rows if r["reason"] != "never run"]


def _one_line(text: str, limit: int = 300) -> str:
    """An error for a footer line: first line, bounded (tracebacks stay in `tracker status`)."""
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"
