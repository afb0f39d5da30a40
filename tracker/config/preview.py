"""A bounded preview of a configuration value, for error messages.

A value from sources.yaml can be as long as the file, or (through YAML aliases) much longer:
its full repr() once wrote 312 MB to stderr. Error messages show `preview(value)` instead: a
few items of a few levels (reprlib never walks past them), cut to PREVIEW_CHARS characters.
"""

from __future__ import annotations

import reprlib
from collections.abc import Collection, Iterable
from typing import Any

PREVIEW_CHARS = 80

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxlist = _REPR.maxtuple = _REPR.maxset = _REPR.maxfrozenset = _REPR.maxdict = 4
_REPR.maxstring = _REPR.maxother = _REPR.maxlong = 60


def preview(value: Any) -> str:
    """repr(value), shortened: at most PREVIEW_CHARS characters, whatever the value's size."""
    text = _REPR.repr(value)
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 3] + "..."


def shown(value: Any) -> str:
    """preview(value), with its type named unless it is a string: "[1, 2] (list)"."""
    text = preview(value)
    return text if isinstance(value, str) else f"{text} ({type(value).__name__})"


def unknown_key(keys: Iterable[Any], allowed: Collection[Any]) -> str | None:
    """The first key of `keys` outside `allowed`, previewed for an error message, or None. Keys
    are sorted as text: a YAML mapping may mix types (1: and foo:), which sorted() refuses."""
    unknown = [key for key in keys if key not in allowed]
    return preview(min(unknown, key=str)) if unknown else None
