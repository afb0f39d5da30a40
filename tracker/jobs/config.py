"""sources.yaml checked whole, before any work starts: tracker.config reads the file and checks
the sources against the collector kinds; each stage then checks its own section (coverage rules
and CI trigger selectors: measure; report settings: measure.staleness; digest thresholds:
digest.settings). So `tracker sources check` and a nightly run fail before collecting, not at
the report.

The coverage rules' values are type-checked here first (``check_coverage_values``), so that
measure's parsers, which check what the values mean, only ever see text where they expect
text: a list where a name belongs (``project: [a, b]``) is a ConfigError naming file, rule and
key, never a TypeError."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Mapping
from typing import Any

from tracker.collect.sources import KINDS
from tracker.config import Config, read_config
from tracker.config.value_types import VALUE_TYPES
from tracker.digest.settings import parse_thresholds
from tracker.errors import ConfigError
from tracker.measure.ci_rates import trigger_selectors
from tracker.measure.coverage import parse_coverage
from tracker.measure.model_lag import parse_model_coverage
from tracker.measure.staleness import validate_report_settings

# The value type of each key the coverage rules may hold, by level (tracker.config.value_types
# names). Unknown keys are left to measure, which names them.
_RULE_TYPES = {"project": "text", "series": "text", "artifact": "text", "day0": "text_list"}
_ENTRY_TYPES = {"definition": "text", "primary": "bool", "engine": "text", "engines": "text_list"}
_EVIDENCE_TYPES = {"project": "text", "kind": "text", "mentions": "text", "image": "text"}


def load_config(path: str | os.PathLike | None = None) -> Config:
    """Read and validate sources.yaml; raise ConfigError naming file, source and key."""
    config = read_config(path, KINDS)
    file = config.path
    reference = config.reference_regime
    check_coverage_values(config.coverage, str(file))
    parse_coverage(config.coverage, str(file), reference)
    parse_model_coverage(config.coverage, str(file))
    report = validate_report_settings(config.report, file)
    parse_thresholds(config.digest, str(file))
    trigger_selectors(config)
    return dataclasses.replace(config, report=report, digest=config.digest or {})


def check_coverage_values(rules: Any, file: str) -> None:
    """ConfigError naming file, rule and key for a coverage value of the wrong type (or a rule,
    regime list or evidence that is not the mapping or list it must be)."""
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            raise ConfigError(f"{file}: coverage[{index}]: must be a mapping, not {_shown(rule)}")
        project = rule.get("project")
        name = (
            f"coverage rule for {project!r}" if isinstance(project, str) else f"coverage[{index}]"
        )
        _check(file, name, rule, _RULE_TYPES)
        regimes = rule.get("regimes")
        if regimes is None:
            continue
        if not isinstance(regimes, Mapping):
            raise ConfigError(f"{file}: {name}: key 'regimes': must be a mapping of regime ids")
        for regime, entries in regimes.items():
            if not isinstance(regime, str):
                raise ConfigError(f"{file}: {name}: regime {_shown(regime)}: must be a regime id")
            where = f"{name}: regime {regime!r}"
            if entries is not None and not isinstance(entries, list):
                raise ConfigError(f"{file}: {where}: must be a list of definitions")
            for number, entry in enumerate(entries or [], 1):
                if not isinstance(entry, Mapping):
                    raise ConfigError(f"{file}: {where}: entry {number}: must be a mapping")
                _check(file, f"{where}: entry {number}", entry, _ENTRY_TYPES)
                evidence = entry.get("evidence")
                if isinstance(evidence, Mapping):
                    _check(file, f"{where}: entry {number}: evidence", evidence, _EVIDENCE_TYPES)


def _check(file: str, where: str, values: Mapping, types: Mapping[str, str]) -> None:
    for key in types.keys() & values.keys():
        test, wanted = VALUE_TYPES[types[key]]
        if not test(values[key]):
            raise ConfigError(
                f"{file}: {where}: key {key!r}: must be {wanted}, not {_shown(values[key])}"
            )


def _shown(value: Any) -> str:
    text = repr(value)
    text = text if len(text) <= 60 else text[:57] + "..."
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text
