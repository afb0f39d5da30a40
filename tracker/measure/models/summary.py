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

from tracker.measure.lag.rows import LagSample


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
