"""For each due source: load state -> collect -> save events, state and run row in one transaction.

A failing source rolls back only itself and becomes a value in the summary; the others go on.
An event the store cannot keep is a skipped item, not a failed source; a failed save is still
recorded (status and run row) in a transaction of its own.
The cursor comes from the saved events' own timestamps and never moves past the run's start.

A source stopped after it yielded events (an HTTP error on a later page, a rate limit, a listing
bound, its time budget) is `partial`: what it yielded is saved. An ASCENDING collector's cursor
and state move to what was saved (the next run resumes there); any other collector's cursor,
state and vanished marks stay as they were, so the next run reads the listing again from the
same place. Its HTTP validators are never kept, so that re-read is not answered by a 304.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from pathlib import Path

from tracker.collect.cassettes import cassette, replay_snapshot
from tracker.collect.http import AUTH_ORIGINS, HttpClient
from tracker.collect.limits import DEFAULT_MAX_PAGES, Caps, Limits
from tracker.collect.sources import CollectContext, collector_for
from tracker.config import Config, SourceSpec
from tracker.errors import (
    OutOfTime,
    RateLimited,
    SourceError,
    SourceSkipped,
    StoreError,
)
from tracker.events import Event, InvalidEvent, clean_event, clean_text, now_utc
from tracker.store import Store

log = logging.getLogger("tracker.runner")


@dataclass
class SourceResult:
    """What one source's collection did; one `runs` row."""

    source_id: str
    status: str  # ok | partial | failed | skipped
    events_seen: int = 0
    events_new: int = 0
    items_skipped: int = 0
    vanished: int = 0
    requests: int = 0
    not_modified: int = 0
    rate_remaining: int | None = None
    error: str | None = None
    snapshot: date | None = None  # replay: the cassette's snapshot date (collect/cassettes.py)
    replay: str | None = None
    out_of_time: bool = False  # stopped by its time budget (time_budget_seconds)


@dataclass
class RunSummary:
    """All sources of one `collect` / `nightly` invocation."""

    batch: str
    results: list[SourceResult] = field(default_factory=list)
    # sources in sources.yaml, enabled or not: the report's data-quality section counts the
    # same ones, so the summary line names both numbers ("92 collected of 94 configured")
    configured: int | None = None

    @property
    def failed(self) -> list[SourceResult]:
        return [r for r in self.results if r.status in ("failed", "partial")]

    @property
    def exit_code(self) -> int:
        """0 when every source succeeded or was skipped on purpose, 3 when some failed."""
        return 3 if self.failed else 0

    def lines(self) -> list[str]:
        out = []
        for r in self.results:
            cost = f"{r.requests} req, {r.not_modified} not modified"
            # A replayed rate limit is the recorded header's, not this token's budget.
            if r.rate_remaining is not None and r.replay is None:
                cost += f", rate limit left {r.rate_remaining}"
            line = (
                f"{r.source_id:<28} {r.status:<8} {r.events_seen:>6} seen {r.events_new:>6} new"
                f"  {r.items_skipped} skipped  ({cost})"
            )
            if r.error:
                line += f"\n    {r.error}"
            out.append(line)
        total_req = sum(r.requests for r in self.results)
        total_304 = sum(r.not_modified for r in self.results)
        collected = f"{len(self.results)} sources"
        if self.configured is not None:
            collected = f"{len(self.results)} collected of {self.configured} configured sources"
        out.append(
            f"{collected}: {len(self.failed)} failed, "
            f"{sum(r.events_new for r in self.results)} new events, "
            f"{total_req} requests ({total_304} not modified)"
        )
        late = [r.source_id for r in self.results if r.out_of_time]
        if late:
            out.append(
                f"out of time: {', '.join(late)} (time_budget_seconds spent; what was read "
                "is saved, the rest on the next run)"
            )
        return out


def run_sources(
    config: Config,
    store: Store,
    *,
    only: list[str] | None = None,
    since: datetime | None = None,
    replay: str | Path | None = None,
    record: str | Path | None = None,
) -> RunSummary:
    """Collect every enabled source (or the ones named in `only`) and save each on its own."""
    specs = [config.source(s) for s in only] if only else [s for s in config.sources if s.enabled]
    summary = RunSummary(batch=uuid.uuid4().hex[:12], configured=len(config.sources))
    for spec in specs:
        result = run_source(
            spec, store, batch=summary.batch, since=since, replay=replay, record=record
        )
        summary.results.append(result)
    return summary


