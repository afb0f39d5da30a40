"""The kernel layer's coverage entry, ``{project: kernels, artifact: kernel}`` (docs/methodology.md,
"The kernel layer"), checked once by read_config."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tracker.config.layer_entry import layer_entry
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
    entry = layer_entry(
        raw_rules, "kernel", "kernel layer entry", {"project", "artifact", "ledger"}, where
    )
    if entry is None:
        return None
    raw, name = entry
    ledger = raw.get("ledger")
    if ledger is not None and not (isinstance(ledger, str) and ledger):
        raise ConfigError(f"{name}: ledger must be a path")
    return KernelLayerRule(str(raw.get("project") or "kernels"), ledger)
