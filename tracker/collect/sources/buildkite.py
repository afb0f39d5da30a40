"""Buildkite builds of one pipeline and their jobs -> `ci_run` and `ci_job` events.

Source keys: ``org``, ``pipeline``; optional ``api_url`` (default https://api.buildkite.com),
``branch``, ``job_regimes`` (globs over the agent queue), ``per_page`` (default 100; builds carry
all their jobs, so a pipeline with hundreds of jobs per build may want fewer), ``backfill_days``
(default 30), ``pending_max_days`` (default 14). Token: TRACKER_BUILDKITE_TOKEN; without one the
source is skipped (``SourceSkipped``) with a message saying so.

Contract:
- ``GET {api_url}/v2/organizations/{org}/pipelines/{pipeline}/builds?include_retried_jobs=true
  &per_page=100[&branch=..][&created_from=<ctx.since>]``, first page conditional: with nothing
  new upstream the pipeline costs one 304. Without ``ctx.since`` the lower bound is
  ``backfill_days`` back. ``include_retried_jobs`` makes superseded attempts visible, so they can
  be stored as not counted instead of silently disappearing.
- Oldest first (``ASCENDING = True``): Buildkite lists newest first. When the first page is all
  there is, it is sorted and yielded. Otherwise the builds older than that page are read in
  bounded ``created_from`` / ``created_to`` windows (``created_to`` is exclusive), oldest window
  first, each read whole and sorted by ``created_at`` before it is yielded; the first page comes
  last. A window spans ``WINDOW_PAGES`` times the time the first page covered (between 1 hour
  and 7 days), so it holds a few pages of builds at a time. Every event of a build (build and
  jobs) has the build's ``created_at`` as ``updated_at``, the time the runner's cursor follows
  (the listing is filtered on creation time), so what was yielded before a rate limit never
  puts the cursor past a build not yet yielded; ``ended_at`` keeps when it finished.
- Build -> ``ci_run`` ``build:<number>``: regime = the source's, state = build state, outcome by
  tracker.collect.ci.run_outcome. A build none of whose command jobs ran on a GPU regime
  (every job maps to ``none``, e.g. only the pipeline bootstrap on a CPU queue, or no command
  job at all) is no run of any GPU regime: its regime is ``none`` (tracker.collect.ci.run_regime).
- Trigger: ``attrs.trigger`` of the build and of each of its jobs is the build's ``source``
  (schedule, webhook, api, ui, trigger_job), Buildkite's own word; the source key ``trigger``
  (e.g. ``[schedule]``) selects which of them make the headline pass rate
  (tracker.measure.ci.rates), it changes nothing collected.
- Builds still running are remembered in ``ctx.state["pending"]`` and re-read by number
  (``GET .../builds/{number}``) on later collections until they finish: those created
  before the listing's lower bound first, those the listing did not show after it
  (they stay in the state until they finish, so the cursor never has to cover them). Builds
  running for longer than ``pending_max_days`` are dropped before the re-checks; a re-check that
  fails (other than a rate limit) is a skip and the build stays pending
  (tracker.collect.ci.recheck); a build deleted upstream (404) is a skip and forgotten.
- A listed build or job that is not a JSON object, or a build without a numeric ``number`` or a
  ``created_at``, is a skip; the other builds go on.
- Job -> ``ci_job`` ``job:<number>:<job uuid>``, only for command jobs (waiter, block and trigger
  steps run nothing). A soft-failed job is failed; a job with ``retried`` / ``retried_in_job_id``
  is superseded (outcome None, ``attrs.superseded``); its retry is a job of its own. Regime: the
  first ``job_regimes`` glob matching the agent queue (``agent_query_rules`` "queue=...",
  "default" when none), else the source's regime.
- A build with no command jobs still counts as a run, of regime ``none``; it is logged.
- ``parse(content, ctx)`` turns a saved builds listing (JSON list) or one build object into the
  same events with no network (used by tests on the real vLLM builds).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from tracker.collect import ci
from tracker.collect.http import parse_json
from tracker.collect.sources import CollectContext, load_json
from tracker.errors import FatalHTTPError, SourceSkipped
from tracker.events import Event
from tracker.progress import Progress

KIND = "buildkite"
AUTH = "buildkite"

DEFAULT_API = "https://api.buildkite.com"
DEFAULT_BACKFILL_DAYS = 30
ASCENDING = True  # builds are yielded oldest first: the runner keeps them on a rate limit
WINDOW_PAGES = 4  # a window spans this many times what the first page covered
MIN_WINDOW, MAX_WINDOW = timedelta(hours=1), timedelta(days=7)

log = logging.getLogger("tracker.collect.buildkite")


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Yield build and job events since ``ctx.since``, oldest build first (see the contract)."""
    if not ctx.client().authenticated:
        raise SourceSkipped(
            "the Buildkite REST API needs a token even for public pipelines: "
            "set TRACKER_BUILDKITE_TOKEN (read_builds scope) to collect "
            f"{ctx.option('org')}/{ctx.option('pipeline')}"
        )
    url = _builds_url(ctx)
    pending: dict[str, dict] = ctx.state.setdefault("pending", {})
    params: dict[str, Any] = {
        "include_retried_jobs": "true",
        "per_page": int(ctx.option("per_page", 100)),
    }
    if ctx.option("branch"):
        params["branch"] = ctx.option("branch")
    lowest = ctx.since or ctx.now - timedelta(
        days=float(ctx.option("backfill_days", DEFAULT_BACKFILL_DAYS))
    )
    seen: set[str] = set()
    ci.prune_pending(ctx, pending, "build")
    with Progress(f"{ctx.spec.id}: builds", unit="build") as progress:
        # Running builds older than anything the listing can show: re-read first, in order.
        early = [n for n, info in pending.items() if (ci.created_time(info) or lowest) < lowest]
        for number in sorted(early, key=lambda n: (ci.creation_order(pending[n], ""), int(n))):
            seen.add(number)
            yield from ci.recheck(ctx, f"build #{number}", _recheck(ctx, url, number))
        for build in _builds(ctx, url, params, lowest):
            number = str(build.get("number"))
            if number in seen:
                continue  # window boundaries may overlap by a second
            seen.add(number)
            progress.update()
            yield from build_events(build, ctx)
        # Running builds the listing did not show (a 304): tracked by number in the state.
        for number in sorted(set(pending) - seen, key=int):
            yield from ci.recheck(ctx, f"build #{number}", _recheck(ctx, url, number))


