"""Shared helpers of the vendor-document kinds (changelog, release notes, matrices).

Markdown (markdown-it-py), reStructuredText (docutils) and HTML (BeautifulSoup) are all turned
into the same small tree (`_docs_tree`): a `Section` has a title, a level, a 1-based source
line, its `Block`s (paragraphs, list items, tables) and its sub-sections. The kinds then walk
that tree; nothing here knows about a particular vendor. Dates are parsed by `find_date`, which
only accepts a complete calendar date and never guesses a missing part.

This module is the one the kinds import from. The parsers live in `_docs_markdown`,
`_docs_rst` and `_docs_html`, each imported on first use so that loading the collector
registry does not load docutils, markdown-it and BeautifulSoup, and each runs with the cyclic
garbage collector paused (`tracker.gcpause.gc_paused`).

Not a collector kind: the leading underscore keeps the registry from loading it as one.
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tracker.collect.sources._docs_tree import Block, Section
from tracker.gcpause import gc_paused
from tracker.names import FRAMEWORKS as FRAMEWORKS
from tracker.versions import parse_version

__all__ = [
    "Block",
    "Section",
    "markdown_tree",
    "rst_tree",
    "html_tree",
    "tree_for",
    "format_of",
    "find_date",
    "history_dates",
    "load_history",
    "FRAMEWORKS",
    "framework_of",
    "versions_in",
    "mentions",
    "is_lead_in",
    "slug",
    "text_key",
    "short_title",
    "IdMaker",
    "note_attrs",
]

# ---------------------------------------------------------------------------------- parsers


def markdown_tree(text: str) -> Section:
    """Parse Markdown (CommonMark + tables) into a Section tree rooted at a level-0 section."""
    from tracker.collect.sources._docs_markdown import markdown_tree as parse

    with gc_paused():  # see gc_paused: a quarter of the parse time otherwise
        return parse(text)


def rst_tree(text: str) -> Section:
    """Parse reStructuredText into a Section tree rooted at a level-0 section; markup errors
    of level ERROR or worse are listed in the root's `problems`."""
    from tracker.collect.sources._docs_rst import rst_tree as parse

    with gc_paused():  # see gc_paused: a quarter of the parse time otherwise
        return parse(text)


def html_tree(text: str) -> Section:
    """Parse an HTML page into a Section tree: h1-h6 open sections; p, li, tables become
    blocks. Navigation, scripts and styles are dropped."""
    from tracker.collect.sources._docs_html import html_tree as parse

    with gc_paused():  # see gc_paused: a quarter of the parse time otherwise
        return parse(text)


def tree_for(text: str, fmt: str) -> Section:
    """The Section tree of `text` in format markdown | rst | html."""
    if fmt in ("markdown", "md"):
        return markdown_tree(text)
    if fmt == "rst":
        return rst_tree(text)
    if fmt == "html":
        return html_tree(text)
    raise ValueError(f"unknown document format {fmt!r} (markdown, rst, html)")


def format_of(url: str, default: str = "markdown") -> str:
    """Guess a document format from a URL or path suffix."""
    lower = url.lower().split("?")[0]
    if lower.endswith((".rst", ".txt")):
        return "rst"
    if lower.endswith((".html", ".htm")) or lower.endswith("/"):
        return "html"
    if lower.endswith(".csv"):
        return "csv"
    if lower.endswith((".md", ".markdown")):
        return "markdown"
    return default


# ----------------------------------------------------------------------------------------- dates

_MONTHS = {
    name: i
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ],
        start=1,
    )
    for name in names
}
_MONTH_RE = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DATE_PATTERNS = (
    # "July 16, 2026", "Sept 18, 2023", "Dec 4 2023", "Mar. 4, 2025"
    re.compile(
        rf"\b(?P<mon>{_MONTH_RE})\.?\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+"
        rf"(?P<year>\d{{4}})\b",
        re.I,
    ),
    # "16 July 2026"
    re.compile(rf"\b(?P<day>\d{{1,2}})\s+(?P<mon>{_MONTH_RE})\.?,?\s+(?P<year>\d{{4}})\b", re.I),
    # "2026-07-16"
    re.compile(r"\b(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})\b"),
    # "05/21/2026", "5/1/2026" (US order, as AWS and AMD write them)
    re.compile(r"\b(?P<month>\d{1,2})/(?P<day>\d{1,2})/(?P<year>\d{4})\b"),
)


