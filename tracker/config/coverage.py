"""Coverage rules: the `coverage:` list of sources.yaml, checked once (by read_config) into
the records the lag is measured under (docs/methodology.md, coverage lag and model lag).

Framework rules (``CoverageRule``): one upstream project's release series and, per regime, the
named definitions of "usable on this regime". Model rules (``artifact: model``,
``ModelCoverageRule``): model families, their day-0 definitions and, per regime, the evidence
and serving engines (tracker/measure/model_lag.py and engines.py say what each key means).
Every problem is a ConfigError naming the file, the rule and the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.config.value_types import VALUE_TYPES
from tracker.errors import ConfigError

# A series granularity -> how many version components a version needs to name one.
SERIES_COMPONENTS = {"major": 1, "minor": 2, "release": 3}
DAY0_DEFINITIONS = ("engine_cuda", "vllm_cuda", "public_weights", "benchmark_cuda")
DEFAULT_DAY0 = ("vllm_cuda", "public_weights")  # a model rule without `day0:`
# note: a project's notes naming the family as supported; model_registry: vLLM's registry (cuda);
# benchmark_config: an independent benchmark's configurations on the regime's own hardware
MODEL_EVIDENCE_KINDS = ("note", "model_registry", "benchmark_config")


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


# The value type of each key the coverage rules may hold, by level (tracker.config.value_types
# names). Unknown keys are left to the
# parsers below, which name them.
_RULE_TYPES = {"project": "text", "series": "text", "artifact": "text", "day0": "text_list"}
_ENTRY_TYPES = {"definition": "text", "primary": "bool", "engine": "text", "engines": "text_list"}
_EVIDENCE_TYPES = {"project": "text", "kind": "text", "mentions": "text", "image": "text"}


def check_coverage_values(rules: Any, file: str) -> None:
    """ConfigError naming file, rule and key for a coverage value of the wrong type (or a rule,
    regime list or evidence that is not the mapping or list it must be)."""
    for index, rule in enumerate(rules):
        if not isinstance(rule, Mapping):
            raise ConfigError(f"{file}: coverage[{index}]: must be a mapping, not {_shown(rule)}")
        project = rule.get("project")
        name = (
            f"coverage rule for {preview(project)}"
            if isinstance(project, str)
            else f"coverage[{index}]"
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
            where = f"{name}: regime {preview(regime)}"
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
    """A bounded preview of a wrong value, with its type when it is not text."""
    text = preview(value)
    return f"{text} ({type(value).__name__})" if not isinstance(value, str) else text


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
            continue  # the kernel layer: parse_kernel_layer
        if not isinstance(raw, Mapping) or "project" not in raw or "regimes" not in raw:
            raise ConfigError(f"{where}: {name}: needs 'project' and 'regimes'")
        if raw.get("artifact", "framework") == "model":
            continue  # model families: parse_model_coverage
        name = f"coverage rule for {preview(raw['project'])}"
        unknown = unknown_key(raw, {"project", "series", "regimes"})
        if unknown:
            raise ConfigError(f"{where}: {name}: unknown key {unknown}")
        granularity = raw.get("series", "minor")
        if granularity not in SERIES_COMPONENTS:
            raise ConfigError(
                f"{where}: {name}: key 'series' must be one of {', '.join(SERIES_COMPONENTS)}"
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
                        f"{where}: {name}: regime {preview(regime)} names definition "
                        f"{preview(rule.definition)} twice"
                    )
                evidence.append(rule)
            primaries = [e for e in evidence if e.regime == regime and e.primary]
            if len(primaries) != 1:
                raise ConfigError(
                    f"{where}: {name}: regime {preview(regime)} needs exactly one "
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
            f"{where}: {name}: regime {preview(regime)}: "
            "each entry needs 'definition' and 'evidence'"
        )
    unknown = unknown_key(entry, allowed)
    if unknown:
        raise ConfigError(f"{where}: {name}: regime {preview(regime)}: unknown key {unknown}")
    evidence = entry["evidence"]
    if (
        not isinstance(evidence, Mapping)
        or evidence.get("kind") not in ("release", "note")
        or not evidence.get("project")
    ):
        raise ConfigError(
            f"{where}: {name}: definition {preview(entry['definition'])}: evidence needs "
            "'project' and 'kind' (release or note)"
        )
    unknown = unknown_key(evidence, {"project", "kind", "mentions"})
    if unknown:
        raise ConfigError(
            f"{where}: {name}: definition {preview(entry['definition'])}: evidence has "
            f"unknown key {unknown}"
        )
    if evidence["kind"] == "note" and not evidence.get("mentions"):
        raise ConfigError(
            f"{where}: {name}: definition {preview(entry['definition'])}: note evidence "
            "needs 'mentions: <framework>'"
        )
    version_map = entry.get("version_map") or {}
    if not isinstance(version_map, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in version_map.items()
    ):
        # YAML reads 1.10 as the float 1.1: a version written unquoted is already wrong.
        raise ConfigError(
            f"{where}: {name}: definition {preview(entry['definition'])}: version_map "
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


@dataclass(frozen=True)
class Combined:
    """An "any engine" definition: the earliest of its engine definitions (same regime)."""

    regime: str
    definition: str
    primary: bool
    parts: tuple[str, ...]


def _model_regime(
    regime: str,
    entries: Any,
    where: str,
    engines: dict[tuple[str, str], str],
    images: dict[tuple[str, str], str],
) -> list[EvidenceRule | Combined]:
    """One regime's entries of a model coverage rule (ConfigError naming the key)."""
    mine: list[EvidenceRule | Combined] = []
    for entry in entries or []:
        if isinstance(entry, Mapping) and "engines" in entry:
            parts = entry.get("engines")
            if not isinstance(parts, list) or not parts or "definition" not in entry:
                raise ConfigError(
                    f"{where}: regime {preview(regime)}: an 'engines' entry needs 'definition' "
                    "and a non-empty list of the regime's engine definitions"
                )
            mine.append(
                Combined(regime, str(entry["definition"]), bool(entry.get("primary", False)),
                         tuple(str(p) for p in parts))
            )  # fmt: skip
            continue
        ev = entry.get("evidence") if isinstance(entry, Mapping) else None
        if (
            not isinstance(ev, Mapping)
            or "definition" not in entry
            or ev.get("kind") not in MODEL_EVIDENCE_KINDS
            or not ev.get("project")
        ):
            raise ConfigError(
                f"{where}: regime {preview(regime)}: each entry needs 'definition' and "
                f"evidence with 'project' and 'kind' ({' or '.join(MODEL_EVIDENCE_KINDS)})"
            )
        key = (regime, str(entry["definition"]))
        if entry.get("engine"):
            engines[key] = str(entry["engine"])
        if ev.get("image"):
            images[key] = str(ev["image"])
        mine.append(
            EvidenceRule(regime, key[1], bool(entry.get("primary", False)), str(ev["project"]),
                         str(ev["kind"]), "models")
        )  # fmt: skip
    if sum(e.primary for e in mine) != 1:
        raise ConfigError(
            f"{where}: regime {preview(regime)} needs exactly one definition marked primary: true"
        )
    names = {e.definition for e in mine}
    for combo in (e for e in mine if isinstance(e, Combined)):
        missing = [p for p in combo.parts if p not in names or (regime, p) not in engines]
        if missing:
            raise ConfigError(
                f"{where}: regime {preview(regime)}: {preview(combo.definition)} names "
                f"{preview(missing[0])}, which "
                "is not an engine definition (with 'engine:') of this regime"
            )
    return mine


