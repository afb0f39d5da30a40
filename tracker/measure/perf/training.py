"""Delivered training performance per regime: MLPerf Training time to train, scored as
MLCommons' result summarizer scores it, each regime's best per round, benchmark and accelerator
count beside the best NVIDIA one at the same count (docs/methodology.md, "Delivered
performance: training").

Input: the stored `training_result` events (Store.perf_results(kind="training_result")), one per
system and benchmark, each with its runs (tracker.collect.sources.mlperf_training).
``time_to_train`` is the summarizer's score (mlcommons/logging,
mlperf_logging/result_summarizer): minutes from run_start to run_stop per run, failed runs
dropped, the olympic mean, times scaling.json's factor. ``keep_reason`` says why a result set is
left out; ``training_figures`` takes the best per regime and the ratio to the best cuda one.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tracker.measure.perf.adoption import Adoption, format_adoption
from tracker.measure.perf.efficiency import Efficiency, efficiency
from tracker.measure.perf.rounds import tally
from tracker.mentions.accelerators import accelerator_models, accelerator_regime, short_name
from tracker.names import REFERENCE_REGIME

REFERENCE = REFERENCE_REGIME
LEAD_BENCHMARK = "llama2_70b_lora"
# How many of the fastest and slowest runs the olympic mean drops; failed runs count among
# the slowest (result_summarizer: 4 for unet3d, else 1).
MAX_DROPPED = {"unet3d": 4}
MEASURED = "measured"
NO_NVIDIA = "no NVIDIA result at this count"
NO_SUBMISSION = "no submission in this round"
# A regime whose every result set of a round was submitted and could not be scored: the status
# is this and the first set's reason ("submitted, not scored: too many failed runs").
NOT_SCORED = "submitted, not scored"
# A run the summarizer would not accept is a failed run: its run_stop not after its run_start,
# a time that is no finite number, or longer than this (MLPerf Training runs take minutes to
# hours; a month is beyond any submitted one).
MAX_RUN_MINUTES = 30 * 24 * 60.0
# scaling.json's factor is a ratio of epochs to converge near 1 (1.00-1.06 in v4.0-v6.0); one
# outside this range is no factor a round's rules produce: its set is refused, not published.
SCALING_RANGE = (0.1, 10.0)
VERSION_LABELS = {"nccl": "NCCL", "rccl": "RCCL", "rocm": "ROCm", "cuda": "CUDA", "cudnn": "cuDNN",
                  "jax": "JAX", "neuron": "Neuron"}  # fmt: skip


def olympic_mean(minutes: Sequence[float], failed: int, benchmark: str) -> float | None:
    """The summarizer's olympic mean: sorted, the `max_dropped` fastest dropped and, of the
    slowest, as many as failed runs did not already take; None when too many runs failed or
    none is left."""
    max_dropped = MAX_DROPPED.get(benchmark, 1)
    if failed > max_dropped:
        return None
    scores = sorted(minutes)
    countable = scores[max_dropped : len(scores) - (max_dropped - failed)]
    return sum(countable) / len(countable) if countable else None


def run_minutes(run: Any) -> float | None:
    """A run's minutes from run_start to run_stop; None when it is a failed run: a problem
    recorded, a time missing or not a finite number, a stop not after the start, or longer than
    MAX_RUN_MINUTES."""
    if not isinstance(run, dict) or run.get("problem"):
        return None
    start, stop = run.get("start_ms"), run.get("stop_ms")
    if not isinstance(start, (int, float)) or not isinstance(stop, (int, float)):
        return None
    if isinstance(start, bool) or isinstance(stop, bool):
        return None
    minutes = (stop - start) / 60 / 1000
    return minutes if math.isfinite(minutes) and 0 < minutes <= MAX_RUN_MINUTES else None


def scaling(attrs: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(scaling.json's factor, None), 1.0 when there was none; (None, why) when it is not a
    number within SCALING_RANGE (None: scaling.json held no finite number)."""
    factor = attrs.get("scaling_factor", 1.0)
    if factor is None:
        return None, "scaling.json without a finite scaling_factor"
    low, high = SCALING_RANGE
    if isinstance(factor, (int, float)) and not isinstance(factor, bool) and low <= factor <= high:
        return float(factor), None
    return None, f"scaling factor {str(factor)[:24]} outside the plausible {low:g}-{high:g}"


def time_to_train(attrs: Mapping[str, Any]) -> tuple[float | None, str | None]:
    """(minutes, None) as the summarizer scores a result set, or (None, why not)."""
    if attrs.get("unread"):
        return None, "result files not read"
    runs = attrs.get("runs")
    runs = runs if isinstance(runs, list) else []
    minutes, failed = [], 0
    for run in runs:
        took = run_minutes(run)
        if took is None:
            failed += 1
        else:
            minutes.append(took)
    if not runs:
        return None, "no result files"
    factor, why = scaling(attrs)
    if factor is None:
        return None, why
    score = olympic_mean(minutes, failed, str(attrs.get("benchmark", "")))
    if score is None:
        return None, "too many failed runs"
    return score * factor, None


