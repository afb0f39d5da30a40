"""GitHub Releases of one repository -> `release` events and one `note` event per body bullet.

Source keys: ``repo`` ("owner/name"); optional ``api_url`` (default https://api.github.com),
``include_prereleases`` (default true: pre-releases are kept and marked in attrs),
``freshness_days`` (default 30), ``history_url`` (the vendor's release history, version -> day,
read once per run: ROCm's ``docs/release/versions.md``).

Contract:
- ``GET {api_url}/repos/{repo}/releases?per_page=100`` through ``ctx.http.get_pages`` (Link
  pagination, conditional first page). GitHub lists releases newest first, so paging stops after
  the first page that reaches a release older than both ``ctx.since`` and the freshness window.
- Every release newer than the freshness window is re-emitted on every run, so an edited body
  updates its notes: note ids are ``note:<tag>:<n>`` (n = bullet position in the body), stable for
  the same body. Notes that an edit removed, and releases of the window that disappeared upstream,
  are reported with ``ctx.mark_vanished`` (the runner marks, never deletes). ``ctx.state["recent"]``
  keeps ``{tag: {"published": iso, "notes": n}}`` for the releases inside the window.
- A release is dated by the earliest record of its publication (`_published`): its
  ``published_at``, or the release history's day for its version when that is earlier (ROCm
  6.2.0: 2024-08-20 on GitHub, 2024-08-02 in AMD's release history); attrs ``date_source`` say which
  (``published`` or ``release_history``). ``created_at`` never dates a release: it is the date of
  the tag's commit, which can come before anything shipped; a release without ``published_at``
  (and not in the history) is skipped.
- A draft release (``draft: true``; listed only to tokens with push access) is not a release:
  it has no ``published_at``. Drafts are passed over (logged, not a skip: nothing is wrong
  with them); the store's readers drop any draft that got in another way (tracker.measure.facts).
- A tag that is not a version is skipped (``ctx.skip`` naming the tag); an empty body gives the
  release event alone, and nothing is skipped: many projects publish releases without notes
  (a hand-written cassette trims a body it does not reproduce to empty), so no warning either.
- Bodies are parsed with markdown-it-py: every list item (bullet or numbered, any depth) with text
  of its own is one note; its section is the nearest heading above it (or a bold-only paragraph
  used as a heading, "**Bug fixes:**").
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from markdown_it import MarkdownIt
from packaging.version import Version

from tracker.collect.sources import CollectContext, load_json
from tracker.collect.sources._published import earliest, release_history
from tracker.errors import FatalHTTPError
from tracker.events import OUT_OF_RANGE, Event, computable, parse_time
from tracker.names import GITHUB_API
from tracker.versions import parse_version

KIND = "github_releases"
AUTH = "github"

log = logging.getLogger("tracker.collect.github_releases")

DEFAULT_API = GITHUB_API
DEFAULT_FRESHNESS_DAYS = 30
TITLE_LIMIT = 300

# CommonMark plus the two GFM extensions release bodies use; tables are parsed (and ignored) so
# their cells are not mistaken for paragraphs.
_MARKDOWN = MarkdownIt("commonmark").enable("table").enable("strikethrough")


@dataclass(frozen=True)
class Bullet:
    """One list item of a Markdown body: its own text, nearest heading, nesting depth (1 = top)."""

    text: str
    section: str
    depth: int


def _plain(inline: Any) -> str:
    """Plain text of an inline token: text and code spans, line breaks as spaces, markup dropped."""
    parts = []
    for child in inline.children or ():
        if child.type in ("text", "code_inline", "html_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(child.content)
    return " ".join("".join(parts).split())


def _bold_heading(inline: Any) -> str | None:
    """Text of a paragraph that is only bold text ("**Bug fixes:**"), as a heading; else None."""
    kinds = [
        c.type for c in inline.children or () if not (c.type == "text" and not c.content.strip())
    ]
    if kinds[:3] != ["strong_open", "text", "strong_close"] or len(kinds) > 4:
        return None
    if len(kinds) == 4 and kinds[3] != "text":
        return None
    return _plain(inline).rstrip(":").strip() or None


def bullets(markdown: str) -> list[Bullet]:
    """Every list item of `markdown` with text of its own, in document order (pre-order)."""
    tokens = _MARKDOWN.parse(markdown)
    found: list[Bullet | None] = []
    stack: list[tuple[int, list[str]]] = []  # (index in found, text parts) per open list item
    section = ""
    for i, token in enumerate(tokens):
        if token.type == "heading_open":
            section = _plain(tokens[i + 1])
        elif token.type == "list_item_open":
            found.append(None)
            stack.append((len(found) - 1, []))
        elif token.type == "list_item_close":
            index, parts = stack.pop()
            text = " ".join(p for p in parts if p)
            if text:
                found[index] = Bullet(text, section, len(stack) + 1)
        elif token.type == "inline" and tokens[i - 1].type == "paragraph_open":
            if stack:
                # Only the item's own paragraphs: nested items push their own entry first.
                stack[-1][1].append(_plain(token))
            else:
                heading = _bold_heading(token)
                if heading:
                    section = heading
    return [b for b in found if b is not None]


def release_events(
    release: dict, ctx: CollectContext, history: Mapping[Version, datetime] | None = None
) -> list[Event]:
    """The release event and its note events for one GitHub release object, dated by the
    earliest record of its publication (`history`: the source's release history, version ->
    day); [] when skipped."""
    spec = ctx.spec
    tag = str(release.get("tag_name") or "")
    if release.get("draft"):
        log.info("%s: release %r is a draft (not published): passed over", spec.id, tag)
        return []
    parsed = parse_version(tag)
    if parsed is None:
        ctx.skip(f"release {tag!r}", "tag is not a version")
        return []
    dated = earliest(
        parsed.version, {"published": parse_time(release.get("published_at"))}, history or {}
    )
    if dated is None:
        ctx.skip(f"release {tag!r}", "no published_at date")
        return []
    when, date_source = dated
    if not computable(when):  # skipped here, the release with its notes: one line, one skip
        ctx.skip(f"release {tag!r}", f"date {when.isoformat()} {OUT_OF_RANGE}")
        return []
    url = _text(release.get("html_url"))
    prerelease = bool(release.get("prerelease")) or parsed.prerelease
    attrs = {
        "tag": tag,
        "prerelease": prerelease,
        "draft": bool(release.get("draft")),
        "date_source": date_source,
    }
    if parsed.local:
        attrs["local"] = parsed.local
    body = _text(release.get("body")).strip()
    events = [
        Event(
            source_id=spec.id,
            project=spec.project,
            kind="release",
            external_id=f"release:{tag}",
            occurred_at=when,
            title=_text(release.get("name")) or tag,
            body=body,
            url=url,
            version=parsed.version,
            regime=spec.regime,
            attrs=attrs,
        )
    ]
    if not body:
        return events
    for n, bullet in enumerate(bullets(body), start=1):
        events.append(
            Event(
                source_id=spec.id,
                project=spec.project,
                kind="note",
                external_id=f"note:{tag}:{n}",
                occurred_at=when,
                title=bullet.text[:TITLE_LIMIT],
                body=bullet.text,
                url=url,
                version=parsed.version,
                regime=spec.regime,
                attrs={
                    "tag": tag,
                    "section": bullet.section,
                    "depth": bullet.depth,
                    "prerelease": prerelease,
                },
            )
        )
    return events


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of one page of the releases API (a JSON array of release objects)."""
    page = load_json(content, ctx, "releases page")
    include_pre = bool(ctx.option("include_prereleases", True))
    history = release_history(ctx)
    for position, release in enumerate(page):
        if not isinstance(release, dict):
            ctx.skip(f"release at position {position}", f"not a JSON object: {release!r:.60}")
            continue
        if not include_pre and release.get("prerelease"):
            continue
        events: list[Event] = []
        with ctx.item(f"release at position {position}"):
            events = release_events(release, ctx, history)
        yield from events


