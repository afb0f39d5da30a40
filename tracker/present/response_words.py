"""How a wait for a first response reads, in the report, the digest and the CLI alike."""

from __future__ import annotations


def hours_text(hours: float | None) -> str:
    """ "5 h", "36 h (1.5 d)"; "not reached" for a median more than half still wait for."""
    if hours is None:
        return "not reached"
    if hours < 48:
        return f"{hours:.0f} h"
    return f"{hours:.0f} h ({hours / 24:.1f} d)"


def ratio_text(ratio: float | None) -> str:
    """A wait as a multiple of the baseline's: "2.0x"; "n/a" when either is unknown or 0."""
    return "n/a" if ratio is None else f"{ratio:.1f}x"
