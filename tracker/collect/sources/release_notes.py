"""`release_notes`: vendor release notes in Markdown, reStructuredText or HTML -> note events.

Source keys: ``url`` (required); ``format`` (markdown | rst | html; guessed from the URL suffix
when absent); ``version`` (the release the whole document belongs to, for documents whose
headings carry none); ``release_date`` (YYYY-MM-DD or any full date, for documents that state
none); ``history_url`` (a release-history document, version -> date, e.g. ROCm
``docs/release/versions.md``); ``product`` (the product name(s) that prefix a release version in
headings, default ``Neuron`` and ``ROCm``); ``releases`` (true: also emit one ``release`` event
per release section found, e.g. for Neuron's ``prev/rn.rst``).

How a document is read (see `_docs` for the parsers):

- A *release section* is a heading naming a product and a three-part version: "ROCm 6.3.0
  release notes", "Neuron 2.24.0 (06/24/2025)", "PyTorch Framework [2.9.0.2.13.*] (Neuron 2.29.0
  Release)", "AWS Neuron SDK 2.32.0 release notes". Everything below it belongs to that release.
- Its date: a date in the heading, else a "Date of release" line at its top, else the
  ``release_date`` option (single-release documents only), else the release history. No date
  -> the release is skipped with ``ctx.skip`` (a date is never guessed).
- Items: every list item and paragraph is a note. A lead-in bullet ("* Bug fixes" with a nested
  list) or a bold-only paragraph ("**Library Upgrades**") labels the items that follow it; a
  heading with only prose under it (a ROCm "known issue" heading) is one note titled by that
  heading; a bullet that is only a link is navigation and skipped, unless a paragraph ending in
  ":" introduces its list; prose directly under a heading that has sub-headings is an
  introduction and dropped.
  Tables are package lists in these documents and are skipped, except tables with a framework
  version column ("PyTorch version"), whose rows become notes with structured mentions.
- ``attrs``: section (canonical: Known issues, Resolved issues, Bug fixes, New features,
  Improvements, Changes, Optimizations, Deprecations, Removals, Breaking changes, Upcoming
  changes), heading, path, line, topic, intro (the paragraph ending in ":" that introduces the
  list an item is in, "Compatible models include:"), release (the release heading) and, where
  the document states support in a structured place ("Supported vLLM Versions: Neuron
  currently supports vLLM version 0.16.0"), mentions = [{framework, version, status:
  supported}]. Free-text support statements are left to the tagger.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from functools import lru_cache

from tracker.collect.sources import CollectContext
from tracker.collect.sources._docs import (
    Block,
    IdMaker,
    Section,
    find_date,
    format_of,
    framework_of,
    is_lead_in,
    load_history,
    mentions,
    note_attrs,
    short_title,
    text_key,
    tree_for,
    versions_in,
)
from tracker.events import Event
from tracker.versions import parse_version

KIND = "release_notes"

DEFAULT_PRODUCTS = ("Neuron", "ROCm")

# Canonical section names: a heading is a section (rather than a topic) when, after leading
# product names and versions ("ROCm known issues", "2.21.0 Known Issues and Limitations"), it
# starts with one of these words. "PyTorch 2.4 support added" is a topic, not "Added".
_SECTION_WORDS = (
    ("known issue", "Known issues"),
    ("limitation", "Known issues"),
    ("resolved issue", "Resolved issues"),
    ("bug fix", "Bug fixes"),
    ("bugfix", "Bug fixes"),
    ("fixed", "Bug fixes"),
    ("fixes", "Bug fixes"),
    ("bugs", "Bug fixes"),
    ("upcoming", "Upcoming changes"),
    ("breaking", "Breaking changes"),
    ("deprecat", "Deprecations"),
    ("optimi", "Optimizations"),
    ("performance", "Optimizations"),
    ("removal", "Removals"),
    ("removed", "Removals"),
    ("deletion", "Removals"),
    ("new feature", "New features"),
    ("what's new", "New features"),
    ("what\u2019s new", "New features"),
    ("new functionality", "New features"),
    ("release highlights", "New features"),
    ("highlights", "New features"),
    ("added", "New features"),
    ("additions", "New features"),
    ("improvement", "Improvements"),
    ("enhancement", "Improvements"),
    ("changed", "Changes"),
    ("changes", "Changes"),
    ("notable changes", "Changes"),
    ("updates", "Changes"),
)
_LEADING = re.compile(r"^(?:(?:rocm|neuron|aws|sdk|jax|component|v?\d+(?:\.\d+)+)\s+)+", re.I)
# A release's own date line: "Date of Release: 04/09/2026", "**Posted on**: April 09, 2026".
_DATE_FIELD = re.compile(r"\b(date of release|release date|released on|posted on)\b", re.I)


@lru_cache(maxsize=4096)  # asked for every note's whole heading path: the same few titles
def canonical_section(title: str | None) -> str | None:
    """The canonical section name a heading or lead-in stands for, or None for a topic."""
    if not title:
        return None
    lower = _LEADING.sub("", title.strip().lower())
    for word, name in _SECTION_WORDS:
        if lower.startswith(word):
            return name
    return None


def release_pattern(products: Iterable[str]) -> re.Pattern:
    """Heading pattern of a release: a product name, an optional "SDK", a x.y.z version and an
    optional pre-release word ("Neuron 2.21.0 Beta")."""
    names = "|".join(re.escape(p) for p in products)
    return re.compile(
        rf"\b(?:{names})(?:\s+SDK)?\s+v?(\d+\.\d+\.\d+(?:\.\d+)?)"
        rf"(?:\s+(beta|alpha|rc\s*\d*)\b)?",
        re.I,
    )


def option_date(ctx: CollectContext) -> datetime | None:
    """The ``release_date`` option as UTC midnight (YAML may hand us a date object)."""
    value = ctx.option("release_date")
    if value is None:
        return None
    if hasattr(value, "year"):
        return datetime(value.year, value.month, value.day, tzinfo=UTC)
    return find_date(str(value))


# ------------------------------------------------------------------------------------- items


class _Note:
    __slots__ = tuple("text title line section heading path topic intro mentions".split())

    def __init__(self, text, line, path, topic=None, title=None, found_mentions=None, intro=None):
        self.text, self.line, self.path, self.topic = text, line, list(path), topic
        self.intro = intro
        self.title = title or short_title(text)
        # the nearest section-like heading wins over a lead-in ("Upcoming changes" >
        # "Deprecated HIP APIs:"); a lead-in labels items under topic headings ("Neuron Tools")
        labels = list(reversed(path)) + [topic]
        self.section = next((canonical_section(x) for x in labels if canonical_section(x)), None)
        self.heading = path[-1] if path else None
        self.mentions = found_mentions or []


def _is_label(block: Block) -> bool:
    if not block.strong:
        return False
    return block.text.strip(" :") == block.strong.strip(" :")


def _supported_framework(path: list[str]) -> str | None:
    """The framework of a "Supported vLLM Versions" style heading in `path`, if any."""
    for title in reversed(path):
        if "support" in title.lower() and "version" in title.lower():
            return framework_of(title)
    return None


def _table_notes(block: Block, path: list[str]) -> Iterator[_Note]:
    header = block.rows[0] if block.header_rows and block.rows else []
    columns = {i: fw for i, h in enumerate(header) if (fw := framework_of(h))}
    if not columns:
        return  # package lists, "What's New" link tables: not items
    for row in block.rows[block.header_rows :]:
        text = "; ".join(
            f"{header[i]}: {cell}" if i < len(header) else cell
            for i, cell in enumerate(row)
            if cell
        )
        found = [
            m
            for i, fw in columns.items()
            if i < len(row)
            for m in mentions(fw, versions_in(row[i]))
        ]
        if text:
            yield _Note(text, block.line, path, found_mentions=found)


def section_notes(section: Section, path: list[str], scope_root: bool) -> Iterator[_Note]:
    """The notes of one release's section and its sub-sections (rules in the module doc)."""
    leaf = not section.children
    framework = _supported_framework(path)

    def note(text, line, topic=None, title=None, intro=None):
        found = mentions(framework, versions_in(text)) if framework else []
        return _Note(text, line, path, topic, title, found, intro)

    prose = [
        b
        for b in section.blocks
        if b.kind in ("para", "admonition")
        and not _DATE_FIELD.search(b.text[:60])
        and not b.only_link
    ]
    prose_ids = {id(b) for b in prose}
    if (
        leaf
        and not scope_root
        and path
        and canonical_section(path[-1]) is None
        and not any(b.kind in ("item", "table") for b in section.blocks)
        and framework is None
    ):
        if prose:  # a topic heading ("### TransferBench package not functional") is one note
            body = "\n\n".join(b.text for b in prose)
            yield note(body, section.line, title=path[-1])
    else:
        topic = intro = None
        for block in section.blocks:
            if block.kind == "table":
                yield from _table_notes(block, path)
            elif block.kind == "item":
                if is_lead_in(block) or (block.only_link and block.nested):
                    lead = None if block.only_link else block.first.rstrip(" :")
                    for child in block.nested:
                        yield note(child.text, child.line, lead or topic, intro=intro)
                elif (intro or not block.only_link) and block.text:  # a link alone: navigation
                    yield note(block.text, block.line, block.strong or topic, intro=intro)
            elif block.kind in ("para", "admonition"):
                # "Compatible models include:" + a list: its items keep it (the tagger reads it)
                intro = block.text[:500] if block.text.rstrip().endswith(":") else None
                if block.kind == "para" and _is_label(block):
                    topic = (block.strong or "").strip(" :")  # set: _is_label checked it
                    continue
                if block.kind == "para" and block.strong and block.text.endswith(":"):
                    topic = block.strong.strip(" :")  # "**Maintenance**: the following:" + list
                if id(block) in prose_ids and (leaf or scope_root) and block.text:
                    yield note(
                        block.text, block.line, block.strong.strip(" :") if block.strong else topic
                    )
    for sub in section.children:
        yield from section_notes(sub, path + [sub.title], False)


