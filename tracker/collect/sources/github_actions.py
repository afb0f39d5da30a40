"""GitHub Actions workflow runs and their jobs -> `ci_run` and `ci_job` events.

Source keys: ``repo``; ``workflows`` (a list of ``{file, regime, job_regimes}``, regime and
job_regimes optional) or ``workflow`` (one file name, regime = the source's); optional
``api_url`` (default https://api.github.com), ``branch``, ``job_regimes`` (for every workflow),
``backfill_days`` (default 30), ``pending_max_days`` (default 14).

Contract:
- Runs: ``GET {api_url}/repos/{repo}/actions/workflows/{file}/runs?per_page=100
  [&branch=..][&created=>=<ctx.since>]``, Link pagination, first page conditional: with nothing
  new upstream the whole workflow costs one 304. Filtered listings stop at 1,000 results: when
  ``total_count`` > 1,000 the ``created`` window is split in halves until each window is under
  the cap. Without ``ctx.since`` (first backfill, no ``--since``) the listing is read newest
  first until a page reaches ``backfill_days`` back (windowing what lies past a capped
  branch-filtered listing).
- Oldest first (``ASCENDING = True``): GitHub lists newest first, so each window (at most 1,000
  runs) is read whole and sorted by ``created_at``; windows are walked oldest first and the
  workflows of a source are merged by ``created_at``. Every event of a run (run and jobs) has the
  run's ``created_at`` as ``updated_at``, the time the runner's cursor follows: the listing is
  filtered on creation time, so the cursor lives on that axis, and what was yielded before a
  rate limit never puts the cursor past a run not yet yielded. The run's own ``updated_at`` is
  kept in ``attrs.updated_at``; when it concluded is ``ended_at``.
- Jobs of each concluded run: ``GET .../actions/runs/{id}/jobs?filter=latest&per_page=100``. For
  a re-run (``run_attempt`` > 1) also ``filter=all``: jobs of earlier attempts are emitted with
  outcome None and ``attrs.superseded = true``, so rows stored from an earlier attempt stop
  counting. The run row (``run:<id>``) is the latest attempt: a re-run replaces it.
- Runs not yet completed are stored with outcome None and remembered in
  ``ctx.state["pending"]``; later collections re-check them by id
  (``GET .../actions/runs/{id}``) until they conclude (same external id: the row is updated).
  Pending runs created before the listing's lower bound are re-checked first (they are older
  than anything listed); the others after the listing, when it did not show them (a 304 window).
  Either way they stay in the state until they conclude, so the cursor never has to cover them.
  Runs pending for longer than ``pending_max_days`` are dropped before the re-checks; a re-check
  that fails (other than a rate limit) is a skip and the run stays pending
  (tracker.collect.ci.recheck).
  ``ctx.state["done"]`` remembers concluded runs (attempt, updated_at) inside the look-back window
  so an unchanged run is not fetched again.
- Regimes: the run takes its workflow's regime; a job takes the first ``job_regimes`` glob that
  matches its name or a runner label (tracker.collect.ci.job_regime), else the workflow's
  regime. A concluded run none of whose jobs ran on a regime (all ``none``, or no job) is a run
  of regime ``none`` (tracker.collect.ci.run_regime).
- Trigger: ``attrs.trigger`` of the run and of its jobs is the run's ``event`` (schedule, push,
  pull_request, workflow_dispatch, ...); the source key ``trigger`` (e.g. ``[schedule]``) selects
  which make the headline pass rate (tracker.measure.ci.rates), it changes nothing collected.
  It is the source's, for all its workflows (a ``workflows`` entry takes file, regime and
  job_regimes only: tracker.collect.options.workflows_problem).
- A workflow file that no longer exists (404) is logged and counted as a skipped item naming
  source and workflow; the other workflows of the source go on. So is a listed run or job that
  is not a JSON object, or a listing page that is not one.
"""

from __future__ import annotations

