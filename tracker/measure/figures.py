"""Every figure the report and the digest show, computed once per as-of date.

:func:`compute_figures` is the one measure entry point of the publishers and the nightly job:
it loads the lag facts once, computes the lag samples, their trends, the headline answer per
regime (tracker.measure.headline.answer), the quarterly series, the weekly CI and friction rates
and the
data-quality findings, and returns them as one :class:`Figures`. The report renders it, the
digest renders it (and reuses its facts for its weekly history), the nightly job saves its
derived tables; nobody computes a figure a second way.
"""

from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from tracker.config import Config
from tracker.measure.ci.jobs import CiJobs, ci_jobs
from tracker.measure.ci.rates import sampled_sources, split_by_trigger, unrecorded
from tracker.measure.ci.tests import CiTests, ci_tests
from tracker.measure.facts import LagFacts, load_lag_facts, observed_ends
from tracker.measure.headline import quarters as headline
from tracker.measure.headline.answer import (
    Answer,
    LayerAnswer,
    answers,
    layer_answers,
    unknown_by_layer,
)
from tracker.measure.headline.quarters import MedianPoint
from tracker.measure.headline.trends import Trends, compute_trends, store_rows
from tracker.measure.kernels.summary import KernelLayer, kernel_layer
from tracker.measure.lag.rows import LagRun, LagSample, Span, Unknown
from tracker.measure.lag.silent import SilentChannel, silent_channels
from tracker.measure.models.benchmark import BenchmarkFigures, benchmark_figures
from tracker.measure.perf.inference import PerfFigures, perf_figures
from tracker.measure.perf.training import TrainingFigures, training_figures
from tracker.measure.quality.quality import unread_tags
from tracker.measure.quality.staleness import stale_definitions, stale_sources
from tracker.measure.response import ResponseFigures, response_figures
from tracker.measure.stats.survival import LagSummary, summarize
from tracker.measure.stats.trend import LagTrend, lag_trends
from tracker.store import Store
from tracker.store.asof import AsOf


@dataclass
class Figures:
    """What one as-of date's report and digest show (plain records; presentation is above)."""

    point: AsOf  # the as-of date and why (resolve_as_of)
    facts: LagFacts  # the lag facts, loaded once: the digest ages them week by week
    samples: list[LagSample]
    unknown: list[Unknown]  # what the evidence does not reach, with the reason (LagRun.unknown)
    spans: dict[tuple[str, str, str], Span]  # (project, regime, definition) -> (first, last)
    lag: list[LagTrend]  # per group, regime and definition, and pooled per regime
    answers: list[Answer]  # the headline answer per regime (sources.yaml's regimes, in order)
    trends: Trends  # lag trends with the CI and friction rate trends
    series: dict[str, list[MedianPoint]]  # the quarterly headline series per regime
    summaries: list[LagSummary]
    pass_rates: list[dict]  # weekly CI rows of the headline triggers
    other_rates: list[dict]  # weekly CI rows of the other triggers
    friction: list[dict]  # weekly friction / optimization rows
    stale: list[dict]  # stale sources (tracker.measure.quality.staleness)
    stale_keys: set = field(default_factory=set)  # (project, regime, definition) on them
    unread: list[dict] = field(default_factory=list)  # image tags no name pattern reads
    overrides: list[dict] = field(default_factory=list)  # analysts' class overrides
    source_count: int = 0  # sources in sources.yaml (the data-quality section counts them)
    # stored events dated outside what tracker computes with: left out of every figure by the
    # store's reads, listed in the data-quality section (Store.far_dated_events)
    far_dated: dict = field(default_factory=dict)
    # events whose times contradict each other: left out alike (Store.contradicting_events)
    contradicting: dict = field(default_factory=dict)
    perf: PerfFigures = field(default_factory=PerfFigures)  # delivered performance (MLPerf)
    training: TrainingFigures = field(default_factory=TrainingFigures)  # MLPerf Training
    kernels: KernelLayer | None = None  # the kernel layer (None: no `artifact: kernel` rule)
    ci_jobs: CiJobs | None = None  # CI job health, broke / fixed, parity (measure.ci.jobs)
    # CI pass rate in two units (jobs, tests) and failing tests (measure.ci.tests)
    ci_tests: CiTests = field(default_factory=CiTests)
    # definitions silent while upstream kept releasing (measure.lag.silent)
    silent: list[SilentChannel] = field(default_factory=list)
    # an independent benchmark's first configurations per family (measure.models.benchmark)
    benchmark: BenchmarkFigures | None = None
    # time to first response of issues (measure.response)
    response: ResponseFigures = field(default_factory=ResponseFigures)
    # the headline answer per layer and regime (framework first: the lead)
    layers: list[LayerAnswer] = field(default_factory=list)
    # (project, regime) pairs a CI source is configured for without any record: every output
    # says "no public CI record" for them, never a rate (measure.ci.rates.unrecorded)
    ci_unrecorded: list[dict] = field(default_factory=list)
    # CI sources whose record is a sample: what it is, its weeks (ci.rates.sampled_sources)
    ci_samples: list[dict] = field(default_factory=list)

    @property
    def as_of(self) -> datetime:
        return self.point.when

    @property
    def reference(self) -> str:
        return self.trends.reference

    def lag_sample_rows(self) -> list[dict]:
        """Rows of the lag_samples table (the view v_lag_series reads them)."""
        return lag_rows_for_store(self.samples, self.as_of)

    def lag_trend_rows(self) -> list[dict]:
        """Rows of the lag_trend table (the view v_lag_trend reads them)."""
        return store_rows(self.lag, self.as_of)


