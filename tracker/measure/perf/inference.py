"""Delivered performance per regime: MLPerf Inference results, best per accelerator, as a
ratio to the best NVIDIA result of the same round (docs/methodology.md, "Delivered
performance").

Input: the stored `result` events (Store.perf_results), one per published row. ``keep_reason``
says why a row is left out (closed division, datacenter suite, available, measured,
throughput units, one accelerator model, a known accelerator count); ``perf_figures`` takes
each regime's best per-accelerator result per round, benchmark, scenario and units, and its
ratio to the best cuda one (the headline) and to the same-generation NVIDIA part (labelled,
tracker/mentions/data/peer_parts.yaml). The per-accelerator figure is derived here
(result / accelerators), never an MLCommons metric.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from tracker.measure.perf.rounds import tally
from tracker.mentions.accelerators import (
    accelerator_models,
    peer_parts,
    short_name,
)
from tracker.names import REFERENCE_REGIME

THROUGHPUT_UNITS = ("Tokens/s", "Samples/s", "Queries/s")
REFERENCE = REFERENCE_REGIME
LEAD_BENCHMARK = "llama2-70b-99"


@dataclass(frozen=True)
class ParityRow:
    """One regime's best per-accelerator result of one round, benchmark and scenario."""

    round: str
    round_date: datetime
    benchmark: str
    scenario: str
    units: str
    regime: str
    per_accelerator: float  # result / accelerators: derived, not an MLCommons metric
    result: float
    accelerators: float
    accelerator: str
    submitter: str
    software: str
    weight_data_types: str
    evidence_url: str
    ratio_to_best_cuda: float | None  # None: no cuda result to compare with
    best_cuda_accelerator: str | None
    peer_accelerator: str | None  # the same-generation NVIDIA part (peer_parts.yaml)
    ratio_to_peer: float | None  # None: no peer part, or the round has no result of it

    @property
    def part(self) -> str:
        return short_name(self.accelerator)

    def store_row(self, as_of: datetime) -> dict[str, Any]:
        """A row of the table perf_parity (the view v_perf_parity reads it)."""
        return asdict(self) | {"as_of": as_of}


@dataclass(frozen=True)
class RoundInfo:
    """One round as stored: its date, when it was first collected, and its rows counted by
    what the rules did with them (kept per regime, or the reason they were left out)."""

    round: str
    published: datetime
    first_seen: datetime
    rows: int
    counts: Mapping[str, int]  # regime -> kept rows; reason -> rows left out


@dataclass
class PerfFigures:
    rows: list[ParityRow] = field(default_factory=list)
    rounds: list[RoundInfo] = field(default_factory=list)
    regimes: list[str] = field(default_factory=list)

    def store_rows(self, as_of: datetime) -> list[dict[str, Any]]:
        return [r.store_row(as_of) for r in self.rows]

    def common_benchmarks(self) -> list[str]:
        """Benchmarks with a row in every round (LEAD_BENCHMARK first, then by name)."""
        per_round = [{r.benchmark for r in self.rows if r.round == i.round} for i in self.rounds]
        common = set.intersection(*per_round) if per_round else set()
        return sorted(common, key=lambda b: (b != LEAD_BENCHMARK, b))


def total_accelerators(attrs: Mapping[str, Any]) -> float | None:
    """ "Total Accelerators" where the round has it, else a# x Nodes; None when unknown."""
    total = _positive(attrs.get("total_accelerators"))
    if total is not None:
        return total
    per_node, nodes = _positive(attrs.get("accelerators_per_node")), _positive(attrs.get("nodes"))
    return per_node * nodes if per_node is not None and nodes is not None else None


def _positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        return None
    return float(value)