@dataclass(frozen=True)
class ModelCoverageRule:
    """An ``artifact: model`` rule: model families' day 0 and their evidence per regime."""

    project: str  # the id rows carry in their project column, e.g. "models"
    day0: tuple[str, ...]  # day-0 definitions, the first primary
    evidence: tuple[EvidenceRule, ...]
    # (regime, definition) -> serving engine ("vllm", "sglang") / project whose images gate it
    engines: Mapping[tuple[str, str], str] = field(default_factory=dict)
    images: Mapping[tuple[str, str], str] = field(default_factory=dict)
    combined: tuple[Combined, ...] = ()  # "any engine" definitions over engine definitions


def parse_model_coverage(
    raw_rules: Sequence[Mapping[str, Any]], where: str
) -> list[ModelCoverageRule]:
    """The ``artifact: model`` rules of the coverage list (ConfigError naming the key)."""
    out = []
    for raw in raw_rules:
        if not isinstance(raw, Mapping) or raw.get("artifact") != "model":
            continue
        name = f"coverage rule for {preview(raw.get('project'))}"
        unknown = unknown_key(raw, {"project", "artifact", "day0", "regimes"})
        if unknown:
            raise ConfigError(f"{where}: {name}: unknown key {unknown}")
        day0 = tuple(raw.get("day0") or DEFAULT_DAY0)
        bad = [d for d in day0 if d not in DAY0_DEFINITIONS]
        if bad:
            raise ConfigError(
                f"{where}: {name}: day0 {preview(bad[0])} is not one of "
                f"{', '.join(DAY0_DEFINITIONS)}"
            )
        evidence: list[EvidenceRule] = []
        engines: dict[tuple[str, str], str] = {}
        images: dict[tuple[str, str], str] = {}
        combined: list[Combined] = []
        for regime, entries in (raw.get("regimes") or {}).items():
            mine = _model_regime(str(regime), entries, f"{where}: {name}", engines, images)
            evidence.extend(e for e in mine if isinstance(e, EvidenceRule))
            combined.extend(e for e in mine if isinstance(e, Combined))
        if "engine_cuda" in day0 and not any(r == "cuda" for r, _ in engines):
            raise ConfigError(
                f"{where}: {name}: day0 engine_cuda needs cuda entries marked with 'engine'"
            )
        if "benchmark_cuda" in day0 and not any(
            e.regime == "cuda" and e.kind == "benchmark_config" for e in evidence
        ):
            raise ConfigError(
                f"{where}: {name}: day0 benchmark_cuda needs a cuda entry with evidence "
                "kind benchmark_config"
            )
        out.append(
            ModelCoverageRule(
                str(raw["project"]), day0, tuple(evidence), engines, images, tuple(combined)
            )
        )
    return out


