"""The comments of a ``github_issues`` source's issues (``comments: true``) -> `comment` events.

What the first-response measure needs of a comment and nothing more (docs/methodology.md,
"Time to first response"): the issue's number, the commenter's login, account type and
association, the time and the URL. No body.

Which listing (both through ``ctx.http``, Link-paged, bounded by the source's page cap):

- An incremental run (a window: ``ctx.since``) reads the repository-level listing
  ``GET /repos/{repo}/issues/comments?since=<window>&sort=created&direction=asc&per_page=100``
  once, whatever number of issues changed, and keeps the comments of the issues this run listed.
  A comment added since the window bumps its issue's ``updated_at``, so its issue is among them.
  Its first page is a conditional request: unchanged, it is answered 304.
- A backfill (no window), or a repository-level listing GitHub refuses (not a rate limit), reads
  the per-issue listing ``GET /repos/{repo}/issues/{number}/comments?per_page=100`` of each issue
  listed whose ``comments`` count is not 0: a backfill of the whole repository-level listing
  would read every comment of every pull request ever made.
- A run whose issue listing changed nothing asks no comments: after a 304 no issue is listed,
  and an issue listed again with the ``updated_at`` its comments were read at (the inclusive
  ``since``, the look-back) is not read again. State ``comments_read`` maps such issues to that
  ``updated_at``, kept for those the next run's window can list again (bounded).

Order: an issue is yielded before its comments. A comment's cursor time (its creation) is at
or before its issue's ``updated_at``, so the runner's cursor never passes an issue whose
comments were not read. In an incremental run the issues are held until the comments are in
(the page cap bounds them): a run stopped while reading comments keeps none of them, and the
next run reads the same window again. A comment listing stopped by its page cap (or a paging
loop) is not such a stop: the comments read are kept, the bound is said once
(``CollectContext.capped``), the source is partial, and the issue counts as read, so a listing
that never ends cannot hold the source at that issue run after run.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from tracker.collect.ci import iso, parse_time
from tracker.collect.sources import CollectContext
from tracker.errors import FatalHTTPError, ListingStopped, RateLimited
from tracker.events import Event

PER_PAGE = 100


def with_comments(ctx: CollectContext, repo_url: str, issues: Iterable[Event]) -> Iterator[Event]:
    """`issues` (the source's issue events, in listing order), each followed by its comments."""
    read: dict[str, str] = dict(ctx.state.get("comments_read") or {})
    done: dict[str, str] = {}  # read in this run
    if ctx.since is None:
        for issue in issues:
            yield issue
            if _wanted(issue, read):
                yield from _per_issue(ctx, repo_url, issue)
                done[str(issue.attrs["number"])] = _stamp(issue)
        _remember(ctx, read, done)
        return
    held = list(issues)
    wanted = {issue.attrs["number"]: issue for issue in held if _wanted(issue, read)}
    found: dict[int, list[Event]] = defaultdict(list)
    if wanted:
        try:
            for number, comment in _repository_level(ctx, repo_url, wanted):
                found[number].append(comment)
        except RateLimited:
            raise
        except FatalHTTPError as exc:
            ctx.warnings.append(f"repository-level comments refused ({exc}): read per issue")
            found = defaultdict(list)
            for number, issue in wanted.items():
                found[number] = list(_per_issue(ctx, repo_url, issue))
    for issue in held:
        yield issue
        yield from found.get(issue.attrs["number"], [])
    _remember(ctx, read, {str(n): _stamp(issue) for n, issue in wanted.items()})


def _wanted(issue: Event, read: dict[str, str]) -> bool:
    """Issues (not pull requests) whose listing shows comments (an unreadable count is read)
    and whose comments were not read at this ``updated_at`` before."""
    if issue.kind != "issue" or issue.attrs.get("pull"):
        return False
    if read.get(str(issue.attrs["number"])) == _stamp(issue):
        return False
    count = issue.attrs.get("comments")
    return not isinstance(count, int) or count > 0


def _stamp(issue: Event) -> str:
    return iso(issue.cursor_time)


def _remember(ctx: CollectContext, read: dict[str, str], done: dict[str, str]) -> None:
    """Save which issues' comments are read, at what ``updated_at``: only those the next run's
    window (the newest update less the look-back, a day to spare) can list again."""
    merged = {**read, **done}
    if not merged:
        return
    newest = max(parse_time(v) or ctx.now for v in merged.values())
    floor = iso(newest - timedelta(days=ctx.spec.lookback_days + 1))
    ctx.state["comments_read"] = {n: v for n, v in merged.items() if v >= floor}


def _repository_level(
    ctx: CollectContext, repo_url: str, wanted: dict[int, Event]
) -> Iterator[tuple[int, Event]]:
    assert ctx.since is not None
    params = {
        "since": iso(ctx.since),
        "sort": "created",
        "direction": "asc",
        "per_page": int(ctx.option("per_page", PER_PAGE)),
    }
    try:
        for page in ctx.client().get_pages(f"{repo_url}/issues/comments", params):
            for item in _items(ctx, page, "repository comments page"):
                number = _issue_number(item)
                if number in wanted:
                    comment = _parse(ctx, item, wanted[number])
                    if comment is not None:
                        yield number, comment
    except ListingStopped:
        return  # a bound (said once, limits.Caps): the comments read so far are kept


def _per_issue(ctx: CollectContext, repo_url: str, issue: Event) -> Iterator[Event]:
    number = issue.attrs["number"]
    params = {"per_page": int(ctx.option("per_page", PER_PAGE))}
    try:
        for page in ctx.client().get_pages(f"{repo_url}/issues/{number}/comments", params):
            for item in _items(ctx, page, f"comments page of issue #{number}"):
                comment = _parse(ctx, item, issue)
                if comment is not None:
                    yield comment
    except ListingStopped:
        # A listing that never ends (or a page cap): said once (limits.Caps), the source is
        # partial, and this issue counts as read so that the next issue, and the next run,
        # go on past it.
        return


def _items(ctx: CollectContext, page: Any, what: str) -> list[dict]:
    if not isinstance(page, list):
        raise FatalHTTPError(f"{ctx.spec.id}: {what} is a JSON {type(page).__name__}, not a list")
    items = []
    for position, item in enumerate(page):
        if isinstance(item, dict):
            items.append(item)
        else:
            ctx.skip(
                f"comment at position {position} of {what}", f"not a JSON object: {item!r:.60}"
            )
    return items


def _issue_number(item: dict) -> int | None:
    """The number at the end of the comment's ``issue_url`` (.../issues/<number>)."""
    tail = str(item.get("issue_url") or "").rstrip("/").rsplit("/", 1)[-1]
    return int(tail) if tail.isdigit() else None


def _parse(ctx: CollectContext, item: dict, issue: Event) -> Event | None:
    """One comment -> Event of kind `comment`; None (skipped, named) when malformed."""
    number = issue.attrs["number"]
    ident, created = item.get("id"), parse_time(item.get("created_at"))
    user = item.get("user")
    login = user.get("login") if isinstance(user, dict) else None
    if not isinstance(ident, int) or created is None or not isinstance(login, str) or not login:
        ctx.skip(f"comment {ident!r:.40} on #{number}", "missing id, created_at or user.login")
        return None
    association = item.get("author_association")
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="comment",
        external_id=f"comment:{ident}",
        occurred_at=created,
        title=f"comment on #{number}",
        url=str(item.get("html_url") or issue.url),
        regime=ctx.spec.regime,
        attrs={
            "issue": number,
            "author": login,
            "author_type": str(user.get("type") or "") if isinstance(user, dict) else "",
            "association": association if isinstance(association, str) else None,
        },
    )
