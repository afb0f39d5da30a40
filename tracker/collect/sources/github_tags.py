"""Git tags of a GitHub repository -> `release` events dated by their publication.

For repositories that tag without publishing GitHub Releases (pytorch/xla, vllm-neuron, ...).
Source keys: ``repo``; optional ``api_url`` (default https://api.github.com), ``tag_pattern``
(a glob such as "v*", or a regular expression when it starts with "^"), ``include_prereleases``
(default true; pre-releases such as "v2.9.0-rc1" are kept and marked), ``max_lookups`` (default
200: tag and commit look-ups per run; the rest wait for the next run), ``history_url`` (the
vendor's release history, version -> day, read once per run: ROCm's ``docs/release/versions.md``).

Contract:
- ``GET {api_url}/repos/{repo}/git/matching-refs/tags`` (all pages; refs come ordered by name,
  not date, so there is no early stop). A 304 on the first page means no tag changed. Each ref
  names its object: a tag object (an annotated tag) or a commit (a lightweight tag).
- Each tag is dated by the earliest record of its publication (`_published`): an annotated
  tag's tag object (its tagger date, from ``GET /repos/{repo}/git/tags/{sha}``;
  ``date_source: tag``), or the release history's day for its version when that is earlier
  (``date_source: release_history``). A commit is no record of publication (TheRock 7.14's tag
  points at a commit six days older than the tag): a lightweight tag with no history entry is
  dated by its commit's committer date (``GET /repos/{repo}/git/commits/{sha}``, the small
  git-data object rather than /commits/{sha}, which carries the whole diff), the only date git
  has for it; attrs say ``date_source: commit``. ``sha`` in attrs is the tagged commit.
- Request cost: ``ctx.state["tags"]`` keeps ``{tag: {"sha", "date", "date_source", "commit"}}``
  (``sha``: the ref's object); only tags that are new or moved to another object are looked up.
  Known tags are re-emitted only when newer than ``ctx.since`` (upserts make re-emission
  harmless; this just keeps runs small).
- A tag that is not a version is skipped with ``ctx.skip``; a tag the pattern excludes is not.
"""

from __future__ import annotations

import fnmatch
import logging
import re
from collections.abc import Iterator
from typing import Any

from tracker.collect.sources import CollectContext, load_json
from tracker.collect.sources._published import earliest, release_history
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


def tag_event(
    name: str, date_text: str | None, sha: str, ctx: CollectContext, date_source: str = "commit"
) -> Event | None:
    """The release event of one dated tag; None (and a counted skip) when it cannot be one."""
    parsed = parse_version(name)
    if parsed is None:
        ctx.skip(f"tag {name!r}", "tag is not a version")
        return None
    when = parse_time(date_text)
    if when is None:
        ctx.skip(f"tag {name!r}", f"no {date_source} date")
        return None
    repo = ctx.option("repo", "")
    attrs: dict[str, Any] = {
        "tag": name,
        "sha": sha,
        "prerelease": parsed.prerelease,
        "date_source": date_source,
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


def _ref(item: Any) -> tuple[str, str, str] | None:
    """(tag name, object type, object sha) of one matching-refs item; None when it is not a
    tag ref (a hostile listing: anything may be in it)."""
    if not isinstance(item, dict) or not isinstance(item.get("object"), dict):
        return None
    ref, target = item.get("ref"), item["object"]
    if not isinstance(ref, str) or not ref.startswith("refs/tags/"):
        return None
    return ref[len("refs/tags/") :], str(target.get("type") or ""), str(target.get("sha") or "")


def _look_up(ctx: CollectContext, api: str, repo: str, kind: str, sha: str) -> dict:
    """The tag object (``kind`` "tag") or commit a ref points at: its date and tagged commit
    ({"date", "date_source", "commit"}); a failed look-up raises FatalHTTPError."""
    if kind == "tag":
        found = ctx.client().get_json(f"{api}/repos/{repo}/git/tags/{sha}", conditional=False)
        tagger = found.get("tagger") if isinstance(found, dict) else None
        target = found.get("object") if isinstance(found, dict) else None
        return {
            "date": tagger.get("date") if isinstance(tagger, dict) else None,
            "date_source": "tag",
            "commit": str(target.get("sha") or "") if isinstance(target, dict) else "",
        }
    found = ctx.client().get_json(f"{api}/repos/{repo}/git/commits/{sha}", conditional=False)
    committer = found.get("committer") if isinstance(found, dict) else None
    return {
        "date": committer.get("date") if isinstance(committer, dict) else None,
        "date_source": "commit",
        "commit": sha,
    }


def _dated(name: str, entry: dict, history) -> tuple[str | None, str]:
    """The tag's date and its source: the earliest record of publication (the tag object, the
    release history), else the commit's date (module doc)."""
    records = {"tag": parse_time(entry.get("date"))} if entry.get("date_source") == "tag" else {}
    parsed = parse_version(name)
    found = earliest(parsed.version, records, history) if parsed is not None else None
    if found is None:
        return entry.get("date"), str(entry.get("date_source") or "commit")
    return found[0].isoformat(), found[1]


def collect(ctx: CollectContext) -> Iterator[Event]:
    """List all tag refs, date new ones by their publication, yield new, moved and recent tags."""
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
    history = None
    listing = f"{api}/repos/{repo}/git/matching-refs/tags"
    for page in ctx.client().get_pages(listing, conditional=conditional):
        if not isinstance(page, list):
            raise FatalHTTPError(f"{ctx.spec.id}: {listing}: expected a JSON array")
        if history is None:  # read once, and only when something changed
            history = release_history(ctx)
        for position, item in enumerate(page):
            ref = _ref(item)
            if ref is None:
                ctx.skip(f"tag ref at position {position}", f"not a tag ref: {item!r:.60}")
                continue
            name, kind, sha = ref
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
                    entry = {"sha": sha, **_look_up(ctx, api, str(repo), kind, sha)}
                except FatalHTTPError as exc:  # one tag's object (HTTP 4xx, not JSON): that tag
                    ctx.skip(
                        f"tag {name!r}", f"{kind or 'object'} look-up failed: {first_line(exc)}"
                    )
                    continue
                known[name] = entry
            assert entry is not None  # known before, or just looked up
            date, date_source = _dated(name, entry, history)
            commit = str(entry.get("commit") or entry.get("sha") or "")
            event = tag_event(name, date, commit, ctx, date_source)
            if event is None:
                continue
            if fresh or ctx.since is None or event.occurred_at >= ctx.since:
                yield event
    if pending:
        log.info("%s: look-up budget spent; remaining tags next run", ctx.spec.id)
    ctx.state["tags"] = known
    ctx.state["pending"] = pending
