"""The report: lag, CI pass-rate and friction series as CSV / JSON, PNG charts and one HTML page.

Everything collected is untrusted: the HTML is rendered by Jinja2 with autoescape on. Every lag
row carries the URL of its evidence, and every rate sits beside its counts.
"""

from __future__ import annotations

import csv
import json
import logging
import os
import struct
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from tracker.measure.ci.health import HEALTH_COLUMNS
from tracker.measure.ci.rates import COUNTS as CI_COUNTS
from tracker.measure.figures import Figures
from tracker.measure.lag.rows import LAG_CSV_COLUMNS, LagSample
from tracker.measure.lag.silent import HINT as SILENT_HINT
from tracker.measure.models.summary import model_matrix
from tracker.measure.stats.survival import LagSummary
from tracker.names import REGIMES as MODEL_REGIMES
from tracker.present import ci_jobs_words, ci_record_words, ci_units_words, palette, trend_words
from tracker.present.benchmark_words import pair_rows
from tracker.present.ci_units_words import UNIT_COLUMNS
from tracker.present.formats import http_only, percent, visible_controls
from tracker.report import definitions
from tracker.report import response_section as waits
from tracker.report import training_section as trained
from tracker.report.chart_data import sparse_friction, split_sparse_ci
from tracker.report.first_screen import answer_rows, layer_table
from tracker.report.perf_section import PERF_CSV_COLUMNS, perf_csv_rows, perf_section
from tracker.report.publish import staged
from tracker.report.quality import (
    QUALITY_COLUMNS,
    not_counted_words,
    quality_sections,
    split_unknown,
)
from tracker.report.side_by_side import ChartDrawers
from tracker.report.summary_json import summary_json

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
    "headline_narrow": "headline_lag_narrow.png",  # small screens (<picture>)
    "friction": "friction_ratio.png",
    "ci": "ci_job_pass_rate.png",
    "perf": "delivered_performance.png",
    "perf_narrow": "delivered_performance_narrow.png",  # one panel a row (<picture>)
    "training": "delivered_training_performance.png",
    "training_narrow": "delivered_training_performance_narrow.png",
    "efficiency": "realized_efficiency.png",
    "efficiency_narrow": "realized_efficiency_narrow.png",
    "parity": "ci_parity.png",
    "response": "first_response.png",
}
CHARTS, MODELS = "tracker.report.charts", "tracker.report.model_charts"
CI_CHARTS = "tracker.report.ci_charts"
RESPONSE = "tracker.report.response_chart"
PARITY_COLUMNS = (
    "source_id", "regime", "reference_id", "week", "nightlies", "reference_groups",
    "groups_run", "groups_passed", "run_share", "pass_share",
)  # fmt: skip
TABLE_WEEKS = 12  # weeks of CI and friction rows in the HTML tables (the CSVs hold them all)


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
    figures: Figures,
    out_dir: Path,
    banner: str | None = None,
    drawers: ChartDrawers | None = None,
    replayed: bool = False,
    *,
    carry_foreign: bool = False,
) -> list[str]:
    """Write lag / pass-rate / friction CSVs, summary.json, PNG charts and index.html into
    `out_dir` from `figures` (tracker.measure.figures: computed once, as of their date).
    `banner` (e.g. "built from a replay") is shown at the top of the page and kept in
    summary.json. `drawers`: chart processes started earlier (they import matplotlib while the
    caller computes); without, the writer starts its own. `replayed`: the store holds replayed
    snapshots (the issue-response figure says when its threads are a sample). Returns console
    lines."""
    with ExitStack() as stack:
        if drawers is None:
            drawers = stack.enter_context(ChartDrawers())
        return _write(figures, out_dir, banner, drawers, replayed, carry_foreign)


