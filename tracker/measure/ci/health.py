"""CI job health: per CI source and job name, its runs in order, the current streak, since when
it fails, when it last passed and how often it flipped (docs/methodology.md, CI job health).

Input: the concluded jobs of the store (``Store.ci_job_runs``: ``ci_job`` events whose outcome
tracker.collect.ci judged ``passed`` or ``failed``; canceled jobs and attempts superseded by a
retry have no outcome and never get here), kept when their build's trigger is one the source's
``trigger`` selector names (tracker.config.triggers.trigger_selectors). A *run* is one job
name in one build; runs are ordered by build (its creation time, then its number). Should a
name stand twice in one build, that build's run failed when either did.

- ``job_runs(rows, selectors)``: the store's rows as :class:`JobRun`, headline triggers only.
- ``job_health(runs)``: one :class:`JobHealth` per (source, job), sorted.
- ``week_changes(runs, start, end, threshold)``: the jobs that broke (their failing streak
  reached ``threshold`` runs) and the jobs fixed (passed after such a streak) in [start, end).
- ``hardware_of(name, queue)``: the GPU tag of a job name, else its queue / runner label.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from typing import Any

from tracker.measure.ci.rates import UNKNOWN_TRIGGER, Selectors
from tracker.names import FAILED, PASSED

# "mi355_1: Kernels MoE Test 2" (amd-ci), "AMD: Samplers Test (mi250_1)" (ci's AMD jobs)
PREFIX_TAG = re.compile(r"^\s*([a-z]+\d+x?_\d+)\s*:\s*", re.IGNORECASE)
AMD_PREFIX = re.compile(r"^\s*amd\s*:\s*", re.IGNORECASE)
SUFFIX_TAG = re.compile(r"\s*\(\s*([a-z]+\d+x?_\d+)\s*\)\s*$", re.IGNORECASE)
# One GPU in a tag: H100, B200, A100, L4, MI300, MI355X, GB200, GH200, with an optional count
# ("2xH100", "2 H100s", "8x"): "(H100)", "(2xH100-2xMI300)", "(B200-MI355)".
_GPU = r"(?:(\d+)\s*x?\s*)?(?:[abhlt]\d{1,3}|mi\d{2,3}x?|g[bh]\d{3})s?"
GPU_TAG = re.compile(r"\s*\(\s*" + _GPU + r"(?:\s*-\s*" + _GPU + r")*\s*\)", re.IGNORECASE)


@dataclass(frozen=True)
class JobRun:
    """One concluded job of one build of a CI source's headline trigger."""

    source_id: str
    project: str
    job: str  # the job's name as upstream shows it
    regime: str
    outcome: str  # passed | failed
    build: str  # Buildkite build number, Actions run id
    built_at: datetime  # the build's creation time: runs are ordered by it
    occurred_at: datetime  # when the job concluded
    url: str
    hardware: str


@dataclass(frozen=True)
class JobHealth:
    """The health of one job name of one CI source as of its newest run."""

    source_id: str
    project: str
    job: str
    regime: str  # its newest run's
    hardware: str
    runs: int
    last_outcome: str
    streak: int  # consecutive newest runs with last_outcome
    failing_since: datetime | None  # the first run of the current failing streak
    last_passed: datetime | None  # the newest passed run
    flips: int  # outcome changes between consecutive runs
    first_run: datetime
    last_run: datetime
    last_failed_url: str  # the newest failed run (its build), "" if it never failed

    @property
    def failing(self) -> bool:
        return self.last_outcome == FAILED

    def row(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in HEALTH_COLUMNS}


HEALTH_COLUMNS = (
    "source_id",
    "project",
    "job",
    "regime",
    "hardware",
    "runs",
    "last_outcome",
    "streak",
    "failing_since",
    "last_passed",
    "flips",
    "first_run",
    "last_run",
    "last_failed_url",
)


@lru_cache(maxsize=4096)  # a few hundred job names, each in every nightly build
def hardware_of(name: str, queue: str | None) -> str:
    """The hardware a job runs on: the GPU tag of its name ("mi355_1: ..." -> mi355_1,
    "AMD: ... (mi300_1)" -> mi300_1, "V1 attention (H100)" -> H100), else its agent queue or
    runner label."""
    for pattern in (PREFIX_TAG, SUFFIX_TAG):
        found = pattern.search(name)
        if found:
            return found.group(1)
    tag = GPU_TAG.search(name)
    if tag:
        return tag.group(0).strip().strip("()").strip()
    return queue or ""


