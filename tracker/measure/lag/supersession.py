"""Supersession: a series counts as covered on a regime once the regime ships that series or
any newer one of the same project (docs/methodology.md, "Supersession"). A user who wanted
vLLM 0.15 on TPU can run 0.18 from the day 0.18 is there.

Newer = later in the project's version order (PEP 440, ``tracker.versions``), among the series
upstream has released (the day-0 series: a stray mention of a version nobody released covers
nothing). ``available`` is the earliest such evidence; ``covered_by`` names the newer series
when it is not the series itself (empty when it is, and on a tie the series itself wins).

Applies to framework release series, where versions order them. Model families and kernel
features have no "newer" (a family is not a version of another; a kernel feature is not a
version of another feature): there it does not apply.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import NamedTuple

from tracker.versions import parse_version


class Cover(NamedTuple):
    """The evidence that covers a series: its date and URL, whether it is the series' own
    first release (no earlier evidence of the series can exist), and the newer series it came
    from ("" when from the series itself)."""

    when: datetime
    url: str
    first: bool
    covered_by: str = ""


def _order(series: str) -> tuple:
    parsed = parse_version(series)
    return (0, parsed.parsed) if parsed else (1, series)  # unparsed: after every version


def supersede(
    own: Mapping[str, tuple[datetime, str, bool]], released: Iterable[str], as_of: datetime
) -> dict[str, Cover]:
    """Per released series, the earliest evidence dated by `as_of` of it or of any newer
    released series (`own`: each series' own earliest evidence, as lag.samples.evidence_by_series
    gives it). Series without such evidence are absent."""
    ordered = sorted(set(released), key=_order)
    out: dict[str, Cover] = {}
    best: Cover | None = None  # the earliest own evidence among the series seen, newest first
    for key in reversed(ordered):
        hit = own.get(key)
        if hit is not None and hit[0] <= as_of and (best is None or hit[0] <= best.when):
            out[key] = Cover(hit[0], hit[1], hit[2])
            best = Cover(hit[0], hit[1], False, key)  # `first` is the newer series' own
        elif best is not None:
            out[key] = best
    return out
