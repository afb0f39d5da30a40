"""How each regime is drawn, in every chart of the report and of the digest: one colour and
one marker shape per regime, and one order (the reference first)."""

from __future__ import annotations

from typing import Any

from tracker.names import REGIMES

REGIME_COLOURS = {
    "cuda": "#76b900",
    "rocm": "#ed1c24",
    "xla": "#4285f4",
    "neuron": "#ff9900",
    "none": "#888888",
}
REGIME_MARKERS = {"cuda": "o", "rocm": "s", "xla": "^", "neuron": "D", "none": "P"}
REGIME_ORDER = (*REGIMES, "none")


def colour(regime: str) -> str:
    """The regime's colour (grey for a regime without one)."""
    return REGIME_COLOURS.get(regime, "#555555")


def marker(regime: str) -> str:
    """The regime's marker shape."""
    return REGIME_MARKERS.get(regime, "v")


def ordered(regimes) -> list[str]:
    """Regimes in the charts' order: cuda, rocm, xla, neuron, none, then others by name."""
    return sorted(regimes, key=lambda r: (REGIME_ORDER.index(r) if r in REGIME_ORDER else 99, r))


# Line styles too, so a chart still reads printed in grey-scale; the same in report and digest.
LINE_STYLES = {"cuda": "-", "rocm": "--", "xla": ":", "neuron": "-."}
NAMES = {"cuda": "CUDA", "rocm": "ROCm", "xla": "XLA (Google TPU)", "neuron": "Neuron (AWS)"}
SHORT_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "xla": "XLA", "neuron": "Neuron"}


def line_style(regime: str) -> Any:  # matplotlib types it as a Literal of its styles
    """The regime's line style (solid for a regime without one)."""
    return LINE_STYLES.get(regime, "-")


def name(regime: str) -> str:
    """How a reader names the regime ("ROCm", "XLA (Google TPU)"); unknown ids as they are."""
    return NAMES.get(regime, regime)


def short_name(regime: str) -> str:
    """The regime's short name, for subject lines and tight spaces ("XLA")."""
    return SHORT_NAMES.get(regime, regime)