# ---------------------------------------------------------------------------------- releases


def release_scopes(root: Section, pattern: re.Pattern) -> Iterator[tuple[Section, str]]:
    """(release section, raw version) for each outermost heading that names a release."""
    for child in root.children:
        match = pattern.search(child.title)
        if match:
            raw = match.group(1) + (match.group(2).replace(" ", "") if match.group(2) else "")
            yield child, raw
        else:
            yield from release_scopes(child, pattern)


def _scope_date(section: Section) -> datetime | None:
    date = find_date(section.title)
    if date:
        return date
    for block in section.blocks[:6]:
        if block.kind == "para" and _DATE_FIELD.search(block.text):
            return find_date(block.text)
    return None


def parse(content: bytes, ctx: CollectContext, history: dict | None = None) -> Iterator[Event]:
    """Turn one release-notes document into note (and optionally release) events."""
    url = ctx.option("url", "")
    fmt = ctx.option("format") or format_of(url)
    text = content.decode("utf-8", errors="replace")
    if not text.strip():
        ctx.skip("document", "empty document")
        return
    try:
        root = tree_for(text, fmt)
    except Exception as exc:  # a parser bug on odd input must not take the source down
        ctx.skip("document", f"could not parse as {fmt}: {exc}")
        return
    for line, problem in root.problems:
        ctx.skip(f"line {line}", f"{fmt} markup error, content there not read: {problem}")
    products = ctx.option("product") or DEFAULT_PRODUCTS
    products = [products] if isinstance(products, str) else products
    forced = ctx.option("version")
    if forced:
        scopes = [(root, str(forced))]
    else:
        scopes = list(release_scopes(root, release_pattern(products)))
    if not scopes:
        ctx.skip(
            "document",
            f"no release heading naming {' or '.join(products)} x.y.z "
            "(has the page layout changed?); set `version` to read it whole",
        )
        return
    if history is None:
        history = load_history(ctx) if not all(_scope_date(s) for s, _ in scopes) else {}
    ids, release_ids = IdMaker(), set()
    for section, raw in scopes:
        where = f"line {section.line} {section.title!r}" if section.title else "document"
        parsed = parse_version(raw)
        if parsed is None:
            ctx.skip(where, f"release version {raw!r} is not a version")
            continue
        version = parsed.version
        date = _scope_date(section)
        if date is None and (forced or len(scopes) == 1):
            date = option_date(ctx)
        if date is None:
            date = history.get(version)
        if date is None:
            ctx.read_again = True  # the history may date it later
            ctx.skip(
                where,
                f"no release date for {version} in the document, the release_date "
                "option or the release history; its notes are not stored",
            )
            continue
        if ctx.option("releases") and version not in release_ids:
            release_ids.add(version)
            yield Event(
                ctx.spec.id,
                ctx.spec.project,
                "release",
                f"release:{version}",
                date,
                section.title or f"{ctx.spec.project} {version}",
                url=url,
                version=version,
                regime=ctx.spec.regime,
                attrs=note_attrs(line=section.line, local=parsed.local),
            )
        for item in section_notes(section, [], True):
            yield Event(
                ctx.spec.id,
                ctx.spec.project,
                "note",
                ids(version, text_key(item.text)),
                date,
                item.title,
                body=item.text,
                url=url,
                version=version,
                regime=ctx.spec.regime,
                attrs=note_attrs(
                    section=item.section,
                    heading=item.heading,
                    path=item.path,
                    line=item.line,
                    topic=item.topic,
                    intro=item.intro,
                    release=section.title,
                    mentions=item.mentions,
                    local=parsed.local,
                ),
            )


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the document (a 304 means nothing new) and parse it.

    ctx.state["notes"] holds the note ids of the last complete read. A note id hashes the
    item's text, so an item edited upstream comes back under a new id; its old id, gone from
    the document, is marked vanished (kept, never deleted), or one item would count twice. A
    read that skipped anything (a release without a date yet) is not complete: nothing is
    marked then, and the ids seen are added to those known."""
    response = ctx.client().get(ctx.option("url"))
    if response is None:
        return
    previous = set(ctx.state.get("notes") or [])
    skipped_before = ctx.skipped
    current = set()
    for event in parse(response.content, ctx):
        if event.kind == "note":
            current.add(event.external_id)
        yield event
    if ctx.skipped == skipped_before:
        for gone in sorted(previous - current):
            ctx.mark_vanished(gone)
        ctx.state["notes"] = sorted(current)
    else:
        ctx.state["notes"] = sorted(previous | current)
