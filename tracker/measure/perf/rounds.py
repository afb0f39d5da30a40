"""What both delivered-performance suites count per published round: its publication date,
when it was first collected, and its result rows by regime or by why they were left out."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from tracker.mentions.accelerators import accelerator_regime

OTHER = "other accelerators (no regime)"


def tally(
    rounds: dict[str, dict[str, Any]],
    item: Mapping[str, Any],
    keep_reason: Callable[[Mapping[str, Any]], str | None],
) -> tuple[str, Mapping[str, Any], str | None]:
    """Count a stored result (Store.perf_results row: attrs, version, occurred_at,
    first_seen_at) in its round of `rounds` ({"published", "seen", "counts"} per round name),
    under its regime or the suite's `keep_reason` for leaving it out. Returns the round's name,
    the attrs (a value that is not a mapping reads as none: stored values are untrusted) and
    the regime, None when the result is left out or its accelerator has no regime."""
    attrs = item["attrs"] if isinstance(item.get("attrs"), dict) else {}
    name = str(attrs.get("round") or item.get("version") or "")
    info = rounds.setdefault(
        name,
        {"published": item["occurred_at"], "seen": item["first_seen_at"], "counts": Counter()},
    )
    info["seen"] = min(info["seen"], item["first_seen_at"])
    reason = keep_reason(attrs)
    regime = accelerator_regime(attrs.get("accelerator")) if reason is None else None
    info["counts"][reason or regime or OTHER] += 1
    return name, attrs, regime
