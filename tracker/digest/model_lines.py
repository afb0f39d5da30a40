"""The digest's model-family lines: per regime with model rows, the Kaplan-Meier median model
lag (open families count, censored), covered / open counts, the newest family covered and the
oldest still open (tracker.measure.models.summary computes the matrix; this words it for the
digest alone)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from tracker.measure.lag.rows import LagSample
from tracker.measure.stats.survival import median_lag
from tracker.names import REGIMES


def digest_model_lines(samples: Sequence[LagSample], as_of: datetime) -> list[str]:
    """Plain-text lines for the digest's lag block, one per non-reference regime with model rows:
    KM median model lag (open families count, censored), covered / open counts, the newest
    family covered and the oldest one still open with its age. Text only: the caller escapes
    it for HTML like any other line."""
    lines = []
    primary = [s for s in samples if s.artifact == "model" and s.primary]
    for regime in REGIMES[1:]:
        mine = [s for s in primary if s.regime == regime]
        if not mine:
            continue
        median = median_lag(mine)
        covered = [s for s in mine if s.status == "covered"]
        still_open = [s for s in mine if s.status == "open"]
        parts = [
            f"models on {regime} ({mine[0].definition}): median lag "
            + (f"{median:g} days" if median is not None else "not reached (half still open)"),
            f"{len(covered)} covered, {len(still_open)} open",
        ]
        if covered:
            newest = max(covered, key=lambda s: (s.available or s.day0, s.series))
            parts.append(f"newest covered {newest.series} ({newest.lag_days} d)")
            by_engine = _engine_counts(samples, newest)
            if by_engine:
                parts[-1] = parts[-1][:-1] + f"; {by_engine})"
        if still_open:
            oldest = max(still_open, key=lambda s: (s.lag_days, s.series))
            parts.append(f"longest open {oldest.series} ({oldest.lag_days}+ d)")
        lines.append("; ".join(parts) + f" (as of {as_of:%Y-%m-%d})")
    return lines


def _engine_counts(samples: Sequence[LagSample], headline: LagSample) -> str:
    """Each engine's own date for the headline's family and regime ("vLLM open, SGLang
    2025-05-24"), under the headline's day 0."""
    names = {"vllm": "vLLM", "sglang": "SGLang"}
    out = []
    for s in sorted(samples, key=lambda s: s.engine):
        if (
            s.artifact == "model"
            and s.engine
            and s.series == headline.series
            and s.regime == headline.regime
            and s.day0_definition == headline.day0_definition
        ):
            when = f"{s.available:%Y-%m-%d}" if s.available else "open"
            out.append(f"{names.get(s.engine, s.engine)} {when}")
    return ", ".join(out)