def keep_reason(attrs: Mapping[str, Any]) -> str | None:
    """Why a result set is left out (the first rule it fails), None when kept."""
    return _rules_reason(attrs) or time_to_train(attrs)[1]


def _rules_reason(attrs: Mapping[str, Any]) -> str | None:
    """Why a result set is not compared, whatever its score (division, accelerators)."""
    if attrs.get("division") != "closed":
        return "not closed division"
    models = accelerator_models(attrs.get("accelerator"))
    if len(models) != 1:
        return "no accelerator" if not models else "several accelerator models"
    if not isinstance(attrs.get("accelerators"), int):
        return "no accelerator count"
    return None


# The figure's fields, in the order perf_training.csv and `tracker perf --suite training` show.
COLUMNS = (
    "round",
    "round_date",
    "benchmark",
    "accelerators",
    "regime",
    "status",
    "minutes",
    "nvidia_minutes",
    "ratio_to_nvidia",
    "accelerator",
    "system",
    "submitter",
    "availability",
    "software_versions",
    "evidence_url",
    "nvidia_accelerator",
    "nvidia_system",
    "nvidia_software_versions",
    "nvidia_evidence_url",
    "samples_per_second",
    "tokens_per_second",
    "format_used",
    "format_evidence",
    "efficiency_bf16",
    "efficiency_bf16_attention",
    "efficiency_format",
    "efficiency_format_attention",
)


@dataclass(frozen=True)
class Entry:
    """One scored result set."""

    minutes: float
    accelerator: str
    submitter: str
    system: str
    availability: str
    software: str
    versions: str
    url: str
    realized: Efficiency | None = None

    @property
    def part(self) -> str:
        return short_name(self.accelerator)


@dataclass(frozen=True)
class TrainingRow:
    """A regime's best time to train of one round, benchmark and accelerator count, beside the
    best NVIDIA one at that count; ``status`` says when either is missing."""

    round: str
    round_date: datetime
    benchmark: str
    accelerators: int | None
    regime: str
    status: str
    best: Entry | None
    nvidia: Entry | None

    @property
    def ratio(self) -> float | None:
        """best / NVIDIA's best time (> 1: slower than NVIDIA)."""
        if self.best is None or self.nvidia is None or not self.nvidia.minutes > 0:
            return None  # a zero or missing reference never divides
        return self.best.minutes / self.nvidia.minutes

    def store_row(self, as_of: datetime) -> dict[str, Any]:
        """A row of the table perf_training (the view v_perf_training reads it)."""
        best, cuda = self.best, self.nvidia
        return {
            "round": self.round,
            "round_date": self.round_date,
            "benchmark": self.benchmark,
            "accelerators": self.accelerators or 0,
            "regime": self.regime,
            "status": self.status,
            "minutes": best.minutes if best else None,
            "accelerator": best.accelerator if best else None,
            "system": best.system if best else None,
            "submitter": best.submitter if best else None,
            "availability": best.availability if best else None,
            "software_versions": best.versions if best else None,
            "evidence_url": best.url if best else None,
            "nvidia_minutes": cuda.minutes if cuda else None,
            "nvidia_accelerator": cuda.accelerator if cuda else None,
            "nvidia_system": cuda.system if cuda else None,
            "nvidia_software_versions": cuda.versions if cuda else None,
            "nvidia_evidence_url": cuda.url if cuda else None,
            "ratio_to_nvidia": self.ratio,
            **_realized(best.realized if best else None),
            "as_of": as_of,
        }


def _realized(realized: Efficiency | None) -> dict[str, Any]:
    """The realized-efficiency columns of a row (None where not known)."""
    if realized is None:
        return {c: None for c in COLUMNS[19:]}
    bf16, at_format = realized.bf16, realized.at_format
    return {
        "samples_per_second": realized.samples_per_s,
        "tokens_per_second": realized.tokens_per_s,
        "format_used": realized.used.label,
        "format_evidence": realized.used.evidence or None,
        "efficiency_bf16": bf16[0],
        "efficiency_bf16_attention": bf16[1],
        "efficiency_format": at_format[0],
        "efficiency_format_attention": at_format[1],
    }


@dataclass(frozen=True)
class TrainingRound:
    """One round as stored: its date, first collection, and its result sets counted by what the
    rules did with them (kept per regime, or the reason they were left out)."""

    round: str
    published: datetime
    first_seen: datetime
    result_sets: int
    counts: Mapping[str, int]