def run_source(
    spec: SourceSpec,
    store: Store,
    *,
    batch: str,
    since: datetime | None = None,
    replay: str | Path | None = None,
    record: str | Path | None = None,
) -> SourceResult:
    """Collect one source and save what it produced in one transaction."""
    with store.lock(f"source:{spec.id}") as acquired:
        if not acquired:
            if acquired.elsewhere:  # alive or dead there: say so, never skip in silence
                message = f"not collected: its lock is {acquired.describe()}; {acquired.advice()}"
                log.error("%s: %s", spec.id, message)
                return SourceResult(spec.id, "failed", error=message)
            message = "another run on this host is collecting this source right now; skipped"
            log.warning("%s: %s", spec.id, message)
            return SourceResult(spec.id, "skipped", error=message)
        return _collect_and_save(spec, store, batch, since, replay, record)


def _collect_and_save(
    spec: SourceSpec, store: Store, batch: str, since: datetime | None, replay, record
) -> SourceResult:
    started = now_utc()
    module = collector_for(spec.kind)
    state = store.load_source(spec.id)
    cursor_since = since
    if cursor_since is None and state.cursor is not None and not replay:
        cursor_since = state.cursor - timedelta(days=spec.lookback_days)
    # A replay is a fixed snapshot: it is re-read whole, without the cursor, the collector's
    # state or HTTP validators (their requests were never recorded), so replaying twice is
    # idempotent instead of asking the cassette for URLs it does not hold.
    auth = getattr(module, "AUTH", None)
    caps = Caps(spec.id)  # every bound that cuts this source short, said once (limits.Caps)
    http = HttpClient(
        auth=auth,
        validators=None if replay else state.validators,
        replaying=bool(replay),
        # The token goes to the API the source names (api_url) and nowhere else.
        auth_origin=spec.options.get("api_url") or AUTH_ORIGINS.get(auth or ""),
        limits=Limits.of(
            spec.max_pages,
            spec.max_body_mb,
            spec.time_budget_seconds,
            default_max_pages=getattr(module, "MAX_PAGES", DEFAULT_MAX_PAGES),
        ),
        caps=caps,
    )
    ctx = CollectContext(
        spec=spec,
        http=http,
        since=cursor_since,
        state={} if replay else dict(state.state),
        now=started,
        caps=caps,
    )
    collected: list[Event] = []  # cleaned for the store (events.clean_event) as they come
    unstorable: list[tuple[Event, InvalidEvent]] = []  # skipped if the run is kept
    status, error = "ok", None
    stopped: Exception | None = None
    try:
        with cassette(spec.id, replay, record):
            for item in module.collect(ctx):
                try:
                    collected.append(clean_event(item))
                except InvalidEvent as exc:
                    unstorable.append((item, exc))
    except SourceSkipped as exc:
        status, error = "skipped", str(exc)
        stopped = exc
        log.warning("%s: skipped: %s", spec.id, exc)
    except SourceError as exc:
        # Stopped part-way (a later page failed, a rate limit, a listing bound, the time
        # budget): what was read before is kept (see the module docstring).
        ascending = getattr(module, "ASCENDING", False)
        # An ascending collector's state (runs still pending) is kept after a rate limit even
        # when it had yielded nothing yet.
        read = len(collected) + len(unstorable)
        kept = read or (ascending and isinstance(exc, RateLimited))
        status = "partial" if kept else "failed"
        error, stopped = str(exc), exc
        if isinstance(exc, RateLimited):
            error = f"rate limited: {error}"
        if read:
            error += f" (the {read} events read before are saved)"
        log.error("%s: %s", spec.id, error)
    except Exception as exc:  # a collector bug or hostile input must not stop the other sources
        status, error = "failed", f"{type(exc).__name__}: {exc}"
        log.exception("%s: unexpected error", spec.id)
    finally:
        http.close()

    # A bound the collector went on past (files per page, comments of one issue): the run did
    # its work but not all of it. Partial, naming the bound; cursor and state move on, so a
    # listing that never ends cannot hold the source at the same place run after run.
    capped = status == "ok" and bool(caps)
    if capped:
        status, error = "partial", caps.summary()
    keep = status in ("ok", "partial")
    # Only events the store can keep reach the upsert: one bad item is a skip, not the source.
    if keep:
        for item, problem in unstorable:
            ctx.skip(f"{item.kind} {item.external_id!r:.100}", str(problem))
    else:
        collected = []
    ctx.summarise_skips()
    error = clean_text(error) if error else error  # quoted upstream text may hold a NUL
    result = SourceResult(
        spec.id,
        status,
        items_skipped=ctx.skipped,
        error=error,
        requests=http.stats.requests,
        not_modified=http.stats.not_modified,
        rate_remaining=http.stats.rate_remaining,
        snapshot=replay_snapshot(replay, spec.id) if replay else None,
        replay=str(replay) if replay else None,
        out_of_time=isinstance(stopped, OutOfTime),
    )
    finished = now_utc()
    values = {
        "last_run_at": started,
        "last_status": status,
        "last_error": error,
        "requests": result.requests,
        "not_modified": result.not_modified,
        "rate_remaining": result.rate_remaining,
    }
    # A partial run of a collector that is not ASCENDING leaves cursor and state as they were.
    moves = (
        status == "ok" or capped or (status == "partial" and getattr(module, "ASCENDING", False))
    )
    if moves:
        values["cursor"] = next_cursor(state.cursor, collected, started)
        values["state"] = ctx.state
    if status == "ok":
        values["last_success_at"] = finished
    # A run whose collector skipped something a later read of the same document could store
    # (a matrix column or notes whose release the history dates only later) does not save its
    # HTTP validators: a saved ETag would answer 304 to the unchanged document from then on,
    # so the item would never be read again. The next run re-reads the documents whole.
    validators = http.changed_validators if status == "ok" and not ctx.read_again else None
    try:
        with store.transaction() as conn:
            if keep:
                result.events_seen, result.events_new = store.upsert_events(
                    conn, collected, seen_at=started
                )
                if status == "ok":  # a listing read part-way does not show what is gone
                    result.vanished = store.mark_vanished(conn, spec.id, ctx.vanished, started)
            _save_run(store, conn, spec.id, batch, started, finished, result, values, validators)
    except StoreError:
        raise
    except Exception as exc:  # e.g. a value the database rejects: this source only
        log.exception("%s: could not save", spec.id)
        result.status = "failed"
        result.error = clean_text(f"save failed, no events, cursor or state written: {exc}")
        result.events_seen = result.events_new = 0
        # The rollback took the run row with it: record the failure on its own so that
        # `tracker status` shows it; cursor, collector state and validators stay as they were.
        failure = {
            key: values[key]
            for key in ("last_run_at", "requests", "not_modified", "rate_remaining")
        }
        failure.update(last_status="failed", last_error=result.error)
        try:
            with store.transaction() as conn:
                _save_run(store, conn, spec.id, batch, started, finished, result, failure)
        except StoreError:
            raise
        except Exception:
            log.exception("%s: could not record the failed run either", spec.id)
    return result


def _save_run(
    store: Store,
    conn,
    source_id: str,
    batch: str,
    started: datetime,
    finished: datetime,
    result: SourceResult,
    values: dict,
    validators: dict | None = None,
) -> None:
    """The source's state row (and validators) and its `runs` row, inside `conn`."""
    store.save_source(conn, source_id, values=values, validators=validators)
    store.record_run(
        conn,
        {
            "batch": batch,
            "source_id": source_id,
            "started_at": started,
            "finished_at": finished,
            "status": result.status,
            "events_seen": result.events_seen,
            "events_new": result.events_new,
            "items_skipped": result.items_skipped,
            "requests": result.requests,
            "not_modified": result.not_modified,
            "rate_remaining": result.rate_remaining,
            "error": result.error,
            "snapshot_date": result.snapshot,
            "replay": result.replay,
        },
    )


def next_cursor(
    previous: datetime | None, collected: list[Event], started: datetime
) -> datetime | None:
    """The newest event time saved, never past the run's start, never moving backwards."""
    times = [e.cursor_time for e in collected]
    candidate = min(max(times), started) if times else None
    if previous is None:
        return candidate
    return max(previous, candidate) if candidate else previous