def _write(
    figures: Figures,
    out_dir: Path,
    banner: str | None,
    drawers: ChartDrawers,
    replayed: bool,
    carry: bool,
) -> list[str]:
    f = figures
    as_of, point, samples, reference = f.as_of, f.point, f.samples, f.reference
    pass_rates, other_rates, friction, stale = f.pass_rates, f.other_rates, f.friction, f.stale
    unknown, spans, stale_keys, series = f.unknown, f.spans, f.stale_keys, f.series
    # The old report stays whole until all is written (publish.staged).
    with staged(out_dir, carry_foreign=carry) as stage:
        drawers.draw("lag", CHARTS, "lag_chart", stage / IMAGES["lag"], samples, as_of, f.lag)
        drawers.draw("model", MODELS, "model_matrix_chart", stage / IMAGES["model"], samples, as_of)
        dense_ci, ci_sparse = split_sparse_ci(pass_rates)
        drawers.draw(
            "headline", CHARTS, "headline_chart", stage / IMAGES["headline"], series, reference
        )
        drawers.draw(
            "headline_narrow",
            CHARTS,
            "headline_chart",
            stage / IMAGES["headline_narrow"],
            series,
            reference,
            True,
        )
        drawers.draw("friction", CHARTS, "friction_chart", stage / IMAGES["friction"], friction)
        drawers.draw("ci", CHARTS, "ci_pass_rate_chart", stage / IMAGES["ci"], dense_ci)
        perf = perf_section(f.perf)  # delivered performance: chart, tables, perf_parity.csv
        for name, columns in (("perf", 2), ("perf_narrow", 1)):
            drawers.draw(
                name, "tracker.report.perf_chart", "perf_chart", stage / IMAGES[name], f.perf.rows,
                f.perf.common_benchmarks(), [r.round for r in f.perf.rounds],
                [f"{r.published:%Y-%m-%d}" for r in f.perf.rounds], columns,
            )  # fmt: skip
        _write_csv(stage / "perf_parity.csv", perf_csv_rows(f.perf), PERF_CSV_COLUMNS)
        training = trained.training_section(f.training)  # MLPerf Training: chart, table, CSV
        for name, columns in (("training", 2), ("training_narrow", 1)):
            drawers.draw(
                name, "tracker.report.training_chart", "training_chart",
                stage / IMAGES[name], f.training.rows, f.training.shared_benchmarks(),
                [r.round for r in f.training.rounds],
                [f"{r.published:%Y-%m-%d}" for r in f.training.rounds], columns,
            )  # fmt: skip
        for name, columns in (("efficiency", 2), ("efficiency_narrow", 1)):
            drawers.draw(
                name, "tracker.report.efficiency_chart", "efficiency_chart",
                stage / IMAGES[name], f.training.rows, [r.round for r in f.training.rounds],
                [f"{r.published:%Y-%m-%d}" for r in f.training.rounds], columns,
            )  # fmt: skip
        training_rows = trained.training_csv_rows(f.training)
        _write_csv(stage / "perf_training.csv", training_rows, trained.TRAINING_CSV_COLUMNS)
        parity = f.ci_jobs.parity if f.ci_jobs is not None else []
        drawers.draw("parity", CI_CHARTS, "parity_chart", stage / IMAGES["parity"], parity)
        if f.ci_jobs is not None:  # CI job health: the rows of v_ci_job_health and v_ci_parity
            _write_csv(stage / "ci_job_health.csv", f.ci_jobs.health_rows(), HEALTH_COLUMNS)
            _write_csv(stage / "ci_parity_weekly.csv", parity, PARITY_COLUMNS)
        _write_csv(stage / "ci_test_pass_rate_weekly.csv", f.ci_tests.weeks, UNIT_COLUMNS)
        response = waits.response_section(
            f.response, replayed or f.point.snapshot is not None
        )  # how long users wait: chart, table, CSVs
        points, png = waits.chart_points(f.response), stage / IMAGES["response"]
        drawers.draw("response", RESPONSE, "response_chart", png, points, reference)
        waits.write_csvs(stage, f.response)
        answer = answer_rows(f)
        moving = definitions.transitions(f.facts.rules)  # regimes whose channel is moving
        quality = quality_sections(
            stale,
            f.source_count,
            unknown,
            [s for s in samples if s.negative],
            f.unread,
            f.far_dated,
            f.silent,
            f.benchmark.unknown_runners if f.benchmark else (),
            f.contradicting,
        )

        with (stage / "lag.csv").open("w", newline="", encoding="utf-8") as handle:
            write_lag_csv(samples, handle)
        summary_rows = [_summary_row(s, spans) for s in f.summaries]
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
        summary = summary_json(f, banner, answer, summary_rows, series_rows, moving, training_rows)
        (stage / "summary.json").write_text(
            json.dumps(summary, indent=1, default=str), encoding="utf-8"
        )

        images = {name: IMAGES[name] if drew else None for name, drew in drawers.drawn().items()}
        # each chart's size on the page, in CSS px: half its pixels (drawn at 2x density). Given
        # as width/height, the browser never shows a chart at its pixel size on a 1x screen.
        sizes = {name: css_size(stage / file) for name, file in images.items() if file}
        model_image = images.pop("model")
        env = Environment(
            loader=PackageLoader("tracker.report", "templates"),
            autoescape=select_autoescape(default=True, default_for_string=True),
            # collected job names, titles and URLs show their bidi controls (<U+202E>) instead
            # of reordering the page around them, as in the digest
            finalize=visible_controls,
        )
        env.filters["http_only"] = http_only
        env.filters["percent"] = percent
        html = env.get_template("report.html.j2").render(
            as_of=as_of,
            banner=banner,
            trend=trend_words.headline(f.trends),
            trend_thresholds=trend_words.THRESHOLDS,
            as_of_label=point.label,
            stale=stale,
            silent=f.silent,
            silent_hint=SILENT_HINT,
            headline=[r for r in summary_rows if r["period"] == "all" and r["primary"] == "true"],
            summaries=[s for s in f.summaries if s.period == "all"],
            series_rows=definitions.series_rows(samples, reference),
            channel_counts=definitions.channel_counts(samples),
            transitions=moving,
            samples=samples,
            pass_rates=latest_weeks(pass_rates, TABLE_WEEKS),
            other_rates=latest_weeks(other_rates, TABLE_WEEKS),
            unread_tags=f.unread,
            far_dated=f.far_dated,
            contradicting=f.contradicting,
            table_weeks=TABLE_WEEKS,
            friction=latest_weeks(friction, TABLE_WEEKS),
            images=images,
            sizes=sizes,
            answer=answer,
            layers=layer_table(f),
            ci_sparse=ci_sparse,
            ci_freshness=trend_words.freshness_lines(f.trends.ci_last_week, as_of),
            ci_no_record=ci_record_words.no_record_lines(f.ci_unrecorded),
            ci_samples=ci_record_words.sample_lines(f.ci_samples),
            friction_sparse=sparse_friction(friction),
            quality=quality["lines"],
            regime_colour=palette.colour,
            negative=[s for s in samples if s.negative],
            # model families whose day 0 itself is unknown (regime "all") are listed apart
            unknown=split_unknown(unknown)[0],
            day0_unknown=split_unknown(unknown)[1],
            overrides=f.overrides,
            model_image=model_image,
            model_rows=model_matrix(samples),
            model_regimes=MODEL_REGIMES,
            benchmark=f.benchmark,
            benchmark_rows=pair_rows(f.benchmark),
            perf=perf,
            training=training,
            kernels=f.kernels,
            ci_jobs=ci_jobs_words.regime_blocks(f.ci_jobs),
            ci_parity=parity,
            **ci_units_words.report_fields(f.ci_tests, reference),
            response=response,
        )
        (stage / "index.html").write_text(html, encoding="utf-8")
    covered = sum(s.status == "covered" for s in samples)
    page = Path(os.path.abspath(out_dir / "index.html"))  # through DIR's link, not its target
    return [
        f"report: {page} ({len(samples)} lag samples: {covered} covered, "
        f"{len(samples) - covered} open; {not_counted_words(unknown)}; "
        f"{len({r['week'] for r in pass_rates})} CI weeks; "
        f"{len({r['week'] for r in friction})} friction weeks; CSV and PNG beside it)"
    ] + _as_of_lines(point, stale)