def compute_figures(config: Config, store: Store, point: AsOf) -> Figures:
    """Every figure as of `point`. The weekly CI and friction reads and the staleness scan are
    SQL over every CI run, issue and note (seconds at a million events): the database runs them
    on a second thread while this one computes the lag and its trends (SQLite and psycopg let
    go of the GIL while a statement runs)."""
    as_of = point.when
    reference = config.reference_regime
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="figures-reads") as pool:
        reads = pool.submit(_weekly_and_stale, config, store, as_of)
        jobs = pool.submit(ci_jobs, config, store, as_of)
        facts = load_lag_facts(config, store)
        run = LagRun()
        samples = facts.samples(as_of, run)
        unknown, spans = run.unknown, run.spans
        lag = lag_trends(samples, as_of, reference, unknown=unknown)
        pass_rates, other_rates, friction, stale, raw_rates = reads.result()
    stale_keys = stale_definitions(spans, as_of, config.report)
    regimes = [r.id for r in config.regimes] or sorted({s.regime for s in samples})
    sampled = sampled_sources(config, raw_rates)
    trends = compute_trends(samples, as_of, pass_rates, friction, reference, lag=lag)
    for row in (r for r in sampled if r["headline_jobs"]):
        projects = trends.ci_sampled.setdefault(row["regime"], [])
        if row["project"] not in projects:
            projects.append(row["project"])
    return Figures(
        point=point,
        facts=facts,
        samples=samples,
        unknown=unknown,
        spans=spans,
        lag=lag,
        answers=answers(lag, regimes, reference, as_of),
        trends=trends,
        series=headline.quarterly_series(samples, as_of, stale_keys),
        summaries=summarize(samples, as_of),
        pass_rates=pass_rates,
        other_rates=other_rates,
        friction=friction,
        stale=stale,
        stale_keys=stale_keys,
        unread=unread_tags(store, config),
        overrides=store.overrides(),
        source_count=len(config.sources),
        far_dated=store.far_dated_events(),
        contradicting=store.contradicting_events(),
        perf=perf_figures(store.perf_results(as_of), regimes),
        training=training_figures(store.perf_results(as_of, "training_result"), regimes),
        kernels=kernel_layer(facts.kernel_ledger, samples, unknown)
        if facts.kernel_ledger
        else None,
        ci_jobs=jobs.result(),
        ci_tests=ci_tests(config, store, as_of, pass_rates),
        silent=silent_channels(samples, spans, as_of, config.report.silent_after_series),
        benchmark=_benchmark(config, facts, as_of),
        response=issue_response_figures(config, store, as_of, regimes),
        layers=_layers(config, facts, samples, unknown, lag, regimes, as_of),
        ci_unrecorded=unrecorded(config, raw_rates),
        ci_samples=sampled,
    )


