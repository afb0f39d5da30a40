"""CI job health as the report and the digest word it (tracker.measure.ci.jobs): per regime, the
longest-failing jobs, the jobs that broke and were fixed in the week, and how old the data is,
stated with its date (CI collection may have stopped long before the as-of date)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from tracker.measure.ci.health import Change, JobHealth, longest_failing
from tracker.measure.ci.jobs import CiJobs, Window
from tracker.present import palette
from tracker.present.formats import http_only

LONGEST = 10  # longest-failing jobs listed per regime
NO_REGIME = "No GPU regime (CPU, Intel, Ascend and other hosts)"


def day(value: datetime | None) -> str:
    return value.date().isoformat() if value is not None else ""


def data_age(window: Window, as_of: datetime) -> str:
    """'vllm-amd-ci: newest run 2026-05-08, 106 days before 2026-08-22' (or 'as of ...')."""
    age = window.age_days(as_of)
    when = f"{age} days before {day(as_of)}" if age else f"the as-of day {day(as_of)}"
    return f"{window.source_id}: newest run {day(window.newest)}, {when}"


def job_row(job: JobHealth) -> dict[str, Any]:
    return {
        "source_id": job.source_id,
        "job": job.job,
        "hardware": job.hardware,
        "runs": job.runs,
        "streak": job.streak,
        "failing_since": day(job.failing_since),
        "last_passed": day(job.last_passed) or "never",
        "last_run": day(job.last_run),
        "url": http_only(job.last_failed_url),  # collected text: links only to http(s)
    }


def change_row(change: Change) -> dict[str, Any]:
    return {
        "source_id": change.health.source_id,
        "job": change.health.job,
        "hardware": change.health.hardware,
        "when": day(change.when),
        "failures": change.failures,
        "url": http_only(change.url),
    }


def regime_blocks(ci: CiJobs | None, regimes: Sequence[str] | None = None) -> list[dict[str, Any]]:
    """Per regime with CI jobs: counts, its sources' data age, the longest-failing jobs and the
    jobs that broke / were fixed in each source's week (Window)."""
    if ci is None:
        return []
    blocks = []
    for regime in (
        regimes if regimes is not None else palette.ordered({h.regime for h in ci.health})
    ):
        mine = [h for h in ci.health if h.regime == regime]
        if not mine:
            continue
        windows = ci.sources_of(regime)
        blocks.append(
            {
                "regime": regime,
                "name": NO_REGIME if regime == "none" else palette.name(regime),
                "jobs": len(mine),
                "failing": sum(h.failing for h in mine),
                "ages": [data_age(w, ci.as_of) for w in windows],
                "weeks": [
                    f"{w.source_id}: {day(w.start)} to {day(w.end_day)}"
                    + (" (its newest week of data)" if w.stale else "")
                    for w in windows
                ],
                "longest": [job_row(h) for h in longest_failing(mine, regime, LONGEST)],
                "broke": [change_row(c) for c in ci.broke if c.health.regime == regime],
                "fixed": [change_row(c) for c in ci.fixed if c.health.regime == regime],
                "threshold": ci.threshold,
            }
        )
    return blocks
