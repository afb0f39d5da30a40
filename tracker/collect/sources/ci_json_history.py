"""`ci_json_history`: CI runs a dashboard commits as a JSON file, read version by version through
the file's git history -> ``ci_run``, ``ci_job`` and ``ci_tests`` events.

AMD's CI dashboard (AndreasKaratzas/vllm-internal-project-dashboard) committed, about every 4
hours from 2026-02-17 to 2026-04-07, ``data/{pytorch,jax,sglang,xla}/test_results.json``: under
``rocm`` and ``cuda``, the latest completed run of one workflow each (``workflow_name``,
``run_id``, ``run_url``, ``run_date``, ``conclusion``, ``summary`` with job and, for PyTorch,
test counts, ``suites``: the jobs with their conclusions, or PyTorch's test suites). Each version
holds one run per side; the history holds a sample of the runs (the newest at each commit, not
every run), with no trigger and no branch.

Source keys: ``repo``, ``path`` (the file), ``key`` (the side read: ``rocm``); optional ``refs``
(branches or commit ids whose history is read, in order; default the default branch),
``job_regimes`` (globs over the job name, first match wins, else the source's regime),
``trigger`` (the headline selector, tracker.measure.ci.rates), ``api_url``, ``raw_url``.

Contract:
- The commits that touched ``path``, per ref: the commit listing of test_report_history
  (``GET {api_url}/repos/{repo}/commits?path=<path>&per_page=100[&sha=<ref>][&since=...]``),
  read oldest first, each commit once (``state["read"]``).
- At a commit: ``GET {raw_url}/{repo}/<sha>/<path>``. A version that is gone (the commit that
  removed the file) or not a JSON object is a logged skip.
- A side: a JSON object with an integer ``run_id``, a readable ``run_date`` and a ``conclusion``
  (else a logged skip). Each distinct run is stored once (``external_id`` ``run:<run_id>``): a
  later version of the same run replaces the earlier one, so the run keeps its last recorded
  conclusion; a version that repeats what was stored yields nothing (``state["runs"]``).
- Events: the run (regime the source's, dated by ``run_date``, trigger unknown: the file keeps
  none, ``updated_at`` the commit's time); one ``ci_job`` per suite with a ``conclusion`` (name,
  outcome, regime by ``job_regimes``); for a side whose ``summary`` counts tests
  (``total_tests``, ``passed``, ``failed``, ``skipped``), one ``ci_tests`` event (pipeline = the
  workflow's name, build = the run id, job = the workflow's name). Attrs say what the record is:
  ``sample`` (the dashboard's latest run at each commit), ``commit``, ``path``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from tracker.collect import ci
from tracker.collect.sources import CollectContext
from tracker.collect.sources.doc_history import DEFAULT_RAW, READ_LIMIT
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.collect.sources.test_report_history import listed_commits
from tracker.collect.test_reports import NAME_CHARS, JobTests, report_event
from tracker.config.preview import preview
from tracker.errors import FatalHTTPError, first_line
from tracker.events import Event

KIND = "ci_json_history"
AUTH = "github"
ASCENDING = True  # commits are read oldest first

SUITE_LIMIT = 500  # jobs read per run: a real side lists at most a few dozen
RUN_LIMIT = 20_000  # run digests remembered
SAMPLE = "the dashboard's latest completed run at each of its commits (about every 4 hours)"


def _digest(side: Any) -> str:
    return hashlib.sha256(json.dumps(side, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _url(value: Any) -> str:
    return value if isinstance(value, str) and value.startswith("https://github.com/") else ""


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def side_events(
    ctx: CollectContext, side: Any, where: str, sha: str, when: datetime
) -> Iterator[Event]:
    """The events of one side of one version (see the contract)."""
    if not isinstance(side, dict):
        if side is not None:
            ctx.skip(where, "the side is not a JSON object")
        return
    run_id, started = side.get("run_id"), ci.parse_time(side.get("run_date"))
    if _count(run_id) is None or not run_id:
        ctx.skip(where, f"run id {preview(run_id)} is not a positive integer")
        return
    if started is None:
        ctx.skip(f"{where}: run {run_id}", "no readable run_date")
        return
    conclusion = side.get("conclusion")
    name = str(side.get("workflow_name") or ctx.option("key"))[:NAME_CHARS]
    where = f"{ctx.spec.id} run {run_id}"
    path, repo = str(ctx.option("path")), ctx.option("repo")
    record = {
        "commit": sha,
        "path": path,
        "dashboard": f"https://github.com/{repo}/blob/{sha}/{path}",
        "sample": SAMPLE,
    }
    summary = side.get("summary")
    summary = summary if isinstance(summary, dict) else {}
    yield Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="ci_run",
        external_id=f"run:{run_id}",
        occurred_at=started,
        title=f"{name} run {run_id}",
        url=_url(side.get("run_url")),
        regime=ctx.spec.regime,
        state=conclusion if isinstance(conclusion, str) else None,
        outcome=ci.run_outcome(conclusion if isinstance(conclusion, str) else None, where=where),
        updated_at=when,
        attrs={
            "workflow_name": name,
            "run_id": run_id,
            "trigger": None,  # the file keeps none: "unknown" in the view
            "total_jobs": _count(summary.get("total_jobs")),
            **record,
        },
    )
    patterns = ci.validate_job_regimes(ctx.option("job_regimes"), ctx.spec.id)
    suites = side.get("suites")
    suites = suites if isinstance(suites, list) else []
    for suite in suites[:SUITE_LIMIT]:
        if not isinstance(suite, dict) or "conclusion" not in suite:
            continue  # a test suite (PyTorch's), counted by the summary's tests
        job = suite.get("name")
        if not isinstance(job, str) or not job.strip():
            ctx.skip(f"{where}: a job", "no job name")
            continue
        job = job.strip()[:NAME_CHARS]
        state = suite.get("conclusion") if isinstance(suite.get("conclusion"), str) else None
        yield Event(
            source_id=ctx.spec.id,
            project=ctx.spec.project,
            kind="ci_job",
            external_id=f"job:{run_id}:{job}"[:500],
            occurred_at=started,
            title=job,
            url=_url(side.get("run_url")),
            regime=ci.job_regime(job, patterns, ctx.spec.regime),
            state=state,
            outcome=ci.job_outcome(state, where=f"{where} job {preview(job)}"),
            updated_at=when,
            attrs={"name": job, "run_id": run_id, "workflow_name": name, "trigger": None} | record,
        )
    tests = [_count(summary.get(k)) for k in ("total_tests", "passed", "failed", "skipped")]
    if all(v is not None for v in tests):
        report = JobTests(name, run_id, name, started.date())
        report.add("passed", tests[1] or 0)
        report.add("failed", tests[2] or 0)
        report.add("skipped", tests[3] or 0)
        yield report_event(
            report,
            source_id=ctx.spec.id,
            project=ctx.spec.project,
            regime=ctx.spec.regime,
            url=_url(side.get("run_url")),
            updated_at=when,
            attrs={"builds": ctx.spec.id} | record,
        )


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the file at every commit of each ref that touched it, oldest first."""
    repo, path = ctx.option("repo"), str(ctx.option("path")).strip("/")
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    raw = str(ctx.option("raw_url", DEFAULT_RAW)).rstrip("/")
    key = str(ctx.option("key"))
    read = ctx.state.setdefault("read", [])
    runs = ctx.state.setdefault("runs", {})
    if not isinstance(read, list):
        read = ctx.state["read"] = []
    if not isinstance(runs, dict):
        runs = ctx.state["runs"] = {}
    for ref in ctx.option("refs") or [None]:
        for when, sha in sorted(listed_commits(ctx, api, repo, path, ref)):
            if sha in read:
                continue
            data = _version(ctx, raw, repo, path, sha)
            side = data.get(key) if data is not None else None
            ident = str(side.get("run_id")) if isinstance(side, dict) else ""
            if data is not None and (not ident or runs.get(ident) != _digest(side)):
                yield from side_events(ctx, side, f"{path} at {sha[:10]}", sha, when)
                if ident:
                    runs[ident] = _digest(side)
            read.append(sha)  # after its events: a stopped run reads it again
    del read[:-READ_LIMIT]
    for old in list(runs)[:-RUN_LIMIT]:
        del runs[old]


def _version(ctx: CollectContext, raw: str, repo: str, path: str, sha: str) -> dict | None:
    where = f"{path} at {sha[:10]}"
    try:
        response = ctx.client().get(f"{raw}/{repo}/{sha}/{path}", conditional=False)
    except FatalHTTPError as exc:
        ctx.skip(where, first_line(exc))  # e.g. the commit that removed the file: 404
        return None
    if response is None:
        return None
    try:
        data = json.loads(response.content.decode("utf-8", errors="replace"))
    except ValueError:
        ctx.skip(where, "not JSON")
        return None
    if not isinstance(data, dict):
        ctx.skip(where, "not a JSON object")
        return None
    return data
