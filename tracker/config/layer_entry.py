"""The one entry of the coverage list that declares a layer of its own (``artifact: kernel``,
``artifact: collective``): found, refused when given twice, its keys checked."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from tracker.config.preview import preview, unknown_key
from tracker.errors import ConfigError


def layer_entry(
    raw_rules: Sequence[Mapping[str, Any]],
    artifact: str,
    label: str,
    allowed: Collection[str],
    where: str,
) -> tuple[Mapping[str, Any], str] | None:
    """(the entry, the name its errors start with), None when there is none; ConfigError on a
    second entry (`label` names it: "kernel layer entry") or a key not in `allowed`."""
    found = [r for r in raw_rules if isinstance(r, Mapping) and r.get("artifact") == artifact]
    if not found:
        return None
    if len(found) > 1:
        raise ConfigError(f"{where}: coverage: one {label} (artifact: {artifact}) at most")
    raw = found[0]
    name = f"{where}: coverage rule for {preview(raw.get('project'))}"
    unknown = unknown_key(raw, allowed)
    if unknown:
        raise ConfigError(f"{name}: unknown key {unknown}")
    return raw, name
