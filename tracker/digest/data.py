"""The weekly maturity digest: what one complete ISO week changed, per regime, as plain data.

One week is chosen (tracker.digest.week: the last complete ISO week by default, or `--week` /
`--as-of`), and every number is computed as of that week's end, so evidence dated after it is
ignored and a past week's digest reads the same later (like `tracker lag --as-of`). The same
week name goes into the subject, the body and the command's output.

`digest_data` returns everything the email shows; `tracker.digest.mail` renders and sends it,
`tracker.digest.charts` draws its charts. Per regime, the lag block is a list of line dicts
(tracker.digest.blocks) that both templates render as they come, so a new kind of line is a
function appending dicts, not a template change.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from tracker.config import Config
from tracker.digest.blocks import (
    PREVIOUS_WEEKS,
    ci_block,
    ci_crossings,
    ci_other_block,
    display_name,
    friction_block,
    lag_lines,
    median_crossings,
    open_age_crossings,
    subject,
)
from tracker.digest.perf_lines import new_round_lines, new_training_round_lines
from tracker.digest.response_lines import waiting_lines
from tracker.digest.week import DigestWeek, iso_week, resolve_week, week_of
from tracker.errors import TrackerError
from tracker.events import now_utc
from tracker.measure.lag.rows import LagSample
from tracker.measure.quality.source_health import source_health
from tracker.measure.stats.survival import median_lag
from tracker.present.share_chart import Tally, pool, sparse_sentence, split_sparse
from tracker.store import Store
from tracker.store.asof import default_as_of

__all__ = [  # the week helpers are re-exported: callers need one import for the digest
    "DigestError",
    "DigestWeek",
    "digest_data",
    "iso_week",
    "resolve_week",
    "week_of",
]


class DigestError(TrackerError):
    """The digest could not be sent (SMTP refused or unreachable)."""


def digest_data(config: Config, store: Store, week: DigestWeek) -> dict[str, Any]:
    """Everything the digest shows for `week`, as plain data (also what tests check). The
    figures are the report's (tracker.measure.figures) as of the week's end: the headline
    answer per regime leads, word for word as in the report of that day."""
    from tracker.measure.figures import compute_figures
    from tracker.present.answer_words import (
        LAYER_NAMES,
        answer_text,
        layer_text,
        median_phrase,
        subject_part,
    )
    from tracker.present.benchmark_words import first_config_lines
    from tracker.present.ci_jobs_words import regime_blocks
    from tracker.present.ci_record_words import no_record_lines, sample_lines
    from tracker.present.ci_units_words import digest_lines as unit_lines
    from tracker.present.ci_units_words import week_label
    from tracker.present.formats import http_only
    from tracker.present.silent_words import silent_line
    from tracker.present.trend_words import digest_line_by_regime, stale_ci_text
    from tracker.store.asof import resolve_as_of

    limits = config.digest
    reference = config.reference_regime
    regimes = [r.id for r in config.regimes] or [reference]
    figures = compute_figures(config, store, resolve_as_of(store, week.as_of))
    answers = {a.regime: a for a in figures.answers}
    samples_at = figures.facts.framework_samples
    # The per-project medians, the open artifacts and the weekly history are framework series
    # (the all-time pooled median is labelled as such); model families and the trend lines
    # come from the same figures.
    now = [s for s in figures.samples if s.artifact == "framework"]
    before = samples_at(week.as_of - timedelta(days=7))
    # The headline CI rate counts the triggers sources.yaml selects (nightly builds); the
    # per-merge and other triggers are listed apart, labelled, never added in.
    ci_rows, ci_other_rows, friction_rows = (
        figures.pass_rates,
        figures.other_rates,
        figures.friction,
    )
    everything = figures.samples
    trend_text = digest_line_by_regime(figures.trends)
    previous = [week.shifted(-k) for k in range(1, PREVIOUS_WEEKS + 1)]
    events = store.tagged_events(week.start, week.end)

    # CI jobs that broke / were fixed in the week (or in a source's newest week of data)
    ci_jobs = {b["regime"]: b for b in regime_blocks(figures.ci_jobs)}
    blocks = []
    crossed: list[dict[str, Any]] = []
    for regime in regimes:
        answer = answers.get(regime)
        block: dict[str, Any] = {
            "regime": regime,
            "name": display_name(regime),
            "reference": regime == reference,
            "answer": answer.row() if answer else None,
            "answer_text": answer_text(answer) if answer else "no lag data",
            "answer_median": median_phrase(answer) if answer else "-",
            "answer_subject": subject_part(answer) if answer else "",
            # the other layers' answers on this regime, after the framework answer (the lead)
            "layer_lines": [
                f"{LAYER_NAMES[la.layer]}: {layer_text(la)}"
                for la in figures.layers
                if la.answer.regime == regime and la.layer != "framework"
            ],
            "median": pooled_median(now, regime),
            "median_before": pooled_median(before, regime),
            "lag_lines": lag_lines(now, regime, reference, week, limits, http_only)
            + extra_lines(everything, trend_text, regime, reference, week)
            + first_config_lines(figures.benchmark, regime, week.start, week.end),
            "ci": ci_block(ci_rows, regime, week, previous),
            "ci_newest": stale_ci_text(figures.trends, regime, week.as_of),
            "ci_other": ci_other_block(ci_other_rows, regime, week, previous),
            # configured projects without a public CI record on this regime: words, no rate
            "ci_no_record": no_record_lines(figures.ci_unrecorded, [regime]),
            # the sources whose record is a sample: what it is, beside the rates
            "ci_samples": sample_lines(figures.ci_samples, [regime]),
            "ci_jobs": ci_jobs.get(regime),
            # both units, each named (jobs = test groups, tests), the newest week up to this one
            "ci_units": unit_lines(figures.ci_tests, [regime], week_label(week.as_of)),
            "friction": friction_block(friction_rows, events, regime, week, previous, limits),
        }
        if not block["reference"]:
            crossed += median_crossings(block, limits)
            crossed += open_age_crossings(now, regime, week, limits)
            crossed += kernel_crossings(figures, regime, week, limits, http_only)
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
    changed = any(
        line["kind"] in ("gained", "benchmark") for b in blocks for line in b["lag_lines"]
    ) or any(b["friction"]["friction"] + b["friction"]["optimization"] for b in blocks)
    # A new MLPerf round, the week it is first collected, is news too.
    perf_news = new_round_lines(figures.perf, week.start, week.end) + new_training_round_lines(
        figures.training, week.start, week.end
    )
    changed = changed or bool(perf_news)
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
        "stale_sources": figures.stale,
        # definitions silent while upstream kept releasing (as in the report)
        "silent_channels": [silent_line(c) for c in figures.silent],
        "perf_news": perf_news,  # MLPerf rounds first collected this week
        "waiting": waiting_lines(figures.response, week.start, week.end),
        "answers": [a.row() for a in figures.answers],
        "layers": [la.row() for la in figures.layers],
        "data_quality_note": quality_note,
        "thresholds": limits,
        "quiet": not changed and not crossed and not quality,
        "as_of_label": figures.point.label,
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
    data["history"]["lag_points"].pop(reference, None)
    data["history"]["lag_year_ago"].pop(reference, None)
    data["subject"] = subject(data)
    return data


def kernel_crossings(figures, regime: str, week: DigestWeek, limits, http_only) -> list[dict]:
    """Kernel cells of `regime` that closed in the week (evidence dated or collected since a
    week before) and open ones whose age passed the open-age threshold in it."""
    from tracker.measure.kernels.summary import closed_cells

    now = [s for s in figures.samples if s.artifact == "kernel" and s.regime == regime]
    before = figures.facts.kernel_samples(week.as_of - timedelta(days=7))
    out = [
        {
            "regime": regime,
            "kind": "kernel_closed",
            "text": f"{display_name(regime)}: kernel {s.series} ({s.project}) closed after "
            f"{s.lag_days} d ({s.definition}, {s.available:%Y-%m-%d}; evidence "
            f"{http_only(s.evidence_url) or 'without a URL'})",
            "url": http_only(s.day0_url),
        }
        for s in closed_cells(now, before)
    ]
    return out + open_age_crossings(now, regime, week, limits)


def extra_lines(
    samples: Sequence[LagSample],
    trend_text: dict[str, str],
    regime: str,
    reference: str,
    week: DigestWeek,
) -> list[dict[str, Any]]:
    """The regime's model-family lag line and its "is the gap closing?" line (text only; the
    templates escape them like every other line)."""
    from tracker.digest.model_lines import digest_model_lines

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
    from tracker.measure.headline.quarters import YEAR_AGO, week_points

    names = [w.name for w in weeks]
    lag: dict[str, list[float | None]] = {}
    at_ends = [samples_at(w.as_of) for w in weeks]
    for regime in regimes:
        lag[regime] = [pooled_median(samples, regime) for samples in at_ends]
    # The headline chart's points (counts and "at least" bounds beside each median), and the
    # same weeks a year before: the comparison the chart draws faded.
    ends = [(w.name, w.start.date(), at_end) for w, at_end in zip(weeks, at_ends, strict=True)]
    year_ends = [(w.name, w.start.date(), samples_at(w.as_of - YEAR_AGO)) for w in weeks]
    lag_points = {r: week_points(ends, r) for r in regimes}
    year_ago = {r: week_points(year_ends, r) for r in regimes}
    ci, ci_notes = _weekly_tallies(ci_rows, regimes, names, "jobs_passed", "jobs_failed")
    friction, friction_notes = _weekly_tallies(
        friction_rows, regimes, names, "friction", "optimization"
    )
    return {
        "weeks": names,
        "lag": lag,
        "lag_points": lag_points,
        "lag_year_ago": year_ago,
        "ci": ci,
        "ci_notes": ci_notes,
        "friction": friction,
        "friction_notes": friction_notes,
    }


def _weekly_tallies(
    rows: Sequence[dict], regimes: Sequence[str], weeks: Sequence[str], hit: str, miss: str
) -> tuple[dict[str, list[Tally]], list[str]]:
    """({regime: its weekly Tally of `weeks`, for regimes with enough weeks to chart}, one
    sentence per regime with data in too few weeks): the CI job pass rate (jobs_passed,
    jobs_failed) or the friction share (friction, optimization), projects pooled. The same
    rules as the report's charts (tracker.present.share_chart)."""
    window = set(weeks)
    pooled = pool(
        (r for r in rows if r["week"] in window),
        hit,
        miss,
        lambda r: r.get("regime") or "none",
        lambda r: r["week"],
    )
    dense, sparse = split_sparse({r: pooled[r] for r in regimes if r in pooled})
    ci = hit == "jobs_passed"
    notes = []
    for regime in regimes:
        if regime in sparse:
            hits, total = sum(t.hits for t in sparse[regime]), sum(t.total for t in sparse[regime])
            notes.append(
                sparse_sentence(
                    display_name(regime),
                    "CI jobs" if ci else "friction / optimization events",
                    [t.period for t in sparse[regime]],
                    [f"{hits}/{total} jobs passed" if ci else f"{hits} friction of {total}"],
                    scope=f" of the {len(weeks)} charted",
                )
            )
    return {str(r): list(v) for r, v in dense.items()}, notes


def pooled_median(samples: Sequence[LagSample], regime: str) -> float | None:
    """Kaplan-Meier median lag of every primary-definition artifact of `regime`, all projects
    pooled (open artifacts count, censored): the regime's headline number."""
    return median_lag(s for s in samples if s.primary and s.regime == regime)
