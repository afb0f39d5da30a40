"""`doc_history`: the git history of a supported-models document -> one `note` event per model
family, dated by the first commit whose version of the document lists it.

A serving engine's list of supported models (SGLang's supported-models page, sglang-jax's
README) says what its main branch serves; the list's git history says since when. This reads it
like the vLLM model-registry history: the first version listing a family dates it.

Source keys: ``repo`` ("sgl-project/sglang"), ``paths`` (the document's paths, oldest first: the
page moved over the years; each path's history is read; an entry is a path or ``{path,
section}``); optional ``section`` (a heading's text: only the part of the document under it is
read, e.g. "Supported Models" of a README; a path's own ``section`` wins),
``api_url`` (default https://api.github.com), ``raw_url`` (default
https://raw.githubusercontent.com).

Contract:
- ``GET {api_url}/repos/{repo}/commits?path=<path>&per_page=100[&since=<ctx.since>]`` per path
  (Link pagination), then the document at each commit not read before,
  ``GET {raw_url}/{repo}/{sha}/{path}``, oldest commit first (all paths merged by date). A commit
  whose document cannot be fetched (404: the commit deleted the file) is skipped and counted;
  the other commits go on.
- Items of the document: pipe-table rows and HTML ``<tr>`` rows (their first two cells: the
  family and the example model ids; a description column is prose that may name other models),
  and top-level list items ("Llama / Llama 2 / Llama 3"; a part after " / " that starts with a
  version, "DeepSeek V2 / V3", takes the first part's name). Family ids come from the tagger's
  alias table; an item that calls itself beta, preview, experimental or the like is not support.
- One note per family, at its first listing: ``external_id`` ``listed:<family>``, dated by the
  commit's committer date, URL the document at that commit on github.com, attrs ``commit``,
  ``path`` and ``baseline`` (true when the family is listed in the first version read: the
  history does not say since when, only "by then"). ``ctx.state["listed"]`` keeps
  ``{family: {sha, date, path, baseline}}`` and ``ctx.state["read"]`` the commits read, so a
  nightly run fetches only new commits; a family that leaves the list keeps its first date.
- ``revisions: true`` (optional): no families; one ``commit`` event per revision with what it
  added and removed, for pages whose builds are read by the channels' patterns
  (tracker.collect.sources._revisions, tracker.measure.lag.builds).
- The list says nothing about hardware: the note's regime is the source's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from tracker.collect.sources import CollectContext
from tracker.collect.sources._revisions import changes, revision_event
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.config.preview import preview
from tracker.errors import ConfigError, FatalHTTPError, first_line
from tracker.events import Event, parse_time
from tracker.mentions.families import NOT_SUPPORT
from tracker.mentions.model_mentions import extract_model_mentions

KIND = "doc_history"
AUTH = "github"


DEFAULT_RAW = "https://raw.githubusercontent.com"
READ_LIMIT = 2000  # commits remembered as read (the newest): a bound on the state's size

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_ROW = re.compile(r"<tr\b[^>]*>(.*?)</tr>", re.I | re.S)
_CELL = re.compile(r"<t[dh]\b[^>]*>(.*?)</t[dh]>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_BULLET = re.compile(r"^[-*+]\s+(.*)$")
_SEPARATOR = re.compile(r"^\|?[\s:|-]+\|?$")
_VERSION_PART = re.compile(r"^[vV]?\d")
_VARIANTS = re.compile(r"^\s*([A-Za-z][\w.\-]*(?: [A-Za-z][\w.\-]*)?)\s*\(([^)]*)\)")


def section_text(text: str, section: str | None) -> str:
    """The lines under the heading named ``section`` (to the next heading of its level or
    higher), or the whole text without one; empty when the heading is absent."""
    if not section:
        return text
    out: list[str] = []
    level = 0
    for line in text.splitlines():
        heading = _HEADING.match(line)
        if heading and level:
            if len(heading.group(1)) <= level:
                break
        elif heading and heading.group(2).strip().lower() == section.strip().lower():
            level = len(heading.group(1))
            continue
        if level:
            out.append(line)
    return "\n".join(out)


def _plain(cell: str) -> str:
    text = _TAG.sub(" ", _LINK.sub(r"\1", cell)).replace("`", " ").replace("**", "")
    return " ".join(text.split())


def _expand_slashes(item: str) -> str:
    """ "DeepSeek V2 / V3" -> "DeepSeek V2 / DeepSeek V3": a part that starts with a version
    borrows the first part's leading word."""
    parts = [p.strip() for p in item.split(" / ")]
    if len(parts) < 2:
        return item
    head = parts[0].replace("*", "").split()
    name = head[0] if head else ""
    return " / ".join(
        [parts[0]] + [f"{name} {p}" if _VERSION_PART.match(p) else p for p in parts[1:]]
    )


