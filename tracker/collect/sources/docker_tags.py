"""Docker Hub image tags whose names carry versions -> `release` events (e.g. rocm/vllm).

AMD publishes vLLM for ROCm as images whose tag names carry the ROCm version, the vLLM version
and often a build date (YYYYMMDD). Such a tag is evidence that a vLLM version ran on ROCm by
that date. AMD's naming changed over time; ``DEFAULT_PATTERNS`` reads every scheme seen on
rocm/vllm (real names):

- ``current`` (2025-06 on): ``rocm7.0.0_vllm_0.10.2_20251006``
- ``instinct`` (early 2025): ``rocm6.3.1_instinct_vllm0.8.3_20250410``
- ``platform`` (2024 to early 2025, no date): ``rocm6.3.1_mi300_ubuntu22.04_py3.12_vllm_0.6.6``,
  ``rocm6.2_mi300_ubuntu20.04_py3.9_vllm_0.6.4``
- ``radeon`` (ROCm 7.12 on, built by TheRock per GPU target, Radeon and Instinct):
  ``rocm7.12.0_gfx120X-all_<build>_vllm_0.16.0``,
  ``rocm7.13.0_gfx94X-dcgpu_ubuntu24.04_py3.13_pytorch_2.10.0_vllm_0.19.1``, with or without a
  trailing build date
- ``family`` (ROCm 7.14 on, one image per GPU family):
  ``rocm7.14.0_cdna_ubuntu24.04_py3.14_pytorch_2.11.0_vllm_0.23.0``, ``rocm7.14.1_rdna_...``

Source keys: ``repository`` ("rocm/vllm"); optional ``url`` (default
https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100) and ``name_pattern``
(a regular expression, or a list of them tried in order, with a named group ``version`` and
optionally ``date`` (YYYYMMDD); every other named group goes to attrs). Without it the
``DEFAULT_PATTERNS`` are tried in order; the scheme that read a tag is kept in ``attrs.scheme``.
``ignore_pattern`` (a regular expression) names tags known not to be evidence (another
platform's images, ``latest``): they are passed over, not counted as unread.

Contract:
- Docker Hub pages by a ``next`` URL inside the JSON body (not a Link header), so pages are
  fetched with ``get_json``; only the first request is conditional (a 304 yields nothing).
  The walk is bounded by the client's page guard: at most ``max_pages`` pages (default
  ``MAX_PAGES``), and a ``next`` URL read before ends it (``ListingStopped``, the source is
  partial with the pages before it saved).
- A listed tag that is not a JSON object is a skip naming its position.
- A tag that matches no pattern (``latest``, ``instinct_main``, a tag naming a vLLM commit
  instead of a version) is not evidence, but never dropped silently: each one is counted as a
  skipped item of the run (one warning lists them), and the last full read of the listing keeps
  them in ``ctx.state["unmatched_tags"]`` (``{"count": n, "tags": [first UNMATCHED_KEPT]}``),
  which the report's data-quality section shows. A matching name whose version is not PEP 440
  is skipped with ``ctx.skip``.
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
from tracker.errors import FatalHTTPError
from tracker.events import Event
from tracker.versions import parse_version

KIND = "docker_tags"
DEFAULT_URL = "https://hub.docker.com/v2/repositories/{repository}/tags?page_size=100"
_ROCM = r"^rocm(?P<rocm>\d+(?:\.\d+)*)"
_VLLM = r"(?P<version>\d+(?:\.\d+)+(?:\.post\d+)?)"
_DATE = r"(?P<date>\d{8})"
# Tried in order; the first that matches names the tag's scheme (see the module docstring).
DEFAULT_PATTERNS: dict[str, str] = {
    "current": rf"{_ROCM}_vllm_{_VLLM}_{_DATE}$",
    "instinct": rf"{_ROCM}_instinct_vllm_?{_VLLM}_{_DATE}$",
    "platform": (
        rf"{_ROCM}_(?P<gpu>mi\d+[a-z]*)_ubuntu(?P<ubuntu>\d+(?:\.\d+)*)"
        rf"_py(?P<python>\d+(?:\.\d+)*)_vllm_{_VLLM}$"
    ),
    "radeon": (
        rf"{_ROCM}_(?P<gpu>gfx[0-9A-Za-z]+(?:-[0-9A-Za-z]+)*)_(?:.+_)?vllm_{_VLLM}(?:_{_DATE})?$"
    ),
    "family": rf"{_ROCM}_(?P<gpu>[cr]dna)_(?:.+_)?vllm_{_VLLM}(?:_{_DATE})?$",
}
UNMATCHED_KEPT = 100  # names kept in the state for the report; the count is always whole
log = logging.getLogger("tracker.collect.docker_tags")
MAX_PAGES = 50  # default max_pages: a runaway "next" chain must not spend a night of requests


def tag_events(document: Any, ctx: CollectContext) -> Iterator[Event]:
    """Events of one page of Docker Hub's tag listing ({"results": [...], "next": ...})."""
    if not isinstance(document, dict) or not isinstance(document.get("results"), list):
        raise FatalHTTPError(f"{ctx.spec.id}: not a Docker Hub tag listing (no 'results' list)")
    repository = ctx.option("repository", "")
    patterns = _patterns(ctx)
    ignore = ctx.option("ignore_pattern")
    ignored = re.compile(str(ignore)) if ignore else None
    unmatched = ctx.state.setdefault("unmatched_tags", {"count": 0, "tags": []})
    spec = ctx.spec
    missed: list[str] = []
    for position, item in enumerate(document["results"]):
        if not isinstance(item, dict):
            ctx.skip(f"tag at position {position}", f"not a JSON object: {item!r:.60}")
            continue
        name = str(item.get("name") or "")
        scheme, match = _match(patterns, name)
        if match is None:
            # Known not to be evidence (another platform's images, "latest"): passed over.
            if ignored is None or ignored.search(name) is None:
                missed.append(name)
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
            "scheme": scheme,
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
    if missed:
        # Counted in the run (its "skipped" column) and kept for the report: never silent.
        ctx.skipped += len(missed)
        unmatched["count"] += len(missed)
        room = UNMATCHED_KEPT - len(unmatched["tags"])
        unmatched["tags"].extend(missed[: max(room, 0)])


