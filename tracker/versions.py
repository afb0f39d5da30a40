"""Version normalisation shared by every collector (PEP 440 through `packaging`).

Upstream projects spell versions in tags and titles in many ways: ``v0.10.1``, ``jax-v0.4.30``,
``rocm-6.3.0``, ``tags/rocm-jaxlib-v0.4.28``, ``v2.2.0-rc2``, ``2.9.0+rocm6.4``. The metrics need
one spelling per version, so every collector goes through :func:`parse_version` and stores
``ParsedVersion.version`` (the PEP 440 public version) in ``Event.version`` and the local part
(``rocm6.4`` of ``2.9.0+rocm6.4``) in ``attrs``.

Contract:
- a string that is a PEP 440 version (after an optional ``v``) is taken as is;
- otherwise a textual prefix ending in ``-``, ``_``, ``/``, a space or ``v`` is dropped, and the
  remainder must be a PEP 440 version with at least two release components (``rocm-6.3.0`` ->
  6.3.0; ``nightly-2024`` is not a version, since a bare number after a word is usually a date or
  a build number);
- anything else (``latest``, ``rocm-jax-v0.8.2-alpha-sdk``) is not a version: None, never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property, lru_cache

from packaging.version import InvalidVersion, Version

GRANULARITIES = ("major", "minor", "release")

# Where a version may start after a textual prefix: a digit right after a separator or a "v"
# that itself follows a separator (or the start). "rocm6.4" does not split (no separator).
_START = re.compile(r"(?:^|[-_/ ]|(?<=[-_/ ])v|^v)(?=\d)")


@dataclass(frozen=True)
class ParsedVersion:
    """A normalised version: `version` is the PEP 440 public version ("2.9.0", "0.9.0rc2"),
    `local` the local label without "+" ("rocm6.4") or None, `raw` the input text."""

    version: str
    local: str | None
    prerelease: bool
    raw: str

    @cached_property
    def parsed(self) -> Version:
        """The `packaging` Version of the public part (for ordering)."""
        return Version(self.version)


def _as_version(text: str) -> Version | None:
    try:
        return Version(text)
    except (InvalidVersion, ValueError):  # ValueError: a number of over 4,300 digits
        return None


@lru_cache(maxsize=1 << 16)  # the metrics ask about the same few thousand versions again and again
def parse_version(text: str | None) -> ParsedVersion | None:
    """Normalise a tag, title or version string; None when it holds no version (see module doc).
    Cached: the result is immutable."""
    if not text:
        return None
    raw = text
    text = text.strip()
    found = _as_version(text)
    if found is None:
        for match in _START.finditer(text):
            rest = text[match.end() :]
            candidate = _as_version(rest)
            # A prefixed remainder must look like X.Y at least: "nightly-2024" is no version.
            if candidate is not None and len(candidate.release) >= 2:
                found = candidate
                break
    if found is None:
        return None
    public = found.public
    return ParsedVersion(public, found.local, found.is_prerelease or found.is_devrelease, raw)


def normalize_version(text: str | None) -> str | None:
    """The PEP 440 public version in `text` ("v0.10.1" -> "0.10.1"), or None."""
    parsed = parse_version(text)
    return parsed.version if parsed else None


def series(version: str | None, granularity: str = "minor") -> str | None:
    """The release series a version belongs to (docs/methodology.md, coverage lag).

    ``minor`` -> "x.y" ("2.9.1" -> "2.9"), ``release`` -> "x.y.z" ("0.7.1" -> "0.7.1",
    "0.9.0.1" -> "0.9.0", missing components count as 0), ``major`` -> "x". Pre-release, post and
    local parts are ignored ("2.9.0rc1" -> "2.9"); None when `version` is not a version.
    """
    if granularity not in GRANULARITIES:
        raise ValueError(f"unknown series granularity {granularity!r} (known: {GRANULARITIES})")
    parsed = parse_version(version)
    if parsed is None:
        return None
    width = GRANULARITIES.index(granularity) + 1
    release = tuple(parsed.parsed.release) + (0,) * width
    return ".".join(str(part) for part in release[:width])


def version_in_text(text: str | None) -> ParsedVersion | None:
    """The first version written as a word of `text` ("PyTorch 2.9.0 Release" -> 2.9.0).

    The whole text is tried first; then each whitespace-separated word, stripped of punctuation
    around it, that has at least two release components (a bare "2024" is a year, not a version).
    """
    whole = parse_version(text)
    if whole is not None or not text:
        return whole
    for word in text.split():
        parsed = parse_version(word.strip(",;:.()[]'\"!"))
        if parsed is not None and len(parsed.parsed.release) >= 2:
            return parsed
    return None