def _expand_variants(item: str) -> str:
    """ "DeepSeek (v1, v2, v3/R1)" -> the item plus "; DeepSeek v1; DeepSeek v2; DeepSeek v3;
    DeepSeek R1": a family cell names its versions in brackets after the family name."""
    match = _VARIANTS.match(item)
    if not match:
        return item
    name, inside = match.group(1), match.group(2)
    parts = [p.strip() for p in re.split(r"[,/]", inside) if p.strip()]
    return "; ".join([item] + [f"{name} {p.removesuffix(' series')}" for p in parts])


def list_items(text: str) -> Iterator[str]:
    """The items of a supported-models document (see the module doc), markup stripped."""
    for row in _ROW.findall(text):
        cells = _CELL.findall(row)
        if cells:
            yield _expand_variants(_plain(" ".join(cells[:2])))
    body = _ROW.sub(" ", text)
    for line in body.splitlines():
        stripped = line.strip()
        if stripped.startswith("|"):
            if _SEPARATOR.match(stripped):
                continue
            cells = stripped.strip("|").split("|")
            yield _expand_variants(_plain(" ".join(cells[:2])))
            continue
        bullet = _BULLET.match(line)  # top level only: sub-items are launch commands and notes
        if bullet:
            yield _plain(_expand_slashes(bullet.group(1).replace("**", "")))


def listed_families(text: str, section: str | None = None) -> dict[str, str]:
    """family id -> the item listing it, for every family the document lists as supported."""
    found: dict[str, str] = {}
    for item in list_items(section_text(text, section)):
        if not item or NOT_SUPPORT.search(item.lower()):
            continue
        for mention in extract_model_mentions(item):
            found.setdefault(mention["model"], item)
    return found


def path_commits(ctx: CollectContext, api: str, repo: str, path: str) -> Iterator[dict[str, Any]]:
    params: dict[str, Any] = {"path": path, "per_page": 100}
    if ctx.since is not None:
        params["since"] = ctx.since.strftime("%Y-%m-%dT%H:%M:%SZ")
    for page in ctx.client().get_pages(f"{api}/repos/{repo}/commits", params):
        if not isinstance(page, list):
            raise FatalHTTPError(f"{ctx.spec.id}: commits of {path}: expected a JSON array")
        for item in page:
            if not isinstance(item, dict) or not isinstance(item.get("sha"), str):
                ctx.skip(f"a commit of {path}", "not a commit object")
                continue
            yield item


def commit_date(item: dict[str, Any]) -> datetime | None:
    commit = item.get("commit")
    who = commit.get("committer") if isinstance(commit, dict) else None
    return parse_time(who.get("date")) if isinstance(who, dict) else None


def note_event(
    ctx: CollectContext, fid: str, item: str, sha: str, when: datetime, path: str, baseline: bool
) -> Event:
    repo = ctx.option("repo")
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="note",
        external_id=f"listed:{fid}",
        occurred_at=when,
        title=item[:160],
        body=item,
        url=f"https://github.com/{repo}/blob/{sha}/{path}",
        regime=ctx.spec.regime,
        attrs={
            "section": "Supported models",
            "mentions": [{"model": fid, "status": "supported"}],
            "commit": sha,
            "path": path,
            "baseline": baseline,
        },
    )


def path_sections(ctx: CollectContext) -> dict[str, str | None]:
    """The source's ``paths`` in order, each with its section (its own, else the source's)."""
    raw_paths = ctx.option("paths")
    if not isinstance(raw_paths, list) or not raw_paths:
        raise ConfigError(f"{ctx.spec.id}: 'paths' must be a non-empty list of document paths")
    sections: dict[str, str | None] = {}
    for entry in raw_paths:
        path = entry.get("path") if isinstance(entry, dict) else entry
        if not isinstance(path, str) or not path:
            raise ConfigError(
                f"{ctx.spec.id}: 'paths': {preview(entry)} is not a path or {{path, section}}"
            )
        own = entry.get("section") if isinstance(entry, dict) else None
        sections[path] = own or ctx.option("section")
    return sections


