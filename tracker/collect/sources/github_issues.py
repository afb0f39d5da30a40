"""GitHub issues of one repository -> `issue` events.

Source keys: ``repo`` ("owner/name"); optional ``api_url`` (default https://api.github.com),
``labels`` (list: issues carrying ANY of them), ``exclude_labels`` (list: drop issues carrying
any of them, e.g. those another, regime-specific source already collects), ``include_pulls``
(default false), ``body_chars`` (default 2000), ``comments`` (default false: true also
collects the comments of the source's issues as `comment` events, _issue_comments.py).

Contract:
- ``GET {api_url}/repos/{repo}/issues?state=all&sort=updated&direction=asc&per_page=100
  [&since=<ctx.since>][&labels=<one label>]``, paged by keyset (the next ``since`` is the last
  ``updated_at`` read; tracker/collect/keyset.py), conditional requests through ``ctx.http``.
  Not the search API: its results stop at 1,000. ``per_page`` is a source key (default 100).
- State: ``resume`` maps each listing (its label, "" for none) to the ``since=`` of the page its
  last walk ended on. The next run asks that page first when it covers the run's window (cursor
  less ``lookback_days``) and its validators are kept: a 304 there means nothing changed, so
  a run after a backfill whose last page was a keyset step costs one request, not a second
  pass over that step.
- GitHub's ``labels=a,b`` means "a AND b", so "any of several labels" is one listing per label;
  the listings are merged lazily by ``updated_at`` so events come out in ascending cursor order
  (``ASCENDING = True``: after a rate limit the runner keeps what came before). An issue seen in
  two listings is yielded once (again only if a later listing shows a newer ``updated_at``).
- The issues endpoint also returns pull requests; they are dropped unless ``include_pulls: true``.
  An item is a pull request when its ``pull_request`` object carries a link (``html_url``, or
  ``url`` when that key is absent): older API responses put ``"pull_request": {"html_url": null,
  ...}`` on every plain issue, so the mere key is no test (``is_pull_request``).
- Event: external id ``issue:<number>`` (``pull:<number>`` for pull requests), occurred_at =
  created_at, updated_at, title, body = the first ``body_chars`` characters (a null body is ""),
  labels, state (open / closed), ended_at = closed_at, url = html_url, regime = the source's
  regime when sources.yaml sets one (regime-specific labels such as "module: rocm"), else None
  so the tagger decides. attrs: number, comments, author, state_reason, pull.
- A malformed item is skipped with ``ctx.skip`` naming it; the rest go on.
"""

from __future__ import annotations

import heapq
import logging
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tracker.collect.ci import iso, parse_time
from tracker.collect.keyset import UNSET, KeysetListing, resume_since
from tracker.collect.sources import CollectContext, load_json
from tracker.errors import FatalHTTPError
from tracker.events import Event
from tracker.names import GITHUB_API
from tracker.progress import Progress

KIND = "github_issues"
AUTH = "github"
ASCENDING = True

DEFAULT_API = GITHUB_API
DEFAULT_BODY_CHARS = 2000

log = logging.getLogger("tracker.collect.github_issues")


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Yield the repository's issues updated since ``ctx.since``, oldest update first (with
    ``comments: true``, each followed by its comments)."""
    repo_url = f"{ctx.option('api_url', DEFAULT_API).rstrip('/')}/repos/{ctx.option('repo')}"
    if ctx.option("comments", False):
        from tracker.collect.sources._issue_comments import with_comments

        yield from with_comments(ctx, repo_url, _issues(ctx, f"{repo_url}/issues"))
    else:
        yield from _issues(ctx, f"{repo_url}/issues")


def _issues(ctx: CollectContext, url: str) -> Iterator[Event]:
    """The issue events of the source's listings, merged by ``updated_at``."""
    base: dict[str, Any] = {
        "state": "all",
        "sort": "updated",
        "direction": "asc",
        "per_page": int(ctx.option("per_page", 100)),
    }
    # Where each listing's walk ended last time (keyset.resume_since); kept again only when
    # every listing was read to its end, so a run stopped part-way resumes from its window.
    saved = ctx.state.pop("resume", None) or {}
    walks = [
        _walk(ctx, url, {**base, "labels": label} if label else dict(base), saved.get(label, UNSET))
        for label in _as_list(ctx.option("labels")) or [""]
    ]
    # heapq.merge pulls one page at a time from each listing, keeping the global order.
    merged = heapq.merge(*(_listing(ctx, walk) for walk in walks), key=lambda pair: pair[0])
    seen: dict[Any, datetime] = {}  # by issue number, as listed (parse_item checks it)
    reading = Reading.of(ctx)
    with Progress(f"{ctx.spec.id}: issues", unit="issue") as progress:
        for updated, item in merged:
            number = item.get("number")
            if number in seen and seen[number] >= updated:
                continue  # the same issue from another label's listing
            seen[number] = updated
            event = None
            with ctx.item(f"issue #{number}"):
                event = parse_item(item, ctx, updated, reading)
            if event is not None:
                progress.update()
                yield event
    ends = {walk.params.get("labels", ""): _resumable(walk, ctx.since) for walk in walks}
    ctx.state["resume"] = {label: end for label, end in ends.items() if end is not UNSET}


def _walk(ctx: CollectContext, url: str, params: dict, saved: Any) -> KeysetListing:
    """The keyset walk of one listing (tracker/collect/keyset.py), from where the last run's
    walk ended when that page covers this run's window, else from ``ctx.since``."""
    client = ctx.client()
    start = resume_since(client, url, params, saved, ctx.since)
    if start is UNSET and ctx.since is not None:
        params["since"] = iso(ctx.since)
    elif start is not UNSET and start is not None:
        params["since"] = start
    return KeysetListing(
        client,
        url,
        params,
        key=_updated,
        number=lambda item: item.get("number") if isinstance(item, dict) else None,
        skip=lambda item, reason: ctx.skip(f"issue {_number(item)}", reason),
        what=f"{url} (labels={params.get('labels', '')})",
        noun="issue",
    )


