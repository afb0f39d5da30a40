"""Option value types of sources.yaml: each named type's test and what an error message asks
for. The kind registry (tracker/collect/sources) names a type for every key of every kind;
tracker.config checks the values against them."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

# A source id names files (its cassette is DIR/<id>.yaml): a safe alphabet, no path separator,
# no leading dot (no "..", no hidden file), bounded length.
SOURCE_ID = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,99}", re.ASCII)


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _compiles(value: Any) -> bool:
    try:
        re.compile(value)
    except (re.error, TypeError):
        return False
    return True


def _iso_date(value: Any) -> bool:
    if isinstance(value, date):
        return True
    try:
        date.fromisoformat(str(value))
    except ValueError:
        return False
    return True


# What a value of each named option type must be: (test, what the error message asks for).
# The KINDS table (tracker/collect/sources) declares each kind's keys' types: key -> one of
# these names, a tuple of allowed strings, or a function returning a problem (str) or None.
VALUE_TYPES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "text": (lambda v: isinstance(v, str) and bool(v.strip()), "a non-empty string"),
    "source_id": (
        lambda v: isinstance(v, str) and SOURCE_ID.fullmatch(v) is not None,
        "1 to 100 letters, digits, '-', '_' or '.', not starting with '.' (it names files)",
    ),
    "texts": (
        lambda v: (
            isinstance(v, str) or isinstance(v, list) and all(isinstance(x, str) and x for x in v)
        ),
        "a string or a list of strings",
    ),
    "text_list": (
        lambda v: isinstance(v, list) and all(isinstance(x, str) and x for x in v),
        "a list of strings",
    ),
    "bool": (lambda v: isinstance(v, bool), "true or false (unquoted)"),
    "positive_int": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v > 0,
        "a whole number above 0",
    ),
    "non_negative_int": (
        lambda v: isinstance(v, int) and not isinstance(v, bool) and v >= 0,
        "a whole number, 0 or more",
    ),
    "non_negative_number": (lambda v: _number(v) and v >= 0, "a number, 0 or more"),
    "date": (_iso_date, "a date, YYYY-MM-DD"),
    "regex": (lambda v: isinstance(v, str) and _compiles(v), "a valid regular expression"),
    "regexes": (
        lambda v: (
            (isinstance(v, str) and _compiles(v))
            or (
                isinstance(v, list)
                and bool(v)
                and all(isinstance(x, str) and _compiles(x) for x in v)
            )
        ),
        "a valid regular expression, or a list of them",
    ),
    "pattern": (
        lambda v: isinstance(v, str) and (not v.startswith("^") or _compiles(v)),
        "a glob, or a valid regular expression starting with ^",
    ),
}
