"""Git tags of a GitHub repository -> `release` events dated by the tagged commit.

For repositories that tag without publishing GitHub Releases (pytorch/xla, vllm-neuron, ...).
Source keys: ``repo``; optional ``api_url`` (default https://api.github.com), ``tag_pattern``
(a glob such as "v*", or a regular expression when it starts with "^"), ``include_prereleases``
(default true; pre-releases such as "v2.9.0-rc1" are kept and marked), ``max_lookups`` (default
200: commit-date look-ups per run; the rest wait for the next run).

Contract:
- ``GET {api_url}/repos/{repo}/tags?per_page=100`` (all pages; the tags API is ordered by name,
  not date, so there is no early stop). A 304 on the first page means no tag changed.
- Each tag's date is its commit's committer date, from ``GET /repos/{repo}/git/commits/{sha}``
  (the small git-data object rather than /commits/{sha}, which carries the whole diff). For a
  lightweight tag that is the only date git has, and it is a lower bound on when the tag was
  pushed; attrs say ``date_source: commit``.
- Request cost: ``ctx.state["tags"]`` keeps ``{tag: {"sha", "date"}}``; only tags that are new or
  moved to another commit are looked up. Known tags are re-emitted only when newer than
  ``ctx.since`` (upserts make re-emission harmless; this just keeps runs small).
- A tag that is not a version is skipped with ``ctx.skip``; a tag the pattern excludes is not.
"""

from __future__ import annotations

import fnmatch
import logging
import re
from collections.abc import Iterator
from typing import Any

from tracker.collect.sources import CollectContext, load_json
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.errors import FatalHTTPError, first_line
from tracker.events import Event, parse_time
from tracker.versions import parse_version

KIND = "github_tags"
AUTH = "github"
DEFAULT_MAX_LOOKUPS = 200

log = logging.getLogger("tracker.collect")


def tag_matcher(pattern: str | None):
    """A predicate for tag names: None matches all, "^..." is a regex, anything else a glob."""
    if not pattern:
        return lambda name: True
    if pattern.startswith("^"):
        compiled = re.compile(pattern)
        return lambda name: compiled.search(name) is not None
    return lambda name: fnmatch.fnmatchcase(name, pattern)


def tag_event(name: str, date_text: str | None, sha: str, ctx: CollectContext) -> Event | None:
    """The release event of one dated tag; None (and a counted skip) when it cannot be one."""
    parsed = parse_version(name)
    if parsed is None:
        ctx.skip(f"tag {name!r}", "tag is not a version")
        return None
    when = parse_time(date_text)
    if when is None:
        ctx.skip(f"tag {name!r}", "no commit date")
        return None
    repo = ctx.option("repo", "")
    attrs: dict[str, Any] = {
        "tag": name,
        "sha": sha,
        "prerelease": parsed.prerelease,
        "date_source": "commit",
    }
    if parsed.local:
        attrs["local"] = parsed.local
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="release",
        external_id=f"release:{name}",
        occurred_at=when,
        title=name,
        url=f"https://github.com/{repo}/releases/tag/{name}" if repo else "",
        version=parsed.version,
        regime=ctx.spec.regime,
        attrs=attrs,
    )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of a local JSON array of tags: each item needs ``name`` and a date, either the
    tags API shape enriched with ``commit.date`` or a git-data commit's ``committer.date``."""
    items = load_json(content, ctx, "tags file")
    matches = tag_matcher(ctx.option("tag_pattern"))
    for position, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("commit") or {}, dict):
            ctx.skip(f"tag at position {position}", f"not a tag object: {item!r:.60}")
            continue
        name = str(item.get("name") or "")
        if not matches(name):
            continue
        event = None
        with ctx.item(f"tag {name!r:.80}"):
            commit = item.get("commit") or {}
            committer = commit.get("committer")
            date = commit.get("date") or (
                committer.get("date") if isinstance(committer, dict) else None
            )
            event = tag_event(name, date, str(commit.get("sha") or ""), ctx)
        if event is not None:
            yield event


def collect(ctx: CollectContext) -> Iterator[Event]:
    """List all tags, date new ones by their commit, yield new, moved and recent tags."""
    repo = ctx.option("repo")
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    matches = tag_matcher(ctx.option("tag_pattern"))
    include_pre = bool(ctx.option("include_prereleases", True))
    budget = int(ctx.option("max_lookups", DEFAULT_MAX_LOOKUPS))
    known: dict[str, dict] = dict(ctx.state.get("tags") or {})
    # Tags left undated by the look-up budget last time: the listing must be re-read even if
    # unchanged, so skip the conditional request then.
    conditional = not ctx.state.get("pending")
    pending = False
    for page in ctx.client().get_pages(
        f"{api}/repos/{repo}/tags", {"per_page": 100}, conditional=conditional
    ):
        if not isinstance(page, list):
            raise FatalHTTPError(f"{ctx.spec.id}: {api}/repos/{repo}/tags: expected a JSON array")
        for position, item in enumerate(page):
            if not isinstance(item, dict) or not isinstance(item.get("commit") or {}, dict):
                ctx.skip(f"tag at position {position}", f"not a tag object: {item!r:.60}")
                continue
            name = str(item.get("name") or "")
            sha = str((item.get("commit") or {}).get("sha") or "")
            if not matches(name):
                continue
            parsed = parse_version(name)
            if parsed is None:
                ctx.skip(f"tag {name!r}", "tag is not a version")
                continue
            if parsed.prerelease and not include_pre:
                continue
            entry = known.get(name)
            fresh = entry is None or entry.get("sha") != sha
            if fresh:
                if budget <= 0:
                    pending = True
                    continue
                budget -= 1
                try:
                    commit = ctx.client().get_json(
                        f"{api}/repos/{repo}/git/commits/{sha}", conditional=False
                    )
                except FatalHTTPError as exc:  # one tag's commit (HTTP 4xx, not JSON): that tag
                    ctx.skip(f"tag {name!r}", f"commit look-up failed: {first_line(exc)}")
                    continue
                committer = commit.get("committer") if isinstance(commit, dict) else None
                date = committer.get("date") if isinstance(committer, dict) else None
                entry = {"sha": sha, "date": date}
                known[name] = entry
            assert entry is not None  # known before, or just looked up
            event = tag_event(name, entry.get("date"), sha, ctx)
            if event is None:
                continue
            if fresh or ctx.since is None or event.occurred_at >= ctx.since:
                yield event
    if pending:
        log.info("%s: commit-date look-up budget spent; remaining tags next run", ctx.spec.id)
    ctx.state["tags"] = known
    ctx.state["pending"] = pending