def _as_of_lines(point, stale: Sequence[dict]) -> list[str]:
    """The console's note on a replayed snapshot's as-of date and on stale streams (a live run
    without stale streams prints what it printed before)."""
    if point.snapshot is None and not stale:
        return []
    lines = [f"report {point.label}"]
    if stale:
        names = ", ".join(r["source_id"] for r in stale[:5]) + (", ..." if len(stale) > 5 else "")
        why = (
            "a replay's cassettes hold the pages recorded then, so quiet streams look old"
            if point.snapshot is not None
            else "check they still collect (tracker status)"
        )
        lines.append(
            f"stale evidence: {len(stale)} source(s) with nothing newer than "
            f"{stale[0]['stale_after_days']} days before the as-of date ({names}); their open "
            f"artifacts age with the silence and the report's Data quality section lists them; "
            f"{why}"
        )
    return lines


def css_size(png: Path) -> tuple[int, int]:
    """(width, height) a PNG drawn at 2x density is shown at: half its pixels (its header)."""
    with png.open("rb") as handle:
        width, height = struct.unpack(">II", handle.read(24)[16:24])
    return width // 2, height // 2


def latest_weeks(rows: Sequence[dict], weeks: int) -> list[dict]:
    """The rows of the newest `weeks` ISO weeks present, newest week first (every project and
    regime of those weeks: cutting by row count dropped whole projects)."""
    keep = set(sorted({r["week"] for r in rows})[-weeks:])
    return sorted((r for r in rows if r["week"] in keep), key=lambda r: r["week"], reverse=True)
