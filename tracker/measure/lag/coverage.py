"""What the lag needs beside the coverage rules (tracker.config.coverage reads and checks
those): the reference definition's name, framework names as mentions spell them, and the
series a version belongs to (docs/methodology.md, coverage lag)."""

from __future__ import annotations

from functools import lru_cache

from tracker.config.coverage import SERIES_COMPONENTS
from tracker.names import FRAMEWORK_PROJECTS as FRAMEWORK_PROJECTS
from tracker.versions import parse_version
from tracker.versions import series as series_of

REFERENCE_DEFINITION = "upstream_release"


@lru_cache(maxsize=1 << 16)  # lag_samples asks for every mention of every note again
def artifact_series(version: str, granularity: str) -> str | None:
    """The series a version belongs to, or None when the version is too coarse to say
    (a mention of "JAX 0.4" names no single JAX release)."""
    parsed = parse_version(version)
    if parsed is None or len(parsed.parsed.release) < SERIES_COMPONENTS[granularity]:
        return None
    return series_of(parsed.version, granularity)
