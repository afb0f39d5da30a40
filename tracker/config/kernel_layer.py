"""The kernel layer's coverage entry, ``{project: kernels, artifact: kernel}`` (docs/methodology.md,
"The kernel layer"), checked once by read_config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError


@dataclass(frozen=True)
class KernelLayerRule:
    """The kernel layer's coverage entry, ``{project: kernels, artifact: kernel}``: kernel
    features measured from the ledger (tracker.measure.kernels.ledger) or from ``ledger``, a YAML
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
