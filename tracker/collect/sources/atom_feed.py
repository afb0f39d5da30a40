"""Any RSS or Atom feed -> `release` events (PyPI per-project release feeds, GitHub releases.atom).

Source keys: ``url``.

Contract:
- One conditional ``GET url`` through ``ctx.http.get``; a 304 yields nothing. The fetched bytes
  and response headers go to ``feedparser.parse(content, response_headers=...)`` (feedparser's
  own HTTP client is never used: STYLE.md rule 4).
- Each entry is one `release` event: external id ``entry:<entry id or link>``, dated by its
  published date, else its updated date (GitHub's releases.atom has only ``updated``; attrs say
  which); version from the title when the title holds one ("0.10.1", "PyTorch 2.9.0 Release"),
  else from the last segment of the link (".../releases/tag/v2.9.0"), else None (the entry is
  still a dated fact, kept with no version).
- An entry with no date is skipped with ``ctx.skip``. A body that is not a feed at all (feedparser
  sets ``bozo`` and finds no entries, or recognises no feed format) raises FatalHTTPError naming
  the source and the reason; a malformed feed that still yields entries is used, with a warning.
"""

from __future__ import annotations

import calendar
import logging
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import Any

import feedparser

from tracker.collect.sources import CollectContext
from tracker.errors import FatalHTTPError
from tracker.events import Event
from tracker.versions import parse_version, version_in_text

KIND = "atom_feed"
TITLE_LIMIT = 300

log = logging.getLogger("tracker.collect")


def _when(entry: Any) -> tuple[datetime | None, str]:
    """The entry's date as aware UTC and the field it came from."""
    for field in ("published_parsed", "updated_parsed"):
        value = entry.get(field)
        if value:
            # feedparser normalises every date to a UTC struct_time; timegm keeps it UTC.
            return datetime.fromtimestamp(calendar.timegm(value), tz=UTC), field[:-7]
    return None, ""


def _version(title: str, link: str):
    found = version_in_text(title)
    if found is None and link:
        found = parse_version(link.rstrip("/").rsplit("/", 1)[-1])
    return found


def parse_feed(
    content: bytes, ctx: CollectContext, headers: Mapping[str, str] | None = None
) -> Iterator[Event]:
    """Events of one fetched feed document (see the module contract)."""
    where = ctx.option("url") or "feed"
    # feedparser looks headers up by lower-case name; requests keeps the server's spelling.
    lowered = {str(k).lower(): v for k, v in (headers or {}).items()}
    feed = feedparser.parse(content, response_headers=lowered)
    if not feed.entries and (feed.bozo or not feed.get("version")):
        reason = feed.get("bozo_exception") or "no RSS or Atom feed recognised"
        raise FatalHTTPError(f"{ctx.spec.id}: {where}: not a feed: {reason}")
    if feed.bozo:
        ctx.warnings.append(
            f"{ctx.spec.id}: {where}: malformed feed, entries used anyway: "
            f"{feed.get('bozo_exception')}"
        )
    spec = ctx.spec
    for position, entry in enumerate(feed.entries, start=1):
        title = " ".join(str(entry.get("title") or "").split())
        link = str(entry.get("link") or "")
        key = str(entry.get("id") or link or "")
        when, field = _when(entry)
        if not key:
            ctx.skip(f"entry {position} {title!r}", "no id or link")
            continue
        if when is None:
            ctx.skip(f"entry {position} {title!r}", "no published or updated date")
            continue
        found = _version(title, link)
        attrs: dict[str, Any] = {"date_field": field}
        if found is not None:
            attrs["prerelease"] = found.prerelease
            if found.local:
                attrs["local"] = found.local
        yield Event(
            source_id=spec.id,
            project=spec.project,
            kind="release",
            external_id=f"entry:{key}",
            occurred_at=when,
            title=title[:TITLE_LIMIT] or key,
            url=link,
            version=found.version if found else None,
            regime=spec.regime,
            attrs=attrs,
        )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of a local feed file."""
    return parse_feed(content, ctx)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the feed (conditional GET) and yield its entries."""
    response = ctx.client().get(ctx.option("url"))
    if response is None:
        return iter(())
    return parse_feed(response.content, ctx, response.headers)
