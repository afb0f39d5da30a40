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

EVENT_KINDS = (
    "release",
    "note",
    "issue",
    "ci_run",
    "ci_job",
    "result",
    "commit",
    "comment",
    "training_result",
    "ci_tests",
)
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
    ran, which can differ from its run's. `result` is one published benchmark result (MLPerf
    Inference, tracker.collect.sources.mlperf_inference), its row in `attrs`.
    `training_result` is one MLPerf Training result set (a system's runs of one benchmark,
    tracker.collect.sources.mlperf_training), its runs and system fields in `attrs`.
    `comment` is one comment on an issue (attrs: issue, author, author_type, association).
    `outcome` is the normalised result used by the pass-rate view: "passed", "failed" or None
    (not counted).
    `state` keeps the raw state / conclusion or issue state. `updated_at` is what the runner's
    cursor follows (defaults to occurred_at).
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
# The dates tracker computes with: EVENT_TIME_START inclusive to EVENT_TIME_END exclusive, UTC
# (docs/methodology.md, "Regimes and events"). Wide of any real release, issue or CI run, yet
# narrow enough that every figure's arithmetic on them (weeks, quarters, a year on either side,
# days between two of them) stays inside Python's datetime (years 1 to 9999). A timestamp
# outside is an upstream placeholder ("9999-12-31", "0001-01-01") or a typo, never a fact:
# clean_event refuses it, and the store leaves stored ones out of every figure.
EVENT_TIME_START = datetime(1970, 1, 1, tzinfo=UTC)
EVENT_TIME_END = datetime(2200, 1, 1, tzinfo=UTC)
EVENT_TIME_FIELDS = ("occurred_at", "ended_at", "updated_at")
OUT_OF_RANGE = (
    f"is outside the dates tracker computes with ({EVENT_TIME_START:%Y-%m-%d} inclusive to "
    f"{EVENT_TIME_END:%Y-%m-%d} exclusive, UTC)"
)


def computable(when: datetime) -> bool:
    """True when `when` (aware) is one of the dates tracker computes with."""
    return EVENT_TIME_START <= when < EVENT_TIME_END


# Ids name the item: changed in any way they could collide with another item's, so they are
# refused whole. A raw state / conclusion still says what it was when cut short.
# How deep attrs may nest (attrs itself is level 1). Collected attrs hold a few levels of an
# API item; a deeper value is hostile or broken, and reading it back would recurse once per
# level, past Python's stack (a RecursionError, not a refused item).
MAX_ATTRS_DEPTH = 32
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

    A timestamp outside [EVENT_TIME_START, EVENT_TIME_END) is refused: the item is no evidence
    of anything dated, and kept it would break every figure computed with it.

    Numbers in text fields become their text, None in a required text field "", text is
    cleaned (clean_text) in every field, labels and attrs included; a state longer than its
    column is cut. An id that is not exactly storable, or a version, regime or outcome longer
    than its column, is refused: changing it would make it mean something else.
    """
    for name in EVENT_TIME_FIELDS:
        when = getattr(item, name)
        if when is not None and not computable(when):
            raise InvalidEvent(f"{name} {when.isoformat()} {OUT_OF_RANGE}")
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
    if not (item.attrs.__class__ is dict and _json_plain(item.attrs, 1)):
        attrs = _clean_json(item.attrs, 1)
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


def _json_plain(value: Any, depth: int) -> bool:
    """True when _clean_json would return a value equal to `value` (plain JSON of dicts with
    text keys, lists, clean text and finite numbers, nested at most MAX_ATTRS_DEPTH levels):
    attrs then skip the rebuild. `depth` is the level `value` sits at."""
    cls = value.__class__
    if cls is str:
        return _plain(value)
    if cls is dict or cls is list:
        if depth > MAX_ATTRS_DEPTH:
            return False  # _clean_json refuses it
        depth += 1
        if cls is list:
            return all(_json_plain(v, depth) for v in value)
        return all(
            k.__class__ is str and _plain(k) and _json_plain(v, depth) for k, v in value.items()
        )
    if cls is float:
        return math.isfinite(value)
    return value is None or cls is int or cls is bool


def _as_text(value: Any, name: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):  # a number read where text was expected: its text
        return str(value)
    raise InvalidEvent(f"{name} is a {type(value).__name__}, not text")


def _clean_json(value: Any, depth: int) -> Any:
    """`value` with every string cleaned (keys too) and non-finite floats as null: JSON has no
    NaN and PostgreSQL's jsonb refuses it, as it refuses NUL. InvalidEvent when containers
    nest deeper than MAX_ATTRS_DEPTH (`depth` is the level `value` sits at)."""
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    container = isinstance(value, (abc.Mapping, list, tuple, set, frozenset))
    if container and depth > MAX_ATTRS_DEPTH:
        raise InvalidEvent(f"attrs nest deeper than {MAX_ATTRS_DEPTH} levels")
    if isinstance(value, abc.Mapping):
        return {clean_text(str(key)): _clean_json(item, depth + 1) for key, item in value.items()}
    if container:
        return [_clean_json(item, depth + 1) for item in value]
    return value
