"""Silent channels in words (tracker.measure.lag.silent): one line per definition, the same in the
report's data-quality section, data_quality.csv and the digest's footer."""

from __future__ import annotations

from tracker.measure.lag.silent import HINT, SilentChannel


def silent_detail(channel: SilentChannel) -> str:
    """E.g. "last evidence 2025-10-16, observed through 2026-04-23; 4 upstream series released
    since (newest 2.13): the channel may have moved ..."."""
    last = f"last evidence {channel.last_evidence}" if channel.last_evidence else "no evidence yet"
    seen = f", observed through {channel.observed_through}" if channel.observed_through else ""
    return (
        f"{last}{seen}; {channel.series_released_since} upstream series released since "
        f"(newest {channel.newest_series}): {HINT}"
    )


def silent_line(channel: SilentChannel) -> str:
    """The channel named, then its detail: "pytorch on xla (torch_xla_release): ..."."""
    return f"{channel.project} on {channel.regime} ({channel.definition}): {silent_detail(channel)}"