def _listing(ctx: CollectContext, walk: KeysetListing) -> Iterator[tuple[datetime, dict]]:
    """(updated_at, item) of one listing, ascending (KeysetListing).

    GitHub answers a label that does not exist (renamed upstream) with an empty list, not an
    error: when a label's listing comes back empty (not 304), the label is looked up once
    (a conditional request, free on later nights) and a missing one is logged as a skip."""
    yield from walk
    if walk.first_page_empty and walk.requests == 1 and walk.params.get("labels"):
        _check_label(ctx, walk.url, walk.params["labels"])


def _resumable(walk: KeysetListing, window: datetime | None) -> Any:
    """Where the walk ended, as the next run's resume point, or UNSET. A run that resumed
    before its own window and found the listing changed keeps no point there: the next run
    starts at its window again, so the start never lags behind the cursor."""
    ended = walk.ended_since
    if ended is UNSET or walk.unchanged or window is None:
        return ended
    start = parse_time(ended) if ended is not None else None
    return ended if start is not None and start >= window else UNSET


def _updated(item: Any) -> datetime | None:
    return parse_time(item.get("updated_at")) if isinstance(item, dict) else None


def _check_label(ctx: CollectContext, issues_url: str, label: str) -> None:
    from urllib.parse import quote

    try:
        ctx.client().get(f"{issues_url.rsplit('/issues', 1)[0]}/labels/{quote(label, safe='')}")
    except FatalHTTPError as exc:
        if getattr(exc, "status", None) != 404:
            raise
        ctx.skip(
            f"label {label!r}",
            f"no such label in {ctx.option('repo')} (renamed upstream?): "
            "fix 'labels' in sources.yaml",
        )


def parse(content: bytes, ctx: CollectContext) -> Iterable[Event]:
    """Events of one saved page of the issues listing (a JSON list), no network."""
    page = load_json(content, ctx, "issues page")
    reading = Reading.of(ctx)
    events = []
    for position, item in enumerate(page):
        if not isinstance(item, dict):
            ctx.skip(f"issue at position {position}", f"not a JSON object: {item!r:.60}")
            continue
        with ctx.item(f"issue {_number(item)} at position {position}"):
            events.append(parse_item(item, ctx, reading=reading))
    return [e for e in events if e is not None]


@dataclass(frozen=True)
class Reading:
    """The source keys parse_item reads, looked up once per listing rather than per issue."""

    include_pulls: bool
    excluded: frozenset[str]  # exclude_labels
    body_chars: int

    @classmethod
    def of(cls, ctx: CollectContext) -> Reading:
        return cls(
            include_pulls=bool(ctx.option("include_pulls", False)),
            excluded=frozenset(_as_list(ctx.option("exclude_labels"))),
            body_chars=int(ctx.option("body_chars", DEFAULT_BODY_CHARS)),
        )


def parse_item(
    item: dict,
    ctx: CollectContext,
    updated: datetime | None = None,
    reading: Reading | None = None,
) -> Event | None:
    """One issue (or pull request, when asked for) -> Event; None when dropped or malformed.
    `updated`: its updated_at when the caller has read it already; `reading`: the source's
    keys (Reading.of(ctx) when not given)."""
    reading = reading or Reading.of(ctx)
    number = item.get("number")
    is_pull = is_pull_request(item)
    if is_pull and not reading.include_pulls:
        return None
    labels = tuple(_label_names(item.get("labels")))
    if reading.excluded and reading.excluded.intersection(labels):
        return None
    created = parse_time(item.get("created_at"))
    if not isinstance(number, int) or created is None or not item.get("title"):
        ctx.skip(f"issue {_number(item)}", "missing number, created_at or title")
        return None
    body = item.get("body") or ""  # GitHub sends null for an empty description
    body = body if isinstance(body, str) else ""
    user = item.get("user")
    user = user if isinstance(user, dict) else {}
    spec = ctx.spec
    return Event(
        source_id=spec.id,
        project=spec.project,
        kind="issue",
        external_id=f"{'pull' if is_pull else 'issue'}:{number}",
        occurred_at=created,
        title=str(item["title"]).strip(),
        body=body[: reading.body_chars],
        url=item.get("html_url") or "",
        regime=spec.regime,
        labels=labels,
        state=item.get("state"),
        ended_at=parse_time(item.get("closed_at")),
        updated_at=updated or parse_time(item.get("updated_at")) or created,
        attrs={
            "number": number,
            "comments": item.get("comments"),
            "author": user.get("login"),
            "state_reason": item.get("state_reason"),
            "pull": is_pull,
        },
    )


def is_pull_request(item: dict) -> bool:
    """Whether an issues-listing item is a pull request: its ``pull_request`` object links one.
    Today plain issues have no ``pull_request`` key; older responses gave every issue one whose
    links are all null."""
    pull = item.get("pull_request")
    if not isinstance(pull, dict):
        return False
    link = pull.get("html_url") if "html_url" in pull else pull.get("url")
    return bool(link)


def _label_names(labels: Any) -> Iterator[str]:
    for label in labels or ():
        name = label.get("name") if isinstance(label, dict) else label
        if name:
            yield str(name)


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def _number(item: Any) -> str:
    return f"#{item.get('number')}" if isinstance(item, dict) else repr(item)[:40]
