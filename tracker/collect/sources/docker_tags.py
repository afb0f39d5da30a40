"""Docker Hub image tags whose names carry versions -> `release` events (e.g. rocm/vllm).

AMD publishes vLLM for ROCm as images named like ``rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006``:
the ROCm version, the vLLM version and a build date (YYYYMMDD). Such a tag is evidence that a vLLM
version ran on ROCm by that date.

Source keys: ``repository`` ("rocm/vllm"); optional ``url`` (default
https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100) and ``name_pattern``
(a regular expression with a named group ``version`` and optionally ``date`` (YYYYMMDD); every
other named group goes to attrs). The default pattern is the rocm/vllm convention above.

Contract:
- Docker Hub pages by a ``next`` URL inside the JSON body (not a Link header), so pages are
  fetched with ``get_json``; only the first request is conditional (a 304 yields nothing).
  The walk is bounded by the client's page guard: at most ``max_pages`` pages (default
  ``MAX_PAGES``), and a ``next`` URL read before ends it (``ListingStopped``, the source is
  partial with the pages before it saved).
- A listed tag that is not a JSON object is a skip naming its position.
- Tags whose name does not match the pattern (``latest``, nightlies) are not evidence and are
  passed over silently; a matching name whose version is not PEP 440 is skipped with ``ctx.skip``.
- The event date is the build date in the name (UTC midnight): stable even when the tag is
  re-pushed. Without a date group it is ``tag_last_pushed`` (attrs say which). The push time is
  kept in attrs as ``pushed_at``.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from tracker.collect.sources import CollectContext
from tracker.collect.sources.github_releases import load_json, parse_time
from tracker.errors import FatalHTTPError
from tracker.records import Event
from tracker.versions import parse_version

KIND = "docker_tags"
REQUIRED_KEYS = {"repository"}
OPTIONAL_KEYS = {"url", "name_pattern"}
DEFAULT_URL = "https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100"
DEFAULT_PATTERN = (
    r"^rocm(?P<rocm>\d+(?:\.\d+)*)_vllm_(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)"
    r"_(?P<date>\d{8})$"
)
MAX_PAGES = 50  # default max_pages: a runaway "next" chain must not spend a night of requests


def tag_events(document: Any, ctx: CollectContext) -> Iterator[Event]:
    """Events of one page of Docker Hub's tag listing ({"results": [...], "next": ...})."""
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise FatalHTTPError(f"{ctx.spec.id}: not a Docker Hub tag listing (no 'results' list)")
    repository = ctx.option("repository", "")
    pattern = re.compile(ctx.option("name_pattern") or DEFAULT_PATTERN)
    spec = ctx.spec
    for position, item in enumerate(document["results"]):
        if not isinstance(item, dict):
            ctx.skip(f"tag at position {position}", f"not a JSON object: {item!r:.60}")
            continue
        name = str(item.get("name") or "")
        match = pattern.search(name)
        if match is None:
            continue
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        parsed = parse_version(groups.pop("version", None))
        if parsed is None:
            ctx.skip(f"tag {name!r}", "no PEP 440 version in the tag name")
            continue
        pushed = parse_time(item.get("tag_last_pushed") or item.get("last_updated"))
        stamp = groups.pop("date", None)
        when, source = pushed, "tag_last_pushed"
        if stamp:
            try:
                when = datetime.strptime(stamp, "%Y%m%d").replace(tzinfo=UTC)
                source = "name"
            except ValueError:
                pass
        if when is None:
            ctx.skip(f"tag {name!r}", "no build date in the name and no push time")
            continue
        attrs: dict[str, Any] = {
            "tag": name,
            "date_source": source,
            **groups,
            "pushed_at": pushed.isoformat() if pushed else None,
        }
        yield Event(
            source_id=spec.id,
            project=spec.project,
            kind="release",
            external_id=f"tag:{name}",
            occurred_at=when,
            title=f"{repository}:{name}",
            url=f"https://hub.docker.com/r/{repository}/tags?name={name}",
            version=parsed.version,
            regime=spec.regime,
            attrs=attrs,
        )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of one local page of the Docker Hub tag listing."""
    return tag_events(load_json(content, ctx, "Docker Hub tag page", dict), ctx)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Walk the tag listing through its ``next`` links and yield matching tags."""
    repository = ctx.option("repository")
    url = str(ctx.option("url") or DEFAULT_URL).format(repository=repository)
    guard = ctx.client().listing(url)  # max_pages (default MAX_PAGES), no page URL twice
    for page in itertools.count():
        guard.visit(url)
        document = ctx.client().get_json(url, conditional=page == 0)
        if document is None:
            return
        yield from tag_events(document, ctx)
        next_url = document.get("next")
        if not next_url or not isinstance(next_url, str):
            return
        url = urljoin(url, next_url)
