"""`wheel_index`: one project page of a Python package index (PEP 503 simple HTML, or PEP 691
JSON) -> one `release` event per version and build of the package's files.

Vendors publish their builds for a regime as wheel indexes: PyTorch's ROCm wheels
(download.pytorch.org/whl/rocm7.2/torch/: ``torch-2.13.0+rocm7.2-cp312-...whl``), vLLM's
(wheels.vllm.ai/rocm/vllm/). A file there is a build a user can install.

Source keys: ``url`` (the package's page of the index), ``package`` (the distribution name its
files carry); optional ``max_dates`` (default 40: HEAD requests per run, see below).

Contract:
- ``GET {url}`` (conditional) asking for PEP 691 JSON first, HTML second. A 304 yields nothing.
- File names are read with ``packaging`` (wheel and sdist names); a name that is not one, that
  names another distribution, or that is path-like (a ``/``, ``\\`` or ``..``) is skipped with
  one line naming it. Files are grouped by version and local build (``2.13.0+rocm7.2``): one
  event each, ``version`` the public version (``2.13.0``), attrs ``build`` (the local part),
  ``rocm`` (its ROCm version when the build names one), ``file`` (the file that dated it) and
  ``date_source``.
- Dates. A simple index carries no dates in HTML. PEP 691 JSON's ``upload-time`` (PEP 700) is
  used when the index serves it (``date_source: upload-time``); otherwise the ``Last-Modified``
  of a HEAD of one file of the build (``date_source: last-modified``), asked only for builds not
  dated before, at most ``max_dates`` per run (the rest wait for the next run, which re-reads
  the page: ``ctx.read_again``); a HEAD the server fails after retries ends the HEADs of that
  run the same way, and a 404 skips that build. The time a run first saw a file is never
  used: on a backfill it would date every build to the day of the first run. A date outside
  tracker's range, or after the run, is a skip.
- ``ctx.state["dated"]`` keeps ``{build: [iso date, file, date_source, href]}``: a re-run asks
  no HEAD for a build dated before and re-emits nothing already emitted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from html.parser import HTMLParser
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    parse_sdist_filename,
    parse_wheel_filename,
)

from tracker.collect.sources import CollectContext
from tracker.errors import FatalHTTPError, OutOfTime, RateLimited, SourceError, first_line
from tracker.events import Event, computable, parse_time, utc

KIND = "wheel_index"
DEFAULT_MAX_DATES = 40
MAX_FILES = 20_000  # links read from one page: a bound on a hostile page
ACCEPT = "application/vnd.pypi.simple.v1+json, text/html;q=0.1"
JSON_TYPE = "application/vnd.pypi.simple.v1+json"
_ROCM = re.compile(r"rocm(\d+(?:\.\d+)*)")
_PATHLIKE = re.compile(r"[/\\]|\.\.")
_SLACK = timedelta(days=1)  # a server clock a little ahead of ours is not a far date


class _Links(HTMLParser):
    """The ``<a href>`` links of a simple index page: (file name as shown, href)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None
        self._text: list[str] = []
        self.dropped = 0  # links past MAX_FILES

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag != "a":
            return
        if len(self.links) < MAX_FILES:
            self._href = dict(attrs).get("href") or ""
            self._text = []
        else:
            self.dropped += 1

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._href is not None:
            self.links.append(("".join(self._text).strip(), self._href))
            self._href = None


def index_files(
    content: bytes, content_type: str, ctx: CollectContext | None = None
) -> list[dict[str, Any]]:
    """The files a page lists: ``{"filename", "url", "upload_time"}`` (url relative to the page,
    upload_time None in HTML), the first MAX_FILES of them (said through `ctx.capped`).
    ValueError when a JSON page is not PEP 691's shape."""
    if content_type.startswith(JSON_TYPE):
        document = json.loads(content.decode("utf-8", errors="replace"))
        files = document.get("files") if isinstance(document, dict) else None
        if not isinstance(files, list):
            raise ValueError("a PEP 691 page needs a 'files' list")
        if len(files) > MAX_FILES:
            _capped(ctx, len(files))
        return [
            {
                "filename": str(item.get("filename") or ""),
                "url": str(item.get("url") or ""),
                "upload_time": item.get("upload-time"),
            }
            for item in files[:MAX_FILES]
            if isinstance(item, dict)
        ]
    parser = _Links()
    parser.feed(content.decode("utf-8", errors="replace"))
    parser.close()
    if parser.dropped:
        _capped(ctx, MAX_FILES + parser.dropped)
    return [
        {
            "filename": text or unquote(urlsplit(href).path.rsplit("/", 1)[-1]),
            "url": href,
            "upload_time": None,
        }  # fmt: skip
        for text, href in parser.links
    ]


def _capped(ctx: CollectContext | None, listed: int) -> None:
    if ctx is not None:
        ctx.capped(
            "MAX_FILES",
            f"the index page lists {listed:,} files: only the first {MAX_FILES:,} are read, the "
            "builds of the rest are not dated",
        )


