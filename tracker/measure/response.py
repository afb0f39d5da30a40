"""How long a regime's users wait: time to first response and time to close of issues
(docs/methodology.md, "Time to first response"), against the same repository's baseline.

Inputs are the stored issues and comments of the sources with ``comments: true``
(``Store.issue_response_facts``); nothing here reads the store or draws.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from fractions import Fraction
from typing import Any

from tracker.measure.stats.survival import kaplan_meier_quantile, quarter
from tracker.names import REFERENCE_REGIME

HALF, NINE_TENTHS = Fraction(1, 2), Fraction(9, 10)
HOUR, DAY = 3600.0, 86400.0


def is_bot(login: str, author_type: str | None, ignored: frozenset[str]) -> bool:
    """A bot: GitHub types the account "Bot", its login ends in "[bot]", or sources.yaml's
    ``report: ignore_responders`` names it (bots GitHub types as users)."""
    return (
        (author_type or "").lower() == "bot"
        or login.lower().endswith("[bot]")
        or login.lower() in ignored
    )


@dataclass(frozen=True)
class IssueResponse:
    """One issue as of a date: a row of v_issue_response."""

    source_id: str
    project: str
    regime: str
    number: int
    url: str
    created_at: datetime
    first_response_at: datetime | None
    responder_association: str | None
    closed_at: datetime | None  # only when closed at or before as-of
    close_reason: str | None  # completed | not_planned (a closed issue with none: completed)
    hours_to_first_response: float | None
    status: str  # answered | unanswered
    waited_hours: float  # answered: the wait; unanswered: censored here (close, else as-of)
    close_known: bool = True  # False: closed, but when is not known (left out of time to close)

    @property
    def quarter(self) -> str:
        return quarter(self.created_at)

    @property
    def answered(self) -> bool:
        return self.status == "answered"


def first_response(
    issue: Mapping[str, Any],
    comments: Iterable[Mapping[str, Any]],
    as_of: datetime,
    ignored: frozenset[str] = frozenset(),
) -> Mapping[str, Any] | None:
    """The earliest comment at or before `as_of` by someone other than the issue's author and
    not a bot (``is_bot``); None when there is none yet."""
    author = (issue.get("author") or "").lower()
    counted = [
        c
        for c in comments
        if c["created_at"] <= as_of
        and c["author"].lower() != author
        and not is_bot(c["author"], c.get("author_type"), ignored)
    ]
    return min(counted, key=lambda c: c["created_at"], default=None)


def issue_responses(
    issues: Sequence[Mapping[str, Any]],
    comments: Sequence[Mapping[str, Any]],
    as_of: datetime,
    ignored: frozenset[str] = frozenset(),
    observed: Mapping[str, datetime] | None = None,
) -> list[IssueResponse]:
    """Per issue created at or before `as_of` (pull requests are not issues: the store's read
    leaves them out), its first response and close as of `as_of`. `observed`: per source, how
    far it was looked at (measure.lag.windows): an unanswered issue is censored there, not at as-of
    (its silence after is not evidence), and one created after it was not observed."""
    by_issue: dict[tuple[str, int], list[Mapping[str, Any]]] = defaultdict(list)
    for comment in comments:
        by_issue[(comment["source_id"], comment["issue"])].append(comment)
    out = []
    for issue in issues:
        created = issue["created_at"]
        seen = min(as_of, (observed or {}).get(issue["source_id"], as_of))
        if created > seen or not issue.get("regime"):
            continue
        closed = issue.get("closed_at")
        # Closed with no closing time: GitHub never says so, a hand-written record may. When it
        # closed is unknown, so is how long an unanswered one waited: left out, not guessed.
        close_known = closed is not None or issue.get("state") != "closed"
        closed = closed if closed is not None and closed <= as_of else None
        reason = (issue.get("close_reason") or "completed") if closed else None
        hit = first_response(
            issue, by_issue.get((issue["source_id"], issue["number"]), ()), as_of, ignored
        )
        if hit is None and not close_known:
            continue
        if hit is not None:
            answered_at: datetime | None = hit["created_at"]
            waited = (hit["created_at"] - created).total_seconds() / HOUR
        else:
            answered_at = None
            waited = ((closed or seen) - created).total_seconds() / HOUR
        out.append(
            IssueResponse(
                source_id=issue["source_id"],
                project=issue["project"],
                regime=issue["regime"],
                number=issue["number"],
                url=issue["url"],
                created_at=created,
                first_response_at=answered_at,
                responder_association=hit.get("association") if hit else None,
                closed_at=closed,
                close_reason=reason,
                hours_to_first_response=waited if hit else None,
                status="answered" if hit else "unanswered",
                waited_hours=max(waited, 0.0),
                close_known=close_known,
            )
        )
    return sorted(out, key=lambda r: (r.project, r.regime, r.created_at, r.number, r.source_id))


def response_quantile(rows: Iterable[IssueResponse], share: Fraction) -> float | None:
    """Kaplan-Meier quantile of hours to first response (unanswered issues censored)."""
    return kaplan_meier_quantile(((r.waited_hours, r.answered) for r in rows), share)


def close_median_days(rows: Iterable[IssueResponse], as_of: datetime, reason: str) -> float | None:
    """Kaplan-Meier median days from creation to a close for `reason` (completed |
    not_planned); open issues censored at as-of, those closed for the other reason at their
    close; issues closed at an unknown time left out."""
    durations = []
    for r in rows:
        if not r.close_known:
            continue
        end = r.closed_at or as_of
        durations.append(((end - r.created_at).total_seconds() / DAY, r.close_reason == reason))
    return kaplan_meier_quantile(durations, HALF)


def ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


@dataclass(frozen=True)
class ResponseGroup:
    """Issues of one (project or "all", regime, quarter or "all"): a row of
    v_issue_response_quarterly, or of the report's per-regime table (project "all")."""

    project: str
    regime: str
    period: str
    issues: int
    answered: int
    median_hours: float | None
    p90_hours: float | None
    median_days_to_close: float | None  # closed as completed
    median_days_to_not_planned: float | None
    baseline_issues: int
    baseline_median_hours: float | None
    ratio_to_baseline: float | None