def job_runs(rows: Iterable[Mapping[str, Any]], selectors: Selectors) -> list[JobRun]:
    """The store's concluded jobs (Store.ci_job_runs) of each source's headline triggers (a
    source sources.yaml no longer lists counts every trigger, as in the pass rate)."""
    out = []
    for row in rows:
        if row["outcome"] not in (PASSED, FAILED):
            continue
        chosen = selectors.get(row["source_id"])
        if chosen is not None and (row.get("trigger") or UNKNOWN_TRIGGER) not in chosen:
            continue
        name = str(row["job"])
        out.append(
            JobRun(
                source_id=row["source_id"],
                project=row["project"],
                job=name,
                regime=row.get("regime") or "none",
                outcome=row["outcome"],
                build=str(row.get("build") or ""),
                built_at=row.get("built_at") or row["occurred_at"],
                occurred_at=row["occurred_at"],
                url=row.get("url") or "",
                hardware=hardware_of(name, row.get("queue")),
            )
        )
    return out


def _build_order(run: JobRun) -> tuple:
    number = int(run.build) if run.build.isdigit() else 0
    return (run.built_at, number, run.build)


def per_job(runs: Iterable[JobRun]) -> dict[tuple[str, str], list[JobRun]]:
    """(source_id, job) -> one run per build, ordered by build; a build holding the name twice
    is one run, failed when either failed (the newest-concluded of its failures stands)."""
    builds: dict[tuple[str, str], dict[str, JobRun]] = defaultdict(dict)
    for run in runs:
        mine = builds[(run.source_id, run.job)]
        held = mine.get(run.build)
        if held is None or _stronger(run, held):
            mine[run.build] = run
    return {key: sorted(by_build.values(), key=_build_order) for key, by_build in builds.items()}


def _stronger(run: JobRun, held: JobRun) -> bool:
    if run.outcome != held.outcome:
        return run.outcome == FAILED
    return run.occurred_at > held.occurred_at


def health_of(ordered: Sequence[JobRun]) -> JobHealth:
    """The health of one job from its runs, oldest build first."""
    last = ordered[-1]
    streak = 0
    for run in reversed(ordered):
        if run.outcome != last.outcome:
            break
        streak += 1
    flips = sum(1 for a, b in zip(ordered, ordered[1:], strict=False) if a.outcome != b.outcome)
    passed = [r for r in ordered if r.outcome == PASSED]
    failed = [r for r in ordered if r.outcome == FAILED]
    return JobHealth(
        source_id=last.source_id,
        project=last.project,
        job=last.job,
        regime=last.regime,
        hardware=last.hardware,
        runs=len(ordered),
        last_outcome=last.outcome,
        streak=streak,
        failing_since=ordered[-streak].occurred_at if last.outcome == FAILED else None,
        last_passed=passed[-1].occurred_at if passed else None,
        flips=flips,
        first_run=ordered[0].occurred_at,
        last_run=last.occurred_at,
        last_failed_url=failed[-1].url if failed else "",
    )


def job_health(runs: Iterable[JobRun]) -> list[JobHealth]:
    """One JobHealth per (source, job name), by source and job."""
    return [health_of(ordered) for _key, ordered in sorted(per_job(runs).items())]


def longest_failing(health: Iterable[JobHealth], regime: str, limit: int) -> list[JobHealth]:
    """The regime's failing jobs, longest streak first (then oldest failing_since, name)."""
    mine = [h for h in health if h.regime == regime and h.failing]
    mine.sort(key=lambda h: (-h.streak, h.failing_since or h.last_run, h.source_id, h.job))
    return mine[:limit]


@dataclass(frozen=True)
class Change:
    """A job that broke or was fixed in a window: at which run, after how many failures."""

    health: JobHealth
    when: datetime  # the run that reached the threshold / the passing run
    failures: int  # the failing streak reached (broke) or ended (fixed)
    url: str


def week_changes(
    runs: Iterable[JobRun], start: datetime, end: datetime, threshold: int
) -> tuple[list[Change], list[Change]]:
    """(broke, fixed) in [start, end): a job broke when its failing streak reached
    ``threshold`` runs at a run in the window; it was fixed when a run in the window passed
    right after a failing streak of at least ``threshold`` runs. Runs up to ``end`` only."""
    broke: list[Change] = []
    fixed: list[Change] = []
    threshold = max(threshold, 1)
    for _key, ordered in sorted(per_job(r for r in runs if r.occurred_at < end).items()):
        health = health_of(ordered)
        streak = 0
        for run in ordered:
            inside = start <= run.occurred_at < end
            if run.outcome == FAILED:
                streak += 1
                if inside and streak == threshold:
                    broke.append(Change(health, run.occurred_at, streak, run.url))
            else:
                if inside and streak >= threshold:
                    fixed.append(Change(health, run.occurred_at, streak, run.url))
                streak = 0
    return broke, fixed
