"""Pure CI logic shared by the GitHub Actions and Buildkite collectors (docs/methodology.md,
CI pass rate).

Nothing here does I/O. Three contracts:

- ``run_outcome(state)``: a run / build state or conclusion -> "passed", "failed" or None
  (not counted). passed = success / passed; failed = failure / failed / timed_out /
  startup_failure; cancelled, skipped, neutral, blocked and every in-progress state are not
  counted. A state never seen before is not counted either, and logged once per state.
- ``job_outcome(state, soft_failed=..., superseded=...)``: the same for one job, plus: a
  soft-failed job is **failed** (soft_fail only stops it failing the build) and a job
  superseded by a retry or a later run attempt is not counted (its final attempt is).
- ``job_regime(candidates, patterns, default)``: the regime of a job from ``job_regimes``
  globs over its agent queue / job name / runner labels; first pattern wins, else default.
- ``run_regime(default, job_regimes)``: a run none of whose jobs ran on a regime (all
  ``none``, or none at all) is of regime ``none``, else the source's / workflow's.
- ``trigger_of(value)``: what started a run, in the upstream's word (Buildkite ``source``,
  Actions ``event``), stored as ``attrs.trigger`` on runs and jobs.

Only jobs that run commands count: ``counts_as_job(type)`` tells Buildkite command jobs
("script") from waiters, block ("manual") and trigger steps.

Hostile input is a skip, never a failed source: ``objects`` keeps the JSON objects of a listed
array (builds, runs, jobs); runs / builds still in progress are first pruned after
``pending_max_days`` (``prune_pending``), then each re-check goes through ``recheck``, where a
failure other than a rate limit is a skip and the item stays pending for the next collection.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from fnmatch import fnmatchcase
from typing import Any

from tracker.collect.options import job_regimes_problem
from tracker.errors import OutOfTime, RateLimited, SourceError, first_line
from tracker.events import (
    REGIME_NONE,
    computable,
    parse_time,  # noqa: F401  (collectors call ci.parse_time)
)
from tracker.names import FAILED, PASSED

log = logging.getLogger("tracker.ci")


_PASSED_STATES = frozenset({"success", "passed"})
_FAILED_STATES = frozenset({"failure", "failed", "timed_out", "startup_failure"})
# Concluded but not counted: nothing ran to a verdict.
_NOT_COUNTED_STATES = frozenset(
    {
        "cancelled",
        "canceled",
        "skipped",
        "neutral",
        "blocked",
        "not_run",
        "stale",
        "action_required",
        "broken",
        "expired",
        "waiting_failed",
        "blocked_failed",
        "unblocked_failed",
    }
)
# Still going: not counted now, re-checked later (GitHub status values and Buildkite
# build / job states, https://buildkite.com/docs/pipelines/configure/defining-steps#job-states).
IN_PROGRESS_STATES = frozenset(
    {
        "queued",
        "in_progress",
        "requested",
        "waiting",
        "pending",
        "scheduled",
        "running",
        "creating",
        "failing",
        "canceling",
        "assigned",
        "accepted",
        "reserved",
        "limited",
        "limiting",
        "timing_out",
        "unblocked",
        "started",
    }
)
KNOWN_STATES = _PASSED_STATES | _FAILED_STATES | _NOT_COUNTED_STATES | IN_PROGRESS_STATES

# Buildkite job types; only "script" (a command step) runs tests.
COMMAND_JOB_TYPES = frozenset({"script"})

_warned: set[str] = set()


def _normalise(state: str | None, where: str) -> str | None:
    key = str(state or "").strip().lower()
    if key in _PASSED_STATES:
        return PASSED
    if key in _FAILED_STATES:
        return FAILED
    if key and key not in KNOWN_STATES and key not in _warned:
        _warned.add(key)
        log.warning("%s: unknown CI state %r: not counted (logged once per state)", where, state)
    return None


def run_outcome(state: str | None, *, where: str = "ci") -> str | None:
    """Outcome of a whole run / build from its conclusion or state (None = not counted)."""
    return _normalise(state, where)


def job_outcome(
    state: str | None, *, soft_failed: bool = False, superseded: bool = False, where: str = "ci"
) -> str | None:
    """Outcome of one job. Superseded attempts are not counted; soft failures are failures."""
    outcome = _normalise(state, where)
    if superseded:
        return None
    if soft_failed and outcome is not None:
        return FAILED
    return outcome


def is_in_progress(state: str | None) -> bool:
    """Whether a run / build state means "not finished yet" (re-check it later)."""
    return str(state or "").strip().lower() in IN_PROGRESS_STATES


def counts_as_job(job_type: str | None) -> bool:
    """Whether a Buildkite job type runs commands (waiter / manual / trigger do not)."""
    return (job_type or "script") in COMMAND_JOB_TYPES


def job_regime(
    candidates: str | Iterable[str | None] | None,
    patterns: Sequence[Mapping[str, Any]] | None,
    default: str | None,
) -> str | None:
    """The regime of a job from ``job_regimes`` patterns (docs/methodology.md, CI pass rate).

    ``candidates`` is the agent queue, the job name or runner labels (a string or several);
    ``patterns`` is ``[{match: "amd*", regime: rocm}, ...]``. Globs are fnmatch patterns,
    compared case-insensitively; the first pattern that matches any candidate wins;
    nothing matching -> ``default`` (the source's regime).
    """
    if isinstance(candidates, str):
        candidates = [candidates]
    values = [c.lower() for c in (candidates or []) if c]
    for rule in patterns or ():
        glob = str(rule.get("match", "")).lower()
        if glob and any(fnmatchcase(value, glob) for value in values):
            return rule.get("regime")
    return default


def run_regime(default: str | None, job_regimes: Sequence[str | None]) -> str | None:
    """The regime of a whole run from its command jobs' regimes: the source's / workflow's
    (``default``) unless no job ran on a regime at all (every job ``none``, or no job), then
    ``none``: a build of only the pipeline bootstrap or image builds on CPU hosts is no run of
    any GPU regime, passed or failed."""
    if default in (None, REGIME_NONE):
        return default
    if any(r not in (None, REGIME_NONE) for r in job_regimes):
        return default
    return REGIME_NONE


def trigger_of(value: Any) -> str | None:
    """What started a run, in the upstream's own word (Buildkite build ``source``, Actions run
    ``event``), lower-cased; None when upstream said nothing (the view shows ``unknown``)."""
    if not isinstance(value, str) or not value.strip():
        return None
    return value.strip().lower()[:50]


def validate_job_regimes(value: Any, source: str) -> list[Mapping[str, Any]]:
    """Check a ``job_regimes`` option: a list of {match, regime}; ValueError naming the source.
    The rule is the one sources.yaml is checked with (options.job_regimes_problem)."""
    problem = job_regimes_problem(value)
    if problem:
        raise ValueError(f"{source}: job_regimes {problem}")
    return value or []


def queue_of(agent_query_rules: Iterable[str] | None) -> str | None:
    """The agent queue named in Buildkite ``agent_query_rules`` (["queue=amd_mi300_1", ...])."""
    for rule in agent_query_rules or ():
        key, _, value = str(rule).partition("=")
        if key.strip() == "queue" and value:
            return value.strip()
    return None


OLDEST = datetime.min.replace(tzinfo=UTC)  # sorts before any real time


def created_time(item: Mapping[str, Any]) -> datetime | None:
    """The ``created_at`` of a run / build / pending entry; None when missing, unreadable or
    outside the dates tracker computes with (events.computable): such a time bounds no listing
    window (one second past 9999-12-31T23:59:59 overflows), and the runner refuses its events."""
    when = parse_time(item.get("created_at")) if isinstance(item, Mapping) else None
    return when if when is not None and computable(when) else None


def creation_order(item: Mapping[str, Any], id_key: str) -> tuple[datetime, int]:
    """Sort key for oldest-first collection: (created_at, numeric id). Items without a readable
    created_at sort first; their collector reports them as skipped."""
    number = item.get(id_key)
    return created_time(item) or OLDEST, number if isinstance(number, int) else 0


def duration_seconds(start: datetime | None, end: datetime | None) -> float | None:
    """Seconds from start to end, None when either is unknown."""
    if start is None or end is None:
        return None
    return round((end - start).total_seconds(), 3)


def iso(value: datetime) -> str:
    """A UTC timestamp as GitHub / Buildkite query parameters want it: 2026-05-08T06:00:00Z."""
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


DEFAULT_PENDING_MAX_DAYS = 14


def objects(ctx, items: Any, what: str) -> list[dict[str, Any]]:
    """The JSON objects of a listed array (builds, runs, jobs). Anything else in it, or an
    ``items`` that is not an array at all, is a skip naming ``what``."""
    if not isinstance(items, list):
        ctx.skip(what, f"expected a JSON list, got {type(items).__name__}")
        return []
    for item in items:
        if not isinstance(item, dict):  # parsed JSON: every object is a dict
            ctx.skip(what, f"not a JSON object: {item!r:.60}")
    return [item for item in items if isinstance(item, dict)]


def prune_pending(ctx, pending: dict, what: str) -> None:
    """Stop re-checking runs / builds that have been in progress for longer than the source's
    ``pending_max_days`` (default 14): they are logged once and forgotten. Called before the
    re-checks, so an entry whose re-check keeps failing is dropped all the same."""
    max_age = timedelta(days=float(ctx.option("pending_max_days", DEFAULT_PENDING_MAX_DAYS)))
    for key, info in list(pending.items()):
        when = parse_time(info.get("created_at"))
        # One dated outside the computable dates would be re-checked, and refused, for ever.
        if when is not None and (ctx.now - when > max_age or not computable(when)):
            del pending[key]
            log.warning(
                "%s: %s %s still not concluded after %s; no longer re-checked",
                ctx.spec.id,
                what,
                key,
                max_age,
            )


def recheck(ctx, what: str, events: Iterator[Any]) -> Iterator[Any]:
    """The events of one re-check of a pending run / build (``what`` names it: "build #12").

    A rate limit or the time budget stops the source as usual (the runner keeps what came
    before). Any other failure (an HTTP error, a malformed body) is a skip naming the item, which
    stays pending and is re-checked on the next collection until ``prune_pending`` drops it: one
    re-check that keeps failing never blocks its source. ``events`` must do its requests before
    it yields.
    """
    try:
        yield from events
    except (RateLimited, OutOfTime):  # the source stops; not this item's fault
        raise
    except SourceError as exc:
        ctx.skip(what, f"re-check failed, still pending: {first_line(exc)}")