@dataclass
class ResponseFigures:
    """Every figure of "How long do users wait?" at one as-of date."""

    as_of: datetime | None = None
    reference: str = REFERENCE_REGIME
    issues: list[IssueResponse] = field(default_factory=list)
    quarterly: list[ResponseGroup] = field(default_factory=list)  # per project, regime, quarter
    regimes: list[ResponseGroup] = field(default_factory=list)  # per regime, quarter and "all"

    def issue_rows(self) -> list[dict]:
        """Rows of the table issue_response (the view v_issue_response reads them)."""
        return [
            {
                "source_id": r.source_id,
                "project": r.project,
                "regime": r.regime,
                "number": r.number,
                "url": r.url,
                "created_at": r.created_at,
                "first_response_at": r.first_response_at,
                "responder_association": r.responder_association,
                "closed_at": r.closed_at,
                "close_reason": r.close_reason,
                "hours_to_first_response": r.hours_to_first_response,
                "status": r.status,
                "as_of": self.as_of,
            }
            for r in self.issues
        ]

    def quarterly_rows(self) -> list[dict]:
        """Rows of the table issue_response_quarterly (v_issue_response_quarterly)."""
        return [
            {
                "project": g.project,
                "regime": g.regime,
                "quarter": g.period,
                "issues": g.issues,
                "answered": g.answered,
                "median_hours": g.median_hours,
                "p90_hours": g.p90_hours,
                "median_days_to_close": g.median_days_to_close,
                "median_days_to_not_planned": g.median_days_to_not_planned,
                "baseline_median_hours": g.baseline_median_hours,
                "ratio_to_baseline": g.ratio_to_baseline,
                "as_of": self.as_of,
            }
            for g in self.quarterly
        ]

    def regime_total(self, regime: str) -> ResponseGroup | None:
        return next((g for g in self.regimes if g.regime == regime and g.period == "all"), None)


