"""Source health for the digest's data-quality footer: sources that failed in the week or have
not succeeded for a while, from the collection runs the store keeps (``Store.run_history``).

Bounded by the week's end, so a digest of a past week reads the same runs however much was
collected since (reproducible, like `tracker lag --as-of`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any


def source_health(
    store,
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
    by_source: dict[str, list[dict]] = defaultdict(list)
    for row in store.run_history(wanted, end):
        by_source[row["source_id"]].append(row)
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
