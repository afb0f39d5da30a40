"""Builds named in any record: every collected text that names an install channel's build is
dated evidence for that channel (docs/methodology.md, "Builds named in any record").

One mechanism for every kind of record: the channel's ``builds:`` patterns
(tracker.config.builds) are matched against the text of each record the store picked for them
(configuration files in a git history, issue and comment bodies, release notes, revisions of a
vendor's pages). A match is a build of the channel at the record's date (an upper bound: the
build existed by then) with the record's URL; the channel's date for a series is then the
earliest of all its records, as for any evidence (tracker.measure.lag.samples). A plugin
version that carries the upstream one is read as the upstream series (``carries``).

- a **release** channel (images, wheels) gets a `ReleaseFact` of its project per build;
- a **note** channel (a vendor's notes naming the framework) gets a `NoteFact` of its project
  naming the framework's version as supported.

A page's revisions are records too (``page``: the document; ``removed``: what a revision took
out). A build that a later revision of the same page takes out again, while naming no build of
the channel as new or newer in its place, was **withdrawn**: that listing dates nothing, unless
another record named the build before the withdrawal (it was confirmed). A newer build in its
place is the page moving on, not a withdrawal. A later listing dates it as usual.

Pure functions over records; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from tracker.config.coverage import CoverageRule, EvidenceRule
from tracker.measure.lag.decision import COVERED
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.versions import parse_version

TEXT_CHARS = 200_000  # characters of one record matched: a bound on a hostile body


@dataclass(frozen=True)
class TextRecord:
    """A stored record's text and provenance, as the store hands it over (Store.build_texts)."""

    source_id: str
    kind: str  # the event kind: release, note, issue, comment, commit
    occurred_at: datetime
    url: str
    text: str
    page: str = ""  # a page revision: the document it revises ("source|path"); else ""
    removed: str = ""  # a page revision: the lines it took out


@dataclass(frozen=True)
class NamedBuild:
    """One build of one channel named by one record."""

    channel: EvidenceRule
    upstream: str  # the upstream project whose series the version is
    version: str
    record: TextRecord


def record_label(record: TextRecord) -> str:
    """What kind of record dated a row, in words (`tracker lag`'s evidence_kind)."""
    if record.page:
        return "page revision"
    return {"commit": "configuration commit"}.get(record.kind, record.kind)


def channels_with_builds(rules: Iterable[CoverageRule]) -> list[tuple[CoverageRule, EvidenceRule]]:
    return [(rule, ev) for rule in rules for ev in rule.evidence if ev.builds]


def anchors(rules: Iterable[CoverageRule]) -> list[str]:
    """The plain texts the store picks records by (every pattern's ``contains``)."""
    return sorted({p.contains for _, ev in channels_with_builds(rules) for p in ev.builds})


def named_builds(rules: Sequence[CoverageRule], records: Iterable[TextRecord]) -> list[NamedBuild]:
    """Every build the records name, withdrawn page listings left out (module doc)."""
    channels = channels_with_builds(rules)
    found: list[NamedBuild] = []
    pages: dict[str, list[TextRecord]] = {}
    for record in sorted(records, key=lambda r: (r.occurred_at, r.url)):
        text = record.text[:TEXT_CHARS]
        if record.page:
            pages.setdefault(record.page, []).append(record)
        for rule, ev in channels:
            upstream = (ev.mentions or rule.project) if ev.kind == "note" else rule.project
            for version in _versions(ev, text):
                found.append(NamedBuild(ev, upstream, version, record))
    withdrawn = _withdrawn(found, pages)
    return [b for b in found if id(b) not in withdrawn]


def _versions(ev: EvidenceRule, text: str) -> list[str]:
    seen: dict[str, None] = {}
    for pattern in ev.builds:
        for version, _at in pattern.versions(text):
            if parse_version(version) is not None:
                seen.setdefault(version, None)
    return list(seen)


def _key(version: str) -> tuple:
    parsed = parse_version(version)
    return tuple(parsed.parsed.release) if parsed else ()


