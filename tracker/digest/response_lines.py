"""The digest's "Waiting for an answer" lines: per regime, the issues opened in the digest's
week and their median wait so far, the regime whose issues waited longest named first, and the
issues answered during the week (the report's figures: tracker.measure.response)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from tracker.measure.response import ResponseFigures, week_waits
from tracker.present import palette
from tracker.present.response_words import hours_text

ANSWERED_LISTED = 3  # answered issues named per regime (the longest waits first)


def waiting_lines(figures: ResponseFigures, start: datetime, end: datetime) -> list[dict[str, Any]]:
    """Lines {"text", "url"}: the longest-waiting regime first; nothing when no issue of a
    regime was opened or answered in [start, end)."""
    lines = []
    waits = week_waits(figures, start, end)
    compared = sum(1 for w in waits if w.opened) > 1  # "longest" needs two regimes to compare
    for position, wait in enumerate(waits):
        name = palette.short_name(wait.regime)
        if wait.opened:
            median = (
                "more than half still unanswered"
                if wait.median_hours is None
                else f"median wait {hours_text(wait.median_hours)}"
            )
            lead = "waited longest: " if position == 0 and compared else ""
            text = (
                f"{name}: {lead}{wait.opened} issue(s) opened this week, {wait.answered} "
                f"answered by its end, {median}"
            )
        else:
            text = f"{name}: no issue opened this week"
        shown = wait.answered_in_week[:ANSWERED_LISTED]
        if shown:
            text += "; answered this week: " + ", ".join(
                f"#{r.number} ({r.project}) after {hours_text(r.hours_to_first_response)}"
                for r in shown
            )
            if len(wait.answered_in_week) > len(shown):
                text += f" and {len(wait.answered_in_week) - len(shown)} more"
        lines.append({"text": text, "url": shown[0].url if shown else ""})
    return lines
