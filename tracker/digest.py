"""The weekly maturity digest: what one complete ISO week changed, per regime, as plain data.

One week is chosen (tracker.digest_week: the last complete ISO week by default, or `--week` /
`--as-of`), and every number is computed as of that week's end, so evidence dated after it is
ignored and a past week's digest reads the same later (like `tracker lag --as-of`). The same
week name goes into the subject, the body and the command's output.

`digest_data` returns everything the email shows; `tracker.digest_mail` renders and sends it,
`tracker.digest_charts` draws its charts. Per regime, the lag block is a list of line dicts
(`kind`, `text`, and optionally `url` with its link text `link`) that both templates render as
they come, so a new kind of line is a function appending dicts, not a template change.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from tracker.config import Config
from tracker.digest_queries import source_health, tagged_events
from tracker.digest_settings import Thresholds, parse_thresholds
from tracker.digest_week import DigestWeek, iso_week, resolve_week, week_of
from tracker.errors import TrackerError
from tracker.metrics import LagSample, lag_samples, median_lag, parse_coverage
from tracker.records import now_utc
from tracker.snapshot import default_as_of
from tracker.store import Store

__all__ = [  # the week helpers are re-exported: callers need one import for the digest
    "DigestError",
    "DigestWeek",
    "digest_data",
    "iso_week",
    "resolve_week",
    "week_of",
]

PREVIOUS_WEEKS = 4  # CI pass rate and friction compare the week with the 4 weeks before it
OPEN_LISTED = 8  # open artifacts listed per regime (all are counted)
DISPLAY_NAMES = {"cuda": "CUDA", "rocm": "ROCm", "xla": "XLA", "neuron": "Neuron"}


class DigestError(TrackerError):
    """The digest could not be sent (SMTP refused or unreachable)."""


def _name(regime: str) -> str:
    return DISPLAY_NAMES.get(regime, regime)


def _days(value: float | None) -> str:
    return "not reached" if value is None else f"{value:g} d"


def _signed(value: float) -> str:
    return f"{value:+g}"


def digest_data(config: Config, store: Store, week: DigestWeek) -> dict[str, Any]:
    """Everything the digest shows for `week`, as plain data (also what tests check)."""
    from tracker.report import compute_lag, http_only, load_facts
    from tracker.trend_report import compute_trends, digest_line_by_regime

    limits = parse_thresholds(config.digest, str(config.path))
    reference = next((r.id for r in config.regimes if r.reference), "cuda")
    regimes = [r.id for r in config.regimes] or [reference]
    rules = parse_coverage(config.coverage, str(config.path), reference)
    projects = {r.project for r in rules} | {e.project for r in rules for e in r.evidence}
    releases, notes = load_facts(store, projects)

    def samples_at(when: datetime) -> list[LagSample]:
        return lag_samples(rules, releases, notes, when)

    now = samples_at(week.as_of)
    before = samples_at(week.as_of - timedelta(days=7))
    ci_rows = store.view_rows("v_ci_pass_rate_weekly")
    friction_rows = store.view_rows("v_friction_weekly")
    # Model families and the trend verdicts come from the report's machinery (framework
    # series and model families, as of the week's end); the headline numbers above stay
    # framework-only, as the subject says.
    everything = compute_lag(config, store, week.as_of)
    trend_text = digest_line_by_regime(
        compute_trends(everything, week.as_of, ci_rows, friction_rows, reference)
    )
    previous = [week.shifted(-k) for k in range(1, PREVIOUS_WEEKS + 1)]
    events = tagged_events(store, week.start, week.end)

    blocks = []
    crossed: list[dict[str, Any]] = []
    for regime in regimes:
        block: dict[str, Any] = {
            "regime": regime,
            "name": _name(regime),
            "reference": regime == reference,
            "median": pooled_median(now, regime),
            "median_before": pooled_median(before, regime),
            "lag_lines": lag_lines(now, regime, reference, week, limits, http_only)
            + extra_lines(everything, trend_text, regime, reference, week),
            "ci": ci_block(ci_rows, regime, week, previous),
            "friction": friction_block(friction_rows, events, regime, week, previous, limits),
        }
        if not block["reference"]:
            crossed += median_crossings(block, limits)
            crossed += open_age_crossings(now, regime, week, limits)
        crossed += ci_crossings(block, limits)
        blocks.append(block)
    enabled = [s.id for s in config.sources if s.enabled]
    replayed = default_as_of(store)
    if replayed is None:
        quality = source_health(store, enabled, week.start, week.end, limits.stale_source_days)
        quality_note = ""
    else:
        # A replay's runs are dated when the replay ran, not in the snapshot's week: judged
        # against that week every source would read "never run". Judge the replay runs instead.
        ran = now_utc()
        quality = source_health(
            store, enabled, ran - timedelta(days=7), ran, limits.stale_source_days
        )
        quality_note = (
            f"Replayed snapshot ({replayed.label}): source health is that of the replay runs "
            "of the last 7 days, not of the week."
        )
    # Quiet: no new release or coverage, no friction / optimization event, nothing crossed,
    # no source in trouble. CI at its usual rate is not news (the subject still carries it).
    changed = any(line["kind"] == "gained" for b in blocks for line in b["lag_lines"]) or any(
        b["friction"]["friction"] + b["friction"]["optimization"] for b in blocks
    )
    data: dict[str, Any] = {
        "week": week.name,
        "week_start": week.start,
        "week_end": week.end - timedelta(days=1),
        "previous_weeks": f"{previous[-1].name} to {previous[0].name}",
        "previous_count": PREVIOUS_WEEKS,
        "reference": reference,
        "regimes": blocks,
        "crossed": crossed,
        "data_quality": quality,
        "data_quality_note": quality_note,
        "thresholds": limits,
        "quiet": not changed and not crossed and not quality,
        "ci_counted": any(c["now_total"] for b in blocks for c in b["ci"]),
        "samples": now,
        "history": history(
            [week.shifted(-k) for k in range(limits.chart_weeks - 1, -1, -1)],
            regimes,
            samples_at,
            ci_rows,
            friction_rows,
        ),
    }
    data["history"]["lag"].pop(reference, None)  # 0 by definition: a flat line says nothing
    data["subject"] = subject(data)
    return data


def extra_lines(
    samples: Sequence[LagSample],
    trend_text: dict[str, str],
    regime: str,
    reference: str,
    week: DigestWeek,
) -> list[dict[str, Any]]:
    """The regime's model-family lag line and its "is the gap closing?" line (text only; the
    templates escape them like every other line)."""
    from tracker.model_summary import digest_model_lines

    lines: list[dict[str, Any]] = []
    if regime != reference:
        mine = [s for s in samples if s.regime == regime]
        lines += [
            {"kind": "model", "text": t, "url": ""} for t in digest_model_lines(mine, week.as_of)
        ]
        if regime in trend_text:
            lines.append({"kind": "trend", "text": "trend: " + trend_text[regime], "url": ""})
    return lines


def history(
    weeks: Sequence[DigestWeek],
    regimes: Sequence[str],
    samples_at,
    ci_rows: Sequence[dict],
    friction_rows: Sequence[dict],
) -> dict[str, Any]:
    """Per regime and week (oldest first, the digest's week last): the pooled median lag at the
    week's end, the CI job pass rate and the friction share of the week (None = nothing)."""
    names = [w.name for w in weeks]
    lag: dict[str, list[float | None]] = {}
    at_ends = [samples_at(w.as_of) for w in weeks]
    for regime in regimes:
        lag[regime] = [pooled_median(samples, regime) for samples in at_ends]
    ci = {r: _weekly_share(ci_rows, r, names, "jobs_passed", "jobs_failed") for r in regimes}
    friction = {
        r: _weekly_share(friction_rows, r, names, "friction", "optimization") for r in regimes
    }
    return {"weeks": names, "lag": lag, "ci": ci, "friction": friction}


def _weekly_share(
    rows: Sequence[dict], regime: str, weeks: Sequence[str], hit: str, miss: str
) -> list[float | None]:
    """Per week of `weeks`, hit / (hit + miss) summed over the regime's rows (None = nothing):
    the CI job pass rate (jobs_passed, jobs_failed) or the friction share (friction,
    optimization)."""
    counts: defaultdict[str, list[int]] = defaultdict(lambda: [0, 0])
    for row in rows:
        if (row.get("regime") or "none") == regime and row["week"] in weeks:
            counts[row["week"]][0] += int(row[hit] or 0)
            counts[row["week"]][1] += int(row[hit] or 0) + int(row[miss] or 0)
    return [counts[w][0] / counts[w][1] if counts[w][1] else None for w in weeks]


def pooled_median(samples: Sequence[LagSample], regime: str) -> float | None:
    """Kaplan-Meier median lag of every primary-definition artifact of `regime`, all projects
    pooled (open artifacts count, censored): the regime's headline number."""
    return median_lag(s for s in samples if s.primary and s.regime == regime)


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
    for s in sorted(mine, key=lambda s: (s.available or s.day0, s.project, s.series)):
        if s.status == "covered" and s.available and week.start <= s.available < week.end:
            if regime == reference:
                text = f"new: {s.project} {s.series} released {s.day0:%Y-%m-%d} (day 0)"
            else:
                flag = " (negative: evidence before day 0, check it)" if s.negative else ""
                text = (
                    f"covered: {s.project} {s.series} ({s.definition}) on "
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
    counts (soft-failed jobs count as failed; from v_ci_pass_rate_weekly)."""
    names = {p.name for p in previous}
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
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
    from tracker.report import http_only

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
    """The regime's pooled median lag grew in the week (or is no longer reached)."""
    now, before = block["median"], block["median_before"]
    if before is None:
        return []
    if now is None:
        text = f"{block['name']} median lag no longer reached (was {before:g} d a week before)"
    elif now - before > limits.median_growth_days:
        text = (
            f"{block['name']} median lag grew to {now:g} d ({_signed(now - before)} d in the week)"
        )
    else:
        return []
    return [{"regime": block["regime"], "kind": "median_grew", "text": text, "url": ""}]


def open_age_crossings(
    samples: Sequence[LagSample], regime: str, week: DigestWeek, limits: Thresholds
) -> list[dict[str, Any]]:
    """Open primary artifacts whose age passed `open_age_days` during the week."""
    from tracker.report import http_only

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
                    "text": f"{_name(regime)}: {s.project} {s.series} ({s.definition}) still "
                    f"open after {s.lag_days} d (over {limits.open_age_days} d)",
                    "url": http_only(s.day0_url),
                }
            )
    return out


