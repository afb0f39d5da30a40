"""The value types of the coverage rules' keys, checked before their meaning is read
(tracker.config.coverage parses the meaning): a wrong type is a ConfigError naming file, rule
and key."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.config.preview import preview
from tracker.config.value_types import VALUE_TYPES
from tracker.errors import ConfigError

# The value type of each key the coverage rules may hold, by level (tracker.config.value_types
# names). Unknown keys are left to the
# parsers below, which name them.
_RULE_TYPES = {"project": "text", "series": "text", "artifact": "text", "day0": "text_list"}
_ENTRY_TYPES = {
    "definition": "text",
    "primary": "bool",
    "engine": "text",
    "engines": "text_list",
    "channels": "text_list",
}
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
        if regimes is None or rule.get("artifact") == "collective":  # parse_collective_layer
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
