"""PyPI JSON API of one package -> one `release` event per version, dated by its first upload.

Source keys: ``package``; optional ``url`` (default https://pypi.org/pypi/{package}/json).

Contract:
- One conditional ``GET url`` (``ctx.http.get_json``); a 304 yields nothing. A body that is not
  a JSON object with a ``releases`` mapping (``null`` included: it is never read as a 304) fails
  the source with an error naming it.
- A version's date is the earliest ``upload_time_iso_8601`` over its files: wheels for other
  platforms are often uploaded hours or days later, and day 0 is when the version first appeared.
- Yanked versions are kept (they were published) and marked: ``attrs["yanked"]`` with the reason.
- A version with no files is skipped silently (PyPI lists such versions when every file was
  deleted: there is no date to give it); a key that is not a PEP 440 version is skipped with
  ``ctx.skip``. Pre-releases are kept and marked.
- Every version is emitted on every changed fetch: the document is one unit and upserts are
  idempotent, so a late upload that moves no date changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Any

from tracker.collect.sources import CollectContext, load_json
from tracker.errors import FatalHTTPError
from tracker.events import Event, parse_time
from tracker.versions import parse_version

KIND = "pypi"
DEFAULT_URL = "https://pypi.org/pypi/{package}/json"


def first_upload(files: list[dict]) -> datetime | None:
    """The earliest upload time over a version's files (aware UTC), or None when none is dated."""
    read = [parse_time(f.get("upload_time_iso_8601") or f.get("upload_time")) for f in files]
    times = [t for t in read if t is not None]
    return min(times) if times else None


def version_events(document: Any, ctx: CollectContext) -> Iterator[Event]:
    """Events of one parsed PyPI JSON document (see the module contract)."""
    if not isinstance(document, dict) or not isinstance(document.get("releases"), dict):
        raise FatalHTTPError(
            f"{ctx.spec.id}: not a PyPI project JSON document (no 'releases' mapping)"
        )
    info = document.get("info")
    name = info.get("name") if isinstance(info, dict) else None
    package = name if isinstance(name, str) and name else str(ctx.option("package", ""))
    for raw, files in document["releases"].items():
        event = None
        with ctx.item(f"version {raw!r:.80}"):
            event = _version_event(raw, files, package, ctx)
        if event is not None:
            yield event


def _version_event(raw: str, files: Any, package: str, ctx: CollectContext) -> Event | None:
    """The release event of one version of the document; None when skipped or fileless."""
    spec = ctx.spec
    parsed = parse_version(raw)
    if parsed is None:
        ctx.skip(f"version {raw!r}", "not a PEP 440 version")
        return None
    if not files:
        return None
    if not isinstance(files, list) or not all(isinstance(f, dict) for f in files):
        ctx.skip(f"version {raw!r}", "its files are not a list of JSON objects")
        return None
    when = first_upload(files)
    if when is None:
        ctx.skip(f"version {raw!r}", "no upload time on any file")
        return None
    yanked = any(f.get("yanked") for f in files)
    attrs: dict[str, Any] = {
        "files": len(files),
        "yanked": yanked,
        "prerelease": parsed.prerelease,
    }
    if yanked:
        reasons = {str(f["yanked_reason"]) for f in files if f.get("yanked_reason")}
        attrs["yanked_reason"] = "; ".join(sorted(reasons)) or None
    if parsed.local:
        attrs["local"] = parsed.local
    return Event(
        source_id=spec.id,
        project=spec.project,
        kind="release",
        external_id=f"release:{raw}",
        occurred_at=when,
        title=f"{package} {raw}",
        url=f"https://pypi.org/project/{package}/{raw}/",
        version=parsed.version,
        regime=spec.regime,
        attrs=attrs,
    )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of a local PyPI JSON file."""
    return version_events(load_json(content, ctx, "PyPI document", dict), ctx)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the package's JSON (conditional GET) and yield one event per dated version."""
    package = ctx.option("package")
    url = str(ctx.option("url") or DEFAULT_URL).format(package=package)
    document = ctx.client().get_json(url)
    if document is None:  # 304 only: get_json refuses a `null` body
        return iter(())
    return version_events(document, ctx)