def _group(
    project: str,
    regime: str,
    period: str,
    rows: list[IssueResponse],
    baseline: list[IssueResponse],
    as_of: datetime,
) -> ResponseGroup:
    median = response_quantile(rows, HALF)
    base = response_quantile(baseline, HALF) if baseline else None
    return ResponseGroup(
        project,
        regime,
        period,
        len(rows),
        sum(r.answered for r in rows),
        median,
        response_quantile(rows, NINE_TENTHS),
        close_median_days(rows, as_of, "completed"),
        close_median_days(rows, as_of, "not_planned"),
        len(baseline),
        base,
        ratio(median, base),
    )


def response_figures(
    issues: Sequence[Mapping[str, Any]],
    comments: Sequence[Mapping[str, Any]],
    as_of: datetime,
    reference: str,
    regimes: Sequence[str] = (),
    ignored: frozenset[str] = frozenset(),
    observed: Mapping[str, datetime] | None = None,
) -> ResponseFigures:
    """Per issue, per (project, regime, quarter of creation) with the project's baseline (its
    `reference` regime issues of the same quarter), and per regime (by quarter and overall,
    against the pooled baseline of the projects its issues come from)."""
    rows = issue_responses(issues, comments, as_of, ignored, observed)
    groups: dict[tuple[str, str, str], list[IssueResponse]] = defaultdict(list)
    for r in rows:
        groups[(r.project, r.regime, r.quarter)].append(r)
        groups[("all", r.regime, r.quarter)].append(r)
        groups[("all", r.regime, "all")].append(r)
    quarterly, per_regime = [], []
    for (project, regime, period), members in groups.items():
        if project != "all":
            base = groups.get((project, reference, period), [])
            quarterly.append(_group(project, regime, period, members, base, as_of))
            continue
        projects = {m.project for m in members}
        base = [
            b
            for b in rows
            if b.regime == reference
            and b.project in projects
            and (period == "all" or b.quarter == period)
        ]
        per_regime.append(_group("all", regime, period, members, base, as_of))
    order = {regime: i for i, regime in enumerate(regimes)}

    def key(g: ResponseGroup) -> tuple:
        return (order.get(g.regime, len(order)), g.regime, g.project, g.period)

    return ResponseFigures(
        as_of=as_of,
        reference=reference,
        issues=rows,
        quarterly=sorted(quarterly, key=key),
        regimes=sorted(per_regime, key=key),
    )


@dataclass(frozen=True)
class WeekWait:
    """One regime's issues in one week (the digest): those opened in it, how many of them
    are answered by its end and their median wait, and the issues answered during it."""

    regime: str
    opened: int
    answered: int
    median_hours: float | None  # Kaplan-Meier over those opened; None: not reached yet
    answered_in_week: tuple[IssueResponse, ...]


def week_waits(figures: ResponseFigures, start: datetime, end: datetime) -> list[WeekWait]:
    """Per regime with an issue opened or answered in [start, end), from the figures as of the
    week's end (their rows); longest median wait first, a median not reached counting longest."""
    regimes = {
        r.regime
        for r in figures.issues
        if start <= r.created_at < end
        or (r.first_response_at is not None and start <= r.first_response_at < end)
    }
    out = []
    for regime in regimes:
        mine = [r for r in figures.issues if r.regime == regime]
        opened = [r for r in mine if start <= r.created_at < end]
        answered = tuple(
            sorted(
                (
                    r
                    for r in mine
                    if r.first_response_at is not None and start <= r.first_response_at < end
                ),
                key=lambda r: -(r.hours_to_first_response or 0.0),
            )
        )
        median = response_quantile(opened, HALF) if opened else None
        out.append(WeekWait(regime, len(opened), sum(r.answered for r in opened), median, answered))

    def longest(w: WeekWait) -> tuple:
        return (w.opened == 0, w.median_hours is not None, -(w.median_hours or 0.0), w.regime)

    return sorted(out, key=longest)
