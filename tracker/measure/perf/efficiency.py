"""Realized efficiency of an MLPerf Training result set: its throughput per accelerator, the
model FLOPs that throughput carries under a stated convention per benchmark, the number format
the submission trained in, and that FLOP rate over the accelerator's dense peak at BF16 and at
the format used (docs/methodology.md, "Realized efficiency").

Pure functions over a stored result set's attrs (tracker.collect.sources.mlperf_training) and
two ledgers kept as data: ``data/accelerator_peaks.yaml`` (dense peaks, one row per accelerator
and format, each with its public source) and ``data/training_formats.yaml`` (formats read by hand
from a submission's configs where its system file and logs say nothing).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import unquote

from tracker.config import safe_load_yaml

NOT_STATED = "not stated"
FORMATS = ("bf16", "fp8", "fp4")


@dataclass(frozen=True)
class Convention:
    """Model FLOPs per sample of one benchmark: ``tokens`` per sample, ``per_token`` FLOPs of the
    linear layers per token (4N for LoRA's frozen base: forward 2N and the activation gradient
    2N, no weight gradient; 6N for pre-training), and causal attention's FLOPs per token over
    forward and backward (3 x 2 x layers x sequence x width)."""

    tokens: int
    per_token: float
    attention: float
    text: str

    @property
    def per_sample(self) -> float:
        return self.tokens * self.per_token

    @property
    def per_sample_attention(self) -> float:
        return self.tokens * (self.per_token + self.attention)


def _attention(layers: int, sequence: int, width: int) -> float:
    # QK^T and AV: 2 x 2 x sequence x width FLOPs per token and layer, half of it under the
    # causal mask; the backward pass takes twice the forward (both operands are activations).
    return 3 * 2 * layers * sequence * width


# Linear-layer parameters N (every matrix a token goes through: attention projections, MLP,
# output head; the input embedding is a lookup): Llama 2 70B, 80 layers of width 8192, MLP 28672,
# 8 KV heads of 128, vocabulary 32000: 68.71e9. Llama 3.1 8B, 32 layers of 4096, MLP 14336,
# 8 KV heads of 128, vocabulary 128256: 7.504e9.
CONVENTIONS: dict[str, Convention] = {
    "llama2_70b_lora": Convention(
        8192, 4 * 68.71e9, _attention(80, 8192, 8192),
        "LoRA on Llama 2 70B, 8,192 packed tokens a sample: 4N per token (frozen base: forward "
        "and activation gradient), N = 68.71e9; causal attention 6 x 80 x 8192 x 8192 per token",
    ),
    "llama31_8b": Convention(
        8192, 6 * 7.504e9, _attention(32, 8192, 4096),
        "pre-training Llama 3.1 8B, 8,192 tokens a sample: 6N per token, N = 7.504e9; causal "
        "attention 6 x 32 x 8192 x 4096 per token",
    ),
}  # fmt: skip


def throughput(attrs: Mapping[str, Any]) -> float | None:
    """Samples per second per accelerator: the samples the successful runs trained over their
    seconds from run_start to run_stop (evaluations inside the run included), divided by the
    accelerators; None when no successful run logs its samples."""
    runs = attrs.get("runs")
    samples = seconds = 0.0
    for run in runs if isinstance(runs, list) else []:
        if not isinstance(run, dict) or run.get("problem"):
            continue
        count, start, stop = run.get("samples"), run.get("start_ms"), run.get("stop_ms")
        if not (
            isinstance(count, (int, float))
            and isinstance(start, (int, float))
            and isinstance(stop, (int, float))
            and stop > start
        ):
            continue
        samples += count
        seconds += (stop - start) / 1000
    accelerators = attrs.get("accelerators")
    if not samples or not isinstance(accelerators, int) or accelerators <= 0:
        return None
    return samples / seconds / accelerators


_FORMAT_WORDS = (
    ("fp4", re.compile(r"\b(mx|nv)?fp4\b", re.I)),
    ("fp8", re.compile(r"\b(mx)?fp8\b", re.I)),
    ("bf16", re.compile(r"\bbf16\b", re.I)),
)


def format_of(text: str | None) -> str | None:
    """bf16, fp8 or fp4 named in a precision value or a note ("mxfp4", "FP8 Training")."""
    for name, pattern in _FORMAT_WORDS:
        if text and pattern.search(text):
            return name
    return None


@dataclass(frozen=True)
class FormatUsed:
    """The format a result set trained its linear layers in, what said it and where."""

    format: str | None  # bf16 | fp8 | fp4 | None (not stated)
    said: str
    evidence: str

    @property
    def label(self) -> str:
        return self.format.upper() if self.format else NOT_STATED


def format_used(attrs: Mapping[str, Any], url: str) -> FormatUsed:
    """The run logs' lowest_numerical_precision_linear (every run that names one agreeing),
    else the system file's, else its sw_notes, else the ledger's row, else not stated."""
    runs = attrs.get("runs")
    logged = {
        str(r.get("precision"))
        for r in (runs if isinstance(runs, list) else [])
        if isinstance(r, dict) and r.get("precision")
    }
    if len(logged) == 1 and (found := format_of(next(iter(logged)))):
        return FormatUsed(found, f"log key lowest_numerical_precision_linear: {logged.pop()}", url)
    # The system file beside the result folder: <submitter>/systems/<system>.json.
    head, _, _ = url.rpartition("/results/")
    system_url = f"{head.replace('/tree/', '/blob/', 1)}/systems/{attrs.get('system')}.json"
    for field, said in (("precision", "system file lowest_numerical_precision_linear"),
                        ("notes", "system file sw_notes")):  # fmt: skip
        value = str(attrs.get(field) or "")
        if found := format_of(value):
            return FormatUsed(found, f"{said}: {value}", system_url if head else url)
    # The submitter's folder, as the ledger names it, from the result folder's URL (".../
    # <submitter>/results/<system>/<benchmark>"): a system file may spell the submitter apart.
    folder = unquote(url).rsplit("/results/", 1)[0].rsplit("/", 1)[-1]
    key = (str(attrs.get("round")), f"{folder}/{attrs.get('system')}", str(attrs.get("benchmark")))
    row = format_ledger().get(key)
    if row:
        return FormatUsed(row["format"], row["read"], row["evidence"])
    return FormatUsed(None, NOT_STATED, "")


@dataclass(frozen=True)
class Peak:
    tflops: float
    source: str
    derived: str


@cache
def peaks() -> dict[tuple[str, str], Peak]:
    """{(part, format): Peak} from data/accelerator_peaks.yaml."""
    ref = resources.files("tracker.measure") / "data" / "accelerator_peaks.yaml"
    rows = safe_load_yaml(ref.read_text(encoding="utf-8"), str(ref))["peaks"]
    return {
        (r["accelerator"], r["format"]): Peak(float(r["tflops"]), r["source"], r.get("derived", ""))
        for r in rows
    }


@cache
def format_ledger() -> dict[tuple[str, str, str], dict[str, str]]:
    """{(round, submitter/system, benchmark): row} from data/training_formats.yaml."""
    ref = resources.files("tracker.measure") / "data" / "training_formats.yaml"
    rows = safe_load_yaml(ref.read_text(encoding="utf-8"), str(ref))["formats"]
    return {(r["round"], r["result"], r["benchmark"]): r for r in rows}


@dataclass(frozen=True)
class Efficiency:
    """A result set's realized efficiency: throughput, model FLOPs, format and the FLOP rate
    over the dense peak at BF16 and at the format used (low: without attention, high: with)."""

    samples_per_s: float | None
    tokens_per_s: float | None
    convention: Convention | None
    used: FormatUsed
    peak_bf16: Peak | None
    peak_format: Peak | None

    def _share(self, peak: Peak | None, attention: bool) -> float | None:
        if self.samples_per_s is None or self.convention is None or peak is None:
            return None
        flops = self.convention.per_sample_attention if attention else self.convention.per_sample
        return self.samples_per_s * flops / (peak.tflops * 1e12)

    @property
    def bf16(self) -> tuple[float | None, float | None]:
        return self._share(self.peak_bf16, False), self._share(self.peak_bf16, True)

    @property
    def at_format(self) -> tuple[float | None, float | None]:
        return self._share(self.peak_format, False), self._share(self.peak_format, True)


def efficiency(attrs: Mapping[str, Any], part: str, url: str) -> Efficiency:
    """Everything above for one result set (`part`: short_name of its accelerator)."""
    rate = throughput(attrs)
    convention = CONVENTIONS.get(str(attrs.get("benchmark")))
    used = format_used(attrs, url)
    table = peaks()
    tokens = rate * convention.tokens if rate is not None and convention else None
    return Efficiency(
        samples_per_s=rate,
        tokens_per_s=tokens,
        convention=convention,
        used=used,
        peak_bf16=table.get((part, "bf16")),
        peak_format=table.get((part, used.format)) if used.format else None,
    )
