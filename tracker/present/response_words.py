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


def sample_note(issues: int, answered: int, replay: bool) -> str:
    """What the issue-response figure stands on when every issue counted was answered: in a
    replay, the cassettes' issue threads are a sample (those whose first response is on record),
    not the whole stream, so the waits of issues never answered are missing and the medians
    read short; live, it says only that none counted is still waiting. Empty otherwise."""
    if issues == 0 or answered != issues:
        return ""
    if replay:
        return (
            f"A sample, not the whole stream: this replay holds {issues} issue threads, each "
            "with its first response on record; issues never answered are not in it, so these "
            "waits read shorter than the stream's."
        )
    return f"Every one of the {issues} issues counted has a first response."
