"""Docker Hub image tags whose names carry versions -> `release` events (e.g. rocm/vllm).

AMD publishes vLLM for ROCm as images named like ``rocm/vllm:rocm7.0.0_vllm_0.10.2_20251006``:
the ROCm version, the vLLM version and a build date (YYYYMMDD). Such a tag is evidence that a vLLM
version ran on ROCm by that date.

Source keys: ``repository`` ("rocm/vllm"); optional ``url`` (default
https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100), ``name_pattern``
(a regular expression with a named group ``version`` and optionally ``date`` (YYYYMMDD); every
other named group goes to attrs; or a list of them, one per naming scheme the repository has
used, the first match wins and attrs say which: ``scheme`` = its index) and ``ignore_pattern``
(a regular expression for tags known not to be evidence: another platform's images, ``latest``).
The default pattern is the rocm/vllm convention above.

Contract:
- Docker Hub pages by a ``next`` URL inside the JSON body (not a Link header), so pages are
  fetched with ``get_json``; only the first request is conditional (a 304 yields nothing).
  The walk is bounded by the client's page guard: at most ``max_pages`` pages (default
  ``MAX_PAGES``), and a ``next`` URL read before ends it (``ListingStopped``, the source is
  partial with the pages before it saved).
- A listed tag that is not a JSON object is a skip naming its position.
- Tags whose name does not match the pattern (``latest``, nightlies) are not evidence. With an
  ``ignore_pattern`` the tags it does not cover either are counted and reported (one warning per
  collection naming the count and a few examples: a naming scheme the patterns do not know yet
  would otherwise drop its images silently); without one they are passed over silently. A
  matching name whose version is not PEP 440 is skipped with ``ctx.skip``.
- The event date is the build date in the name (UTC midnight): stable even when the tag is
  re-pushed. Without a date group it is ``tag_last_pushed`` (attrs say which). The push time is
  kept in attrs as ``pushed_at``.
"""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urljoin

from tracker.collect.sources import CollectContext
from tracker.collect.sources.github_releases import load_json, parse_time
from tracker.errors import ConfigError, FatalHTTPError
from tracker.records import Event
from tracker.versions import parse_version

KIND = "docker_tags"
REQUIRED_KEYS = {"repository"}
OPTIONAL_KEYS = {"url", "name_pattern", "ignore_pattern"}
DEFAULT_URL = "https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100"
DEFAULT_PATTERN = (
    r"^rocm(?P<rocm>\d+(?:\.\d+)*)_vllm_(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)"
    r"_(?P<date>\d{8})$"
)
log = logging.getLogger("tracker.collect")
MAX_PAGES = 50  # default max_pages: a runaway "next" chain must not spend a night of requests
EXAMPLES = 5  # unmatched tag names quoted in the warning


def _patterns(ctx: CollectContext) -> list[re.Pattern]:
    raw = ctx.option("name_pattern") or DEFAULT_PATTERN
    items = raw if isinstance(raw, list) else [raw]
    try:
        return [re.compile(str(p)) for p in items]
    except re.error as exc:
        raise ConfigError(f"{ctx.spec.id}: name_pattern: {exc}") from None


def _ignore(ctx: CollectContext) -> re.Pattern | None:
    raw = ctx.option("ignore_pattern")
    try:
        return re.compile(str(raw)) if raw else None
    except re.error as exc:
        raise ConfigError(f"{ctx.spec.id}: ignore_pattern: {exc}") from None


def report_unmatched(ctx: CollectContext, unmatched: list[str]) -> None:
    """One warning naming how many tags no pattern matched and no ignore_pattern covered."""
    if unmatched:
        shown = ", ".join(sorted(unmatched)[:EXAMPLES])
        message = (
            f"{ctx.spec.id}: {len(unmatched)} tag(s) matched no name_pattern and no "
            f"ignore_pattern (a new naming scheme?): {shown}"
        )
        ctx.warnings.append(message)
        log.warning(message)


def tag_events(
    document: Any, ctx: CollectContext, unmatched: list[str] | None = None
) -> Iterator[Event]:
    """Events of one page of Docker Hub's tag listing ({"results": [...], "next": ...}); tag
    names no pattern matches and ``ignore_pattern`` does not cover go to ``unmatched``."""
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise FatalHTTPError(f"{ctx.spec.id}: not a Docker Hub tag listing (no 'results' list)")
    repository = ctx.option("repository", "")
    patterns = _patterns(ctx)
    ignore = _ignore(ctx)
    spec = ctx.spec
    for position, item in enumerate(document["results"]):
        if not isinstance(item, dict):
            ctx.skip(f"tag at position {position}", f"not a JSON object: {item!r:.60}")
            continue
        name = str(item.get("name") or "")
        scheme, match = next(
            ((i, m) for i, p in enumerate(patterns) if (m := p.search(name)) is not None),
            (None, None),
        )
        if match is None:
            if ignore is not None and unmatched is not None and not ignore.search(name):
                unmatched.append(name)
            continue
        groups = {k: v for k, v in match.groupdict().items() if v is not None}
        if len(patterns) > 1:
            groups["scheme"] = str(scheme)
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
    unmatched: list[str] = []
    yield from tag_events(load_json(content, ctx, "Docker Hub tag page", dict), ctx, unmatched)
    report_unmatched(ctx, unmatched)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Walk the tag listing through its ``next`` links and yield matching tags; tags no pattern
    or ignore_pattern covers are reported once, after the walk (also when it stops early)."""
    repository = ctx.option("repository")
    url = str(ctx.option("url") or DEFAULT_URL).format(repository=repository)
    unmatched: list[str] = []
    guard = ctx.client().listing(url)  # max_pages (default MAX_PAGES), no page URL twice
    try:
        for page in itertools.count():
            guard.visit(url)
            document = ctx.client().get_json(url, conditional=page == 0)
            if document is None:
                return
            yield from tag_events(document, ctx, unmatched)
            next_url = document.get("next")
            if not next_url or not isinstance(next_url, str):
                return
            url = urljoin(url, next_url)
    finally:
        report_unmatched(ctx, unmatched)