def say_unmatched(ctx: CollectContext) -> None:
    """One warning for the whole read (not one per page): how many tags no pattern reads."""
    unmatched = ctx.state.get("unmatched_tags") or {}
    count, tags = unmatched.get("count") or 0, unmatched.get("tags") or []
    if count:
        shown = ", ".join(tags[:10]) + (", ..." if count > 10 else "")
        message = f"{ctx.spec.id}: {count} tag(s) match no name pattern, not read: {shown}"
        ctx.warnings.append(message)
        log.warning(message)


def _patterns(ctx: CollectContext) -> list[tuple[str, re.Pattern[str]]]:
    """(scheme, compiled pattern) in the order tried: the source's name_pattern(s) or the
    defaults."""
    custom = ctx.option("name_pattern")
    if not custom:
        return [(scheme, re.compile(text)) for scheme, text in DEFAULT_PATTERNS.items()]
    texts = [custom] if isinstance(custom, str) else list(custom)
    return [(f"name_pattern[{i}]", re.compile(str(text))) for i, text in enumerate(texts)]


def _match(
    patterns: list[tuple[str, re.Pattern[str]]], name: str
) -> tuple[str | None, re.Match[str] | None]:
    for scheme, pattern in patterns:
        found = pattern.search(name)
        if found is not None:
            return scheme, found
    return None, None


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of one local page of the Docker Hub tag listing."""
    ctx.state["unmatched_tags"] = {"count": 0, "tags": []}
    yield from tag_events(load_json(content, ctx, "Docker Hub tag page", dict), ctx)
    say_unmatched(ctx)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Walk the tag listing through its ``next`` links and yield matching tags."""
    repository = ctx.option("repository")
    url = str(ctx.option("url") or DEFAULT_URL).format(repository=repository)
    guard = ctx.client().listing(url)  # max_pages (default MAX_PAGES), no page URL twice
    fresh: list[bool] = []  # the listing was read this run (not answered 304)
    try:
        yield from _walk(ctx, url, guard, fresh)
    finally:  # also when the walk stops at a bound: what was read is said
        if fresh:
            say_unmatched(ctx)


def _walk(ctx: CollectContext, url: str, guard, fresh: list[bool]) -> Iterator[Event]:
    for page in itertools.count():
        guard.visit(url)
        document = ctx.client().get_json(url, conditional=page == 0)
        if document is None:
            return  # 304: the state (and its unmatched tags) stays as the last read left it
        if page == 0:
            ctx.state["unmatched_tags"] = {"count": 0, "tags": []}  # counted afresh per read
            fresh.append(True)
        yield from tag_events(document, ctx)
        next_url = document.get("next")
        if not next_url or not isinstance(next_url, str):
            return
        url = urljoin(url, next_url)