@dataclass
class TrainingFigures:
    rows: list[TrainingRow] = field(default_factory=list)  # newest round first
    rounds: list[TrainingRound] = field(default_factory=list)  # oldest first
    regimes: list[str] = field(default_factory=list)
    adoption: list[Adoption] = field(default_factory=list)  # per regime and format

    def store_rows(self, as_of: datetime) -> list[dict[str, Any]]:
        return [r.store_row(as_of) for r in self.rows if not absent(r)]

    def not_scored(self, round_: str) -> dict[str, str]:
        """{regime: reason} of the regimes whose every result set of `round_` was submitted
        and could not be scored (they are not "no submission")."""
        return {
            r.regime: r.status.removeprefix(f"{NOT_SCORED}: ")
            for r in self.rows
            if r.round == round_ and r.status.startswith(NOT_SCORED)
        }

    def adoption_rows(self, as_of: datetime) -> list[dict[str, Any]]:
        return [a.store_row(as_of) for a in self.adoption]

    def compared(self) -> list[TrainingRow]:
        """Rows with a ratio: a regime and NVIDIA at the same round, benchmark and count."""
        return [r for r in self.rows if r.regime != REFERENCE and r.ratio is not None]

    def shared_benchmarks(self) -> list[str]:
        """Benchmarks where a regime and NVIDIA share a count in some round (lead first)."""
        names = {r.benchmark for r in self.compared()}
        return sorted(names, key=lambda b: (b != LEAD_BENCHMARK, b))


def absent(row: TrainingRow) -> bool:
    """A row saying a regime has no scored result in its round ("no submission", or submitted
    and not scored): no benchmark, no count, no time."""
    return row.status == NO_SUBMISSION or row.status.startswith(NOT_SCORED)


def _note_unscored(
    unscored: dict[tuple[str, str], str], name: str, attrs: Mapping[str, Any]
) -> None:
    """Remember the first reason a set of a known regime was submitted and not scored."""
    if _rules_reason(attrs) is not None:
        return  # left out by the rules, not for its score
    why = time_to_train(attrs)[1]
    regime = accelerator_regime(attrs.get("accelerator"))
    if why is not None and regime is not None:
        unscored.setdefault((name, regime), f"{NOT_SCORED}: {why}")


def _versions(attrs: Mapping[str, Any]) -> str:
    versions = attrs.get("versions")
    if not isinstance(versions, dict):
        return ""
    return ", ".join(f"{VERSION_LABELS.get(k, k)} {v}" for k, v in versions.items())


def training_figures(
    results: Iterable[Mapping[str, Any]], regimes: Sequence[str]
) -> TrainingFigures:
    """Rows and round counts of stored training result sets (Store.perf_results rows: attrs,
    occurred_at, url, first_seen_at). `regimes`: sources.yaml's, in order."""
    best: dict[tuple, dict[str, Entry]] = defaultdict(dict)
    rounds: dict[str, dict[str, Any]] = {}
    unscored: dict[tuple[str, str], str] = {}
    for item in results:
        name, attrs, regime = tally(rounds, item, keep_reason)
        if regime is None:
            _note_unscored(unscored, name, attrs)
            continue
        minutes, _ = time_to_train(attrs)
        assert minutes is not None  # keep_reason checked it
        entry = Entry(
            minutes=minutes,
            accelerator=str(attrs.get("accelerator", "")),
            submitter=str(attrs.get("submitter", "")),
            system=str(attrs.get("system", "")),
            availability=str(attrs.get("availability", "")),
            software=f"{attrs.get('framework', '')}; {attrs.get('software', '')}".strip("; "),
            versions=_versions(attrs),
            url=str(item.get("url") or ""),
            realized=efficiency(
                attrs, short_name(str(attrs.get("accelerator", ""))), str(item.get("url") or "")
            ),
        )
        key = (name, str(attrs.get("benchmark")), attrs["accelerators"])
        held = best[key].get(regime)
        # Ties: the first by URL, so SQLite and PostgreSQL stores give the same row.
        if held is None or (entry.minutes, entry.url) < (held.minutes, held.url):
            best[key][regime] = entry
    order = {r: i for i, r in enumerate(regimes)}
    rows = [
        TrainingRow(
            round=key[0],
            round_date=rounds[key[0]]["published"],
            benchmark=key[1],
            accelerators=key[2],
            regime=regime,
            status=MEASURED if REFERENCE in by_regime else NO_NVIDIA,
            best=entry,
            nvidia=by_regime.get(REFERENCE),
        )
        for key, by_regime in best.items()
        for regime, entry in by_regime.items()
    ]
    for name, info in rounds.items():  # a regime without any result set: said, not left out
        for regime in regimes:
            if regime != REFERENCE and not info["counts"].get(regime):
                status = unscored.get((name, regime), NO_SUBMISSION)
                rows.append(
                    TrainingRow(name, info["published"], "", None, regime, status, None, None)
                )
    rows.sort(
        key=lambda r: (
            -r.round_date.timestamp(),
            r.round,
            r.benchmark == "",
            r.benchmark != LEAD_BENCHMARK,
            r.benchmark,
            r.accelerators or 0,
            order.get(r.regime, 99),
        )
    )
    infos = [
        TrainingRound(n, i["published"], i["seen"], sum(i["counts"].values()), dict(i["counts"]))
        for n, i in sorted(rounds.items(), key=lambda kv: kv[1]["published"])
    ]
    adoption = format_adoption(rows, regimes, REFERENCE)
    return TrainingFigures(rows, infos, list(regimes), adoption)
