"""What the store holds, as facts for the lag: release facts and vendor notes with their
mentions (``load_facts``), and the lag samples of every coverage rule of sources.yaml
(``load_lag_facts`` once, then ``LagFacts.samples`` at any as-of; ``compute_lag`` both)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from tracker.config import Config
from tracker.config.collective_layer import CollectiveLayerRule
from tracker.config.coverage import CoverageRule, ModelCoverageRule
from tracker.measure.collectives.lag import Section, collective_samples
from tracker.measure.kernels.lag import KernelFact, kernel_lag_samples, kernel_projects
from tracker.measure.kernels.ledger import KernelFeature, load_ledger
from tracker.measure.lag.builds import (
    anchors,
    build_facts,
    label_rows,
    named_builds,
    record_label,
    text_record,
)
from tracker.measure.lag.channels import with_earliest_builds
from tracker.measure.lag.rows import LagRun, LagSample
from tracker.measure.lag.samples import (
    BenchConfig,
    NoteFact,
    ReleaseFact,
    is_prerelease,
    lag_samples,
)
from tracker.measure.lag.windows import Windows, delivered_channels
from tracker.measure.models.lag import model_lag_samples, note_context
from tracker.mentions.families import load_families
from tracker.store import Store


def load_facts(store: Store, projects: Iterable[str]) -> tuple[list[ReleaseFact], list[NoteFact]]:
    """Release facts and notes with their mentions (structured ones from the parsers plus the
    tagger's). Notes naming nothing are kept too: they show how far back a vendor's notes were
    collected. Draft releases are left out (github_releases does not store them; an imported
    one is still no release). Stored values are untrusted (`import-events` takes any JSON): a
    mention whose fields are not strings is ignored. Evidence without a URL is referred to by
    its event id."""
    releases, notes = [], []
    for (
        id_,
        project,
        kind,
        version,
        when,
        url,
        attrs,
        tagged,
        regime,
        source,
    ) in store.coverage_rows(projects):
        if not isinstance(attrs, dict):
            attrs = {}
        url = url or f"event:{id_}"
        if kind == "release":
            # A draft (unpublished) release is no release: it never sets day 0 nor covers one.
            if attrs.get("draft") is True:
                continue
            if isinstance(version, str) and version:
                releases.append(
                    ReleaseFact(
                        project, version, when, url, bool(attrs.get("prerelease")), False, source
                    )
                )
            continue
        structured = _dicts(attrs.get("mentions"))
        tagger = _dicts(tagged)
        found = {
            (m["framework"], m["version"], m["status"])
            for m in structured + tagger
            if _text(m.get("framework")) and _text(m.get("version")) and _text(m.get("status"))
        }
        # Model mentions a collector read off a list's structure win over the tagger's reading
        # of the same line (a matrix row "gpt-oss-120b, Untested" names no status in words).
        named = [
            m
            for m in (structured if any("model" in m for m in structured) else tagger)
            if _text(m.get("model")) and isinstance(m.get("status"), str)
        ]
        # A release candidate's notes say what a release will serve, not what one does (its
        # version is parsed only when it names a model: most notes name none).
        models = (
            {(m["model"], m["status"], note_context(attrs)) for m in named}
            if named and not (isinstance(version, str) and is_prerelease(version))
            else set()
        )
        notes.append(
            NoteFact(
                project, when, url, tuple(sorted(found)), tuple(sorted(models)), regime, source
            )
        )
    return releases, notes


_CONFIG_TEXT = ("regime", "hardware", "runner", "framework", "model")


def bench_config(value) -> BenchConfig | None:
    """The benchmark configuration a note's attrs record (config_history's ``config``), None
    for any other note or one whose fields are not text (stored attrs are untrusted)."""
    if not isinstance(value, dict) or not all(_text(value.get(k)) for k in _CONFIG_TEXT):
        return None
    regime, hardware, runner, framework, model = (str(value[k]) for k in _CONFIG_TEXT)
    return BenchConfig(regime, hardware, runner, framework, model, value.get("baseline") is True)


def _dicts(value) -> list[dict]:
    """The mappings of a stored list of mentions (anything else in it, or a non-list, is
    ignored)."""
    if not isinstance(value, (list, tuple)):
        return []
    return [m for m in value if isinstance(m, dict)]


def _text(value) -> bool:
    """A non-empty string (a mention's fields are untrusted JSON)."""
    return isinstance(value, str) and value != ""


@dataclass(frozen=True)
class LagFacts:
    """The coverage rules of sources.yaml with the facts they read, loaded once: the lag at any
    as-of date is computed from these without reading the store again."""

    rules: tuple[CoverageRule, ...]
    model_rules: tuple[ModelCoverageRule, ...]
    releases: list[ReleaseFact]
    notes: list[NoteFact]
    # the kernel layer (a coverage entry `artifact: kernel`): the ledger and its evidence
    kernel_ledger: tuple[KernelFeature, ...] = ()
    kernel_facts: list[KernelFact] = field(default_factory=list)
    # how far each source was looked at, and what it delivers (measure.lag.windows)
    windows: Windows = field(default_factory=Windows)
    # the collectives layer (a coverage entry `artifact: collective`): NCCL and release facts,
    # and the carrier's changelog sections
    collective_rule: CollectiveLayerRule | None = None
    collective_releases: list[ReleaseFact] = field(default_factory=list)
    collective_sections: list[Section] = field(default_factory=list)
    # evidence URL -> the kind of record a named build came from (measure.lag.builds)
    record_labels: Mapping[str, str] = field(default_factory=dict)

    def samples(self, as_of: datetime, run: LagRun | None = None) -> list[LagSample]:
        """Lag samples of every rule as of `as_of` (framework series, model families, kernel
        features, then collective series); artifacts the evidence does not reach back to are
        left out in `run` with the evidence spans (see lag.samples.lag_samples)."""
        run = run if run is not None else LagRun()
        samples = self.framework_samples(as_of, run)
        if self.model_rules:
            samples += model_lag_samples(
                self.model_rules,
                load_families(),
                self.releases,
                self.notes,
                as_of,
                run,
                self.windows,
            )
        return samples + self.kernel_samples(as_of, run) + self.collective_samples(as_of, run)

    def collective_samples(self, as_of: datetime, run: LagRun | None = None) -> list[LagSample]:
        """Lag samples of the collectives layer only (none when it is off)."""
        if self.collective_rule is None:
            return []
        return collective_samples(
            self.collective_rule,
            self.collective_releases,
            self.collective_sections,
            as_of,
            run,
            self.windows,
        )

    def kernel_samples(self, as_of: datetime, run: LagRun | None = None) -> list[LagSample]:
        """Lag samples of the kernel ledger only (none when the layer is off)."""
        if not self.kernel_ledger:
            return []
        return kernel_lag_samples(self.kernel_ledger, self.kernel_facts, as_of, run, self.windows)

    def framework_samples(self, as_of: datetime, run: LagRun | None = None) -> list[LagSample]:
        """Lag samples of the framework coverage rules only (earliest-build rows beside their
        channels' rows, tracker.measure.lag.channels)."""
        run = run if run is not None else LagRun()
        samples = lag_samples(self.rules, self.releases, self.notes, as_of, run, self.windows)
        rows = with_earliest_builds(self.rules, samples, self.releases, as_of, run, self.windows)
        return label_rows(rows, self.rules, dict(self.record_labels))


def observed_ends(config: Config, store: Store) -> dict[str, datetime]:
    """Per source, how far it was looked at (measure.lag.windows: its last successful collection,
    or a replay's snapshot); a source whose channel moved to another (sources.yaml `moved_to`)
    narrows no window: its facts stay evidence, its silence since says nothing."""
    moved = {spec.id for spec in config.sources if spec.moved_to}
    return {s: t for s, t in store.observation_ends().items() if s not in moved}


def load_lag_facts(config: Config, store: Store) -> LagFacts:
    """The coverage rules and the release and note facts of every project they name."""
    rules, model_rules = config.coverage, config.model_coverage
    projects = {r.project for r in rules} | {e.project for r in rules for e in r.evidence}
    projects |= {e.project for r in model_rules for e in r.evidence} | (
        {"vllm"} if model_rules else set()
    )
    releases, notes = load_facts(store, projects)
    named, labels = load_named_builds(rules, store)
    releases += named[0]
    notes += named[1]
    observed = observed_ends(config, store)
    benchmarks = {
        e.project for r in model_rules for e in r.evidence if e.kind == "benchmark_config"
    }
    notes += benchmark_notes(store, benchmarks)
    collective = config.collective_layer
    c_releases, c_sections = load_collective_facts(store, collective) if collective else ([], [])
    ledger = load_ledger(config.kernel_layer.ledger) if config.kernel_layer else ()
    kernel_facts = load_kernel_facts(store, kernel_projects(ledger)) if ledger else []
    windows = Windows(delivered_channels([*releases, *notes, *kernel_facts]), observed)
    return LagFacts(
        rules,
        model_rules,
        releases,
        notes,
        ledger,
        kernel_facts,
        windows,
        collective,
        c_releases,
        c_sections,
        record_labels=labels,
    )


def load_collective_facts(
    store: Store, rule: CollectiveLayerRule
) -> tuple[list[ReleaseFact], list[Section]]:
    """The collectives layer's facts: releases of its project (NCCL) and of every regime's
    ``releases`` projects, and the carriers' changelog sections (notes whose attrs name a
    release and NCCL versions; a value of the wrong type is left out: imports are untrusted)."""
    measured = rule.measured()
    projects = {rule.project} | {p for r in measured for p in r.releases}
    carriers = {r.carrier for r in measured}
    releases: list[ReleaseFact] = []
    sections: list[Section] = []
    for row in store.evidence_rows(projects | carriers):
        attrs = row["attrs"] if isinstance(row["attrs"], dict) else {}
        if row["kind"] == "release" and row["project"] in projects:
            if attrs.get("draft") is True or not _text(row["version"]):
                continue
            releases.append(
                ReleaseFact(
                    row["project"],
                    row["version"],
                    row["occurred_at"],
                    row["url"] or "",
                    bool(attrs.get("prerelease")),
                    False,
                    row["source_id"] or "",
                )
            )
        elif row["kind"] == "note" and row["project"] in carriers:
            nccl = attrs.get("nccl")
            if not _text(attrs.get("rocm")) or not isinstance(nccl, list):
                continue
            sections.append(
                Section(
                    row["project"],
                    attrs["rocm"],
                    tuple(v for v in nccl if _text(v)),
                    row["url"] or "",
                    row["source_id"] or "",
                    attrs.get("unreleased") is True,
                )
            )
    return releases, sections


def load_named_builds(
    rules: Sequence[CoverageRule], store: Store
) -> tuple[tuple[list[ReleaseFact], list[NoteFact]], dict[str, str]]:
    """The builds every stored text names for the channels with ``builds:`` patterns, as
    facts of those channels, and each record's URL -> its kind (measure.lag.builds)."""
    wanted = anchors(rules)
    if not wanted:
        return ([], []), {}
    records = [r for row in store.build_texts(wanted) if (r := text_record(row)) is not None]
    found = named_builds(rules, records)
    return build_facts(found), {b.record.url: record_label(b.record) for b in found}


def benchmark_notes(store: Store, projects: Iterable[str]) -> list[NoteFact]:
    """An independent benchmark's configurations (config_history's ``commit`` events) as
    notes carrying their ``config``: the family from the collector's structured mention, the
    regime from the runner map. Events without a readable ``config`` are left out (stored
    values are untrusted)."""
    if not projects:
        return []
    out = []
    for row in store.evidence_rows(projects):
        attrs = row["attrs"] if isinstance(row["attrs"], dict) else {}
        config = bench_config(attrs.get("config"))
        if row["kind"] != "commit" or config is None:
            continue
        models = {
            (m["model"], "supported", "")
            for m in _dicts(attrs.get("mentions"))
            if _text(m.get("model")) and m.get("status") == "supported"
        }
        out.append(
            NoteFact(
                row["project"],
                row["occurred_at"],
                row["url"] or "",
                (),
                tuple(sorted(models)),
                config.regime,
                row["source_id"] or "",
                config=config,
            )
        )
    return out


def load_kernel_facts(store: Store, projects: Iterable[str]) -> list[KernelFact]:
    """The releases, commits and notes the kernel ledger's rules read (drafts left out, as
    above; a stored value of the wrong type reads as empty: imports are untrusted)."""
    out = []
    for row in store.evidence_rows(projects):
        attrs = row["attrs"] if isinstance(row["attrs"], dict) else {}
        if row["kind"] == "release" and attrs.get("draft") is True:
            continue
        text = " ".join(str(row[k] or "") for k in ("title", "body"))
        out.append(
            KernelFact(
                row["project"],
                row["kind"],
                row["occurred_at"],
                row["url"] or "",
                str(row["version"] or ""),
                text,
                attrs,
                row["source_id"] or "",
            )
        )
    return out


def compute_lag(
    config: Config,
    store: Store,
    as_of: datetime,
    run: LagRun | None = None,
) -> list[LagSample]:
    """Lag samples for every coverage rule of sources.yaml, from what the store holds
    (artifacts the evidence does not reach back to are left out in `run`, see
    lag.samples.lag_samples)."""
    return load_lag_facts(config, store).samples(as_of, run)