def _layers(
    config: Config,
    facts: LagFacts,
    samples: Sequence[LagSample],
    unknown: Sequence[Unknown],
    lag: list[LagTrend],
    regimes: Sequence[str],
    as_of: datetime,
) -> list[LayerAnswer]:
    """The answer per layer and regime (measure.headline.answer.layer_answers) with the
    artifacts each leaves out as unknown and the regimes a layer does not apply to."""
    layer_of = {r.project: "framework" for r in config.coverage}
    layer_of |= {r.project: "model" for r in config.model_coverage}
    layer_of |= {f.library: "kernel" for f in facts.kernel_ledger}
    reasons: dict[tuple[str, str], str] = {}
    if config.collective_layer is not None:
        layer_of[config.collective_layer.project] = "collective"
        reasons = {("collective", r): why for r, why in config.collective_layer.reasons().items()}
    primary = {(s.project, s.regime, s.definition) for s in samples if s.primary}
    unknown_counts = unknown_by_layer(unknown, layer_of, primary)
    return layer_answers(lag, regimes, config.reference_regime, as_of, unknown_counts, reasons)


def issue_response_figures(
    config: Config, store: Store, as_of: datetime, regimes: Sequence[str]
) -> ResponseFigures:
    """Time to first response of the issues of the sources that collect comments."""
    ids = [
        s.id
        for s in config.sources
        if s.enabled and s.kind == "github_issues" and s.options.get("comments")
    ]
    issues, comments = store.issue_response_facts(ids, as_of)
    return response_figures(
        issues,
        comments,
        as_of,
        config.reference_regime,
        regimes,
        config.report.ignore_responders,
        observed_ends(config, store),
    )


def _benchmark(config: Config, facts: LagFacts, as_of: datetime) -> BenchmarkFigures | None:
    """The NVIDIA / AMD pairs of the model rule's reference ``benchmark_config`` evidence (None
    when no model rule reads a benchmark on the reference regime)."""
    reference = config.reference_regime
    for rule in config.model_coverage:
        for ev in rule.evidence:
            if ev.kind == "benchmark_config" and ev.regime == reference:
                return benchmark_figures(facts.notes, ev.project, as_of, reference, "rocm")
    return None


def _weekly_and_stale(
    config: Config, store: Store, as_of: datetime
) -> tuple[list, list, list, list[dict[str, Any]], list[dict[str, Any]]]:
    """(headline CI rows, other-trigger CI rows, friction rows, stale sources, the weekly CI
    rows per source and trigger) from the store."""
    # Headline: the triggers each source's selector names (nightly builds); the rest apart.
    raw = store.view_rows("v_ci_pass_rate_weekly")
    pass_rates, other_rates = split_by_trigger(raw, config.triggers)
    # Views have no inherent order (PostgreSQL returns any): sort, so files and tables are stable.
    friction = sorted(
        store.view_rows("v_friction_weekly"), key=lambda r: (r["regime"] or "", r["week"])
    )
    # Data quality: streams that ended long before as-of (their open rows age with the silence).
    return pass_rates, other_rates, friction, stale_sources(store, config, as_of), raw


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
            "observed_through": s.observed_through,
            "covered_by": s.covered_by,
            "channel": s.channel,
            "evidence_kind": s.evidence_kind,
        }
        for s in samples
    ]
