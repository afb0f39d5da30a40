"""When a release was published: the rule the release kinds (github_releases, github_tags) share.

A release is available when it is published, so its date is the earliest record of its
publication: a vendor's release history page (``history_url``: version -> day, ROCm's
``docs/release/versions.md``), the GitHub release object's ``published_at``, an annotated tag's
tag object (its tagger date). A commit is no record of publication: the release tag of ROCm
6.2.0 points at a commit of 2024-08-20, eighteen days after the release history's 2024-08-02,
and TheRock 7.14's at one of 2026-07-09, six days before its tag and release. A commit dates a
release only when nothing else does (a lightweight tag of a repository with no release history),
and the event says so (``date_source: commit``).

Not a collector kind: the leading underscore keeps the registry from loading it as one.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from packaging.version import Version

from tracker.collect.sources._docs import load_history
from tracker.versions import parse_version

# The release history's day, the kinds' own record: the names events carry in date_source.
HISTORY = "release_history"


def release_history(ctx) -> dict[Version, datetime]:
    """The source's release history (``history_url``) as version -> day ({} without one); keyed
    by the parsed version so that 7.14 and 7.14.0 are one release."""
    out: dict[Version, datetime] = {}
    for text, day in load_history(ctx).items():
        parsed = parse_version(text)
        if parsed is not None:
            out.setdefault(parsed.parsed, day)
    return out


def earliest(
    version: str, records: Mapping[str, datetime | None], history: Mapping[Version, datetime]
) -> tuple[datetime, str] | None:
    """The earliest record of publication of `version`: the history's day beside `records`
    (date source -> date, None where the kind has none), with the name of the record that won;
    None when there is none."""
    found = {name: when for name, when in records.items() if when is not None}
    parsed = parse_version(version)
    if parsed is not None and parsed.parsed in history:
        found[HISTORY] = history[parsed.parsed]
    if not found:
        return None
    name = min(found, key=lambda n: found[n])
    return found[name], name
