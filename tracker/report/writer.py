"""The report: lag, CI pass-rate and friction series as CSV / JSON, PNG charts and one HTML page.

Everything collected is untrusted: the HTML is rendered by Jinja2 with autoescape on. Every lag
row carries the URL of its evidence, and every rate sits beside its counts.
"""

from __future__ import annotations

import csv
import json
import logging
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from tracker.config import Config
from tracker.measure import headline, palette, trend_figures
from tracker.measure.ci_rates import COUNTS as CI_COUNTS
from tracker.measure.ci_rates import ci_rate_rows
from tracker.measure.facts import compute_lag
from tracker.measure.formats import http_only, percent
from tracker.measure.lag import LAG_CSV_COLUMNS, LagSample
from tracker.measure.model_summary import REGIMES as MODEL_REGIMES
from tracker.measure.model_summary import model_matrix
from tracker.measure.survival import LagSummary, summarize
from tracker.measure.trend import lag_trends
from tracker.report.chart_data import sparse_friction, split_sparse_ci
from tracker.report.publish import staged
from tracker.report.quality import QUALITY_COLUMNS, quality_sections
from tracker.report.side_by_side import ChartDrawers
from tracker.store import Store

log = logging.getLogger("tracker.report")
HEADLINE_COLUMNS = [
    "regime",
    "period",
    "period_start",
    "artifacts",
    "open",
    "open_on_stale_stream",
    "km_median_days",
    "at_least_days",
    "projects",
]
# The report's pictures: chart -> file, drawn by the functions of these modules (side_by_side.py
# hands them to the drawing processes by name)
IMAGES = {
    "lag": "lag.png",
    "model": "model_lag_matrix.png",
    "headline": "headline_lag.png",
    "friction": "friction_ratio.png",
    "ci": "ci_job_pass_rate.png",
}
CHARTS, MODELS = "tracker.report.charts", "tracker.report.model_charts"
TABLE_WEEKS = 12  # weeks of CI and friction rows in the HTML tables (the CSVs hold them all)


def lag_rows_for_store(samples: Sequence[LagSample], as_of: datetime) -> list[dict]:
    return [
        {
            "project": s.project,
            "series": s.series,
            "regime": s.regime,
            "definition": s.definition,
            "is_primary": s.primary,
            "day0": s.day0,
            "day0_url": s.day0_url,
            "available": s.available,
            "lag_days": s.lag_days,
            "status": s.status,
            "negative": s.negative,
            "evidence_url": s.evidence_url,
            "as_of": as_of,
            "artifact": s.artifact,
            "day0_definition": s.day0_definition,
        }
        for s in samples
    ]


def write_lag_csv(samples: Sequence[LagSample], stream) -> None:
    """The `tracker lag` CSV (docs/methodology.md, coverage lag)."""
    writer = csv.DictWriter(stream, fieldnames=LAG_CSV_COLUMNS)
    writer.writeheader()
    for sample in samples:
        writer.writerow(sample.csv_row())


def _write_csv(path: Path, rows: Sequence[dict], columns: Sequence[str]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(columns), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)


def _summary_row(s: LagSummary, spans: dict | None = None) -> dict[str, Any]:
    span = (spans or {}).get((s.project, s.regime, s.definition))
    row = {
        "project": s.project,
        "regime": s.regime,
        "definition": s.definition,
        "primary": str(s.primary).lower(),
        "period": s.period,
        "artifacts": s.artifacts,
        "covered": s.covered,
        "open": s.open,
        "km_median_days": "" if s.km_median_days is None else s.km_median_days,
    }
    for days, (hits, base) in s.within.items():
        row[f"within_{days}d"] = f"{hits}/{base}"
    row["evidence_from"] = span[0].date().isoformat() if span else ""
    row["evidence_through"] = span[1].date().isoformat() if span else ""
    row["artifact"] = s.artifact
    row["day0_definition"] = s.day0_definition
    return row