def _builds(ctx: CollectContext, url: str, params: dict, lowest: datetime) -> Iterator[dict]:
    """Builds created since ``lowest`` (and the whole first page), oldest first."""
    first_params = dict(params)
    if ctx.since is not None:
        first_params["created_from"] = ci.iso(ctx.since)
    response = ctx.client().get(url, first_params, accept="application/json")
    if response is None:
        return  # 304: nothing changed since the last look
    first = _page_builds(ctx, url, parse_json(response))
    top = min(filter(None, map(ci.created_time, first)), default=None)
    if response.links.get("next") and top is not None:
        span = min(max((ctx.now - top) * WINDOW_PAGES, MIN_WINDOW), MAX_WINDOW)
        start, end = lowest, top + timedelta(seconds=1)  # ci.iso drops the milliseconds
        while start < end:
            stop = min(start + span, end)
            window: list[dict] = []
            for page in ctx.client().get_pages(
                url, {**params, "created_from": ci.iso(start), "created_to": ci.iso(stop)}
            ):
                window.extend(_page_builds(ctx, url, page))
            yield from sorted(window, key=_sort_key)
            start = stop
    yield from sorted(first, key=_sort_key)


def _page_builds(ctx: CollectContext, url: str, page: Any) -> list[dict]:
    return ci.objects(ctx, page, f"build listed on {url}")


def _sort_key(item: Mapping[str, Any]) -> tuple[datetime, int]:
    return ci.creation_order(item, "number")


def _builds_url(ctx: CollectContext) -> str:
    api = ctx.option("api_url", DEFAULT_API).rstrip("/")
    return f"{api}/v2/organizations/{ctx.option('org')}/pipelines/{ctx.option('pipeline')}/builds"


def _recheck(ctx: CollectContext, url: str, number: str) -> Iterator[Event]:
    try:
        build = ctx.client().get_json(f"{url}/{number}", {"include_retried_jobs": "true"})
    except FatalHTTPError as exc:
        if "HTTP 404" not in str(exc):
            raise
        ctx.state["pending"].pop(number, None)
        ctx.skip(f"build #{number}", "was running, now HTTP 404 (deleted upstream)")
        return
    if build is None:  # 304: unchanged, still running
        return
    if not isinstance(build, Mapping):
        ctx.skip(
            f"build #{number}",
            f"re-check answered a JSON {type(build).__name__}, not a build object; still pending",
        )
        return
    yield from build_events(build, ctx)


def parse(content: bytes, ctx: CollectContext) -> Iterable[Event]:
    """Events of a saved builds listing (JSON list of builds) or of one build object."""
    data = load_json(content, ctx, "Buildkite builds document", (list, dict))
    builds = ci.objects(ctx, data if isinstance(data, list) else [data], "build in the document")
    ctx.state.setdefault("pending", {})
    return [e for build in builds for e in build_events(build, ctx)]