def new_commits(
    ctx: CollectContext, paths: list[str], done: set[str]
) -> list[tuple[datetime, str, str]]:
    """(committer date, sha, path) of every commit of `paths` not in `done` ("sha:path"),
    oldest first (all paths merged by date)."""
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    repo = ctx.option("repo")
    todo: list[tuple[datetime, str, str]] = []
    for path in paths:
        for item in path_commits(ctx, api, repo, path):
            when = commit_date(item)
            if when is None:
                ctx.skip(f"commit {item['sha'][:10]} of {path}", "no committer date")
            elif f"{item['sha']}:{path}" not in done:
                todo.append((when, item["sha"], path))
    return sorted(set(todo))


def document_at(ctx: CollectContext, sha: str, path: str) -> str | None:
    """The document at a commit; None (a counted skip) when it cannot be fetched (404: the
    commit deleted it)."""
    raw = str(ctx.option("raw_url", DEFAULT_RAW)).rstrip("/")
    try:
        response = ctx.client().get(f"{raw}/{ctx.option('repo')}/{sha}/{path}", conditional=False)
    except FatalHTTPError as exc:
        ctx.skip(f"{path} at {sha[:10]}", first_line(exc))
        return None
    return None if response is None else response.content.decode("utf-8", errors="replace")


def first_listings(
    ctx: CollectContext,
    items: Callable[[str, str | None, str], Iterable[tuple[str, Any, str]]],
) -> Iterator[tuple[Any, str, str, datetime, str, bool]]:
    """The commit walk both history kinds share: the new commits of every path, oldest first,
    and per document the items `items(text, section, path)` gives as (name, key, line); yields (key,
    line, sha, date, path, baseline) for each name listed for the first time. Keeps
    ``ctx.state["listed"]`` ({name: {sha, date, path, baseline}}) and ``ctx.state["read"]``
    (the newest READ_LIMIT commits) once the walk ends."""
    sections = path_sections(ctx)
    listed: dict[str, dict] = dict(ctx.state.get("listed") or {})
    read: list[str] = list(ctx.state.get("read") or [])
    first_read = not listed and not read
    for when, sha, path in new_commits(ctx, list(sections), set(read)):
        text = document_at(ctx, sha, path)
        if text is None:
            continue
        for name, key, line in items(text, sections[path], path):
            if name in listed:
                continue
            listed[name] = {"sha": sha, "date": when.isoformat(), "path": path,
                            "baseline": first_read}  # fmt: skip
            yield key, line, sha, when, path, first_read
        first_read = False
        read.append(f"{sha}:{path}")
    ctx.state["listed"] = listed
    ctx.state["read"] = read[-READ_LIMIT:]


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the new commits of every path, oldest first, and yield first listings (with
    ``revisions: true``, each revision's changes instead: tracker.collect.sources._revisions)."""
    if ctx.option("revisions") is True:
        yield from collect_revisions(ctx)
        return

    def families(text: str, section: str | None, _path: str) -> Iterator[tuple[str, str, str]]:
        for fid, line in listed_families(text, section).items():
            yield fid, fid, line

    for fid, line, sha, when, path, baseline in first_listings(ctx, families):
        yield note_event(ctx, fid, line, sha, when, path, baseline)


def collect_revisions(ctx: CollectContext) -> Iterator[Event]:
    """Every new revision of every path, oldest first, as what it changed
    (tracker.collect.sources._revisions)."""
    sections = path_sections(ctx)
    read: list[str] = list(ctx.state.get("read") or [])
    last: dict[str, str] = dict(ctx.state.get("last") or {})
    through: dict[str, str] = dict(ctx.state.get("through") or {})
    before: dict[str, str] = {}
    for when, sha, path in new_commits(ctx, list(sections), set(read)):
        if _read_before(when, through.get(path)):
            continue  # older than the newest revision read: read then (`read` keeps fewer)
        through[path] = when.isoformat()
        text = document_at(ctx, sha, path)
        if text is None:
            continue
        if path not in before and isinstance(last.get(path), str):
            before[path] = section_text(document_at(ctx, last[path], path) or "", sections[path])
        now = section_text(text, sections[path])
        added, removed = changes(before.get(path, ""), now)
        before[path], last[path] = now, sha
        read.append(f"{sha}:{path}")
        if added or removed:
            yield revision_event(ctx, sha, when, path, added, removed)
    ctx.state["read"] = read[-READ_LIMIT:]
    ctx.state["last"] = last
    ctx.state["through"] = through


def _read_before(when: datetime, through: Any) -> bool:
    """Whether a commit of `when` is older than the newest revision of its path read (its
    ISO date `through`): never read again, never diffed against a newer one."""
    try:
        newest = datetime.fromisoformat(through) if isinstance(through, str) else None
    except ValueError:
        return False
    return newest is not None and when < newest
