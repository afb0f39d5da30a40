"""Day-0 coverage lag of model families: days from a model being served by vLLM on CUDA (or
from its first public weights) to the first dated evidence that a regime serves it.

Pure functions like :mod:`tracker.measure.lag.samples`, whose lag machinery this reuses: open
artifacts are
right-censored at ``as_of``, negative lags are kept and flagged, every row keeps its evidence URL,
and a family whose day 0 precedes everything collected from a regime's evidence stream is
``unknown`` for that regime (left truncation), not open and not late.

The coverage rule (sources.yaml; read and checked by tracker.config.coverage)::

    - project: models
      artifact: model
      day0: [vllm_cuda, public_weights]      # the first is primary
      regimes:
        cuda:
          - {definition: vllm_release, primary: true,
             evidence: {project: vllm, kind: model_registry}}
        neuron:
          - {definition: nxd_inference, primary: true,
             evidence: {project: nxd-inference, kind: note}}

Day 0, two named definitions, never merged (each gives its own rows, ``day0_definition``):

- ``vllm_cuda``: the first final vLLM release whose model registry lists the family's
  architecture class (the alias table's ``vllm`` release), dated by the store's vLLM release of
  that version when collected, else by the table's date for it;
- ``public_weights``: the family's first public weights (alias table ``weights``).

A family whose day 0 is unknown under a definition is listed in ``unknown`` (the data-quality
list) for that definition, with the reason. Evidence: ``kind: note`` = a note of the evidence
project naming the family with status ``supported`` (a note in a "Known issues" section states a
limit, not support, nor does one under breaking changes, bug fixes, deprecations or removals,
nor one under a heading or lead-in that says beta / preview; a note that also calls the family
planned or dropped is not counted);
``kind: model_registry`` (cuda) = the family's ``vllm_cuda`` day 0 itself;
``kind: benchmark_config`` = the family's first configuration on the regime's hardware in an
independent benchmark's history (tracker.measure.models.benchmark), which is also day 0
``benchmark_cuda`` on the reference regime.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from tracker.config.coverage import EvidenceRule, ModelCoverageRule
from tracker.measure.lag.decision import UNKNOWN, Stream, decide
from tracker.measure.lag.rows import LagRun, LagSample, due, lag_row
from tracker.measure.lag.samples import NoteFact, ReleaseFact, is_final
from tracker.measure.lag.supersession import Cover
from tracker.measure.lag.windows import Channel, ReadsFacts, Windows
from tracker.measure.models.benchmark import benchmark_day0, benchmark_evidence, configured_families
from tracker.measure.models.engines import combine_engines, engine_day0, gate_by_image
from tracker.mentions.families import NOT_SUPPORT as _NOT_SUPPORT
from tracker.mentions.families import FamilyTable
from tracker.names import REFERENCE_REGIME

# Sections of release notes whose items state limits, fixes or removals: a model named there
# ("Models that depend on this removed kernel (including Llama 4 ...) should pin 2.28", "Pixtral
# is supported up to batch size 32") is not being announced as supported.
NOT_SUPPORT_SECTIONS = {
    "Known issues",
    "Breaking changes",
    "Bug fixes",
    "Resolved issues",
    "Deprecations",
    "Removals",
    "Upcoming changes",
}

# Evidence streams that begin somewhere: a family whose day 0 precedes the stream's first
# item is unknown on it (left truncation), not open.
DATED_STREAMS = ("note", "benchmark_config")


def day0_by_family(
    table: FamilyTable,
    definition: str,
    releases: Sequence[ReleaseFact],
    notes: Sequence[NoteFact] = (),
) -> tuple[dict[str, tuple[datetime, str]], dict[str, str]]:
    """(family -> (day 0, URL), family -> why unknown) under one day-0 definition.

    ``vllm_cuda`` also reads vLLM's own release notes (notes of project ``vllm``, one per bullet
    of a release body): a bullet that adds a model family ("New models: ...", "Added support for
    ...") dates the first release serving it when it is earlier than the table's release, or
    when the table names none: a new model needs no table edit to get its day 0."""
    known: dict[str, tuple[datetime, str]] = {}
    why: dict[str, str] = {}
    collected = {
        f.version: (f.occurred_at, f.url)
        for f in sorted(releases, key=lambda f: f.occurred_at, reverse=True)
        if f.project == "vllm" and is_final(f)
    }
    # Only notes about CUDA (or no regime in particular) date day 0 on CUDA: vLLM's notes also
    # announce "[TPU] Added support for X", which is the TPU's coverage, not CUDA's day 0.
    cuda_notes = [n for n in notes if n.regime in (None, "none", REFERENCE_REGIME)]
    from_notes = (
        model_evidence(
            EvidenceRule(REFERENCE_REGIME, "vllm_cuda", True, "vllm", "note", "models"), cuda_notes
        )
        if definition == "vllm_cuda"
        else {}
    )
    for fid, fam in table.families.items():
        if definition == "public_weights":
            if fam.weights_date:
                known[fid] = (fam.weights_date, fam.weights_url)
            else:
                why[fid] = "first public weights: date not known"
        else:
            hit = None
            if fam.vllm:
                hit = collected.get(fam.vllm.lstrip("v")) or table.vllm_releases.get(fam.vllm)
            noted = from_notes.get(fid)
            if noted and (hit is None or noted[0] < hit[0]):
                hit = noted
            if hit:
                known[fid] = hit
            elif fam.vllm:
                why[fid] = f"first vLLM release {fam.vllm}: its date is not known"
            else:
                why[fid] = "first vLLM release listing its architecture: not known"
    return known, why


def note_context(attrs: Mapping[str, Any]) -> str:
    """Where a note sits, for :func:`model_evidence`: its canonical section, heading and lead-in
    topic joined by " | " (a heading "Llama 4 model support (beta)" makes every item under it
    beta, including "Llama 4 is tested on Trn2")."""
    return " | ".join(str(attrs.get(k) or "") for k in ("section", "heading", "topic"))


def _not_support_context(context: str) -> bool:
    section = context.split(" | ", 1)[0]
    return section in NOT_SUPPORT_SECTIONS or bool(_NOT_SUPPORT.search(context.lower()))


def model_evidence(
    evidence: EvidenceRule, notes: Sequence[NoteFact]
) -> dict[str, tuple[datetime, str]]:
    """Earliest supported mention per family in the evidence project's notes (rules in the
    module doc); the earliest wins and keeps its URL."""
    found: dict[str, tuple[datetime, str]] = {}
    for note in notes:
        if note.project != evidence.project:
            continue
        denied = {fam for fam, status, _ in note.models if status in ("planned", "dropped")}
        for fam, status, context in note.models:
            if status != "supported" or fam in denied or _not_support_context(context):
                continue
            if fam not in found or note.occurred_at < found[fam][0]:
                found[fam] = (note.occurred_at, note.url)
    return found


def model_lag_samples(
    rules: Sequence[ModelCoverageRule],
    table: FamilyTable,
    releases: Sequence[ReleaseFact],
    notes: Sequence[NoteFact],
    as_of: datetime,
    run: LagRun | None = None,
    windows: Windows | None = None,
) -> list[LagSample]:
    """Every (family, regime, definition, day-0 definition) with its lag; see the module doc;
    the families left out and the evidence spans go into `run`.
    Open rows are censored where the definition's sources were last looked at (`windows`,
    measure.lag.windows; an image-gated list: its list's and its image's sources); a family whose
    day 0 is after that is unknown there."""
    samples: list[LagSample] = []
    run = run if run is not None else LagRun()
    windows = windows or Windows()
    through: dict[tuple[str, str], datetime] = {}
    for rule in rules:
        # Read once per rule, not once per day-0 definition: the registry (the vllm_cuda day 0
        # and the cuda evidence) and each regime's evidence stream with its window.
        registry, registry_why = day0_by_family(table, "vllm_cuda", releases, notes)
        streams: list[tuple[EvidenceRule, dict, datetime | None]] = []
        benchmarked: dict[str, set[str]] = {}  # benchmark -> families it configured by as-of
        for ev in rule.evidence:
            if ev.kind == "model_registry":
                streams.append((ev, registry, None))
                continue
            if ev.kind == "benchmark_config":
                found, window = benchmark_evidence(notes, ev.project, ev.regime)
                benchmarked[ev.project] = configured_families(notes, ev.project, as_of)
                through[(ev.regime, ev.definition)] = windows.through([ev], as_of)
                streams.append((ev, found, window))
                run.span(rule.project, ev.regime, ev.definition, _span(notes, ev.project))
                continue
            times = [n.occurred_at for n in notes if n.project == ev.project]
            found = model_evidence(ev, notes)
            window = min(times) if times else None
            image = rule.images.get((ev.regime, ev.definition))
            channels: list[ReadsFacts] = [ev]
            if image:  # served there from the first image of `image` on or after the listing
                found, window = gate_by_image(found, window, releases, image)
                channels.append(Channel(image, "release"))
            through[(ev.regime, ev.definition)] = windows.through(channels, as_of)
            streams.append((ev, found, window))
            span = (min(times), max(times)) if times else None
            run.span(rule.project, ev.regime, ev.definition, span)
        truncated: dict[tuple[str, str, str], set[str]] = {}
        rule_samples: list[LagSample] = []
        for d_index, d_def in enumerate(rule.day0):
            if d_def == "vllm_cuda":
                day0s, why = registry, registry_why
            elif d_def == "engine_cuda":
                day0s, why = engine_day0(rule, streams, registry_why)
            elif d_def == "benchmark_cuda":
                day0s, why = benchmark_day0(notes, _benchmark_project(rule))
            else:
                day0s, why = day0_by_family(table, d_def, releases, notes)
            for fid, reason in sorted(why.items()):
                run.no_day0(rule.project, fid, d_def, reason)
            for ev, found, window in streams:
                primary = ev.primary and d_index == 0
                engine = rule.engines.get((ev.regime, ev.definition), "")
                for fid, day0, day0_url in due(day0s, as_of):
                    hit = found.get(fid)
                    covered = hit is not None and hit[0] <= as_of
                    if ev.kind == "benchmark_config" and not covered:
                        if fid not in benchmarked.get(ev.project, set()):
                            # a benchmark that never ran the family on any hardware says
                            # nothing of this regime: no benchmark, not a late one
                            truncated.setdefault((d_def, ev.regime, ev.definition), set()).add(fid)
                            never = f"{ev.project} configured it on no hardware"
                            run.leave_out(rule.project, fid, ev.regime, ev.definition, never)
                            continue
                    seen = through.get((ev.regime, ev.definition), as_of)
                    if ev.kind == "model_registry" and hit is None:
                        # No date for the family's first vLLM release at all: unknown. A known
                        # release after as-of leaves the family open on CUDA (below).
                        truncated.setdefault((d_def, ev.regime, ev.definition), set()).add(fid)
                        undated = f"{d_def} day 0 known, first vLLM release date not known"
                        run.leave_out(rule.project, fid, ev.regime, ev.definition, undated)
                        continue
                    # the registry is day 0 itself: it starts nowhere, it truncates nothing
                    dated = ev.kind in DATED_STREAMS
                    stream = Stream(f"{ev.project} notes", window if dated else day0, seen, dated)
                    cover = Cover(hit[0], hit[1], False) if covered and hit is not None else None
                    decision = decide(day0, cover, stream, f"{d_def} day 0")
                    if decision.status == UNKNOWN:
                        truncated.setdefault((d_def, ev.regime, ev.definition), set()).add(fid)
                        run.leave_out(rule.project, fid, ev.regime, ev.definition, decision.reason)
                        continue
                    rule_samples.append(
                        lag_row(
                            project=rule.project,
                            series=fid,
                            regime=ev.regime,
                            definition=ev.definition,
                            primary=primary,
                            day0=day0,
                            day0_url=day0_url,
                            found=decision,
                            artifact="model",
                            day0_definition=d_def,
                            engine=engine,
                            # the window the definition's sources give (not a fresher
                            # source's, Windows.latest): None where the stream is day 0 itself
                            observed_through=seen if dated else None,
                        )
                    )
        samples += rule_samples
        samples += combine_engines(rule, rule_samples, truncated, run)
    return samples


def _benchmark_project(rule: ModelCoverageRule) -> str:
    """The project of the rule's cuda ``benchmark_config`` evidence (config checks there is one
    when ``benchmark_cuda`` is a day-0 definition)."""
    return next(
        e.project
        for e in rule.evidence
        if e.regime == REFERENCE_REGIME and e.kind == "benchmark_config"
    )


def _span(notes: Sequence[NoteFact], project: str) -> tuple[datetime, datetime] | None:
    times = [n.occurred_at for n in notes if n.project == project and n.config is not None]
    return (min(times), max(times)) if times else None
