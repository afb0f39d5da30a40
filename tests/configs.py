"""Configs for tests, built the one way the tracker builds them: sections as sources.yaml
holds them, read by tracker.config.config_from_data into the typed records every stage
receives (coverage rules, report and digest settings, CI trigger selectors)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from tracker.collect.sources import KINDS
from tracker.config import LIMIT_KEYS, Config, Regime, SourceSpec, config_from_data


def typed_config(
    regimes: Iterable[Regime] = (),
    sources: Iterable[SourceSpec] = (),
    coverage: Iterable[Mapping[str, Any]] = (),
    path: str | Path = "sources.yaml",
    **sections: Any,
) -> Config:
    """The Config read_config gives for a sources.yaml of these regimes, sources (written back
    as entries), coverage rules and other top-level sections (report=..., digest=...)."""
    raw = {
        "regimes": [_regime(r) for r in regimes],
        "sources": [_entry(spec) for spec in sources],
        "coverage": [dict(rule) for rule in coverage],
        **sections,
    }
    return config_from_data(Path(path), raw, KINDS)


def _regime(regime: Regime) -> dict[str, Any]:
    entry = {"id": regime.id, "vendor": regime.vendor, "silicon": regime.silicon}
    return {k: v for k, v in entry.items() if v} | {"reference": regime.reference}


def _entry(spec: SourceSpec) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "id": spec.id,
        "kind": spec.kind,
        "project": spec.project,
        "enabled": spec.enabled,
        "lookback_days": spec.lookback_days,
        **spec.options,
    }
    if spec.regime is not None:
        entry["regime"] = spec.regime
    if spec.moved_to is not None:
        entry["moved_to"] = spec.moved_to
    entry.update({k: getattr(spec, k) for k in LIMIT_KEYS if getattr(spec, k) is not None})
    return entry
