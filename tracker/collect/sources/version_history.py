"""`version_history`: the git history of documents that list the framework versions a vendor
builds -> one `note` event per (framework, version), dated by the first commit listing it.

TheRock (ROCm's build system) says which PyTorch and JAX releases it builds in two tables:
``external-builds/pytorch/README.md`` ("Supported PyTorch versions": one row per version, a
release row "2.13" beside a nightly row "2.13 alpha") and ``RELEASES.md`` (a "torch version"
table; JAX as a "jax version" table or, since 2026-06, an inline "currently supported: 0.10.1,
0.10.2 and 0.11.0" list). Their git history says since when each version has been built.

Source keys: as ``doc_history`` (``repo``, ``paths`` with optional per-path ``section``,
``section``, ``api_url``, ``raw_url``); a path entry may name the ``frameworks`` read from it
(``[jax]``: RELEASES.md's "torch version" table is the nightly index's compatibility matrix,
which lists a PyTorch release branch months before its release). Commits and documents are
fetched as ``doc_history`` does (``new_commits`` / ``document_at``), oldest first.

What counts as listing a version (``listed_versions``):
- a row of a pipe table (a leading ``>`` of a quote is dropped) whose header's first cell names
  a framework and "version" ("PyTorch version", "torch version", "jax version"), when the row's
  first cell is a release number and nothing else ("2.13 alpha", built from upstream's nightly
  branch, or "main" is not a release build) and some other cell does not say it is not built
  ("Unsupported", "Previously built", a cross mark);
- a line saying "supported" followed by release numbers ("currently supported: 0.9.1 and
  0.10.0") under a heading that names exactly one framework (headings inside fenced code blocks
  are shell comments, not headings).

One note per (framework, version) at its first listing: ``external_id``
``listed:<framework>-<version>``, dated by the commit's committer date, URL the document at that
commit, text "TheRock supports PyTorch 2.13 ..." (the tagger reads it as the mention extractors
do) and attrs ``mentions`` (``{framework, version, status: supported}``), ``commit``, ``path``
and ``baseline`` (true for versions already listed in the first version read). State as
``doc_history``: ``ctx.state["listed"]`` and the commits read, so a re-run fetches only new
commits and a version that leaves a table keeps its first date.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import datetime

from tracker.collect.sources import CollectContext
from tracker.collect.sources.doc_history import first_listings, section_text
from tracker.events import Event

KIND = "version_history"
AUTH = "github"

# framework id -> how the tables and headings name it, and how a note writes it
FRAMEWORKS = {"pytorch": ("pytorch", "torch"), "jax": ("jax",)}
DISPLAY = {"pytorch": "PyTorch", "jax": "JAX"}
MAX_VERSIONS = 200  # versions one document may list: a bound on a hostile document
_RELEASE = r"v?\d{1,4}\.\d{1,4}(?:\.\d{1,4})?"
_RELEASE_CELL = re.compile(rf"^{_RELEASE}$")
_RELEASE_IN_TEXT = re.compile(rf"(?<![\w.]){_RELEASE}(?![\w.]|\.\d)")
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_SEPARATOR = re.compile(r"^\|?[\s:|-]+\|?$")
_SUPPORTED = re.compile(r"\bsupported\b", re.I)
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_NOT_BUILT = re.compile(r"\bunsupported\b|\bnot supported\b|\bpreviously built\b|\u274c", re.I)


def _framework_in(text: str) -> str | None:
    """The one framework `text` names (None for none or several)."""
    words = set(re.findall(r"[a-z]+", text.lower()))
    named = [fid for fid, names in FRAMEWORKS.items() if words & set(names)]
    return named[0] if len(named) == 1 else None


def _cells(line: str) -> list[str]:
    cells = line.strip().strip("|").split("|")
    return [" ".join(_LINK.sub(r"\1", c).replace("`", " ").replace("*", "").split()) for c in cells]


def listed_versions(text: str, section: str | None = None) -> dict[tuple[str, str], str]:
    """(framework, version) -> the line listing it, for every release the document lists."""
    found: dict[tuple[str, str], str] = {}
    heading_fw: str | None = None
    table_fw: str | None = None
    in_table = in_code = False
    for raw in section_text(text, section).splitlines():
        if len(found) >= MAX_VERSIONS:
            break
        line = raw.strip().lstrip(">").strip()
        if _FENCE.match(line):
            in_code = not in_code
        heading = None if in_code else _HEADING.match(line)
        if heading:
            heading_fw = _framework_in(heading.group(1))
        if line.startswith("|"):
            cells = _cells(line)
            if not in_table:  # a header row
                in_table = True
                first = cells[0].lower() if cells else ""
                table_fw = _framework_in(first) if "version" in first else None
            elif (
                table_fw
                and not _SEPARATOR.match(line)
                and _RELEASE_CELL.match(cells[0])
                and any(c and not _NOT_BUILT.search(c) for c in cells[1:])
            ):
                found.setdefault((table_fw, cells[0].lstrip("v")), line[:300])
            continue
        in_table = False
        supported = _SUPPORTED.search(line)
        if heading_fw and supported and not heading:
            named = _RELEASE_IN_TEXT.findall(line[supported.end() :])
            for version in named[: MAX_VERSIONS - len(found)]:
                found.setdefault((heading_fw, version.lstrip("v")), line[:300])
    return found


def note_event(
    ctx: CollectContext, key: tuple[str, str], line: str, sha: str, when: datetime, path: str,
    baseline: bool,
) -> Event:  # fmt: skip
    framework, version = key
    name = DISPLAY[framework]
    text = f"TheRock supports {name} {version} (listed in {path}: {line})"
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="note",
        external_id=f"listed:{framework}-{version}",
        occurred_at=when,
        title=f"{name} {version} listed in {path}"[:160],
        body=text,
        url=f"https://github.com/{ctx.option('repo')}/blob/{sha}/{path}",
        regime=ctx.spec.regime,
        attrs={
            "section": "Supported versions",
            "mentions": [{"framework": framework, "version": version, "status": "supported"}],
            "commit": sha,
            "path": path,
            "baseline": baseline,
        },
    )


def path_frameworks(ctx: CollectContext) -> dict[str, frozenset[str]]:
    """The frameworks read from each path: a path entry's ``frameworks`` (e.g. only JAX from a
    document whose PyTorch table lists upcoming releases too), else all."""
    chosen: dict[str, frozenset[str]] = {}
    for entry in ctx.option("paths") or []:
        if isinstance(entry, dict) and isinstance(entry.get("frameworks"), list):
            chosen[str(entry.get("path"))] = frozenset(map(str, entry["frameworks"]))
    return chosen


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the new commits of every path, oldest first, and yield first listings."""
    frameworks = path_frameworks(ctx)

    def versions(
        text: str, section: str | None, path: str
    ) -> Iterator[tuple[str, tuple[str, str], str]]:
        found = listed_versions(text, section)
        if len(found) >= MAX_VERSIONS:
            ctx.capped(
                "MAX_VERSIONS",
                f"{path} lists more than {MAX_VERSIONS} versions: only the first are read",
            )
        for key, line in found.items():
            if key[0] in frameworks.get(path, FRAMEWORKS.keys()):
                yield f"{key[0]}-{key[1]}", key, line

    for key, line, sha, when, path, baseline in first_listings(ctx, versions):
        yield note_event(ctx, key, line, sha, when, path, baseline)
