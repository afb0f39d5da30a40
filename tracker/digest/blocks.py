"""The digest's blocks, line by line: per regime, the lag lines, the CI and friction blocks,
the threshold crossings, and the subject. Each line is a dict (`kind`, `text`, optionally `url`
and its link text `link`) that both templates render as they come."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from tracker.config.digest import Thresholds
from tracker.digest.week import DigestWeek
from tracker.measure.lag.rows import LagSample
from tracker.measure.stats.survival import median_lag
from tracker.present.formats import http_only, percent
from tracker.present.palette import short_name

PREVIOUS_WEEKS = 4  # CI pass rate and friction compare the week with the 4 weeks before it
OPEN_LISTED = 8  # open artifacts listed per regime (all are counted)


def display_name(regime: str) -> str:
    """How people write the regime: ROCm, XLA, ..."""
    return short_name(regime)


def _days(value: float | None) -> str:
    return "not reached" if value is None else f"{value:g} d"


def _signed(value: float) -> str:
    return f"{value:+g}"


def lag_lines(
    samples: Sequence[LagSample],
    regime: str,
    reference: str,
    week: DigestWeek,
    limits: Thresholds,
    http_only,
) -> list[dict[str, Any]]:
    """The regime's lag block: per primary (project, definition) its median; the coverage
    gained in the week (any definition, with its evidence); the open artifacts and their age."""
    mine = [s for s in samples if s.regime == regime]
    lines: list[dict[str, Any]] = []
    groups: dict[tuple[str, str], list[LagSample]] = defaultdict(list)
    for s in mine:
        if s.primary and regime != reference:
            groups[(s.project, s.definition)].append(s)
    for (project, definition), group in sorted(groups.items()):
        median = median_lag(group)
        still_open = sum(s.status == "open" for s in group)
        lines.append(
            {
                "kind": "median",
                "text": f"{project} ({definition}): median lag {_days(median)} over "
                f"{len(group)} series, {still_open} open",
                "url": "",
            }
        )
    # a channel's build that an earliest-build row names is said once, on that row
    named = {(s.project, s.series, s.channel) for s in mine if s.channel}
    for s in sorted(mine, key=lambda s: (s.available or s.day0, s.project, s.series)):
        if (s.project, s.series, s.definition) in named:
            continue
        if s.status == "covered" and s.available and week.start <= s.available < week.end:
            if regime == reference:
                text = f"new: {s.project} {s.series} released {s.day0:%Y-%m-%d} (day 0)"
            else:
                flag = " (negative: evidence before day 0, check it)" if s.negative else ""
                # an earliest-build row names the channel whose build it is
                name = f"{s.definition} via {s.channel}" if s.channel else s.definition
                text = (
                    f"covered: {s.project} {s.series} ({name}) on "
                    f"{s.available:%Y-%m-%d}, lag {s.lag_days} d{flag}"
                )
            lines.append(
                {
                    "kind": "gained",
                    "text": text,
                    "url": http_only(s.evidence_url),
                    "link": "evidence",
                }
            )
    open_now = sorted(
        (s for s in mine if s.status == "open" and s.primary),
        key=lambda s: (-s.lag_days, s.project, s.series),
    )
    for s in open_now[:OPEN_LISTED]:
        lines.append(
            {
                "kind": "open",
                "text": f"open: {s.project} {s.series} ({s.definition}), {s.lag_days} d since "
                f"day 0 {s.day0:%Y-%m-%d}",
                "url": http_only(s.day0_url),
                "link": "day 0",
            }
        )
    if len(open_now) > OPEN_LISTED:
        lines.append(
            {
                "kind": "open",
                "text": f"and {len(open_now) - OPEN_LISTED} more open (all: tracker lag "
                f"--as-of {week.end - timedelta(days=1):%Y-%m-%d} --regime {regime})",
                "url": "",
            }
        )
    return lines


def ci_block(
    rows: Sequence[dict], regime: str, week: DigestWeek, previous: Sequence[DigestWeek]
) -> list[dict[str, Any]]:
    """Per project: CI job pass rate in the week and over the previous weeks pooled, with
    counts (soft-failed jobs count as failed; from v_ci_pass_rate_weekly) and, for headline
    rows (tracker.measure.ci.rates), the ``triggers`` they count."""
    names = {p.name for p in previous}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    triggers: dict[str, set[str]] = defaultdict(set)
    for row in rows:
        if (row.get("regime") or "none") != regime:
            continue
        passed, failed = int(row["jobs_passed"] or 0), int(row["jobs_failed"] or 0)
        if row["week"] == week.name:
            slot = 0
        elif row["week"] in names:
            slot = 2
        else:
            continue
        entry = counts[row["project"]]
        triggers[row["project"]].update(t for t in str(row.get("triggers") or "").split(", ") if t)
        entry[slot] += passed
        entry[slot + 1] += passed + failed
    out = []
    for project, (now_passed, now_total, prev_passed, prev_total) in sorted(counts.items()):
        if not now_total and not prev_total:
            continue
        now_rate = now_passed / now_total if now_total else None
        prev_rate = prev_passed / prev_total if prev_total else None
        out.append(
            {
                "project": project,
                "triggers": ", ".join(sorted(triggers[project])),
                "now_passed": now_passed,
                "now_total": now_total,
                "now_rate": now_rate,
                "prev_passed": prev_passed,
                "prev_total": prev_total,
                "prev_rate": prev_rate,
                "change_points": (now_rate - prev_rate) * 100
                if now_rate is not None and prev_rate is not None
                else None,
            }
        )
    return out


def ci_other_block(
    rows: Sequence[dict], regime: str, week: DigestWeek, previous: Sequence[DigestWeek]
) -> list[dict[str, Any]]:
    """Like ``ci_block``, per project and trigger, for the runs the headline leaves out
    (per-merge and other triggers, tracker.measure.ci.rates): shown apart and labelled, never
    added in, and never a threshold crossing (their rate follows the merge mix)."""
    out = []
    for trigger in sorted({str(r.get("trigger")) for r in rows}):
        mine = [r for r in rows if str(r.get("trigger")) == trigger]
        out += [{**c, "trigger": trigger} for c in ci_block(mine, regime, week, previous)]
    return out


def friction_block(
    rows: Sequence[dict],
    events: Sequence[dict],
    regime: str,
    week: DigestWeek,
    previous: Sequence[DigestWeek],
    limits: Thresholds,
) -> dict[str, Any]:
    """Friction and optimization counts in the week (v_friction_weekly) and the previous weeks
    pooled, with the week's top events of each class by tagger score (links are http only)."""
    names = {p.name for p in previous}
    block: dict[str, Any] = {"friction": 0, "optimization": 0, "prev_friction": 0}
    block["prev_optimization"] = 0
    for row in rows:
        if (row.get("regime") or "none") != regime:
            continue
        prefix = "" if row["week"] == week.name else "prev_" if row["week"] in names else None
        if prefix is None:
            continue
        block[prefix + "friction"] += int(row["friction"] or 0)
        block[prefix + "optimization"] += int(row["optimization"] or 0)
    top = []
    for tag in ("friction", "optimization"):
        mine = [e for e in events if e["regime"] == regime and e["tag"] == tag]
        top += [
            {"tag": tag, "title": e["title"], "url": http_only(e["url"]), "day": e["occurred_at"]}
            for e in mine[: limits.top_events]
        ]
    block["top"] = top
    return block