def read_name(filename: str, package: str) -> tuple[str, str] | str:
    """(public version, local build) of a file of `package`, or what is wrong with its name."""
    if not filename or _PATHLIKE.search(filename):
        return "path-like or empty file name"
    try:
        if filename.endswith(".whl"):
            name, version, _build, _tags = parse_wheel_filename(filename)
        elif filename.endswith((".tar.gz", ".zip")):
            name, version = parse_sdist_filename(filename)
        else:
            return "not a wheel or sdist"
    except (InvalidWheelFilename, InvalidSdistFilename) as exc:
        return f"not a valid file name ({first_line(exc)[:80]})"
    if name != canonicalize_name(package):
        return f"names another distribution ({name})"
    return version.public, version.local or ""


def _last_modified(headers: Mapping[str, str]) -> datetime | None:
    value = headers.get("Last-Modified")
    if not value:
        return None
    try:
        return utc(parsedate_to_datetime(value))
    except (TypeError, ValueError, IndexError, OverflowError):
        return None


def _event(ctx: CollectContext, key: str, version: str, build: str, dated: list) -> Event:
    when, filename, how, href = dated
    attrs: dict[str, Any] = {"build": build, "file": filename, "date_source": how}
    rocm = _ROCM.search(build)
    if rocm:
        attrs["rocm"] = rocm.group(1)
    package = ctx.option("package")
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="release",
        external_id=f"build:{key}",
        occurred_at=parse_time(when) or ctx.now,
        title=f"{package} {key}",
        url=urljoin(str(ctx.option("url")), href),
        version=version,
        regime=ctx.spec.regime,
        attrs=attrs,
    )


def build_events(files: list[dict[str, Any]], ctx: CollectContext, head=None) -> Iterator[Event]:
    """Group the page's files by build, date the undated ones (upload-time, else `head`'s
    Last-Modified, bounded) and yield an event for each build dated in this run."""
    package = str(ctx.option("package"))
    budget = int(ctx.option("max_dates", DEFAULT_MAX_DATES))
    dated: dict[str, list] = dict(ctx.state.get("dated") or {})
    builds: dict[str, dict[str, Any]] = {}
    for item in files:
        name = item["filename"]
        read = read_name(name, package)
        if isinstance(read, str):
            ctx.skip(f"file {name[:120]!r}", read)
            continue
        version, build = read
        key = f"{version}+{build}" if build else version
        entry = builds.setdefault(key, {"version": version, "build": build, "files": []})
        entry["files"].append(item)
    latest = ctx.now + _SLACK
    for key in sorted(builds):
        if key in dated:
            continue
        entry = builds[key]
        found = _date_of(entry["files"], ctx, head, budget)
        if found is None:
            continue
        when, filename, href, how, asked = found
        budget -= asked
        if when is None:
            continue
        if not computable(when) or when > latest:
            ctx.skip(f"file {filename[:120]!r}", f"date {when:%Y-%m-%d} is out of range")
            continue
        dated[key] = [when.isoformat(), filename, how, href]
        yield _event(ctx, key, entry["version"], entry["build"], dated[key])
    ctx.state["dated"] = dated


def _date_of(files: list[dict[str, Any]], ctx: CollectContext, head, budget: int):
    """(date, file, date_source, HEADs asked) for one build; None when the budget is spent."""
    ordered = sorted(files, key=lambda f: f["filename"])
    stamps = [(parse_time(f["upload_time"]), f["filename"]) for f in ordered if f["upload_time"]]
    stamps = [(when, name) for when, name in stamps if when is not None]
    if stamps:
        when, name = min(stamps)
        href = next(f["url"] for f in ordered if f["filename"] == name)
        return when, name, href, "upload-time", 0
    if head is None:
        ctx.skip(f"file {ordered[0]['filename'][:120]!r}", "no upload time and no HTTP to ask")
        return None
    if budget <= 0:
        ctx.read_again = True  # the next run reads the page again and dates the rest
        return None
    first = ordered[0]
    try:
        when = _last_modified(head(urljoin(str(ctx.option("url")), first["url"])))
    except FatalHTTPError as exc:  # the file is gone (404) or refused: this build only
        ctx.skip(f"file {first['filename'][:120]!r}", first_line(exc))
        return None, first["filename"], first["url"], "", 1
    except (RateLimited, OutOfTime):
        raise  # the source stops here and resumes from its state
    except SourceError as exc:  # the server fails after retries: no more HEADs this run
        ctx.skip(f"file {first['filename'][:120]!r}", f"{first_line(exc)[:160]} (next run)")
        ctx.read_again = True
        return None, first["filename"], first["url"], "", budget
    if when is None:
        ctx.skip(f"file {first['filename'][:120]!r}", "no Last-Modified date")
    return when, first["filename"], first["url"], "last-modified", 1


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of one local index page (HTML, or PEP 691 JSON when it parses as such): only
    files with an upload time can be dated without HTTP."""
    kind = JSON_TYPE if content.lstrip().startswith(b"{") else "text/html"
    try:
        files = index_files(content, kind, ctx)
    except ValueError as exc:
        raise FatalHTTPError(f"{ctx.spec.id}: index page: {first_line(exc)}") from None
    return build_events(files, ctx)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the index page (conditional) and yield the builds not dated before."""
    http = ctx.client()
    url = str(ctx.option("url"))
    response = http.get(url, accept=ACCEPT)
    if response is None:
        return
    kind = response.headers.get("Content-Type", "text/html")
    try:
        files = index_files(response.content, kind, ctx)
    except ValueError as exc:
        raise FatalHTTPError(f"{ctx.spec.id}: {url}: {first_line(exc)}") from None
    yield from build_events(files, ctx, head=http.head)
