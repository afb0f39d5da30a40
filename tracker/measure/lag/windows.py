"""Observation windows: how far each definition's evidence was actually looked at
(docs/methodology.md, "Observation windows").

- A source is **observed through** the end of its last successful collection (a live run's
  finish), or, for a replay, its cassette's snapshot date (the end of that day): the ``runs``
  table holds both (``Store.observation_ends``). A source with no successful run recorded
  (events imported by hand) narrows nothing.
- The sources that **feed** a definition (:func:`definition_sources`, the one mapping) are those
  whose stored facts its evidence rules read: releases of a rule's project (``kind: release``),
  notes of a rule's project naming its framework (``kind: note, mentions: X``; ``models``: a
  model family; while no source's notes name it, every source of the project's notes), or any
  fact of the project (a kernel rule of kind ``open``). A definition that
  reads several rules (an "any engine" definition, an image-gated model list) is fed by the
  sources of every one of them.
- A definition is observed through the **earliest** of its sources, never after as-of
  (:meth:`Windows.through`): absence of evidence is known only where every one of them was
  looked at. Evidence is evidence wherever it was found: a source that was read through the
  artifact's day 0 (:meth:`Windows.latest`) covers it, though another source of the definition
  was last read earlier.
  An open row's lag is then ``observed_through - day0`` ("at least"); an artifact
  whose day 0 is after it is unknown, "not observed since DATE" (:func:`not_observed`).

Pure functions over facts; no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple, Protocol

from tracker.measure.lag.coverage import FRAMEWORK_PROJECTS

ANY_KIND = "*"  # a rule that reads every kind of fact of its project (kernel rules `open`)
MODELS = "models"  # the `mentions` of a model rule: notes naming a model family


class Channel(NamedTuple):
    """What a source delivers and an evidence rule reads: (project, fact kind, what the notes
    name: a framework project id, MODELS, or None for releases and commits)."""

    project: str
    kind: str
    mentions: str | None = None


class ReadsFacts(Protocol):
    """An evidence rule as this module sees it (config.coverage.EvidenceRule, a Channel)."""

    @property
    def project(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def mentions(self) -> str | None: ...


def rule_channel(rule: ReadsFacts) -> Channel:
    """The channel a rule reads. A model rule's `model_registry` reads vLLM's releases; a
    `benchmark_config` rule reads its benchmark's configurations, stored as notes naming a
    model family (measure.facts.benchmark_notes)."""
    if rule.kind == "model_registry":
        return Channel("vllm", "release")
    if rule.kind == "benchmark_config":
        return Channel(rule.project, "note", MODELS)
    mentions = rule.mentions if rule.kind == "note" else None
    if mentions and mentions != MODELS:
        mentions = FRAMEWORK_PROJECTS.get(mentions, mentions)
    return Channel(rule.project, rule.kind, mentions)


def delivered_channels(facts: Iterable) -> dict[str, frozenset[Channel]]:
    """Per source id, the channels its facts deliver (ReleaseFact, NoteFact, KernelFact: each
    with ``source_id``, ``project``; notes with ``mentions`` and ``models``)."""
    out: dict[str, set[Channel]] = {}
    for fact in facts:
        source = getattr(fact, "source_id", "")
        if not source:
            continue
        mine = out.setdefault(source, set())
        kind = getattr(fact, "kind", None) or ("note" if hasattr(fact, "mentions") else "release")
        mine.add(Channel(fact.project, kind))
        for framework, _version, _status in getattr(fact, "mentions", ()):
            mine.add(Channel(fact.project, kind, FRAMEWORK_PROJECTS.get(framework, framework)))
        if getattr(fact, "models", ()):
            mine.add(Channel(fact.project, kind, MODELS))
    return {source: frozenset(channels) for source, channels in out.items()}


def definition_sources(
    rules: Iterable[ReadsFacts], delivered: Mapping[str, frozenset[Channel]]
) -> frozenset[str]:
    """The sources that feed a definition: every source delivering a channel one of its
    evidence `rules` reads (module doc). Takes the definition's rules as a collection: a
    definition over several channels is fed by all of theirs."""
    everything = frozenset().union(*delivered.values()) if delivered else frozenset()
    wanted: set[Channel] = set()
    for rule in rules:
        channel = rule_channel(rule)
        if channel.mentions and channel not in everything:
            # no source's notes name it yet: the sources of the project's notes feed it
            channel = Channel(channel.project, channel.kind)
        wanted.add(channel)
    projects_any = {c.project for c in wanted if c.kind == ANY_KIND}
    return frozenset(
        source
        for source, channels in delivered.items()
        if channels & wanted or any(c.project in projects_any for c in channels)
    )


@dataclass(frozen=True)
class Windows:
    """The observation windows of one store: which channels each source delivers, and how far
    each source was observed (source id -> observed-through, before any as-of)."""

    delivered: Mapping[str, frozenset[Channel]] = field(default_factory=dict)
    observed: Mapping[str, datetime] = field(default_factory=dict)

    def through(self, rules: Iterable[ReadsFacts], as_of: datetime) -> datetime:
        """The definition's observed-through as of `as_of`: the earliest over its sources,
        never after `as_of` (as_of itself when no source of it has a recorded run)."""
        return min([as_of, *self._ends(rules)])

    def latest(self, rules: Iterable[ReadsFacts], as_of: datetime) -> datetime:
        """How far the freshest of the definition's sources was observed, never after `as_of`:
        evidence a source holds is evidence even where another source of the same definition
        was last read earlier (a build on PyPI in June while the GitHub copy ends in May)."""
        ends = self._ends(rules)
        return min(as_of, max(ends)) if ends else as_of

    def _ends(self, rules: Iterable[ReadsFacts]) -> list[datetime]:
        """The observed-through of each source that feeds the rules and has a recorded run."""
        return [
            self.observed[s]
            for s in definition_sources(rules, self.delivered)
            if s in self.observed
        ]


def not_observed(day0: datetime, through: datetime) -> str | None:
    """The unknown reason of an artifact released after its definition was last looked at
    (None when day 0 is within the window)."""
    if day0.date() <= through.date():
        return None
    return f"not observed since {through.date()} (day 0 {day0.date()} is after it)"
