"""Collector interface and registry.

A collector kind is one module in this package plus one line in ``KINDS`` below. The line names
the module and the kind-specific keys of a source entry, required and optional, each with its
value type (a ``tracker.config.value_types.VALUE_TYPES`` name, a tuple of allowed strings, or a
function of ``tracker.collect.options`` returning what is wrong). sources.yaml is checked
against this table when it is read, so ``tracker sources check`` and a run report a bad key or
value the same way,
and without importing any collector; the module is imported when the kind is first used
(``collector_for``). The module defines:

- ``KIND``: the ``kind:`` value in sources.yaml that selects it (the same as its ``KINDS`` key);
- ``collect(ctx: CollectContext) -> Iterable[Event]``: fetch through ``ctx.http`` and yield events;
- optionally ``parse(content: bytes, ctx: CollectContext) -> Iterable[Event]``: turn one fetched
  document into events with no network (used by ``collect`` and by ``tracker parse``);
- optionally ``ASCENDING = True`` when ``collect`` yields in ascending cursor order, which lets
  the runner keep what was collected before a rate limit stopped the source.

Adding a kind means writing its module and registering it in ``KINDS``, nothing else (a test
checks that every public module here is registered under its own ``KIND``).
Collectors hold no state of their own; they never sleep, retry or set headers (that is
``tracker.collect.http``), and they report a bad item with ``ctx.skip`` instead of failing the
source.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tracker.collect import options as _options
from tracker.collect.limits import Caps
from tracker.errors import FatalHTTPError, TrackerError

if TYPE_CHECKING:
    from tracker.collect.http import HttpClient
    from tracker.config import SourceSpec

log = logging.getLogger("tracker.collect")

SKIP_LINES = 5  # skips of one kind logged per source and run before they are only counted
# What differs between skips of one kind: quoted text (a tag, a key) and numbers (a line).
_SPECIFICS = re.compile(r"'[^']*'|\"[^\"]*\"|\d+")


@dataclass
class CollectContext:
    """What one collection of one source gets to work with.

    ``since`` is the incremental cursor (already moved back by the source's look-back window) or
    the ``--since`` bound; None means a full backfill. ``state`` is the collector's own small JSON
    state (e.g. CI runs still in progress), saved with the events in the same transaction.
    ``http`` is None when parsing a local file.
    """

    spec: SourceSpec
    http: HttpClient | None = None
    since: datetime | None = None
    state: dict[str, Any] = field(default_factory=dict)
    now: datetime = field(default_factory=lambda: datetime.now(UTC))
    skipped: int = 0
    warnings: list[str] = field(default_factory=list)
    vanished: list[str] = field(default_factory=list)
    # kind of skip -> [how many, the first one's reason] (``skip``)
    _skip_kinds: dict[str, list] = field(default_factory=dict, repr=False)
    # Set when something was skipped that a later read of the same, unchanged document could
    # store (a release the history does not date yet): the runner then keeps no HTTP
    # validators, since a 304 would hide that document from every later run.
    read_again: bool = False
    # The bounds that cut this collection short (limits.Caps): shared with ``http`` by the
    # runner, which makes the source partial when any was hit.
    caps: Caps | None = None

    def capped(self, bound: str, detail: str) -> None:
        """Say that `bound` (a name the operator can look up: ``max_pages``, ``MAX_FILES``)
        cut this source's work short, and how (`detail`). Logged once per bound and source;
        the run is partial. The collector goes on past it (the next item, issue, page)."""
        if self.caps is None:
            self.caps = Caps(self.spec.id)
        self.caps.hit(bound, detail)

    def skip(self, where: str, reason: str) -> None:
        """Record one skipped item: logged with the source id and position, counted in the run.

        Only the first SKIP_LINES of one kind (the reason, its quoted and numeric parts aside)
        are logged: a page of a million broken items is a few lines and, from
        ``summarise_skips``, one "... and N more like it"."""
        self.skipped += 1
        kind = _SPECIFICS.sub("_", reason)
        seen = self._skip_kinds.get(kind)
        if seen is None:
            self._skip_kinds[kind] = [1, reason]
        else:
            seen[0] += 1
            if seen[0] > SKIP_LINES:
                return
        self._warn(f"{self.spec.id}: skipped {where}: {reason}")

    def summarise_skips(self) -> None:
        """One line for each kind of skip that was logged only in part (see ``skip``)."""
        for count, reason in self._skip_kinds.values():
            if count > SKIP_LINES:
                self._warn(
                    f"{self.spec.id}: ... and {count - SKIP_LINES:,} more like it (skipped: "
                    f"{reason})"
                )
        self._skip_kinds.clear()

    def _warn(self, message: str) -> None:
        self.warnings.append(message)
        log.warning(message)

    def item(self, where: str) -> ItemGuard:
        """Around the reading of one upstream item (``with ctx.item(where):``): an exception it
        raises (a value of a shape the collector did not foresee) skips that item, naming
        `where`, and the rest of the page goes on. TrackerErrors (HTTP, rate limit, time budget)
        still stop the source."""
        return ItemGuard(self, where)

    def mark_vanished(self, external_id: str) -> None:
        """Say that an item seen before is gone upstream: the runner marks it, never deletes it."""
        self.vanished.append(external_id)

    def client(self) -> HttpClient:
        """``http`` for a collector that fetches; an error naming the source when there is none
        (``parse`` hands a collector one local document and no client)."""
        if self.http is None:
            raise FatalHTTPError(f"{self.spec.id}: needs HTTP, but reads a local file here")
        return self.http

    def option(self, key: str, default: Any = None) -> Any:
        """A kind-specific key of the source entry."""
        return self.spec.options.get(key, default)


class ItemGuard:
    """CollectContext.item's context manager: a class, as it wraps every item of every page (a
    generator-based one costs several times as much to enter and leave)."""

    __slots__ = ("ctx", "where")

    def __init__(self, ctx: CollectContext, where: str) -> None:
        self.ctx, self.where = ctx, where

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, _tb) -> bool:
        if exc is None or isinstance(exc, TrackerError) or not isinstance(exc, Exception):
            return False
        self.ctx.skip(self.where, f"malformed item ({type(exc).__name__}: {str(exc)[:160]})")
        return True


def load_json(
    content: bytes, ctx: CollectContext, what: str, expect: type | tuple[type, ...] = list
) -> Any:
    """Parse a local JSON document for ``parse``; FatalHTTPError naming the source when it is not
    JSON or not of the `expect`-ed top-level type."""
    # here, not at the top: reading sources.yaml (every command) imports this package, and
    # requests with urllib3 cost about 0.15 s that only collecting needs
    from tracker.collect.transport import json_text, loads

    try:
        document = loads(json_text(content, f"{ctx.spec.id}: {what}"))
    except ValueError as exc:
        raise FatalHTTPError(f"{ctx.spec.id}: {what} is not JSON: {exc}") from None
    if not isinstance(document, expect):
        names = " or ".join(
            t.__name__ for t in (expect if isinstance(expect, tuple) else (expect,))
        )
        raise FatalHTTPError(f"{ctx.spec.id}: {what} is not a JSON {names}")
    return document


# A key's value type: a tracker.config.value_types.VALUE_TYPES name, a tuple of the allowed
# strings, or a function returning what is wrong with a value (None when nothing), for
# structured values.
OptionType = str | tuple[str, ...] | Callable[[Any], str | None]


@dataclass(frozen=True)
class Kind:
    """One registered collector kind: its module in this package (imported on first use), the
    kind-specific keys a source entry must have (`required`) or may have (`optional`), and each
    of those keys' value type (`types`, checked by tracker.config when sources.yaml is read)."""

    module: str
    required: frozenset[str] = frozenset()
    optional: frozenset[str] = frozenset()
    types: Mapping[str, OptionType] = field(default_factory=dict)


