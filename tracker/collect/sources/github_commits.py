"""Commits of a GitHub repository that touch given paths -> one `commit` event per (path, commit).

For repositories that publish no releases (deepseek-ai/FlashMLA, DeepGEMM) or whose tags sit on
release branches (ROCm/aiter): a kernel there is dated by the commit on the default branch that
adds its file or merges its pull request (docs/methodology.md, the kernel layer).

Source keys: ``repo``, ``paths`` (the paths to follow: a file or a folder); optional ``since``
(YYYY-MM-DD, the first day read; default: the whole history), ``api_url`` (default
https://api.github.com).

Contract:
- ``GET {api_url}/repos/{repo}/commits?path=<path>&per_page=100[&since=<since>T00:00:00Z]`` per
  path, Link pagination through ``ctx.http.get_pages``. The URL does not move with the cursor
  (``since`` is the option, not the last run), so the first page's validators stay valid and a
  re-run that finds nothing new gets a 304 for each path.
- GitHub lists the default branch's commits newest first: paging stops at the first page that
  holds a commit already read for that path (``ctx.state["newest"]``: path -> newest sha).
- Each event: ``external_id`` ``commit:<path>:<sha>``, dated by the committer date (when the
  commit reached the branch: a squash merge's date), title the message's first line, URL the
  commit's ``html_url``, attrs ``sha``, ``path``, ``pr`` (the pull request number a merge
  title ends with, "(#161)"; absent when none), ``author_date`` and ``since`` (the window's
  first day: evidence before it was not read).
- An item without a sha or a committer date is skipped (``ctx.skip``), the page goes on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tracker.collect.sources import CollectContext, load_json
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.errors import FatalHTTPError
from tracker.events import Event, parse_time

KIND = "github_commits"
AUTH = "github"
TITLE_LIMIT = 300

# "Fp8 blockscale gemm (#156)": GitHub's squash-merge title names the pull request at its end.
_PR = re.compile(r"\(#(\d+)\)\s*$")


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


def commit_event(item: Any, path: str, ctx: CollectContext) -> Event | None:
    """The event of one item of the commits listing; None (and a counted skip) when it has no
    sha or no committer date."""
    if not isinstance(item, dict):
        ctx.skip(f"commit of {path!r}", f"not a commit object: {item!r:.60}")
        return None
    sha = str(item.get("sha") or "")
    commit = _dict(item.get("commit"))
    committer, author = _dict(commit.get("committer")), _dict(commit.get("author"))
    when = parse_time(committer.get("date"))
    if not sha or when is None:
        ctx.skip(f"commit {sha[:12] or '?'} of {path!r}", "no sha or no committer date")
        return None
    title = str(commit.get("message") or "").split("\n", 1)[0].strip()[:TITLE_LIMIT]
    attrs: dict[str, Any] = {"sha": sha, "path": path, "author_date": author.get("date")}
    found = _PR.search(title)
    if found:
        attrs["pr"] = int(found.group(1))
    if ctx.option("since"):
        attrs["since"] = str(ctx.option("since"))
    repo = ctx.option("repo", "")
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="commit",
        external_id=f"commit:{path}:{sha}",
        occurred_at=when,
        title=title or sha[:12],
        url=str(item.get("html_url") or f"https://github.com/{repo}/commit/{sha}"),
        regime=ctx.spec.regime,
        attrs=attrs,
    )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of a local JSON array in the commits listing's shape, read as commits of the
    source's first path."""
    items = load_json(content, ctx, "commits file")
    paths = list(ctx.option("paths") or [""])
    for item in items:
        with ctx.item("commit"):
            event = commit_event(item, paths[0], ctx)
            if event is not None:
                yield event


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Each path's commits, newest first, down to the first one read before."""
    repo = ctx.option("repo")
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    since = ctx.option("since")
    newest: dict[str, str] = dict(ctx.state.get("newest") or {})
    url = f"{api}/repos/{repo}/commits"
    for path in ctx.option("paths") or []:
        params: dict[str, Any] = {"path": path, "per_page": 100}
        if since:
            params["since"] = f"{since}T00:00:00Z"
        known = newest.get(path)
        first: str | None = None
        for page in ctx.client().get_pages(url, params):
            if not isinstance(page, list):
                raise FatalHTTPError(f"{ctx.spec.id}: {url}?path={path}: expected a JSON array")
            reached = False
            for item in page:
                event = None
                with ctx.item(f"commit of {path!r}"):
                    event = commit_event(item, path, ctx)
                if event is None:
                    continue
                first = first or event.attrs["sha"]
                if event.attrs["sha"] == known:
                    reached = True
                    break
                yield event
            if reached:
                break
        if first:
            newest[path] = first
    ctx.state["newest"] = newest
