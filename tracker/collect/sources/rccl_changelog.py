"""`rccl_changelog`: RCCL's ``CHANGELOG.md`` -> one `note` per section, naming the ROCm release
it is for and the NCCL versions it carries or claims compatibility with.

RCCL (ROCm's NCCL) ships only inside ROCm releases, and its changelog says which: every section
is headed "RCCL 2.27.7 for ROCm 7.1.0" (older ones "RCCL-2.13.4 for ROCm 5.4.0", the oldest in
brackets, "[RCCL-2.8.4 for ROCm 4.3.0]"; a section not yet shipped ends in "(Unreleased)"), and
lists the NCCL versions it is compatible with as bullets "Compatibility with NCCL 2.23.4".
Where the changelog lives moved (ROCm/rccl, then ROCm/rocm-systems projects/rccl): one source
per file, the older one `moved_to` the newer.

Source keys: ``url`` (the raw Markdown). The collectives layer (tracker.measure.collectives)
dates each section by the ROCm release it names, never by this document: sections are edited
after the fact, and the document carries no dates of its own.

Contract:
- ``GET {url}`` (a 304 means nothing changed).
- One ``note`` per section heading of the form above: ``external_id`` ``section:rocm-<A.B.C>``
  (one section per ROCm release; a second heading for the same release adds its versions),
  ``version`` the RCCL version, attrs ``rccl``, ``rocm`` (as written), ``nccl`` (the NCCL
  versions the section names: its own RCCL version, whose number is NCCL's, and every
  "Compatibility with NCCL X" bullet under it) and ``unreleased``. The note is dated by the
  response's ``Date`` header (the day the document was read: the section existed by then),
  else by the run's clock; ``url`` is the document.
- A level-2 heading that is not "RCCL <version> for ROCm <version>" is skipped with
  ``ctx.skip`` naming its line; a document with no such heading at all is one skip ("layout
  changed?"), never a silent run with no events.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from email.utils import parsedate_to_datetime

from tracker.collect.sources import CollectContext
from tracker.events import Event
from tracker.versions import parse_version

KIND = "rccl_changelog"

_HEADING = re.compile(r"^##\s+(?!#)(?P<title>.*?)\s*$")
_SECTION = re.compile(
    r"^\[?\s*RCCL[\s-]+v?(?P<rccl>\d+(?:\.\d+)+(?:-\d+)?)\s+for\s+ROCm\s+"
    r"(?P<rocm>\d+(?:\.\d+)+)\s*\]?\s*(?P<unreleased>\(\s*unreleased\s*\))?\s*$",
    re.I,
)
_COMPAT = re.compile(
    r"^\s*[-*+]\s+Compatibility with NCCL\s+v?(?P<nccl>\d+(?:\.\d+)+(?:-\d+)?)\b", re.I
)
MAX_VERSIONS = 50  # NCCL versions kept per section: a hostile document cannot grow a note


def _nccl(text: str) -> str | None:
    """An NCCL version as the tags number it ("2.17.1-1" is 2.17.1's first build)."""
    parsed = parse_version(text.split("-")[0])
    return parsed.version if parsed else None


def parse(content: bytes, ctx: CollectContext, served=None) -> Iterator[Event]:
    """The section notes of one changelog (module doc); `served` dates them (default now)."""
    url = str(ctx.option("url", ""))
    when = served or ctx.now
    text = content.decode("utf-8", errors="replace")
    sections: dict[str, dict] = {}
    current: dict | None = None
    headings = 0
    for number, line in enumerate(text.splitlines(), start=1):
        heading = _HEADING.match(line)
        if heading:
            headings += 1
            match = _SECTION.match(heading.group("title"))
            rccl = _nccl(match.group("rccl")) if match else None
            rocm = parse_version(match.group("rocm")) if match else None
            if match is None or rccl is None or rocm is None:
                current = None
                ctx.skip(
                    f"line {number} {heading.group('title')[:80]!r}", "not 'RCCL X for ROCm Y'"
                )
                continue
            key = rocm.version
            current = sections.setdefault(
                key,
                {
                    "rccl": rccl,
                    "rocm": match.group("rocm"),
                    "nccl": [rccl],
                    "unreleased": False,
                    "title": heading.group("title")[:200],
                },
            )
            current["unreleased"] = current["unreleased"] or bool(match.group("unreleased"))
            continue
        compat = _COMPAT.match(line) if current is not None else None
        if compat and current is not None:
            version = _nccl(compat.group("nccl"))
            if version and version not in current["nccl"] and len(current["nccl"]) < MAX_VERSIONS:
                current["nccl"].append(version)
    if not sections:
        ctx.skip(
            "document", f"no 'RCCL X for ROCm Y' section among {headings} headings: layout changed?"
        )
        return
    for key, section in sections.items():
        yield Event(
            source_id=ctx.spec.id,
            project=ctx.spec.project,
            kind="note",
            external_id=f"section:rocm-{key}",
            occurred_at=when,
            title=section["title"],
            url=url,
            version=section["rccl"],
            regime=ctx.spec.regime,
            attrs={k: section[k] for k in ("rccl", "rocm", "nccl", "unreleased")},
        )


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the changelog (a 304 means nothing new) and parse it, dated by the response."""
    response = ctx.client().get(ctx.option("url"))
    if response is None:
        return
    served = None
    try:
        served = parsedate_to_datetime(response.headers.get("Date") or "")
    except (TypeError, ValueError):
        served = None
    yield from parse(response.content, ctx, served if served and served.tzinfo else None)
