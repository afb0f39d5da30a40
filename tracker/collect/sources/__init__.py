"""Collector interface and registry.

A collector kind is one module in this package that defines:

- ``KIND``: the ``kind:`` value in sources.yaml that selects it;
- ``REQUIRED_KEYS`` / ``OPTIONAL_KEYS``: kind-specific keys of a source entry (sets of str);
- ``collect(ctx: CollectContext) -> Iterable[Event]``: fetch through ``ctx.http`` and yield events;
- optionally ``parse(content: bytes, ctx: CollectContext) -> Iterable[Event]``: turn one fetched
  document into events with no network (used by ``collect`` and by ``tracker parse``);
- optionally ``ASCENDING = True`` when ``collect`` yields in ascending cursor order, which lets
  the runner keep what was collected before a rate limit stopped the source.

Modules are discovered automatically: adding a kind means adding one module, nothing else.
Collectors hold no state of their own; they never sleep, retry or set headers (that is
``tracker.collect.http``), and they report a bad item with ``ctx.skip`` instead of failing the
source.
"""

from __future__ import annotations

import importlib
import logging
import pkgutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any

from tracker.collect.transport import json_text, loads
from tracker.errors import FatalHTTPError, TrackerError

if TYPE_CHECKING:
    from tracker.collect.http import HttpClient
    from tracker.config import SourceSpec

log = logging.getLogger("tracker.collect")


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
    # Set when something was skipped that a later read of the same, unchanged document could
    # store (a release the history does not date yet): the runner then keeps no HTTP
    # validators, since a 304 would hide that document from every later run.
    read_again: bool = False

    def skip(self, where: str, reason: str) -> None:
        """Record one skipped item: logged with the source id and position, counted in the run."""
        self.skipped += 1
        message = f"{self.spec.id}: skipped {where}: {reason}"
        self.warnings.append(message)
        log.warning(message)

    @contextmanager
    def item(self, where: str) -> Iterator[None]:
        """Around the reading of one upstream item: an exception it raises (a value of a shape
        the collector did not foresee) skips that item, naming `where`, and the rest of the page
        goes on. TrackerErrors (HTTP, rate limit, time budget) still stop the source."""
        try:
            yield
        except TrackerError:
            raise
        except Exception as exc:
            self.skip(where, f"malformed item ({type(exc).__name__}: {str(exc)[:160]})")

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


def load_json(
    content: bytes, ctx: CollectContext, what: str, expect: type | tuple[type, ...] = list
) -> Any:
    """Parse a local JSON document for ``parse``; FatalHTTPError naming the source when it is not
    JSON or not of the `expect`-ed top-level type."""
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


def _discover() -> dict[str, ModuleType]:
    registry: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        kind = getattr(module, "KIND", None)
        if kind:
            registry[kind] = module
    return registry


REGISTRY: dict[str, ModuleType] = _discover()


def collector_for(kind: str) -> ModuleType:
    """The module registered for `kind` (KeyError when there is none)."""
    return REGISTRY[kind]