def ci_crossings(block: dict[str, Any], limits: Thresholds) -> list[dict[str, Any]]:
    """CI job pass rate down more than `pass_rate_drop_points` against the previous weeks."""
    from tracker.report import percent

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
    """Headline numbers only, built from regime ids and numbers (never collected text)."""
    from tracker.report import percent

    lags: list[str] = []
    for b in data["regimes"]:
        if b["reference"]:
            continue
        # like "ROCm lag 65 d (-7), XLA 1 d": the word "lag" once; a KM median not reached
        # means more than half of the regime's artifacts are still open
        value = "over half open" if b["median"] is None else _days(b["median"])
        part = f"{_SAFE.sub('', b['name'])} {'' if lags else 'lag '}{value}"
        if b["median"] is not None and b["median_before"] is not None:
            change = b["median"] - b["median_before"]
            part += f" ({_signed(change)})" if change else ""
        lags.append(part)
    ci = []
    for b in data["regimes"]:
        passed = sum(c["now_passed"] for c in b["ci"])
        total = sum(c["now_total"] for c in b["ci"])
        if total:
            ci.append(f"{_SAFE.sub('', b['regime'])} {percent(passed / total)}")
    text = f"Accelerator maturity {data['week']}: " + ", ".join(lags or ["no lag data"])
    if ci:
        text += "; CI " + ", ".join(ci)
    if data["quiet"]:
        text += "; nothing changed"
    return text