def build_events(build: Mapping[str, Any], ctx: CollectContext) -> Iterator[Event]:
    """The ci_run event of one build and a ci_job event per command job."""
    number = build.get("number")
    created = ci.parse_time(build.get("created_at"))
    if not isinstance(number, int) or created is None:
        ctx.skip(f"build {build.get('id')}", "missing number or created_at")
        return
    pending = ctx.state.setdefault("pending", {})
    state = build.get("state")
    where = f"{ctx.spec.id} build #{number}"
    finished = ci.parse_time(build.get("finished_at"))
    started = ci.parse_time(build.get("started_at"))
    jobs = ci.objects(ctx, build.get("jobs") or [], f"job of build #{number}")
    commands = [j for j in jobs if ci.counts_as_job(j.get("type"))]
    if ci.is_in_progress(state):
        pending[str(number)] = {"created_at": build.get("created_at")}
    else:
        pending.pop(str(number), None)
    patterns = ci.validate_job_regimes(ctx.option("job_regimes"), ctx.spec.id)
    job_regimes = [
        ci.job_regime(
            ci.queue_of(j.get("agent_query_rules")) or "default", patterns, ctx.spec.regime
        )
        for j in commands
    ]
    regime = ci.run_regime(ctx.spec.regime, job_regimes)
    if not commands:
        log.warning(
            "%s: build #%s (%s) has no command jobs: a run of no regime, with zero jobs",
            ctx.spec.id,
            number,
            state,
        )
    message = str(build.get("message") or "").strip().splitlines()
    pipeline = ctx.option("pipeline")
    yield Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="ci_run",
        external_id=f"build:{number}",
        occurred_at=finished or created,
        title=f"{pipeline} #{number}" + (f": {message[0]}" if message else ""),
        url=build.get("web_url") or "",
        regime=regime,
        state=state,
        outcome=ci.run_outcome(state, where=where),
        ended_at=finished,
        updated_at=created,  # the cursor follows creation time (see the contract)
        attrs={
            "pipeline": pipeline,
            "number": number,
            "build_id": build.get("id"),
            "branch": build.get("branch"),
            "commit": build.get("commit"),
            "source": build.get("source"),
            "trigger": ci.trigger_of(build.get("source")),
            "message": message[0] if message else "",
            "jobs": len(commands),
            "other_jobs": len(jobs) - len(commands),
            "duration_s": ci.duration_seconds(started, finished),
        },
    )
    for job in commands:
        event = job_event(job, build, ctx, patterns)
        if event is not None:
            yield event


def job_event(
    job: Mapping[str, Any], build: Mapping[str, Any], ctx: CollectContext, patterns: list
) -> Event | None:
    """One command job -> ci_job Event (None, with a logged skip, when malformed)."""
    number = build.get("number")
    if not job.get("id"):
        ctx.skip(f"job of build #{number}", "job without id")
        return None
    queue = ci.queue_of(job.get("agent_query_rules")) or "default"
    superseded = bool(job.get("retried") or job.get("retried_in_job_id"))
    soft_failed = bool(job.get("soft_failed"))
    state = job.get("state")
    started = ci.parse_time(job.get("started_at"))
    finished = ci.parse_time(job.get("finished_at"))
    occurred = (
        finished
        or started
        or ci.parse_time(job.get("created_at"))
        or ci.parse_time(build.get("created_at"))
    )
    if occurred is None:
        ctx.skip(f"job {job['id']} of build #{number}", "no readable timestamp")
        return None
    name = job.get("name") or job.get("step_key") or str(job["id"])
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="ci_job",
        external_id=f"job:{number}:{job['id']}",
        occurred_at=occurred,
        title=name,
        url=job.get("web_url") or "",
        # Queue only, not the name: "... CPU offload" on a GPU queue is still a GPU job.
        regime=ci.job_regime(queue, patterns, ctx.spec.regime),
        state=state,
        outcome=ci.job_outcome(
            state,
            soft_failed=soft_failed,
            superseded=superseded,
            where=f"{ctx.spec.id} build #{number} job {job['id']}",
        ),
        # The build's creation time: a job never moves the cursor past builds not yet yielded.
        ended_at=finished,
        updated_at=ci.parse_time(build.get("created_at")) or occurred,
        attrs={
            "name": name,
            "queue": queue,
            "soft_failed": soft_failed,
            "retried": bool(job.get("retried")),
            "superseded": superseded,
            "retried_in_job_id": job.get("retried_in_job_id"),
            "retry_type": job.get("retry_type"),
            "retries_count": job.get("retries_count"),
            "exit_status": job.get("exit_status"),
            "step_key": job.get("step_key"),
            "build_number": number,
            "trigger": ci.trigger_of(build.get("source")),
            "duration_s": ci.duration_seconds(started, finished),
        },
    )
