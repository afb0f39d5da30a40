"""The one covered / open / unknown decision of every artifact kind (docs/methodology.md,
"Covered, open or unknown"): a framework release series, a model family and a kernel feature
are each decided here, on one evidence stream (:func:`decide`) and on a definition over several
channels (:func:`combine`), with one wording of the reasons an artifact is unknown.

What differs per kind is declared by the kind, not decided again there:

- **day 0**: the kind dates it (a series' first final release, a model family's day-0
  definitions, a kernel on CUDA) and names it in reasons (``day0_name``: "engine_cuda day 0");
- **left truncation**: whether a stream that starts after day 0 leaves the artifact unknown
  (:attr:`Stream.truncates`; a kernel rule that reads a project's whole history does not), and
  whether a hit is **exact** (``Cover.first``: the evidence is the first that can exist, a
  series' own first release, a ledger's named release; such a hit dates the artifact even from
  a stream that starts after day 0, while any other is only an upper bound);
- **version order**: framework series are covered by a newer series' evidence
  (measure.lag.supersession) before they get here; model families and kernel features have none.

Pure functions; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Generic, Protocol, TypeVar

from tracker.measure.lag.supersession import Cover
from tracker.measure.lag.windows import not_observed

COVERED, OPEN, UNKNOWN = "covered", "open", "unknown"
DAY0 = "day 0"


@dataclass(frozen=True)
class Stream:
    """One evidence stream of a definition as the decision sees it."""

    label: str  # what reasons call it: "vllm-rocm-image releases", "nxd-inference notes"
    start: datetime | None  # its first fact collected; None: nothing collected
    through: datetime  # observed through (measure.lag.windows), never after as-of
    truncates: bool = True  # a stream starting after day 0 leaves the artifact unknown
    # how far its freshest source was read (Windows.latest; None: `through`): evidence found
    # there covers though another of its sources was last read before day 0
    latest: datetime | None = None


@dataclass(frozen=True)
class Decision:
    """An artifact on one stream: covered (``available``, ``url``, ``covered_by``), open
    (censored at ``through``) or unknown (``reason``)."""

    status: str
    lag_days: int = 0
    available: datetime | None = None
    url: str = ""
    covered_by: str = ""
    through: datetime | None = None
    reason: str = ""


def days(later: datetime, earlier: datetime) -> int:
    """Whole days between two dates, as every lag is counted (by UTC date)."""
    return (later.date() - earlier.date()).days


def decide(day0: datetime, hit: Cover | None, stream: Stream, day0_name: str = DAY0) -> Decision:
    """Covered, open or unknown on one stream. `hit`: the earliest evidence dated by as-of
    (of the artifact, or of a newer series: ``covered_by``), None when there is none.

    Unknown, in this order: the stream's window ends before day 0 (the window rule: it takes no
    part in the artifact, neither covering nor censoring it), "not observed since", unless a
    hit is there and some source of the stream was read through day 0 (``latest``); the stream
    holds nothing, or starts after day 0 (when it truncates) and the hit is not exact: absence
    says nothing there and a hit only bounds the lag from above. Else covered on the hit, or
    open, censored at the window (lag = through - day 0)."""
    unseen = not_observed(day0, stream.through)
    if unseen is not None:
        latest = stream.latest
        if hit is None or latest is None or not_observed(day0, latest) is not None:
            return Decision(UNKNOWN, reason=unseen)
        stream = replace(stream, through=latest)  # covered where the fresher source looked
    start = stream.start
    exact = hit is not None and hit.first
    if (start is None or (stream.truncates and day0 < start)) and not exact:
        return Decision(UNKNOWN, reason=truncated(stream, day0, hit, day0_name))
    if hit is None:
        return Decision(OPEN, days(stream.through, day0), through=stream.through)
    return Decision(
        COVERED, days(hit.when, day0), hit.when, hit.url, hit.covered_by, stream.through
    )


def truncated(stream: Stream, day0: datetime, hit: Cover | None, day0_name: str = DAY0) -> str:
    """The reason an artifact is unknown on a stream that does not reach back to day 0."""
    if stream.start is None:
        return f"no {stream.label} collected"
    reason = (
        f"{day0_name} {day0.date()} precedes the first {stream.label} collected "
        f"({stream.start.date()})"
    )
    if hit is None:
        return reason
    of = f" (of {hit.covered_by})" if hit.covered_by else ""
    return (
        f"{reason}; evidence on {hit.when.date()}{of}: the lag is at most "
        f"{days(hit.when, day0)} days"
    )


def unobserved_by_every(parts: Sequence[str], day0_name: str = DAY0) -> str:
    """The reason a combined definition's artifact is unknown: no channel of it watched it."""
    return f"no channel observed it from its {day0_name} ({', '.join(parts)})"


class ChannelRow(Protocol):
    """A channel's row as :func:`combine` reads it (a LagSample: samples builds its rows with
    :func:`decide`, so this module does not import it)."""

    @property
    def definition(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def lag_days(self) -> int: ...
    @property
    def observed_through(self) -> datetime | None: ...


Row = TypeVar("Row", bound=ChannelRow)


@dataclass(frozen=True)
class CombinedDecision(Generic[Row]):
    """A combined definition's artifact: covered by ``row`` (the channel row that came first,
    ``row.definition`` names the channel), open (``row``: a watching channel's row) censored at
    ``through``, or unknown (``row`` None, ``reason``)."""

    status: str
    row: Row | None
    through: datetime | None = None
    reason: str = ""


def combine(
    day0: datetime,
    parts: Sequence[str],
    rows: Mapping[str, Row],
    builds: Sequence[Row] = (),
    day0_name: str = DAY0,
) -> CombinedDecision[Row]:
    """One artifact under a definition over several channels (`parts`, in the definition's
    order), from each channel's own row (`rows`: the channels that watched it, from :func:`decide`;
    a channel whose window ends before day 0 or whose stream starts after it has none) and
    covered rows of channels without a row (`builds`: a release channel's dated build, an
    upper bound; the caller leaves out those whose window ends before day 0).

    The window rule: a channel takes part only where it observed the artifact. Covered on the
    earliest covered channel (whole days; on one day the channel listed first); otherwise open
    when some channel watched it, censored at the latest window among the channels that did;
    unknown only when none did. `through` of the result: the latest window among the watching
    channels (else the covering build's)."""
    order = {part: index for index, part in enumerate(parts)}
    watching = [rows[p] for p in parts if p in rows]
    windows = [r.observed_through for r in watching if r.observed_through is not None]
    seen = max(windows) if windows else None
    covered = [s for s in watching if s.status == COVERED] + list(builds)
    if covered:
        first = min(covered, key=lambda s: (s.lag_days, order[s.definition]))
        return CombinedDecision(COVERED, first, seen or first.observed_through)
    if not watching:
        return CombinedDecision(UNKNOWN, None, reason=unobserved_by_every(parts, day0_name))
    return CombinedDecision(OPEN, watching[0], seen)
