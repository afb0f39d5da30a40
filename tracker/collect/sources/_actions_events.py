"""GitHub Actions workflow runs and their jobs as Events (``ci_run`` / ``ci_job``), for the
``github_actions`` collector: outcomes, regimes and timings by tracker.collect.ci's rules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.collect import ci
from tracker.collect.sources import CollectContext
from tracker.events import Event


def run_event(run: Mapping[str, Any], wf: Mapping[str, Any], ctx: CollectContext) -> Event:
    """One workflow run (its latest attempt) -> ci_run Event."""
    where = f"{ctx.spec.id} run {run.get('id')}"
    completed = run.get("status") == "completed"
    state = run.get("conclusion") if completed else run.get("status")
    outcome = ci.run_outcome(state, where=where)
    created = ci.parse_time(run.get("created_at"))
    if created is None:  # _run_events skips such runs before they get here
        raise ValueError(f"{where}: no readable created_at")
    updated = ci.parse_time(run.get("updated_at")) or created
    # GitHub has no completed_at on runs: a completed run's updated_at is when it concluded.
    ended = updated if completed else None
    started = ci.parse_time(run.get("run_started_at")) or created
    name = run.get("name") or wf["file"]
    title = f"{name} #{run.get('run_number')}"
    if run.get("display_title"):
        title += f": {run['display_title']}"
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="ci_run",
        external_id=f"run:{run['id']}",
        occurred_at=ended or created,
        title=title,
        url=run.get("html_url") or "",
        regime=wf.get("regime"),
        state=state,
        outcome=outcome,
        # The cursor follows creation time, the axis the listing is filtered on (see contract).
        ended_at=ended,
        updated_at=created,
        attrs={
            "workflow": wf["file"],
            "workflow_name": name,
            "run_id": run["id"],
            "updated_at": run.get("updated_at"),
            "run_number": run.get("run_number"),
            "run_attempt": run.get("run_attempt") or 1,
            "branch": run.get("head_branch"),
            "event": run.get("event"),
            "trigger": ci.trigger_of(run.get("event")),
            "status": run.get("status"),
            "head_sha": run.get("head_sha"),
            "duration_s": ci.duration_seconds(started, ended),
        },
    )


def job_event(
    job: Mapping[str, Any],
    run: Mapping[str, Any],
    wf: Mapping[str, Any],
    ctx: CollectContext,
    *,
    superseded: bool,
) -> Event | None:
    """One job -> ci_job Event (None, with a logged skip, when malformed)."""
    if not job.get("id"):
        ctx.skip(f"job of run {run.get('id')}", "job without id")
        return None
    where = f"{ctx.spec.id} job {job['id']}"
    completed = job.get("status") == "completed"
    state = job.get("conclusion") if completed else job.get("status")
    name = job.get("name") or str(job["id"])
    labels = [str(label) for label in job.get("labels") or ()]
    started = ci.parse_time(job.get("started_at"))
    ended = ci.parse_time(job.get("completed_at")) if completed else None
    occurred = (
        ended
        or started
        or ci.parse_time(job.get("created_at"))
        or ci.parse_time(run.get("created_at"))
    )
    if occurred is None:
        ctx.skip(f"job {job['id']} of run {run.get('id')}", "no readable timestamp")
        return None
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="ci_job",
        external_id=f"job:{run['id']}:{job['id']}",
        occurred_at=occurred,
        title=name,
        url=job.get("html_url") or "",
        regime=ci.job_regime([name, *labels], wf.get("job_regimes"), wf.get("regime")),
        state=state,
        outcome=ci.job_outcome(state, superseded=superseded, where=where),
        # The run's creation time: a job never moves the cursor past runs not yet yielded.
        ended_at=ended,
        updated_at=ci.parse_time(run.get("created_at")) or occurred,
        attrs={
            "name": name,
            "runner_labels": labels,
            "runner_name": job.get("runner_name"),
            "run_id": run["id"],
            "run_attempt": job.get("run_attempt"),
            "workflow": wf["file"],
            "trigger": ci.trigger_of(run.get("event")),
            "superseded": superseded,
            "retried": superseded,
            "soft_failed": False,
            "duration_s": ci.duration_seconds(started, ended),
        },
    )