@dataclass(frozen=True)
class KernelLayerRule:
    """The kernel layer's coverage entry, ``{project: kernels, artifact: kernel}``: kernel
    features measured from the ledger (tracker.measure.kernel_ledger) or from ``ledger``, a YAML
    file in its place."""

    project: str = "kernels"
    ledger: str | None = None


def parse_kernel_layer(
    raw_rules: Sequence[Mapping[str, Any]], where: str
) -> KernelLayerRule | None:
    """The ``artifact: kernel`` entry of the coverage list, None when there is none
    (ConfigError naming a wrong key, or a second such entry)."""
    found = [r for r in raw_rules if isinstance(r, Mapping) and r.get("artifact") == "kernel"]
    if not found:
        return None
    if len(found) > 1:
        raise ConfigError(f"{where}: coverage: one kernel layer entry (artifact: kernel) at most")
    raw = found[0]
    name = f"coverage rule for {preview(raw.get('project'))}"
    unknown = unknown_key(raw, {"project", "artifact", "ledger"})
    if unknown:
        raise ConfigError(f"{where}: {name}: unknown key {unknown}")
    ledger = raw.get("ledger")
    if ledger is not None and not (isinstance(ledger, str) and ledger):
        raise ConfigError(f"{where}: {name}: ledger must be a path")
    return KernelLayerRule(str(raw.get("project") or "kernels"), ledger)