def _kind(
    module: str, required: dict[str, OptionType], optional: dict[str, OptionType] | None = None
) -> Kind:
    optional = optional or {}
    return Kind(module, frozenset(required), frozenset(optional), {**required, **optional})


_CI_COMMON: dict[str, OptionType] = {
    "api_url": "text",
    "branch": "text",
    "job_regimes": _options.job_regimes_problem,
    "backfill_days": "non_negative_number",
    "pending_max_days": "non_negative_number",
    "trigger": "text_list",  # the triggers the headline rate counts (measure.ci.rates)
    "mirrors": "text",  # the CI source whose test groups this one mirrors (measure.ci.parity)
}

# kind -> its module, keys and their value types. Config checking reads only this table:
# commands that never collect (query, report, ...) import no collector and none of their parsers.
KINDS: dict[str, Kind] = {
    "atom_feed": _kind("atom_feed", {"url": "text"}),
    "buildkite": _kind(
        "buildkite",
        {"org": "text", "pipeline": "text"},
        {**_CI_COMMON, "per_page": "positive_int"},
    ),
    "ci_json_history": _kind(
        "ci_json_history",
        {"repo": "text", "path": "text", "key": "text"},
        {
            "refs": "text_list",
            "job_regimes": _options.job_regimes_problem,
            "trigger": "text_list",  # the triggers the headline rate counts (measure.ci.rates)
            "sample": "text",  # what the record is, said beside its figures (measure.ci.rates)
            "api_url": "text",
            "raw_url": "text",
        },
    ),
    "changelog_markdown": _kind(
        "changelog_markdown", {"url": "text"}, {"package": "text", "heading_level": "positive_int"}
    ),
    "compat_matrix": _kind(
        "compat_matrix",
        {"url": "text"},
        {"format": ("rst", "csv"), "history_url": "text", "frameworks": "text_list"},
    ),
    "rccl_changelog": _kind("rccl_changelog", {"url": "text"}),
    "doc_history": _kind(
        "doc_history",
        {"repo": "text", "paths": _options.paths_problem},
        {"section": "text", "api_url": "text", "raw_url": "text", "revisions": "bool"},
    ),
    "config_history": _kind(
        "config_history",
        {"repo": "text", "paths": "text_list", "hardware": _options.hardware_problem},
        {"api_url": "text", "raw_url": "text"},
    ),
    "docker_tags": _kind(
        "docker_tags",
        {"repository": "text"},
        {"url": "text", "name_pattern": "regexes", "ignore_pattern": "regex"},
    ),
    "github_actions": _kind(
        "github_actions",
        {"repo": "text"},
        {**_CI_COMMON, "workflows": _options.workflows_problem, "workflow": "text"},
    ),
    "github_commits": _kind(
        "github_commits",
        {"repo": "text", "paths": "text_list"},
        {"since": "date", "api_url": "text"},
    ),
    "github_issues": _kind(
        "github_issues",
        {"repo": "text"},
        {
            "api_url": "text",
            "labels": "texts",
            "exclude_labels": "texts",
            "include_pulls": "bool",
            "body_chars": "positive_int",
            "per_page": "positive_int",
            "comments": "bool",
        },
    ),
    "github_releases": _kind(
        "github_releases",
        {"repo": "text"},
        {
            "api_url": "text",
            "include_prereleases": "bool",
            "freshness_days": "non_negative_number",
            "history_url": "text",
        },
    ),
    "github_tags": _kind(
        "github_tags",
        {"repo": "text"},
        {
            "api_url": "text",
            "tag_pattern": "pattern",
            "include_prereleases": "bool",
            "max_lookups": "non_negative_int",
            "history_url": "text",
        },
    ),
    "mlperf_inference": _kind(
        "mlperf_inference",
        {"repo": "text", "round": "text", "published": "date"},
        {"commit": "text", "path": "text", "url": "text"},
    ),
    "mlperf_training": _kind(
        "mlperf_training",
        {"repo": "text", "round": "text", "published": "date"},
        {
            "commit": "text",
            "benchmarks": "text_list",
            "max_files": "positive_int",
            "max_file_bytes": "positive_int",
            "api_url": "text",
            "raw_url": "text",
        },
    ),
    "model_list": _kind("model_list", {"pages": _options.pages_problem}),
    "pypi": _kind("pypi", {"package": "text"}, {"url": "text"}),
    "test_report_history": _kind(
        "test_report_history",
        {"repo": "text", "path": "text", "files": "text", "pipeline": "text"},
        {
            "builds": "text",
            "refs": "text_list",
            "every_days": "positive_int",
            "job_regimes": _options.job_regimes_problem,
            "api_url": "text",
            "raw_url": "text",
        },
    ),
    "version_history": _kind(
        "version_history",
        {"repo": "text", "paths": _options.version_paths_problem},
        {"section": "text", "api_url": "text", "raw_url": "text"},
    ),
    "wheel_index": _kind(
        "wheel_index", {"url": "text", "package": "text"}, {"max_dates": "positive_int"}
    ),
    "release_notes": _kind(
        "release_notes",
        {"url": "text"},
        {
            "format": ("markdown", "md", "rst", "html"),
            "version": "text",
            "release_date": "date",
            "history_url": "text",
            "product": "texts",
            "releases": "bool",
        },
    ),
}


def collector_for(kind: str) -> ModuleType:
    """The module registered for `kind`, imported now if it was not yet (KeyError when `kind` is
    not registered)."""
    return importlib.import_module(f"{__name__}.{KINDS[kind].module}")
