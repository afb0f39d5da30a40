"""`changelog_markdown`: a Markdown changelog (JAX ``CHANGELOG.md``) -> release and note events.

Source keys: ``url`` (required); ``package`` (whose headings are releases of this source's
project; default the project id, matched case-insensitively: "JAX 0.11.0" and "jax 0.4.38");
``heading_level`` (the Markdown level of release headings, default 2).

Contract:
- Parsed with markdown-it-py into headings, paragraphs and list items (never line regexes).
- A release heading is "<package> <version> (<date>)": "JAX 0.11.0 (July 16, 2026)",
  "jax 0.4.21 (Dec 4 2023)", "jax (0.2.0) (September 23 2020)". Each becomes one ``release``
  event (version PEP 440-normalised, date UTC midnight) for this source's package.
- Headings of another package in the same file ("jaxlib 0.4.32 (...)") are not releases of this
  project: their bullets become notes with ``attrs.package`` = that package.
- Each bullet under a release is one ``note`` with the release's version and date and
  ``attrs.section`` = the nearest lead-in bullet ("* Bug fixes" whose nested bullets are the
  items), bold lead-in paragraph or sub-heading. A bullet that is only a link ("[GitHub
  commits](...)") is navigation, not a note.
- "Unreleased" is never a release (its bullets are not stored: they have no version or date).
  A heading without a complete date ("jax 0.3.16", "January 12ish 2021") or that does not parse
  is skipped with ``ctx.skip`` naming its line; everything else goes on.
- No "<package> <version>" heading at ``heading_level`` at all (releases moved to another level,
  or the URL now serves HTML) is one ``ctx.skip`` of the document ("layout changed?"), never a
  silent run with no events.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from tracker.collect.sources import CollectContext
from tracker.collect.sources._docs import (
    IdMaker,
    Section,
    find_date,
    is_lead_in,
    markdown_tree,
    note_attrs,
    short_title,
    text_key,
)
from tracker.events import Event
from tracker.versions import parse_version

KIND = "changelog_markdown"

# "<package> <version> (<date>)"; the version may be parenthesised in old JAX entries.
_HEADING = re.compile(
    r"^(?P<package>[A-Za-z][\w.-]*)\s+\(?v?(?P<version>\d+(?:\.\d+)+[\w.+-]*)\)?"
    r"\s*(?:\((?P<date>[^()]*)\))?\s*$"
)
_UNRELEASED = re.compile(r"^\s*(unreleased|upcoming|next|main|master|head)\b", re.I)


def _items(section: Section, label: str | None) -> Iterator[tuple[str, int | None, str | None]]:
    """(text, line, section label) for each bullet of a release section and its sub-headings."""
    current = label
    for block in section.blocks:
        if block.kind == "para":
            if (
                block.strong
                and len(block.strong.split()) <= 5
                and (
                    block.text.strip(" :") == block.strong.strip(" :")
                    or block.text.rstrip().endswith(":")
                )
            ):
                current = block.strong.strip(" :")  # "**Bug fixes**:" labels what follows
            elif block.text and not block.only_link:
                yield block.text, block.line, current
        elif block.kind == "item":
            first = block.first.strip()
            if block.nested and (is_lead_in(block) or block.only_link):
                name = None if block.only_link else first.rstrip(" :")
                for child in block.nested:
                    yield child.text, child.line, name or current
            elif not block.only_link and block.text:
                yield (
                    block.text,
                    block.line,
                    block.strong.strip(" :")
                    if block.strong
                    and len(block.strong.split()) <= 5
                    and first.rstrip().endswith(":")
                    else current,
                )
    for sub in section.children:
        yield from _items(sub, sub.title)


def _release_sections(root: Section, level: int) -> Iterator[Section]:
    for section in root.walk():
        if section.level == level:
            yield section


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Turn a changelog into release and note events (see module doc)."""
    url = ctx.option("url", "")
    package = str(ctx.option("package") or ctx.spec.project).lower()
    text = content.decode("utf-8", errors="replace")
    if not text.strip():
        ctx.skip("document", "empty changelog")
        return
    root = markdown_tree(text)
    level = int(ctx.option("heading_level", 2))
    ids = IdMaker()
    found = False
    for section in _release_sections(root, level):
        where = f"line {section.line} {section.title!r}"
        if _UNRELEASED.match(section.title):
            continue  # not released yet: no version, no date, never a release
        match = _HEADING.match(section.title)
        parsed = parse_version(match.group("version")) if match else None
        found = found or parsed is not None
        if match is None or parsed is None:
            ctx.skip(where, "heading is not '<package> <version> (<date>)'")
            continue
        date = find_date(match.group("date"))
        if date is None:
            ctx.skip(where, "no complete release date in the heading; its notes are not stored")
            continue
        name = match.group("package").lower()
        version = parsed.version
        scope = version if name == package else f"{name}:{version}"
        if name == package:
            yield Event(
                ctx.spec.id,
                ctx.spec.project,
                "release",
                f"release:{version}",
                date,
                section.title,
                url=url,
                version=version,
                regime=ctx.spec.regime,
                attrs=note_attrs(line=section.line, local=parsed.local),
            )
        for body, line, label in _items(section, None):
            yield Event(
                ctx.spec.id,
                ctx.spec.project,
                "note",
                ids(scope, text_key(body)),
                date,
                short_title(body),
                body=body,
                url=url,
                version=version,
                regime=ctx.spec.regime,
                attrs=note_attrs(
                    section=label,
                    line=line,
                    release=section.title,
                    package=None if name == package else name,
                ),
            )
    if not found:
        ctx.skip(
            "document",
            f"no release heading '{'#' * level} <package> <version> (<date>)' "
            f"(heading level {level}): has the changelog layout changed? "
            "(`heading_level` sets the level)",
        )


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the changelog (a 304 means nothing new) and parse it."""
    response = ctx.client().get(ctx.option("url"))
    if response is None:
        return
    yield from parse(response.content, ctx)
