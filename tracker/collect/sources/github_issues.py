"""GitHub issues of one repository -> `issue` events.

Source keys: ``repo`` ("owner/name"); optional ``api_url`` (default https://api.github.com),
``labels`` (list: issues carrying ANY of them), ``exclude_labels`` (list: drop issues carrying
any of them, e.g. those another, regime-specific source already collects), ``include_pulls``
(default false), ``body_chars`` (default 2000).

Contract:
- ``GET {api_url}/repos/{repo}/issues?state=all&sort=updated&direction=asc&per_page=100
  [&since=<ctx.since>][&labels=<one label>]``, paged by keyset (the next ``since`` is the last
  ``updated_at`` read, see ``_listing``), conditional requests through ``ctx.http``. Not the
  search API: its results stop at 1,000. ``per_page`` is a source key (default 100).
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
from datetime import datetime
from typing import Any

from tracker.collect.ci import iso, parse_time
from tracker.collect.sources import CollectContext, load_json
from tracker.errors import FatalHTTPError
from tracker.progress import Progress
from tracker.records import Event

KIND = "github_issues"
AUTH = "github"
ASCENDING = True

DEFAULT_API = "https://api.github.com"
DEFAULT_BODY_CHARS = 2000

log = logging.getLogger("tracker.collect.github_issues")


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Yield the repository's issues updated since ``ctx.since``, oldest update first."""
    repo = ctx.option("repo")
    url = f"{ctx.option('api_url', DEFAULT_API).rstrip('/')}/repos/{repo}/issues"
    labels = _as_list(ctx.option("labels"))
    base: dict[str, Any] = {
        "state": "all",
        "sort": "updated",
        "direction": "asc",
        "per_page": int(ctx.option("per_page", 100)),
    }
    if ctx.since is not None:
        base["since"] = iso(ctx.since)
    listings = (
        [_listing(ctx, url, {**base, "labels": label}) for label in labels]
        if labels
        else [_listing(ctx, url, base)]
    )
    # heapq.merge pulls one page at a time from each listing, keeping the global order.
    merged = heapq.merge(*listings, key=lambda pair: pair[0])
    seen: dict[Any, datetime] = {}  # by issue number, as listed (parse_item checks it)
    with Progress(f"{ctx.spec.id}: issues", unit="issue") as progress:
        for updated, item in merged:
            number = item.get("number")
            if number in seen and seen[number] >= updated:
                continue  # the same issue from another label's listing
            seen[number] = updated
            event = None
            with ctx.item(f"issue {_number(item)}"):
                event = parse_item(item, ctx)
            if event is not None:
                progress.update()
                yield event


def _listing(ctx: CollectContext, url: str, params: dict) -> Iterator[tuple[datetime, dict]]:
    """(updated_at, item) of one listing, in the order GitHub returns them (ascending).

    Paged by keyset, not by page number: after a full page the next request starts at that
    page's last ``updated_at`` (``since=``, inclusive; items already yielded are dropped). With
    page numbers an issue updated during a long backfill moves to the end and shifts the next
    unread item onto the page already read, where nobody sees it. Only a page whose items all
    share the ``since`` timestamp (a bulk edit) steps on by page number.

    GitHub answers a label that does not exist (renamed upstream) with an empty list, not an
    error: when a label's listing comes back empty (not 304), the label is looked up once
    (a conditional request, free on later nights) and a missing one is logged as a skip."""
    params = dict(params)
    per_page = int(params["per_page"])
    yielded: set[tuple[Any, datetime]] = set()
    requests = 0
    # Bounds the keyset walk: page cap, a cursor asked for twice, a full page adding nothing.
    guard = ctx.client().listing(f"{url} (labels={params.get('labels', '')})")
    while True:
        guard.visit(f"since={params.get('since')} page={params.get('page', 1)}")
        # One page per request; get_pages keeps the validators of a short last page only.
        page = next(iter(ctx.client().get_pages(url, params)), None)
        requests += 1
        if page is None:
            return  # 304: as it was
        if not isinstance(page, list):
            # Not a skip: with several labels merged, the other listings' later items would move
            # the cursor past this one's unread items for good. The source stops here: what
            # was yielded before is saved and the cursor stays at it (heapq.merge asks a
            # listing for its next page only right after yielding its last item).
            raise FatalHTTPError(
                f"{url}: page {requests} is a JSON {type(page).__name__}, not a list of issues"
            )
        if requests == 1 and not page and params.get("labels"):
            _check_label(ctx, url, params["labels"])
        last, added = None, False
        for item in page:
            updated = parse_time(item.get("updated_at")) if isinstance(item, dict) else None
            if updated is None:
                ctx.skip(f"issue {_number(item)}", "no parseable updated_at")
                continue
            last = updated
            if (item.get("number"), updated) in yielded:
                continue  # the page boundary item, read again from ``since``
            yielded.add((item.get("number"), updated))
            added = True
            yield updated, item
        if len(page) < per_page:
            return
        if not added:
            guard.stop(f"page {requests} is full but holds no issue not read before")
        since = parse_time(params.get("since"))
        if last is None or (since is not None and last <= since):
            params["page"] = int(params.get("page", 1)) + 1  # one timestamp fills the page
        else:
            params["since"] = iso(last)
            params.pop("page", None)


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
    events = []
    for position, item in enumerate(page):
        if not isinstance(item, dict):
            ctx.skip(f"issue at position {position}", f"not a JSON object: {item!r:.60}")
            continue
        with ctx.item(f"issue {_number(item)} at position {position}"):
            events.append(parse_item(item, ctx))
    return [e for e in events if e is not None]


def parse_item(item: dict, ctx: CollectContext) -> Event | None:
    """One issue (or pull request, when asked for) -> Event; None when dropped or malformed."""
    number = item.get("number")
    is_pull = is_pull_request(item)
    if is_pull and not ctx.option("include_pulls", False):
        return None
    labels = tuple(_label_names(item.get("labels")))
    excluded = set(_as_list(ctx.option("exclude_labels")))
    if excluded and excluded.intersection(labels):
        return None
    created = parse_time(item.get("created_at"))
    if not isinstance(number, int) or created is None or not item.get("title"):
        ctx.skip(f"issue {_number(item)}", "missing number, created_at or title")
        return None
    body_chars = int(ctx.option("body_chars", DEFAULT_BODY_CHARS))
    body = item.get("body") or ""  # GitHub sends null for an empty description
    body = body if isinstance(body, str) else ""
    user = item.get("user")
    user = user if isinstance(user, dict) else {}
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="issue",
        external_id=f"{'pull' if is_pull else 'issue'}:{number}",
        occurred_at=created,
        title=str(item["title"]).strip(),
        body=body[:body_chars],
        url=item.get("html_url") or "",
        regime=ctx.spec.regime,
        labels=labels,
        state=item.get("state"),
        ended_at=parse_time(item.get("closed_at")),
        updated_at=parse_time(item.get("updated_at")) or created,
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