def median_crossings(block: dict[str, Any], limits: Thresholds) -> list[dict[str, Any]]:
    """The regime's all-time pooled median lag grew in the week (or is no longer reached).
    Named "all-time" where it is said: the subject's median is the 12-month headline's."""
    now, before = block["median"], block["median_before"]
    if before is None:
        return []
    name = f"{block['name']} all-time median lag"
    if now is None:
        text = f"{name} no longer reached (was {before:g} d a week before)"
    elif now - before > limits.median_growth_days:
        text = f"{name} grew to {now:g} d ({_signed(now - before)} d in the week)"
    else:
        return []
    return [{"regime": block["regime"], "kind": "median_grew", "text": text, "url": ""}]


def open_age_crossings(
    samples: Sequence[LagSample], regime: str, week: DigestWeek, limits: Thresholds
) -> list[dict[str, Any]]:
    """Open primary artifacts whose age passed `open_age_days` during the week."""
    out = []
    first_day = (week.start - timedelta(days=1)).date()  # the age a week before as_of
    for s in samples:
        if s.regime != regime or s.status != "open" or not s.primary:
            continue
        if s.lag_days > limits.open_age_days >= (first_day - s.day0.date()).days:
            out.append(
                {
                    "regime": regime,
                    "kind": "open_age",
                    "text": f"{display_name(regime)}: {s.project} {s.series} ({s.definition}) "
                    f"still open after {s.lag_days} d (over {limits.open_age_days} d)",
                    "url": http_only(s.day0_url),
                }
            )
    return out


def ci_crossings(block: dict[str, Any], limits: Thresholds) -> list[dict[str, Any]]:
    """CI job pass rate down more than `pass_rate_drop_points` against the previous weeks."""
    out = []
    for c in block["ci"]:
        change = c["change_points"]
        if change is not None and -change > limits.pass_rate_drop_points:
            out.append(
                {
                    "regime": block["regime"],
                    "kind": "ci_drop",
                    "text": f"{block['name']} CI job pass rate ({c['project']}) "
                    f"{percent(c['now_rate'])} ({c['now_passed']}/{c['now_total']}) vs "
                    f"{percent(c['prev_rate'])} ({c['prev_passed']}/{c['prev_total']}) the "
                    f"previous {PREVIOUS_WEEKS} weeks: down {-change:.1f} points",
                    "url": "",
                }
            )
    return out


_SAFE = re.compile(r"[^A-Za-z0-9_.+-]")


def subject(data: dict[str, Any]) -> str:
    """The headline answer per regime (tracker.measure.headline.answer, as the report's first screen
    says it), built from regime ids and numbers, never collected text: "ROCm at least 96 d
    (no clear change), XLA 28 d (no clear change)"."""
    lags: list[str] = []
    for b in data["regimes"]:
        if b["reference"] or b["answer"] is None:
            continue
        lags.append(b["answer_subject"])  # words of tracker's own (present.answer_words)
    ci = []
    for b in data["regimes"]:
        passed = sum(c["now_passed"] for c in b["ci"])
        total = sum(c["now_total"] for c in b["ci"])
        if total:
            ci.append(f"{_SAFE.sub('', b['regime'])} {percent(passed / total)}")
    text = f"Accelerator maturity {data['week']}: lag " + ", ".join(lags or ["no lag data"])
    if ci:
        text += "; CI " + ", ".join(ci)
    if data["quiet"]:
        text += "; nothing changed"
    return text