def write_report(
    config: Config,
    store: Store,
    out_dir: Path,
    as_of: datetime | None = None,
    banner: str | None = None,
) -> list[str]:
    """Write lag / pass-rate / friction CSVs, summary.json, PNG charts and index.html into
    `out_dir`; refresh the lag_samples and lag_trend tables. `banner` (e.g. "built from a
    replay") is shown at the top of the page and kept in summary.json. Without `as_of`, a
    replayed store reports as of its snapshot date and a live one as of now
    (tracker/store/asof.py). Returns console lines."""
    from tracker.measure.quality import unread_tags
    from tracker.measure.staleness import stale_definitions
    from tracker.store.asof import AsOf, default_as_of

    point = AsOf(as_of, explicit=True) if as_of else default_as_of(store) or AsOf(datetime.now(UTC))
    as_of = point.when
    out_dir.mkdir(parents=True, exist_ok=True)
    unknown: list = []
    spans: dict = {}
    reference = config.reference_regime
    # The old report stays whole until all is written. The chart processes start first: they
    # import matplotlib while this one computes, and draw while it writes (side_by_side.py).
    with staged(out_dir) as stage, ChartDrawers() as drawers:
        # The weekly CI and friction reads and the staleness scan are SQL that scans every CI
        # run, issue and note (seconds at a million events): the database runs them on a second
        # thread while this one computes the lag and its trends (SQLite and psycopg let go of
        # the GIL while a statement runs; SQLite's WAL lets this thread write the lag tables).
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="report-reads") as pool:
            reads = pool.submit(_weekly_and_stale, config, store, as_of)
            samples = compute_lag(config, store, as_of, unknown, spans)
            store.replace_lag_samples(lag_rows_for_store(samples, as_of))
            lag = lag_trends(samples, as_of, reference)
            drawers.draw("lag", CHARTS, "lag_chart", stage / IMAGES["lag"], samples, as_of, lag)
            drawers.draw(
                "model", MODELS, "model_matrix_chart", stage / IMAGES["model"], samples, as_of
            )
            store.replace_lag_trend(trend_figures.store_rows(lag, as_of))
            pass_rates, other_rates, friction, stale = reads.result()
        summaries = summarize(samples, as_of)
        overrides = store.overrides()
        trends = trend_figures.compute_trends(
            samples, as_of, pass_rates, friction, reference, lag=lag
        )
        tags_unread = unread_tags(store, config)
        stale_keys = stale_definitions(spans, as_of, config.report)
        series = headline.quarterly_series(samples, as_of, stale_keys)
        dense_ci, ci_sparse = split_sparse_ci(pass_rates)
        drawers.draw(
            "headline", CHARTS, "headline_chart", stage / IMAGES["headline"], series, reference
        )
        drawers.draw("friction", CHARTS, "friction_chart", stage / IMAGES["friction"], friction)
        drawers.draw("ci", CHARTS, "ci_pass_rate_chart", stage / IMAGES["ci"], dense_ci)
        answer = answer_rows(series, as_of, reference)
        far_dated = store.far_dated_events()  # left out of every figure by the store's reads
        quality = quality_sections(
            stale,
            len(config.sources),
            unknown,
            [s for s in samples if s.negative],
            tags_unread,
            far_dated,
        )

        with (stage / "lag.csv").open("w", newline="", encoding="utf-8") as handle:
            write_lag_csv(samples, handle)
        summary_rows = [_summary_row(s, spans) for s in summaries]
        for row in summary_rows:
            row["evidence_stale"] = str(
                (row["project"], row["regime"], row["definition"]) in stale_keys
            ).lower()
        _write_csv(
            stage / "lag_summary.csv",
            summary_rows,
            list(summary_rows[0]) if summary_rows else ["project"],
        )
        _write_csv(
            stage / "ci_pass_rate_weekly.csv",
            pass_rates,
            [
                "project",
                "regime",
                "week",
                "runs_passed",
                "runs_failed",
                "jobs_passed",
                "jobs_failed",
                "run_pass_rate",
                "job_pass_rate",
                "triggers",
            ],
        )
        _write_csv(
            stage / "ci_pass_rate_other_triggers.csv",
            other_rates,
            ["project", "regime", "trigger", "week", *CI_COUNTS, "run_pass_rate", "job_pass_rate"],
        )
        _write_csv(
            stage / "friction_weekly.csv",
            friction,
            ["regime", "week", "friction", "optimization", "neutral", "friction_ratio"],
        )
        series_rows = [p.row() for r in palette.ordered(series) for p in series[r]]
        _write_csv(stage / "headline_lag_quarterly.csv", series_rows, HEADLINE_COLUMNS)
        _write_csv(stage / "data_quality.csv", quality["rows"], QUALITY_COLUMNS)
        (stage / "summary.json").write_text(
            json.dumps(
                {
                    "as_of": as_of.isoformat(),
                    "as_of_label": point.label,
                    "stale_sources": stale,
                    "unread_tags": tags_unread,
                    "data": banner or "collected upstream data",
                    "gap_trend": trend_figures.json_ready(trends),
                    "headline_series": {
                        "method": "docs/methodology.md#the-headline-series-lag-per-quarter",
                        "verdicts": [
                            {k: a[k] for k in ("regime", "direction", "sentence")} for a in answer
                        ],
                        "quarters": series_rows,
                    },
                    "lag_primary": [
                        r for r in summary_rows if r["period"] == "all" and r["primary"] == "true"
                    ],
                    "lag_samples": [s.csv_row() | {"negative": s.negative} for s in samples],
                    "lag_unknown": [
                        dict(
                            zip(
                                ("project", "series", "regime", "definition", "reason"),
                                u,
                                strict=True,
                            )
                        )
                        for u in unknown
                    ],
                    "ci_pass_rate_weekly": pass_rates,
                    "ci_pass_rate_other_triggers": other_rates,
                    "friction_weekly": friction,
                    "analyst_overrides": overrides,
                },
                indent=1,
                default=str,
            ),
            encoding="utf-8",
        )

        images = {name: IMAGES[name] if drew else None for name, drew in drawers.drawn().items()}
        model_image = images.pop("model")
        env = Environment(
            loader=PackageLoader("tracker.report", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
        )
        env.filters["http_only"] = http_only
        env.filters["percent"] = percent
        html = env.get_template("report.html.j2").render(
            as_of=as_of,
            banner=banner,
            trend=trend_figures.headline(trends),
            trend_thresholds=trend_figures.THRESHOLDS,
            as_of_label=point.label,
            stale=stale,
            headline=[r for r in summary_rows if r["period"] == "all" and r["primary"] == "true"],
            summaries=[s for s in summaries if s.period == "all"],
            samples=samples,
            pass_rates=latest_weeks(pass_rates, TABLE_WEEKS),
            other_rates=latest_weeks(other_rates, TABLE_WEEKS),
            unread_tags=tags_unread,
            far_dated=far_dated,
            table_weeks=TABLE_WEEKS,
            friction=latest_weeks(friction, TABLE_WEEKS),
            images=images,
            answer=answer,
            ci_sparse=ci_sparse,
            friction_sparse=sparse_friction(friction),
            quality=quality["lines"],
            regime_colour=palette.colour,
            negative=[s for s in samples if s.negative],
            # model families whose day 0 itself is unknown (regime "all") are listed apart
            unknown=[u for u in unknown if u[2] != "all"],
            day0_unknown=[u for u in unknown if u[2] == "all"],
            overrides=overrides,
            model_image=model_image,
            model_rows=model_matrix(samples),
            model_regimes=MODEL_REGIMES,
        )
        (stage / "index.html").write_text(html, encoding="utf-8")
    covered = sum(s.status == "covered" for s in samples)
    return [
        f"report: {out_dir / 'index.html'} ({len(samples)} lag samples: {covered} covered, "
        f"{len(samples) - covered} open, {len(unknown)} before the evidence reaches; "
        f"{len({r['week'] for r in pass_rates})} CI weeks; "
        f"{len({r['week'] for r in friction})} friction weeks; CSV and PNG beside it)"
    ] + _as_of_lines(point, stale)


def _weekly_and_stale(
    config: Config, store: Store, as_of: datetime
) -> tuple[list, list, list, list]:
    """(headline CI rows, other-trigger CI rows, friction rows, stale sources) from the store."""
    from tracker.measure.staleness import stale_sources

    # Headline: the triggers each source's selector names (nightly builds); the rest apart.
    pass_rates, other_rates = ci_rate_rows(config, store)
    # Views have no inherent order (PostgreSQL returns any): sort, so files and tables are stable.
    friction = sorted(
        store.view_rows("v_friction_weekly"), key=lambda r: (r["regime"] or "", r["week"])
    )
    # Data quality: streams that ended long before as-of (their open rows age with the silence).
    return pass_rates, other_rates, friction, stale_sources(store, config, as_of)


def answer_rows(series: dict, as_of: datetime, reference: str) -> list[dict[str, Any]]:
    """Per regime (charts' order), the verdict beside the headline chart: direction, the
    sentence, the latest quarter with a median and the newest quarter's point."""
    rows = []
    for regime in palette.ordered(series):
        points = series[regime]
        if regime == reference:
            direction, sentence = "reference", "0 d by definition (builds ship with the release)"
        else:
            direction, sentence = headline.verdict(points, as_of)
        latest = headline.latest_reached(points)
        rows.append(
            {
                "regime": regime,
                "name": palette.name(regime),
                "direction": direction,
                "sentence": sentence,
                "latest": f"{latest.period}: {latest.text()}" if latest else "none yet",
                "newest": f"{points[-1].period}: {points[-1].text()}",
                "artifacts": sum(p.artifacts for p in points),
                "open": sum(p.open for p in points),
            }
        )
    return rows


def _as_of_lines(point, stale: Sequence[dict]) -> list[str]:
    """The console's note on a replayed snapshot's as-of date and on stale streams (a live run
    without stale streams prints what it printed before)."""
    if point.snapshot is None and not stale:
        return []
    names = ", ".join(r["source_id"] for r in stale[:5]) + (", ..." if len(stale) > 5 else "")
    return [f"report {point.label}" + (f"; {len(stale)} stale source(s): {names}" if stale else "")]


def latest_weeks(rows: Sequence[dict], weeks: int) -> list[dict]:
    """The rows of the newest `weeks` ISO weeks present, newest week first (every project and
    regime of those weeks: cutting by row count dropped whole projects)."""
    keep = set(sorted({r["week"] for r in rows})[-weeks:])
    return sorted((r for r in rows if r["week"] in keep), key=lambda r: r["week"], reverse=True)
