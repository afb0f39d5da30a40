"""Accelerator names as MLPerf submitters write them, read the one way every stage needs:
which regime an accelerator runs, which models a system names, and a short label.

MLPerf's ``Accelerator`` field is free text: "AMD Instinct MI300X-NPS1-SPX-192GB-750W",
"NVIDIA H200-SXM-141GB-CTS", "TPU v5e", "AMD Instinct MI355X 288GB HBM3e (x87)"; a mixed system
names several models joined by "," or " and " (docs/methodology.md, "Delivered performance").
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

from tracker.config import safe_load_yaml

# Regime by vendor words, first match wins. AMD's parts are named "AMD Instinct MI..." and,
# once in v4.1, "AMD MI300X-...": an AMD name with an MI part number counts as Instinct.
_REGIMES = (
    ("cuda", re.compile(r"\bNVIDIA\b", re.I)),
    ("rocm", re.compile(r"\bAMD\b.*(\bInstinct\b|\bMI\d{3})", re.I)),
    ("xla", re.compile(r"\bTPU\b", re.I)),
    ("neuron", re.compile(r"\b(Trainium|Inferentia)\d*\b", re.I)),
)
# "(x87)": how many of the part a system holds, not part of the model's name.
_COUNT = re.compile(r"\s*\(x\d+\)", re.I)
_JOIN = re.compile(r"\s*,\s*|\s+and\s+", re.I)
# A part number: MI355X, H100, GH200, GB300, B200, L40S, v5e (after "TPU").
_PART = re.compile(r"\b(MI\d{3}[A-Z]?|[A-Z]{1,2}\d{2,3}[A-Z]?|TPU v\d+[a-z]*)\b")


def accelerator_regime(name: str | None) -> str | None:
    """The regime of one accelerator model's name (cuda, rocm, xla, neuron), None for any
    other accelerator (Intel Arc, UntetherAI, ...) or no name."""
    if not name:
        return None
    for regime, pattern in _REGIMES:
        if pattern.search(name):
            return regime
    return None


def accelerator_models(name: str | None) -> list[str]:
    """The distinct accelerator models a system's Accelerator field names, counts dropped:
    one for most systems, several for a mixed one, none for a CPU-only one."""
    if not name or not name.strip():
        return []
    parts = (_COUNT.sub("", part).strip() for part in _JOIN.split(name.strip()))
    return sorted({part for part in parts if part})


def short_name(name: str) -> str:
    """A label for charts: the part number ("MI355X", "B200", "TPU v6"), else the name cut to
    24 characters."""
    found = _PART.search(name)
    if found:
        return found.group(1)
    return name if len(name) <= 24 else name[:23] + "…"


@cache
def peer_parts() -> dict[str, str]:
    """The same-generation NVIDIA part of a non-NVIDIA part (data/peer_parts.yaml): MI300X ->
    H100, MI325X -> H200, MI355X -> B200, ..."""
    ref = resources.files("tracker.mentions") / "data" / "peer_parts.yaml"
    data = safe_load_yaml(ref.read_text(encoding="utf-8")) or {}
    return {str(k): str(v) for k, v in data.items()}
