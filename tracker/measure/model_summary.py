"""Model-family lag for people: the model x regime matrix of the report and the digest's lines.

Both read the primary rows (each regime's primary definition under the primary day 0, e.g.
``any_engine`` from ``engine_cuda``): the headline numbers; beside a headline cell, each serving
engine's own row under the same day 0 (vLLM, SGLang: rows whose ``engine`` is set) with its
evidence URL. The other definitions stay in lag.csv, summary.json and v_model_lag.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
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
    # regime -> [(engine, cell)] under the same day 0: each engine's own date beside the headline
    engines: dict[str, list[tuple[str, Cell]]] = field(default_factory=dict)


def model_matrix(samples: Sequence[LagSample]) -> list[MatrixRow]:
    """One row per model family with a primary day 0, newest day 0 first."""
    rows: dict[str, MatrixRow] = {}
    day0_defs = set()
    for s in samples:
        if s.artifact != "model" or not s.primary:
            continue
        day0_defs.add(s.day0_definition)
        row = rows.setdefault(s.series, MatrixRow(s.series, s.day0, s.day0_url, {}))
        row.cells[s.regime] = Cell(s.lag_days, s.status, s.evidence_url, s.definition)
    for s in samples:
        if s.artifact == "model" and s.engine and s.day0_definition in day0_defs:
            if s.series in rows and s.regime in rows[s.series].cells:
                cell = Cell(s.lag_days, s.status, s.evidence_url, s.definition)
                rows[s.series].engines.setdefault(s.regime, []).append((s.engine, cell))
    for row in rows.values():
        for found in row.engines.values():
            found.sort(key=lambda ec: ec[0])
    return sorted(rows.values(), key=lambda r: (r.day0, r.family), reverse=True)


def engine_text(row: MatrixRow, regime: str) -> str:
    """ "vLLM 168 d, SGLang 33 d" / "vLLM open": each engine's own lag beside the headline."""
    names = {"vllm": "vLLM", "sglang": "SGLang"}
    parts = []
    for engine, cell in row.engines.get(regime, []):
        lag = f"{cell.lag_days} d" if cell.status == "covered" else "open"
        parts.append(f"{names.get(engine, engine)} {lag}")
    return ", ".join(parts)


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