def _text(value: Any) -> str:
    """A string field of the API ("" when null or not a string)."""
    return value if isinstance(value, str) else ""


def _notes_count(events: Iterable[Event]) -> int:
    return sum(1 for e in events if e.kind == "note")


def collect(ctx: CollectContext) -> Iterator[Event]:
    """List releases newest first down to max(since, freshness window) and yield their events."""
    repo = ctx.option("repo")
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    window_start = ctx.now - timedelta(
        days=float(ctx.option("freshness_days", DEFAULT_FRESHNESS_DAYS))
    )
    # Re-read everything newer than the window even when the cursor is later ("past both").
    boundary = min(ctx.since, window_start) if ctx.since else None
    include_pre = bool(ctx.option("include_prereleases", True))
    previous: dict[str, dict] = dict(ctx.state.get("recent") or {})
    history = release_history(ctx)

    seen: set[str] = set()
    recent: dict[str, dict] = {}
    got_page = False
    exhausted = True
    for page in ctx.client().get_pages(f"{api}/repos/{repo}/releases", {"per_page": 100}):
        got_page = True
        if not isinstance(page, list):
            raise FatalHTTPError(
                f"{ctx.spec.id}: {api}/repos/{repo}/releases: expected a JSON array"
            )
        reached_old = False
        for position, release in enumerate(page):
            if not isinstance(release, dict):
                ctx.skip(f"release at position {position}", f"not a JSON object: {release!r:.60}")
                continue
            tag = str(release.get("tag_name") or "")
            seen.add(tag)
            when = parse_time(release.get("published_at"))
            if boundary is not None and when is not None and when < boundary:
                # Ordering is by creation, not strictly by publish date: finish the page.
                reached_old = True
                continue
            if not include_pre and release.get("prerelease"):
                continue
            events = []
            with ctx.item(f"release {tag!r:.80}"):
                events = release_events(release, ctx, history)
            if events and when is not None and when >= window_start:
                recent[tag] = {"published": when.isoformat(), "notes": _notes_count(events)}
            yield from events
        if reached_old:
            exhausted = False
            break
    if not got_page:
        # 304 Not Modified on the first page: nothing changed upstream, state stays as it was.
        return
    for tag, info in previous.items():
        published = parse_time(info.get("published"))
        covered = exhausted or boundary is None or (published is not None and published >= boundary)
        if tag not in seen and covered:
            ctx.mark_vanished(f"release:{tag}")
            first_gone = 1
        elif tag in recent:
            # An edit that removed bullets: the trailing note ids no longer exist upstream.
            first_gone = recent[tag]["notes"] + 1
        else:
            continue
        for n in range(first_gone, int(info.get("notes", 0)) + 1):
            ctx.mark_vanished(f"note:{tag}:{n}")
    ctx.state["recent"] = recent
