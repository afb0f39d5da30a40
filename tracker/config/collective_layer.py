"""The collectives layer's coverage entry, ``{project: nccl, artifact: collective, ...}``
(docs/methodology.md, "The collectives layer"), checked once by read_config.

```yaml
  - project: nccl                 # day 0: the first release (tag v2.X.Y-1) of each minor series
    artifact: collective
    since: "2.18"                 # the first series measured
    regimes:
      rocm:                       # a regime whose library tracks NCCL's versions
        definition: rocm_release
        carrier: rccl             # its changelog notes: a release and NCCL versions
        releases: [rocm, rocm-tags, therock]   # projects whose releases date a ROCm version
      neuron: {reason: "..."}     # a regime with no NCCL mapping: a stated reason, no number
```
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tracker.config.layer_entry import layer_entry
from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError
from tracker.versions import parse_version


@dataclass(frozen=True)
class CollectiveRegime:
    """How one regime's collectives library is measured against NCCL: either dated by the
    releases that carry it (`carrier` notes, `releases` projects), or not at all, with why."""

    regime: str
    definition: str = ""
    carrier: str = ""  # the project whose changelog sections name releases and NCCL versions
    releases: tuple[str, ...] = ()  # projects whose releases date those sections
    reason: str = ""  # no NCCL mapping: why (shown instead of a number)


@dataclass(frozen=True)
class CollectiveLayerRule:
    project: str = "nccl"
    since: str = ""  # first series measured ("" : every series)
    regimes: tuple[CollectiveRegime, ...] = field(default_factory=tuple)

    def measured(self) -> tuple[CollectiveRegime, ...]:
        return tuple(r for r in self.regimes if not r.reason)

    def reasons(self) -> dict[str, str]:
        return {r.regime: r.reason for r in self.regimes if r.reason}


def _text(value: Any) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _regime(where: str, regime: Any, raw: Any) -> CollectiveRegime:
    name = f"{where}: regime {preview(regime)}"
    if not isinstance(regime, str) or not isinstance(raw, Mapping):
        raise ConfigError(f"{name}: must be a mapping (definition, carrier, releases; or reason)")
    unknown = unknown_key(raw, {"definition", "carrier", "releases", "reason"})
    if unknown:
        raise ConfigError(f"{name}: unknown key {unknown}")
    if "reason" in raw:
        if not _text(raw["reason"]) or len(raw) > 1:
            raise ConfigError(f"{name}: 'reason' is a sentence, and alone")
        return CollectiveRegime(regime, reason=str(raw["reason"]).strip())
    releases = raw.get("releases")
    if not (
        _text(raw.get("definition"))
        and _text(raw.get("carrier"))
        and isinstance(releases, list)
        and releases
        and all(_text(p) for p in releases)
    ):
        raise ConfigError(
            f"{name}: needs 'definition', 'carrier' (a project) and 'releases' (projects)"
        )
    return CollectiveRegime(
        regime, str(raw["definition"]), str(raw["carrier"]), tuple(str(p) for p in releases)
    )


def parse_collective_layer(
    raw_rules: Sequence[Mapping[str, Any]], where: str
) -> CollectiveLayerRule | None:
    """The ``artifact: collective`` entry of the coverage list, None when there is none
    (ConfigError naming a wrong key, or a second such entry)."""
    entry = layer_entry(
        raw_rules,
        "collective",
        "collectives entry",
        {"project", "artifact", "since", "regimes"},
        where,
    )
    if entry is None:
        return None
    raw, name = entry
    since = raw.get("since", "")
    if since and parse_version(str(since)) is None:
        raise ConfigError(f"{name}: 'since' must be a version such as \"2.18\"")
    regimes = raw.get("regimes")
    if not isinstance(regimes, Mapping) or not regimes:
        raise ConfigError(f"{name}: needs 'regimes'")
    return CollectiveLayerRule(
        str(raw.get("project") or "nccl"),
        str(since or ""),
        tuple(_regime(name, k, v) for k, v in regimes.items()),
    )