def keep_reason(attrs: Mapping[str, Any]) -> str | None:
    """Why a row is left out (the first rule it fails, in this order), None when kept."""
    if attrs.get("division") != "closed":
        return "not closed division"
    if "datacenter" not in str(attrs.get("suite", "")).split(","):
        return "not datacenter suite"
    if attrs.get("availability") != "available":
        return "not available (preview or research)"
    if attrs.get("inferred") not in (0, None):
        return "inferred from another scenario"
    if attrs.get("units") not in THROUGHPUT_UNITS:
        return "latency units"
    models = accelerator_models(attrs.get("accelerator"))
    if not models:
        return "no accelerator"
    if len(models) > 1:
        return "several accelerator models"
    if total_accelerators(attrs) is None:
        return "no accelerator count"
    if not isinstance(attrs.get("result"), (int, float)) or not attrs["result"] > 0:
        return "no positive result"
    return None


def perf_figures(results: Iterable[Mapping[str, Any]], regimes: Sequence[str]) -> PerfFigures:
    """The parity rows and round counts of stored results (Store.perf_results rows: attrs,
    occurred_at, url, first_seen_at). `regimes`: sources.yaml's, in order."""
    best: dict[tuple, dict[str, dict]] = defaultdict(dict)
    cuda_parts: dict[tuple, dict[str, float]] = defaultdict(dict)  # best cuda result per part
    rounds: dict[str, dict[str, Any]] = {}
    for item in results:
        name, attrs, regime = tally(rounds, item, keep_reason)
        if regime is None:
            continue
        total = total_accelerators(attrs)
        assert total is not None  # keep_reason checked it
        candidate = {**attrs, "accelerators": total, "per": attrs["result"] / total, **item}
        key = (name, attrs["benchmark"], attrs["scenario"], attrs["units"])
        if regime == REFERENCE:
            part = short_name(attrs["accelerator"])
            cuda_parts[key][part] = max(cuda_parts[key].get(part, 0.0), candidate["per"])
        held = best[key].get(regime)
        # Ties: the first by location, so SQLite and PostgreSQL stores give the same row.
        if held is None or (candidate["per"], held["location"]) > (held["per"], attrs["location"]):
            best[key][regime] = candidate
    rows = [
        _row(key, regime, chosen, by_regime, cuda_parts[key], rounds[key[0]]["published"])
        for key, by_regime in best.items()
        for regime, chosen in by_regime.items()
    ]
    order = {r: i for i, r in enumerate(regimes)}
    rows.sort(key=lambda r: (r.round_date, r.benchmark, r.scenario, order.get(r.regime, 99)))
    infos = [
        RoundInfo(n, i["published"], i["seen"], sum(i["counts"].values()), dict(i["counts"]))
        for n, i in sorted(rounds.items(), key=lambda kv: kv[1]["published"])
    ]
    return PerfFigures(rows, infos, list(regimes))


def _row(
    key: tuple,
    regime: str,
    chosen: dict,
    by_regime: dict,
    cuda_parts: dict[str, float],
    published: datetime,
) -> ParityRow:
    cuda = by_regime.get(REFERENCE)
    peer = peer_parts().get(short_name(chosen["accelerator"])) if regime != REFERENCE else None
    peer_best = cuda_parts.get(peer) if peer else None
    return ParityRow(
        round=key[0],
        round_date=published,
        benchmark=key[1],
        scenario=key[2],
        units=key[3],
        regime=regime,
        per_accelerator=chosen["per"],
        result=float(chosen["result"]),
        accelerators=chosen["accelerators"],
        accelerator=chosen["accelerator"],
        submitter=chosen.get("submitter", ""),
        software=chosen.get("software", ""),
        weight_data_types=chosen.get("weight_data_types", ""),
        evidence_url=chosen.get("url", ""),
        ratio_to_best_cuda=chosen["per"] / cuda["per"] if cuda else None,
        best_cuda_accelerator=cuda["accelerator"] if cuda else None,
        peer_accelerator=peer,
        ratio_to_peer=chosen["per"] / peer_best if peer_best else None,
    )
