"""Frozen records passed between stages: collectors yield Events, the store keeps them."""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections import abc
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

EVENT_KINDS = ("release", "note", "issue", "ci_run", "ci_job", "commit")
REGIME_NONE = "none"


def event_id(source_id: str, external_id: str) -> str:
    """Stable id of an event: re-collecting the same item never duplicates it."""
    # surrogatepass: a garbled id still hashes (clean_event then refuses it, one item, not the
    # source); every well-formed id keeps the bytes, hence the id, it always had.
    key = f"{source_id}\x00{external_id}".encode("utf-8", "surrogatepass")
    digest = hashlib.sha256(key).hexdigest()
    return digest[:32]


def now_utc() -> datetime:
    """The current time, timezone-aware UTC."""
    return datetime.now(UTC)


def utc(value: datetime) -> datetime:
    """Return `value` as an aware UTC datetime (naive values are taken to be UTC)."""
    if value.tzinfo is UTC:
        return value
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def parse_time(value: str | None) -> datetime | None:
    """An ISO 8601 timestamp from an API ("2025-12-19T03:02:22Z", "...+08:00", naive = UTC) as
    aware UTC; None when missing or unreadable (the caller skips or falls back, never guesses)."""
    if not value or not isinstance(value, str):
        return None
    try:
        return utc(datetime.fromisoformat(value))  # Python 3.11 reads "Z" itself
    except (ValueError, OverflowError):  # "0001-01-01T00:00:00+01:00" is before year 1 in UTC
        return None


@dataclass(frozen=True)
class Event:
    """One dated, sourced fact (docs/methodology.md, events).

    `kind` is one of EVENT_KINDS. `ci_job` is one job of a CI run: its `regime` is where the job
    ran, which can differ from its run's. `outcome` is the normalised result used by the pass-rate
    view: "passed", "failed" or None (not counted). `state` keeps the raw state / conclusion or
    issue state. `updated_at` is what the runner's cursor follows (defaults to occurred_at).
    """

    source_id: str
    project: str
    kind: str
    external_id: str
    occurred_at: datetime
    title: str
    body: str = ""
    url: str = ""
    version: str | None = None
    regime: str | None = None
    labels: tuple[str, ...] = ()
    state: str | None = None
    outcome: str | None = None
    ended_at: datetime | None = None
    updated_at: datetime | None = None
    attrs: Mapping[str, Any] = field(default_factory=dict)
    id: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {self.kind!r}")
        object.__setattr__(self, "occurred_at", utc(self.occurred_at))
        for name in ("ended_at", "updated_at"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, utc(value))
        object.__setattr__(self, "labels", tuple(self.labels))
        object.__setattr__(self, "id", event_id(self.source_id, self.external_id))

    @property
    def cursor_time(self) -> datetime:
        """The timestamp the runner's incremental cursor follows."""
        return self.updated_at or self.occurred_at


class InvalidEvent(ValueError):
    """An event the store cannot keep; the message names the field and why."""


# Text fields of an Event and their length limits (None: no limit). The `events` table
# (tracker.store.tables) declares its columns from this, so the two cannot drift apart.
EVENT_TEXT_LIMITS: dict[str, int | None] = {
    "source_id": 200,
    "project": 100,
    "external_id": 500,
    "title": None,
    "body": None,
    "url": None,
    "version": 100,
    "regime": 32,
    "state": 50,
    "outcome": 16,
}
# Ids name the item: changed in any way they could collide with another item's, so they are
# refused whole. A raw state / conclusion still says what it was when cut short.
_IDS = ("source_id", "project", "external_id")
_TRUNCATED = ("state",)
_NOT_NULL = ("title", "body", "url")


def clean_text(text: str) -> str:
    """`text` as every store can keep it: a lone UTF-16 surrogate (a garbled JSON escape, which
    no UTF-8 encoder accepts) becomes U+FFFD and NUL, which PostgreSQL refuses in text, is
    dropped."""
    if not text.isascii():  # ASCII holds no surrogates: the common case costs no encoding
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            # Through UTF-16 a well-formed surrogate pair becomes its one character again and
            # only the lone halves are replaced.
            text = text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text.replace("\x00", "") if "\x00" in text else text


def clean_event(item: Event) -> Event:
    """`item` as the store can keep it on SQLite and PostgreSQL alike, or InvalidEvent.

    Numbers in text fields become their text, None in a required text field "", text is
    cleaned (clean_text) in every field, labels and attrs included; a state longer than its
    column is cut. An id that is not exactly storable, or a version, regime or outcome longer
    than its column, is refused: changing it would make it mean something else.
    """
    changes: dict[str, Any] = {}
    for name, limit in _TEXT_FIELDS:
        value = getattr(item, name)
        if value.__class__ is str and _plain(value) and (limit is None or len(value) <= limit):
            continue  # the common case: nothing to change, nothing to refuse
        if value is None:
            if name in _NOT_NULL:
                changes[name] = ""
            continue
        raw = _as_text(value, name)
        text = clean_text(raw)
        if name in _IDS and text != raw:
            raise InvalidEvent(
                f"{name} {value!r:.80} holds a NUL or an unpaired surrogate "
                "and an id is never altered"
            )
        if limit and len(text) > limit:
            if name not in _TRUNCATED:
                raise InvalidEvent(
                    f"{name} is {len(text)} characters long, its column holds {limit}"
                )
            text = text[:limit]
        if text != value:
            changes[name] = text
    if not all(label.__class__ is str and _plain(label) for label in item.labels):
        labels = tuple(clean_text(_as_text(label, "a label")) for label in item.labels)
        if labels != item.labels:
            changes["labels"] = labels
    if not isinstance(item.attrs, abc.Mapping):
        raise InvalidEvent(f"attrs is a {type(item.attrs).__name__}, not a mapping")
    if not (item.attrs.__class__ is dict and _json_plain(item.attrs)):
        attrs = _clean_json(item.attrs)
        if attrs != item.attrs:
            changes["attrs"] = attrs
    return dataclasses.replace(item, **changes) if changes else item


_TEXT_FIELDS = tuple(EVENT_TEXT_LIMITS.items())


def _plain(text: str) -> bool:
    """True when clean_text would return `text` unchanged, cheaply for ASCII (no surrogates)."""
    if "\x00" in text:
        return False
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _json_plain(value: Any) -> bool:
    """True when _clean_json would return a value equal to `value` (plain JSON of dicts with
    text keys, lists, clean text and finite numbers): attrs then skip the rebuild."""
    cls = value.__class__
    if cls is str:
        return _plain(value)
    if cls is dict:
        return all(k.__class__ is str and _plain(k) and _json_plain(v) for k, v in value.items())
    if cls is list:
        return all(_json_plain(v) for v in value)
    if cls is float:
        return math.isfinite(value)
    return value is None or cls is int or cls is bool


def _as_text(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):  # a number read where text was expected: its text
        return str(value)
    raise InvalidEvent(f"{name} is a {type(value).__name__}, not text")


def _clean_json(value: Any) -> Any:
    """`value` with every string cleaned (keys too) and non-finite floats as null: JSON has no
    NaN and PostgreSQL's jsonb refuses it, as it refuses NUL."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, abc.Mapping):
        return {clean_text(str(key)): _clean_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_clean_json(item) for item in value]
    return value
