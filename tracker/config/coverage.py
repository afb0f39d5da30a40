"""Coverage rules: the `coverage:` list of sources.yaml, checked once (by read_config) into
the records the lag is measured under (docs/methodology.md, coverage lag and model lag).

Framework rules (``CoverageRule``): one upstream project's release series and, per regime, the
named definitions of "usable on this regime". Model rules (``artifact: model``,
``ModelCoverageRule``): model families, their day-0 definitions and, per regime, the evidence
and serving engines (tracker/measure/models/lag.py and engines.py say what each key means).
Every problem is a ConfigError naming the file, the rule and the key.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracker.config.builds import BuildPattern, parse_builds
from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError
from tracker.names import REFERENCE_REGIME

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
    # how this channel's builds are named in any collected text (tracker.config.builds)
    builds: tuple[BuildPattern, ...] = ()


@dataclass(frozen=True)
class Combined:
    """A combined definition: the earliest of other named definitions of the same regime (for
    models "any engine" over serving engines; for frameworks "earliest build" over the install
    channels, tracker.measure.lag.channels)."""

    regime: str
    definition: str
    primary: bool
    parts: tuple[str, ...]


@dataclass(frozen=True)
class CoverageRule:
    """Coverage of one upstream project's release series on each regime."""

    project: str
    granularity: str  # minor | release
    evidence: tuple[EvidenceRule, ...]
    reference_regime: str = REFERENCE_REGIME
    # earliest-build definitions over the regime's channel definitions (`channels:` entries)
    combined: tuple[Combined, ...] = ()
    # regime -> why its channel is in transition (`in_transition:`), shown beside its rows
    transition: Mapping[str, str] = field(default_factory=dict)


def parse_coverage(
    raw_rules: Sequence[Mapping[str, Any]],
    where: str = "sources.yaml",
    reference_regime: str = REFERENCE_REGIME,
) -> list[CoverageRule]:
    """Validate the `coverage:` list of sources.yaml into CoverageRules (ConfigError naming
    the rule and key on any problem)."""
    rules = []
    seen_projects: set = set()
    for index, raw in enumerate(raw_rules):
        name = f"coverage[{index}]"
        if isinstance(raw, Mapping) and raw.get("artifact") in ("kernel", "collective"):
            continue  # the kernel layer: parse_kernel_layer; collectives: parse_collective_layer
        if not isinstance(raw, Mapping) or "project" not in raw or "regimes" not in raw:
            raise ConfigError(f"{where}: {name}: needs 'project' and 'regimes'")
        if raw.get("artifact", "framework") == "model":
            continue  # model families: parse_model_coverage
        name = f"coverage rule for {preview(raw['project'])}"
        unknown = unknown_key(raw, {"project", "series", "regimes", "in_transition"})
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
        combined: list[Combined] = []
        for regime, definitions in (raw["regimes"] or {}).items():
            mine: list[EvidenceRule | Combined] = []
            for entry in definitions or []:
                if isinstance(entry, Mapping) and "channels" in entry:
                    rule: EvidenceRule | Combined = _earliest_entry(where, name, regime, entry)
                else:
                    rule = _evidence_rule(where, name, regime, entry)
                if any(e.definition == rule.definition for e in mine):
                    raise ConfigError(
                        f"{where}: {name}: regime {preview(regime)} names definition "
                        f"{preview(rule.definition)} twice"
                    )
                mine.append(rule)
            _check_channels(where, name, regime, mine)
            primaries = [e for e in mine if e.primary]
            if len(primaries) != 1:
                raise ConfigError(
                    f"{where}: {name}: regime {preview(regime)} needs exactly one "
                    f"definition marked primary: true (found {len(primaries)})"
                )
            evidence.extend(e for e in mine if isinstance(e, EvidenceRule))
            combined.extend(e for e in mine if isinstance(e, Combined))
        transition = _transition(where, name, raw.get("in_transition"), raw["regimes"] or {})
        rules.append(
            CoverageRule(
                str(raw["project"]),
                granularity,
                tuple(evidence),
                reference_regime,
                tuple(combined),
                transition,
            )
        )
    return rules


def _earliest_entry(where: str, name: str, regime: str, entry: Mapping) -> Combined:
    """An earliest-build entry, ``{definition, primary, channels: [...]}`` (its channel names
    are checked against the regime's definitions by _check_channels)."""
    where = f"{where}: {name}: regime {preview(regime)}"
    unknown = unknown_key(entry, {"definition", "primary", "channels"})
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown}")
    channels = entry.get("channels")
    if "definition" not in entry or not isinstance(channels, list) or not channels:
        raise ConfigError(
            f"{where}: a 'channels' entry needs 'definition' and a non-empty list of the "
            "regime's channel definitions"
        )
    return Combined(
        regime, str(entry["definition"]), bool(entry.get("primary", False)), tuple(channels)
    )


def _check_channels(
    where: str, name: str, regime: str, mine: Sequence[EvidenceRule | Combined]
) -> None:
    """Each earliest-build definition names distinct evidence definitions of its own regime:
    not itself, not another combined one, none twice (one is allowed: a regime with one
    install channel so far)."""
    channels = {e.definition for e in mine if isinstance(e, EvidenceRule)}
    for combo in (e for e in mine if isinstance(e, Combined)):
        at = f"{where}: {name}: regime {preview(regime)}: {preview(combo.definition)}"
        for part in combo.parts:
            if part == combo.definition:
                raise ConfigError(f"{at} names itself among its channels")
            if part not in channels:
                raise ConfigError(
                    f"{at} names channel {preview(part)}, which is not a definition with "
                    "'evidence' of this regime"
                )
        if len(set(combo.parts)) != len(combo.parts):
            raise ConfigError(f"{at} names a channel twice")


def _transition(where: str, name: str, raw: Any, regimes: Mapping) -> dict[str, str]:
    """``in_transition: {regime: why}``: regimes of this rule whose install channel is moving
    (their open rows are real; the report says why beside them)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: {name}: key 'in_transition': must be a mapping of regimes")
    for regime, why in raw.items():
        if regime not in regimes:
            raise ConfigError(
                f"{where}: {name}: key 'in_transition': regime {preview(regime)} has no "
                "definitions in this rule"
            )
        if not isinstance(why, str) or not why.strip():
            raise ConfigError(
                f"{where}: {name}: key 'in_transition': regime {preview(regime)}: must be "
                "a non-empty string saying why"
            )
    return {str(k): str(v) for k, v in raw.items()}


def _evidence_rule(where: str, name: str, regime: str, entry: Any) -> EvidenceRule:
    allowed = {"definition", "primary", "evidence", "version_map", "builds"}
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
        parse_builds(
            entry.get("builds"),
            f"{where}: {name}: definition {preview(entry['definition'])}",
        ),
    )


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
        if "engine_cuda" in day0 and not any(r == REFERENCE_REGIME for r, _ in engines):
            raise ConfigError(
                f"{where}: {name}: day0 engine_cuda needs cuda entries marked with 'engine'"
            )
        if "benchmark_cuda" in day0 and not any(
            e.regime == REFERENCE_REGIME and e.kind == "benchmark_config" for e in evidence
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
