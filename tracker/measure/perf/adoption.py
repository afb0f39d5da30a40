"""Number-format adoption in MLPerf Training: per regime and format (FP8, FP4 = NVFP4 or
MXFP4), the first round whose best result set of the regime (any benchmark, any accelerator
count the figure compares) trained in that format, and its lag behind NVIDIA's first such round
(docs/methodology.md, "Number-format adoption").

NVIDIA's first use is exact only when a round read before it shows NVIDIA's best training in
another stated format; otherwise (the rounds read start at v4.0, and a format not stated is not
known) NVIDIA may have used it earlier and the lag is a lower bound ("at least"). A regime that
has not used the format is "not yet" when its best result sets since NVIDIA's first use state
another format, its lag at least the last such round's date minus NVIDIA's; "not stated" when
they state none (TPU's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

ADOPTION_FORMATS = ("fp8", "fp4")
EXACT, AT_LEAST, NOT_YET, NEVER = "exact", "at least", "not yet", "no NVIDIA use"
UNKNOWN = "not stated"  # the regime's rounds since NVIDIA's first use do not state a format


@dataclass(frozen=True)
class Adoption:
    """One regime's first use of one format, beside NVIDIA's."""

    regime: str
    format: str
    first_round: str | None
    first_date: datetime | None
    evidence: str
    nvidia_round: str | None
    nvidia_date: datetime | None
    nvidia_evidence: str
    lag_days: int | None
    bound: str

    def store_row(self, as_of: datetime) -> dict[str, Any]:
        """A row of the table perf_format_adoption (the view v_format_adoption reads it)."""
        return {
            "regime": self.regime,
            "format": self.format,
            "first_round": self.first_round,
            "first_round_date": self.first_date,
            "evidence_url": self.evidence or None,
            "nvidia_first_round": self.nvidia_round,
            "nvidia_first_round_date": self.nvidia_date,
            "nvidia_evidence_url": self.nvidia_evidence or None,
            "lag_days": self.lag_days,
            "bound": self.bound,
            "as_of": as_of,
        }


def _firsts(rows: Sequence[Any], regime: str, fmt: str) -> tuple[str, datetime, str] | None:
    used = [
        (r.round_date, r.round, r.best.realized.used.evidence)
        for r in rows
        if r.regime == regime
        and r.best is not None
        and r.best.realized is not None
        and r.best.realized.used.format == fmt
    ]
    if not used:
        return None
    date, name, evidence = min(used, key=lambda u: (u[0], u[1]))
    return name, date, evidence


def _other_format_dates(rows: Sequence[Any], regime: str, fmt: str) -> list[datetime]:
    """Dates of the rounds whose best result sets of the regime state a format other than fmt."""
    return [
        r.round_date
        for r in rows
        if r.regime == regime
        and r.best is not None
        and r.best.realized is not None
        and r.best.realized.used.format not in (None, fmt)
    ]


def _seen_without(rows: Sequence[Any], regime: str, fmt: str, before: datetime) -> bool:
    """Whether a round read before `before` shows the regime's best in another stated format."""
    return any(d < before for d in _other_format_dates(rows, regime, fmt))


def format_adoption(rows: Sequence[Any], regimes: Sequence[str], reference: str) -> list[Adoption]:
    """Per regime other than `reference` that has a measured row, and per format, its first
    use beside the reference's. `rows`: TrainingRow objects."""
    out = []
    present = [r for r in regimes if r != reference and any(x.regime == r and x.best for x in rows)]
    for regime in present:
        for fmt in ADOPTION_FORMATS:
            own, ref = _firsts(rows, regime, fmt), _firsts(rows, reference, fmt)
            lag, bound = None, NEVER
            if ref is not None and own is not None:
                lag = (own[1] - ref[1]).days
                bound = EXACT if _seen_without(rows, reference, fmt, ref[1]) else AT_LEAST
            elif ref is not None:
                since = [d for d in _other_format_dates(rows, regime, fmt) if d >= ref[1]]
                lag, bound = ((max(since) - ref[1]).days, NOT_YET) if since else (None, UNKNOWN)
            out.append(
                Adoption(
                    regime, fmt,
                    own[0] if own else None, own[1] if own else None, own[2] if own else "",
                    ref[0] if ref else None, ref[1] if ref else None, ref[2] if ref else "",
                    lag, bound,
                )
            )  # fmt: skip
    return out