def _withdrawn(
    found: Sequence[NamedBuild],
    pages: dict[str, list[TextRecord]],
) -> set[int]:
    """ids of the page listings a later revision of their page withdrew (module doc). Linear
    in revisions: each page's revisions are walked once, oldest first, each revision's removed
    and new builds read once per channel, and each listing waits for the first later revision
    that takes its build out."""
    confirmed_by = _earliest_per_page(found)
    listings: dict[str, dict[datetime, list[NamedBuild]]] = {}
    for build in found:
        if build.record.page:
            moments = listings.setdefault(build.record.page, {})
            moments.setdefault(build.record.occurred_at, []).append(build)
    out: set[int] = set()
    for page, revisions in pages.items():
        by_time = listings.get(page, {})
        waiting: dict[tuple[int, str], list[NamedBuild]] = {}
        channels: dict[int, EvidenceRule] = {}
        index = 0
        while index < len(revisions):
            moment = revisions[index].occurred_at
            same = []  # revisions of one moment: none is later than another
            while index < len(revisions) and revisions[index].occurred_at == moment:
                same.append(revisions[index])
                index += 1
            for revision in same:
                _take_out(revision, channels, waiting, confirmed_by, out)
            for build in by_time.pop(moment, []):
                waiting.setdefault((id(build.channel), build.version), []).append(build)
                channels[id(build.channel)] = build.channel
    return out


def _take_out(
    revision: TextRecord,
    channels: dict[int, EvidenceRule],
    waiting: dict[tuple[int, str], list[NamedBuild]],
    confirmed_by: dict[tuple[int, str], dict[str, datetime]],
    out: set[int],
) -> None:
    """The listings waiting for `revision` that it takes out: withdrawn unless a build as new
    or newer stands in its place or another record named it by then (module doc)."""
    for key, channel in channels.items():
        removed = [v for v in _versions(channel, revision.removed) if (key, v) in waiting]
        if not removed:
            continue
        newest = max((_key(v) for v in _versions(channel, revision.text)), default=None)
        for version in removed:
            for build in waiting.pop((key, version)):
                replaced = newest is not None and newest >= _key(version)
                named = confirmed_by.get((key, version), {})
                confirmed = any(
                    page != build.record.page and when <= revision.occurred_at
                    for page, when in named.items()
                )
                if not replaced and not confirmed:
                    out.add(id(build))


def _earliest_per_page(found: Sequence[NamedBuild]) -> dict[tuple[int, str], dict[str, datetime]]:
    """(channel, version) -> {page ("" for a record of no page): the earliest record naming
    it there}."""
    earliest: dict[tuple[int, str], dict[str, datetime]] = {}
    for build in found:
        named = earliest.setdefault((id(build.channel), build.version), {})
        when = build.record.occurred_at
        if build.record.page not in named or when < named[build.record.page]:
            named[build.record.page] = when
    return earliest


def build_facts(builds: Iterable[NamedBuild]) -> tuple[list[ReleaseFact], list[NoteFact]]:
    """The builds as facts of their channels (module doc), in the record's source's name."""
    releases: list[ReleaseFact] = []
    notes: list[NoteFact] = []
    for build in builds:
        ev, record = build.channel, build.record
        if ev.kind == "release":
            releases.append(
                ReleaseFact(
                    ev.project,
                    build.version,
                    record.occurred_at,
                    record.url,
                    source_id=record.source_id,
                )
            )
        else:
            notes.append(
                NoteFact(
                    ev.project,
                    record.occurred_at,
                    record.url,
                    ((build.upstream, build.version, "supported"),),
                    regime=ev.regime,
                    source_id=record.source_id,
                )
            )
    return releases, notes


def text_record(row: dict) -> TextRecord | None:
    """A row of Store.build_texts as a record (None when it has no date: stored values are
    untrusted). A revision of a page (attrs ``revision``: {path, removed}) keeps its page and
    the lines it removed."""
    when = row.get("occurred_at")
    if not isinstance(when, datetime):
        return None
    attrs = row.get("attrs")
    revision = attrs.get("revision") if isinstance(attrs, dict) else None
    if not isinstance(revision, dict):
        revision = {}
    path, removed = revision.get("path"), revision.get("removed")
    source = str(row.get("source_id") or "")
    text = "\n".join(str(row.get(k) or "") for k in ("title", "body"))
    return TextRecord(
        source,
        str(row.get("kind") or ""),
        when,
        str(row.get("url") or ""),
        text,
        f"{source}|{path}" if isinstance(path, str) and path else "",
        removed if isinstance(removed, str) else "",
    )


def label_rows(samples: Sequence, rules: Sequence[CoverageRule], labels: dict[str, str]) -> list:
    """`samples` (LagSample) with ``evidence_kind``: the kind of record that dated each covered
    row (a named build's record by its URL, else the kind of evidence its definition reads:
    release or note); empty on open rows."""
    kinds = {
        (rule.project, ev.regime, ev.definition): ev.kind for rule in rules for ev in rule.evidence
    }
    out = []
    for s in samples:
        if s.status != COVERED or not s.evidence_url:
            out.append(s)
            continue
        definition = s.channel or s.definition
        label = labels.get(s.evidence_url) or kinds.get(
            (s.project, s.regime, definition), "release" if s.artifact == "framework" else ""
        )
        out.append(replace(s, evidence_kind=label))
    return out
