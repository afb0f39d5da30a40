"""Model-family lag for people: the model x regime matrix of the report and the digest's lines.

Both read the primary rows only (each regime's primary definition, day 0 ``vllm_cuda``): the
headline numbers. The other definitions stay in lag.csv, summary.json and v_model_lag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tracker.measure.lag import LagSample
from tracker.measure.survival import median_lag

REGIMES = ("cuda", "rocm", "xla", "neuron")


@dataclass(frozen=True)
class Cell:
    lag_days: int
    status: str  # covered | open
    evidence_url: str
    definition: str


@dataclass(frozen=True)
class MatrixRow:
    family: str
    day0: datetime
    day0_url: str
    cells: dict[str, Cell]  # regime -> cell; a regime missing is unknown (not collected)


def model_matrix(samples: Sequence[LagSample]) -> list[MatrixRow]:
    """One row per model family with a primary day 0, newest day 0 first."""
    rows: dict[str, MatrixRow] = {}
    for s in samples:
        if s.artifact != "model" or not s.primary:
            continue
        row = rows.setdefault(s.series, MatrixRow(s.series, s.day0, s.day0_url, {}))
        row.cells[s.regime] = Cell(s.lag_days, s.status, s.evidence_url, s.definition)
    return sorted(rows.values(), key=lambda r: (r.day0, r.family), reverse=True)


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
        if still_open:
            oldest = max(still_open, key=lambda s: (s.lag_days, s.series))
            parts.append(f"longest open {oldest.series} ({oldest.lag_days}+ d)")
        lines.append("; ".join(parts) + f" (as of {as_of:%Y-%m-%d})")
    return lines
