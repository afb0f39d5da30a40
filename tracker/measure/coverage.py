"""Coverage rules: the `coverage:` list of sources.yaml, validated into the definitions of
"usable on this regime" the lag is measured under (docs/methodology.md, coverage lag)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from tracker.errors import ConfigError
from tracker.versions import parse_version
from tracker.versions import series as series_of

REFERENCE_DEFINITION = "upstream_release"
# Framework names as mentions spell them -> project ids the coverage rules use.
FRAMEWORK_PROJECTS = {
    "torch": "pytorch",
    "pytorch": "pytorch",
    "jax": "jax",
    "jaxlib": "jax",
    "vllm": "vllm",
    "tensorflow": "tensorflow",
    "triton": "triton",
}
_MIN_COMPONENTS = {"major": 1, "minor": 2, "release": 3}


@dataclass(frozen=True)
class EvidenceRule:
    """One named definition of "usable on this regime" (a coverage rule entry)."""

    regime: str
    definition: str
    primary: bool
    project: str
    kind: str  # release | note
    mentions: str | None = None  # for notes: the framework the note must name as supported
    version_map: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CoverageRule:
    """Coverage of one upstream project's release series on each regime."""

    project: str
    granularity: str  # minor | release
    evidence: tuple[EvidenceRule, ...]
    reference_regime: str = "cuda"


def kernel_rule(raw: Mapping[str, Any], where: str) -> str | None:
    """The kernel layer's coverage entry, ``{project: kernels, artifact: kernel}`` with an
    optional ``ledger`` (a YAML file in place of the shipped ledger): that path, or None for
    the shipped one (ConfigError naming a wrong key)."""
    unknown = set(raw) - {"project", "artifact", "ledger"}
    if unknown:
        raise ConfigError(
            f"{where}: coverage rule for {raw.get('project')!r}: unknown key {sorted(unknown)[0]!r}"
        )
    ledger = raw.get("ledger")
    if ledger is not None and not (isinstance(ledger, str) and ledger):
        raise ConfigError(
            f"{where}: coverage rule for {raw.get('project')!r}: ledger must be a path"
        )
    return ledger


def parse_coverage(
    raw_rules: Sequence[Mapping[str, Any]],
    where: str = "sources.yaml",
    reference_regime: str = "cuda",
) -> list[CoverageRule]:
    """Validate the `coverage:` list of sources.yaml into CoverageRules (ConfigError naming
    the rule and key on any problem)."""
    rules = []
    seen_projects: set = set()
    for index, raw in enumerate(raw_rules):
        name = f"coverage[{index}]"
        if isinstance(raw, Mapping) and raw.get("artifact") == "kernel":
            kernel_rule(raw, where)  # the kernel layer: tracker.measure.kernel_lag
            continue
        if not isinstance(raw, Mapping) or "project" not in raw or "regimes" not in raw:
            raise ConfigError(f"{where}: {name}: needs 'project' and 'regimes'")
        if raw.get("artifact", "framework") == "model":
            continue  # model families: tracker.measure.model_lag.parse_model_coverage
        name = f"coverage rule for {raw['project']!r}"
        unknown = set(raw) - {"project", "series", "regimes"}
        if unknown:
            raise ConfigError(f"{where}: {name}: unknown key {sorted(unknown)[0]!r}")
        granularity = raw.get("series", "minor")
        if granularity not in _MIN_COMPONENTS:
            raise ConfigError(
                f"{where}: {name}: key 'series' must be one of {', '.join(_MIN_COMPONENTS)}"
            )
        if raw["project"] in seen_projects:
            raise ConfigError(
                f"{where}: {name}: a second rule for the same project (merge them: "
                "lag rows are keyed by project, series, regime and definition)"
            )
        seen_projects.add(raw["project"])
        evidence: list[EvidenceRule] = []
        for regime, definitions in (raw["regimes"] or {}).items():
            for entry in definitions or []:
                rule = _evidence_rule(where, name, regime, entry)
                if any(e.regime == regime and e.definition == rule.definition for e in evidence):
                    raise ConfigError(
                        f"{where}: {name}: regime {regime!r} names definition "
                        f"{rule.definition!r} twice"
                    )
                evidence.append(rule)
            primaries = [e for e in evidence if e.regime == regime and e.primary]
            if len(primaries) != 1:
                raise ConfigError(
                    f"{where}: {name}: regime {regime!r} needs exactly one "
                    f"definition marked primary: true (found {len(primaries)})"
                )
        rules.append(
            CoverageRule(str(raw["project"]), granularity, tuple(evidence), reference_regime)
        )
    return rules


def _evidence_rule(where: str, name: str, regime: str, entry: Any) -> EvidenceRule:
    allowed = {"definition", "primary", "evidence", "version_map"}
    if not isinstance(entry, Mapping) or "definition" not in entry or "evidence" not in entry:
        raise ConfigError(
            f"{where}: {name}: regime {regime!r}: each entry needs 'definition' and 'evidence'"
        )
    unknown = set(entry) - allowed
    if unknown:
        raise ConfigError(f"{where}: {name}: regime {regime!r}: unknown key {sorted(unknown)[0]!r}")
    evidence = entry["evidence"]
    if (
        not isinstance(evidence, Mapping)
        or evidence.get("kind") not in ("release", "note")
        or not evidence.get("project")
    ):
        raise ConfigError(
            f"{where}: {name}: definition {entry['definition']!r}: evidence needs "
            "'project' and 'kind' (release or note)"
        )
    unknown = set(evidence) - {"project", "kind", "mentions"}
    if unknown:
        raise ConfigError(
            f"{where}: {name}: definition {entry['definition']!r}: evidence has "
            f"unknown key {sorted(unknown)[0]!r}"
        )
    if evidence["kind"] == "note" and not evidence.get("mentions"):
        raise ConfigError(
            f"{where}: {name}: definition {entry['definition']!r}: note evidence "
            "needs 'mentions: <framework>'"
        )
    version_map = entry.get("version_map") or {}
    if not isinstance(version_map, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in version_map.items()
    ):
        # YAML reads 1.10 as the float 1.1: a version written unquoted is already wrong.
        raise ConfigError(
            f"{where}: {name}: definition {entry['definition']!r}: version_map "
            'keys and values must be quoted strings, e.g. {"1.10.0": "2.10"}'
        )
    return EvidenceRule(
        regime,
        str(entry["definition"]),
        bool(entry.get("primary", False)),
        str(evidence["project"]),
        evidence["kind"],
        evidence.get("mentions"),
        dict(version_map),
    )


@lru_cache(maxsize=1 << 16)  # lag_samples asks for every mention of every note again
def artifact_series(version: str, granularity: str) -> str | None:
    """The series a version belongs to, or None when the version is too coarse to say
    (a mention of "JAX 0.4" names no single JAX release)."""
    parsed = parse_version(version)
    if parsed is None or len(parsed.parsed.release) < _MIN_COMPONENTS[granularity]:
        return None
    return series_of(parsed.version, granularity)
