"""The kernel layer for people: the feature x regime matrix, the regime medians and the digest's
closings (tracker.measure.kernels.lag computes the rows; docs/methodology.md, "The kernel layer").

Every cell of the matrix is covered (days, date, URL), open (days so far, censored) or unknown
(with the reason: not tracked, or the evidence stream starts after day 0): unknown cells are
counted beside each median and never enter it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tracker.measure.kernels.ledger import KernelFeature, KernelRule
from tracker.measure.lag.rows import LagSample, Unknown
from tracker.measure.stats.survival import median_lag
from tracker.names import REFERENCE_REGIME, REGIMES


@dataclass(frozen=True)
class KernelCell:
    regime: str
    status: str  # covered | open | unknown
    rule: KernelRule
    sample: LagSample | None = None  # covered and open cells
    reason: str = ""  # unknown cells: why

    @property
    def lag_days(self) -> int | None:
        return self.sample.lag_days if self.sample else None


@dataclass(frozen=True)
class KernelRow:
    feature: KernelFeature
    day0: datetime | None  # None: day 0 unknown (every cell unknown)
    day0_url: str
    cells: dict[str, KernelCell] = field(default_factory=dict)  # every regime of REGIMES


@dataclass(frozen=True)
class KernelMedian:
    regime: str
    median: float | None  # Kaplan-Meier, open cells censored; None: not reached
    covered: int
    open: int
    unknown: int


@dataclass(frozen=True)
class KernelLayer:
    """What the report's "Kernel layer" section and `tracker lag --artifact kernel` show."""

    rows: list[KernelRow]
    medians: list[KernelMedian]


def kernel_layer(
    ledger: Sequence[KernelFeature], samples: Sequence[LagSample], unknown: Sequence[Unknown]
) -> KernelLayer:
    """One row per ledger feature, newest day 0 first (day 0 unknown last), a cell per regime;
    the medians of the regimes other than cuda."""
    mine = {(s.series, s.regime): s for s in samples if s.artifact == "kernel"}
    why = {(u.series, u.regime): u.reason for u in unknown}
    rows = []
    for feature in ledger:
        cuda = mine.get((feature.id, REFERENCE_REGIME))
        cells = {}
        for regime in REGIMES:
            rule = feature.cuda if regime == REFERENCE_REGIME else feature.regimes[regime]
            sample = mine.get((feature.id, regime))
            if sample is not None:
                cells[regime] = KernelCell(regime, sample.status, rule, sample)
            else:
                reason = why.get((feature.id, regime)) or why.get((feature.id, "all"), "")
                cells[regime] = KernelCell(regime, "unknown", rule, reason=reason)
        rows.append(
            KernelRow(feature, cuda.day0 if cuda else None, cuda.day0_url if cuda else "", cells)
        )
    rows.sort(key=lambda r: (r.day0 is not None, r.day0 or datetime.min), reverse=True)
    medians = []
    for regime in REGIMES[1:]:
        column = [r.cells[regime] for r in rows]
        measured = [c.sample for c in column if c.sample is not None]
        medians.append(
            KernelMedian(
                regime,
                median_lag(measured),
                sum(c.status == "covered" for c in column),
                sum(c.status == "open" for c in column),
                sum(c.status == "unknown" for c in column),
            )
        )
    return KernelLayer(rows, medians)


def closed_cells(now: Sequence[LagSample], before: Sequence[LagSample]) -> list[LagSample]:
    """Kernel cells covered in `now` that were not covered in `before` (the digest's week):
    the feature reached the regime, or its evidence was collected, during the week."""
    was = {(s.series, s.regime) for s in before if s.artifact == "kernel" and s.status == "covered"}
    return [
        s
        for s in now
        if s.artifact == "kernel"
        and s.status == "covered"
        and s.regime != REFERENCE_REGIME
        and (s.series, s.regime) not in was
    ]


def kernel_csv_rows(layer: KernelLayer) -> list[dict]:
    """`tracker lag --artifact kernel`: the lag CSV's rows, a cell per regime; unknown cells
    have status `unknown` and empty lag_days, available and evidence_url."""
    out = []
    for row in layer.rows:
        for regime in REGIMES:
            cell = row.cells[regime]
            if cell.sample is not None:
                out.append(cell.sample.csv_row())
                continue
            out.append(
                {
                    "project": row.feature.library,
                    "series": row.feature.id,
                    "regime": regime,
                    "definition": cell.rule.definition,
                    "primary": "true",
                    "day0": row.day0.date().isoformat() if row.day0 else "",
                    "available": "",
                    "lag_days": "",
                    "status": "unknown",
                    "evidence_url": "",
                    "artifact": "kernel",
                    "day0_definition": "cuda_kernel",
                    "observed_through": "",
                    "covered_by": "",
                }
            )
    return out