def find_date(text: str | None) -> datetime | None:
    """The first complete calendar date in `text` as UTC midnight, or None (never a guess:
    "January 12ish 2021" and "TBD" are not dates)."""
    if not text:
        return None
    best: tuple[int, datetime] | None = None
    for pattern in _DATE_PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        parts = match.groupdict()
        month = int(parts["month"]) if parts.get("month") else _MONTHS[parts["mon"].lower()]
        try:
            value = datetime(int(parts["year"]), month, int(parts["day"]), tzinfo=UTC)
        except ValueError:
            continue
        if best is None or match.start() < best[0]:
            best = (match.start(), value)
    return best[1] if best else None


# --------------------------------------------------------------------------------- history


def history_dates(text: str, fmt: str) -> dict[str, datetime]:
    """Version -> release date from a release-history table (ROCm ``versions.md`` or the RST
    list-table of ``versions.rst``): the first cell holding a version, the first holding a date.
    """
    dates: dict[str, datetime] = {}
    for section in tree_for(text, fmt).walk():
        for block in section.blocks:
            for row in block.rows[block.header_rows :] if block.kind == "table" else []:
                version = next((parse_version(c) for c in row if parse_version(c)), None)
                date = next((find_date(c) for c in row if find_date(c)), None)
                if version and date:
                    dates.setdefault(version.version, date)
    return dates


def load_history(ctx) -> dict[str, datetime]:
    """The release history named by ``history_url``: fetched through ``ctx.http`` when there is
    a client, read from disk when it is a local path (``tracker parse``), else empty."""
    url = ctx.option("history_url")
    if not url:
        return {}
    fmt = format_of(url)
    if ctx.http is not None:
        response = ctx.client().get(url, conditional=False)  # needed whole whenever the doc changed
        return history_dates(response.text, fmt) if response is not None else {}
    path = Path(url)
    return history_dates(path.read_text(encoding="utf-8"), fmt) if path.exists() else {}


# -------------------------------------------------------------------------------------- versions

_VERSION_TOKEN = re.compile(
    r"(?<![\w.])v?(\d+(?:\.\d+)+(?:[.-]?(?:rc|a|b|post|dev)\d*)?)"
    r"(?![\w.]*\d)"
)


def framework_of(text: str) -> str | None:
    """The tracked framework a label names ("PyTorch", ":doc:`JAX <...>`"), or None."""
    words = re.findall(r"[a-z]+", text.lower())
    for word in words:
        if word in FRAMEWORKS:
            return FRAMEWORKS[word]
    return None


def versions_in(text: str) -> list[str]:
    """Every dotted version in `text`, PEP 440-normalised, in order, without repeats."""
    found: list[str] = []
    for match in _VERSION_TOKEN.finditer(text or ""):
        parsed = parse_version(match.group(1))
        if parsed is not None and parsed.version not in found:
            found.append(parsed.version)
    return found


def mentions(framework: str, versions: list[str], status: str = "supported") -> list[dict]:
    """Structured mentions in the shape the tagger uses."""
    return [{"framework": framework, "version": v, "status": status} for v in versions]


# ----------------------------------------------------------------------------------------- notes


def is_lead_in(block: Block) -> bool:
    """A bullet that only names a group for its nested bullets ("* Bug fixes", "* Breaking
    changes:"): short, not a sentence, with a nested list."""
    first = block.first.strip()
    return bool(block.nested) and len(first.split()) <= 5 and not first.endswith(".")


def slug(text: str) -> str:
    """A short, stable, URL-ish form of a heading."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60]


def text_key(text: str) -> str:
    """A stable digest of an item's text (whitespace-insensitive) for external ids."""
    return hashlib.sha1(" ".join(text.split()).encode()).hexdigest()[:12]


def short_title(text: str, limit: int = 160) -> str:
    """The first line of `text`, cut at a word boundary to at most `limit` characters."""
    line = text.strip().split("\n", 1)[0].lstrip("- ").strip()
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0] + " ..."


class IdMaker:
    """External ids from (scope, section, text digest), with a counter for repeated texts so
    two identical bullets of one section keep distinct, stable ids."""

    def __init__(self) -> None:
        self._seen: dict[str, int] = {}

    def __call__(self, *parts: str) -> str:
        base = "#".join(parts)
        count = self._seen.get(base, 0)
        self._seen[base] = count + 1
        return base if count == 0 else f"{base}~{count}"


def note_attrs(**values: Any) -> dict[str, Any]:
    """attrs without the None / empty values (the store keeps attrs as JSON)."""
    return {k: v for k, v in values.items() if v not in (None, "", [], {})}