import dataclasses
import heapq
import logging
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from tracker.collect import ci
from tracker.collect.sources import CollectContext
from tracker.collect.sources._actions_events import job_event, run_event
from tracker.errors import ConfigError, FatalHTTPError
from tracker.events import Event
from tracker.names import GITHUB_API
from tracker.progress import Progress

KIND = "github_actions"
AUTH = "github"


DEFAULT_API = GITHUB_API
LISTING_CAP = 1000  # filtered run listings return at most this many results
DEFAULT_BACKFILL_DAYS = 30
ASCENDING = True  # runs are yielded oldest first: the runner keeps them on a rate limit

log = logging.getLogger("tracker.collect.github_actions")


def workflows(ctx: CollectContext) -> list[dict[str, Any]]:
    """The source's workflows as [{file, regime, job_regimes}] (ConfigError when neither key)."""
    spec = ctx.spec
    entries = ctx.option("workflows")
    if entries is None and ctx.option("workflow"):
        entries = [{"file": ctx.option("workflow")}]
    if not entries or not isinstance(entries, list):
        raise ConfigError(
            f"source {spec.id!r}: github_actions needs 'workflows' "
            "(list of {file, regime}) or 'workflow'"
        )
    shared = ci.validate_job_regimes(ctx.option("job_regimes"), spec.id)
    out = []
    for entry in entries:
        entry = {"file": entry} if isinstance(entry, str) else dict(entry)
        if not entry.get("file"):
            raise ConfigError(f"source {spec.id!r}: every workflow needs a 'file'")
        entry.setdefault("regime", spec.regime)
        entry["job_regimes"] = ci.validate_job_regimes(entry.get("job_regimes"), spec.id) or shared
        out.append(entry)
    return out


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Yield run and job events of every workflow, oldest run first (see the contract)."""
    api = ctx.option("api_url", DEFAULT_API).rstrip("/")
    repo = ctx.option("repo")
    flows = workflows(ctx)
    by_file = {wf["file"]: wf for wf in flows}
    pending: dict[str, dict] = ctx.state.setdefault("pending", {})
    ctx.state.setdefault("done", {})
    seen: set[str] = set()
    lowest = ctx.since or _backfill_bound(ctx)
    ci.prune_pending(ctx, pending, "run")
    with Progress(f"{ctx.spec.id}: runs", unit="run") as progress:
        # Pending runs older than anything the listing can show: re-checked first, in order.
        early = [key for key, info in pending.items() if (ci.created_time(info) or lowest) < lowest]
        for key in sorted(early, key=lambda k: ci.creation_order(pending[k], "id")):
            seen.add(key)
            wf = by_file.get(pending[key].get("workflow")) or flows[0]
            yield from ci.recheck(ctx, f"run {key}", _recheck(ctx, api, repo, wf, key))
        streams = [
            _workflow_runs(ctx, f"{api}/repos/{repo}/actions/workflows/{wf['file']}/runs", wf)
            for wf in flows
        ]
        for _key, wf, run in heapq.merge(*streams, key=lambda item: item[0]):
            key = str(run.get("id"))
            if key in seen:
                continue  # window boundaries are inclusive on both ends
            seen.add(key)
            progress.update()
            events: list[Event] = []
            with ctx.item(f"run {key}"):  # a malformed run is a skip; HTTP errors still stop
                events = list(_run_events(ctx, api, repo, wf, run))
            yield from events
        # Pending runs the listing did not show (their window answered 304): still tracked by
        # id in the state, so re-checking them last cannot hide a run from the cursor.
        for key in sorted(set(pending) - seen, key=lambda k: ci.creation_order(pending[k], "id")):
            wf = by_file.get(pending[key].get("workflow")) or flows[0]
            yield from ci.recheck(ctx, f"run {key}", _recheck(ctx, api, repo, wf, key))
    _prune_done(ctx, ctx.state["done"])


def _workflow_runs(ctx: CollectContext, url: str, wf: dict) -> Iterator[tuple]:
    """(sort key, workflow, run) of one workflow, oldest first; a 404 workflow is skipped."""
    try:
        for run in _runs(ctx, url):
            yield _sort_key(run), wf, run
    except FatalHTTPError as exc:
        if not _is_404(exc):
            raise
        ctx.skip(
            f"workflow {wf['file']}",
            "HTTP 404: the workflow file no longer "
            "exists upstream (renamed or deleted?); fix 'workflows' in sources.yaml",
        )


def _sort_key(item: Mapping[str, Any]) -> tuple[datetime, int]:
    return ci.creation_order(item, "id")


def _backfill_bound(ctx: CollectContext) -> datetime:
    return ctx.now - timedelta(days=float(ctx.option("backfill_days", DEFAULT_BACKFILL_DAYS)))


def _recheck(ctx: CollectContext, api: str, repo: str, wf: dict, key: str) -> Iterator[Event]:
    """Re-read one run that was in progress; drop it when gone upstream."""
    pending = ctx.state["pending"]
    try:
        run = ctx.client().get_json(f"{api}/repos/{repo}/actions/runs/{key}")
    except FatalHTTPError as exc:
        if not _is_404(exc):
            raise
        pending.pop(key, None)
        ctx.skip(f"run {key}", "was in progress, now HTTP 404 (deleted upstream)")
        return
    if run is None:  # 304: unchanged since the last look, still in progress
        return
    if not isinstance(run, Mapping):
        ctx.skip(
            f"run {key}",
            f"re-check answered a JSON {type(run).__name__}, not a run object; still pending",
        )
        return
    yield from _run_events(ctx, api, repo, wf, run)


def _runs(ctx: CollectContext, url: str) -> Iterator[dict]:
    """Runs of one workflow, oldest first: since ``ctx.since`` (window-split), else a bounded
    backfill. Each listing is read whole before its oldest run is yielded (GitHub lists newest
    first); what is held at once is one window (at most the 1,000 cap) or the backfill."""
    base: dict[str, Any] = {"per_page": 100}
    if ctx.option("branch"):
        base["branch"] = ctx.option("branch")
    if ctx.since is not None:
        yield from _window(ctx, url, base, ctx.since, None)
        return
    bound = _backfill_bound(ctx)
    newest: list[dict] = []
    oldest, total = None, 0
    for page in ctx.client().get_pages(url, base):
        total = _total(page)
        runs = _listed(ctx, url, page, "workflow_runs")
        newest.extend(runs)
        for run in runs:
            created = ci.parse_time(run.get("created_at"))
            oldest = created if oldest is None or (created and created < oldest) else oldest
        if not runs or (oldest is not None and oldest < bound):
            break  # read past the backfill bound (the whole page is kept: it was paid for)
    else:
        if "branch" in base and total > len(newest) and oldest is not None:
            # A filtered listing stopped at the cap before reaching the bound: the older rest
            # comes from windows, and goes first.
            yield from _window(ctx, url, base, bound, oldest)
    yield from sorted(newest, key=_sort_key)


def _window(
    ctx: CollectContext, url: str, base: dict, lo: datetime, hi: datetime | None
) -> Iterator[dict]:
    """Runs created in [lo, hi] (hi None = open-ended), oldest first, halving the window over
    the cap (the older half first)."""
    created = f">={ci.iso(lo)}" if hi is None else f"{ci.iso(lo)}..{ci.iso(hi)}"
    pages = ctx.client().get_pages(url, {**base, "created": created})
    first = next(pages, None)
    if first is None:
        return  # 304: nothing changed in this window
    total = _total(first)
    end = hi or ctx.now
    if total > LISTING_CAP and end - lo > timedelta(seconds=2):
        pages.close()
        middle = lo + (end - lo) / 2
        log.info(
            "%s: %s lists %d runs created %s (over the %d cap): splitting at %s",
            ctx.spec.id,
            url,
            total,
            created,
            LISTING_CAP,
            ci.iso(middle),
        )
        yield from _window(ctx, url, base, lo, middle)
        yield from _window(ctx, url, base, middle, end)
        return
    if total > LISTING_CAP:
        ctx.capped(
            "GitHub's listing cap",
            f"{total} runs created within {created}: only the first {LISTING_CAP} can be read",
        )
    runs = _listed(ctx, url, first, "workflow_runs")
    for page in pages:
        runs.extend(_listed(ctx, url, page, "workflow_runs"))
    yield from sorted(runs, key=_sort_key)


def _listed(ctx: CollectContext, url: str, page: Any, field: str) -> list[dict[str, Any]]:
    """The objects under ``field`` of one listing page; anything else is a logged skip."""
    if not isinstance(page, Mapping):
        ctx.skip(f"page of {url}", f"expected a JSON object, got {type(page).__name__}")
        return []
    return ci.objects(ctx, page.get(field) or [], f"{field} item of {url}")


def _total(page: Any) -> int:
    total = page.get("total_count") if isinstance(page, Mapping) else None
    return total if isinstance(total, int) else 0


def _run_events(
    ctx: CollectContext, api: str, repo: str, wf: dict, run: Mapping[str, Any]
) -> Iterator[Event]:
    """The run event and, once it concluded, its jobs' events; updates pending / done."""
    key = str(run.get("id"))
    created = ci.parse_time(run.get("created_at"))
    if not run.get("id") or created is None:
        ctx.skip(f"run {key}", "missing id or created_at")
        return
    pending, done = ctx.state["pending"], ctx.state["done"]
    listed = run.get("run_attempt")
    attempt = listed if isinstance(listed, int) else 1
    updated = run.get("updated_at")
    completed = run.get("status") == "completed"
    if completed and done.get(key, [None, None])[:2] == [attempt, updated]:
        pending.pop(key, None)
        return  # stored before, unchanged since
    event = run_event(run, wf, ctx)
    if not completed:
        yield event
        pending[key] = {"workflow": wf["file"], "created_at": run.get("created_at")}
        return
    jobs_url = f"{api}/repos/{repo}/actions/runs/{key}/jobs"
    jobs = list(_jobs(ctx, jobs_url, "latest"))
    latest = {job.get("id") for job in jobs}
    events = [job_event(job, run, wf, ctx, superseded=False) for job in jobs]
    if attempt > 1:
        events += [
            job_event(job, run, wf, ctx, superseded=True)
            for job in _jobs(ctx, jobs_url, "all")
            if job.get("id") not in latest
        ]
    kept = [e for e in events if e is not None]
    regime = ci.run_regime(event.regime, [e.regime for e in kept])
    yield event if regime == event.regime else dataclasses.replace(event, regime=regime)
    yield from kept
    pending.pop(key, None)
    done[key] = [attempt, updated, run.get("created_at")]


def _jobs(ctx: CollectContext, url: str, which: str) -> Iterator[Mapping[str, Any]]:
    # Not conditional: only runs not stored before get here, and a 304 would drop their jobs.
    for page in ctx.client().get_pages(url, {"filter": which, "per_page": 100}, conditional=False):
        yield from _listed(ctx, url, page, "jobs")


def _prune_done(ctx: CollectContext, done: dict) -> None:
    """Forget concluded runs older than the look-back window."""
    keep_from = ctx.since or (
        ctx.now - timedelta(days=float(ctx.option("backfill_days", DEFAULT_BACKFILL_DAYS)))
    )
    for key, (_attempt, _updated, created) in list(done.items()):
        when = ci.parse_time(created)
        if when is not None and when < keep_from - timedelta(days=1):
            del done[key]


def _is_404(exc: FatalHTTPError) -> bool:
    return getattr(exc, "status", None) == 404 or "HTTP 404" in str(exc)
