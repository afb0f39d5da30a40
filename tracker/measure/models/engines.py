"""Serving engines in the model lag: several engines' evidence for one regime, combined.

A model family is served on a regime on the first date **any** configured engine serves it
there (vLLM, SGLang, ...). The coverage rule marks each engine's definition with ``engine:``
and names an "any engine" definition over them (read and checked by tracker.config.coverage)::

    rocm:
      - {definition: any_engine, primary: true, engines: [rocm_vllm_docker, sglang_rocm_image]}
      - {definition: rocm_vllm_docker, engine: vllm,
         evidence: {project: vllm-rocm-docker, kind: note}}
      - {definition: sglang_rocm_image, engine: sglang,
         evidence: {project: sglang-models, kind: note, image: sglang-rocm-docker}}

- ``image: P``: the engine's list names no hardware; the family is served on the regime from
  the first final release of project ``P`` (a ROCm image of the engine) dated on or after the
  listing, with that image's URL. Without such an image it is open there.
- The combined row, by the one window rule (tracker.measure.lag.decision.combine): covered on
  the earliest covered engine date (its URL); open when some engine watched the family (has a
  row of its own: its evidence reaches back to day 0 and its window reaches day 0), censored at
  the latest window among the engines that did; unknown only when none did, listed with the
  reason like any truncated row.
- Day 0 ``engine_cuda``: the earliest date any cuda engine serves the family (vLLM's registry
  release, SGLang's list). A list's first collected version says "listed by then", not since
  when: a family it already lists dates nothing, and when that is earlier than every other
  engine's date the family's day 0 is unknown (reason given), never guessed.

Pure functions over the facts :mod:`tracker.measure.models.lag` reads; no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from tracker.config.coverage import EvidenceRule
from tracker.measure.lag.decision import combine, unobserved_by_every
from tracker.measure.lag.rows import LagRun, LagSample, combined_row
from tracker.measure.lag.samples import ReleaseFact, is_final
from tracker.names import REFERENCE_REGIME

Hits = dict[str, tuple[datetime, str]]


def gate_by_image(
    found: Hits, window: datetime | None, releases: Sequence[ReleaseFact], image: str
) -> tuple[Hits, datetime | None]:
    """Each listed family moved to the first final release of ``image`` on or after its listing
    (that release's date and URL); the window starts when both streams have begun."""
    shipped = sorted((f.occurred_at, f.url) for f in releases if f.project == image and is_final(f))
    gated: Hits = {}
    for fid, (listed, _url) in found.items():
        first = next((s for s in shipped if s[0] >= listed), None)
        if first is not None:
            gated[fid] = first
    if window is None or not shipped:
        return gated, None
    return gated, max(window, shipped[0][0])


def engine_day0(
    rule: Any, streams: Sequence[tuple[EvidenceRule, Hits, datetime | None]], base_why: dict
) -> tuple[Hits, dict[str, str]]:
    """(family -> (day 0, URL), family -> why unknown) under ``engine_cuda`` (module doc)."""
    known: Hits = {}
    why: dict[str, str] = {}
    mine = [
        (ev, found, window)
        for ev, found, window in streams
        if ev.regime == REFERENCE_REGIME and (ev.regime, ev.definition) in rule.engines
    ]
    families = set(base_why) | {fid for _, found, _ in mine for fid in found}
    for fid in sorted(families):
        dated: list[tuple[datetime, str]] = []
        baseline: list[tuple[datetime, str]] = []
        for ev, found, window in mine:
            hit = found.get(fid)
            if hit is None:
                continue
            if ev.kind == "note" and window is not None and hit[0] <= window:
                baseline.append((hit[0], ev.project))
            else:
                dated.append(hit)
        first = min(dated) if dated else None
        early = min(baseline) if baseline else None
        if first is not None and (early is None or early[0] >= first[0]):
            known[fid] = first
        elif early is not None:
            why[fid] = (
                f"listed by {early[1]} when its collected history starts ({early[0].date()}): "
                "served earlier, since when is not known"
            )
        else:
            why[fid] = base_why.get(fid) or "no configured engine serves it on CUDA"
    return known, why


def combine_engines(
    rule: Any,
    samples: Sequence[LagSample],
    truncated: Mapping[tuple[str, str, str], set[str]],  # families unknown per engine
    run: LagRun,
) -> list[LagSample]:
    """The "any engine" rows of ``rule`` from its engine rows (module doc)."""
    out: list[LagSample] = []
    for combo in rule.combined:
        for d_index, d_def in enumerate(rule.day0):
            rows: dict[str, dict[str, LagSample]] = {}
            for s in samples:
                if s.day0_definition == d_def and s.regime == combo.regime:
                    if s.definition in combo.parts:
                        rows.setdefault(s.series, {})[s.definition] = s
            cut = {p: truncated.get((d_def, combo.regime, p), set()) for p in combo.parts}
            families = set(rows) | {fid for fids in cut.values() for fid in fids}
            for fid in sorted(families):
                mine = rows.get(fid, {})
                primary = combo.primary and d_index == 0
                day0 = next(iter(mine.values())).day0 if mine else None
                found = (
                    combine(day0, combo.parts, mine, (), f"{d_def} day 0")
                    if day0 is not None
                    else None
                )
                if found is None or found.row is None:
                    reason = (found.reason if found else
                              unobserved_by_every(combo.parts, f"{d_def} day 0"))  # fmt: skip
                    run.leave_out(rule.project, fid, combo.regime, combo.definition, reason)
                    continue
                out.append(combined_row(found, combo.definition, primary, name_channel=False))
    return out
