"""sources.yaml checked whole, before any work starts: tracker.config reads the file and checks
the sources against the collector kinds; each stage then checks its own section (coverage rules
CI trigger selectors and mirrors: measure; report settings: measure.staleness; digest thresholds:
digest.settings). So `tracker sources check` and a nightly run fail before collecting, not at
the report."""

from __future__ import annotations

import dataclasses
import os

from tracker.collect.sources import KINDS
from tracker.config import Config, read_config
from tracker.digest.settings import parse_thresholds
from tracker.measure.ci_parity import mirror_pairs
from tracker.measure.ci_rates import trigger_selectors
from tracker.measure.coverage import parse_coverage
from tracker.measure.model_lag import parse_model_coverage
from tracker.measure.staleness import validate_report_settings


def load_config(path: str | os.PathLike | None = None) -> Config:
    """Read and validate sources.yaml; raise ConfigError naming file, source and key."""
    config = read_config(path, KINDS)
    file = config.path
    reference = config.reference_regime
    parse_coverage(config.coverage, str(file), reference)
    parse_model_coverage(config.coverage, str(file))
    report = validate_report_settings(config.report, file)
    parse_thresholds(config.digest, str(file))
    trigger_selectors(config)
    mirror_pairs(config)
    return dataclasses.replace(config, report=report, digest=config.digest or {})
