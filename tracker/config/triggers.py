"""CI trigger selectors and mirrors, checked once (by read_config): per CI source, the triggers
its headline pass rate counts (docs/methodology.md, CI pass rate: nightly vs per-merge;
tracker/measure/ci/rates.py splits the rates by them), and which CI source a pipeline mirrors
(``mirrors``: vLLM's amd-ci runs the groups of its ci; tracker/measure/ci/parity.py)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from tracker.config.preview import preview
from tracker.errors import ConfigError

# source id -> the triggers its headline counts; None: every trigger
Selectors = Mapping[str, frozenset[str] | None]
SELECTOR_KEY = "trigger"


class CiSource(Protocol):
    """What a selector is read from: a source entry (tracker.config.SourceSpec)."""

    @property
    def id(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def options(self) -> Mapping[str, Any]: ...


def trigger_selectors(
    file: str | Path, sources: Iterable[CiSource], ci_kinds: Collection[str]
) -> dict[str, frozenset[str] | None]:
    """Per source of a CI kind (one whose keys include ``trigger``): the lowercased triggers of
    its ``trigger`` key, None when it has none. ConfigError naming file, source and key for a
    selector that is not a non-empty list of names."""
    out: dict[str, frozenset[str] | None] = {}
    for spec in sources:
        if spec.kind not in ci_kinds:
            continue
        raw = spec.options.get(SELECTOR_KEY)
        if raw is None:
            out[spec.id] = None
            continue
        values = [raw] if isinstance(raw, str) else raw
        if (
            not isinstance(values, list)
            or not values
            or not all(isinstance(v, str) and v.strip() for v in values)
        ):
            raise ConfigError(
                f"{file}: source {preview(spec.id)}: key 'trigger': expected a list of "
                f"trigger names such as [schedule], got {preview(raw)}"
            )
        out[spec.id] = frozenset(v.strip().lower() for v in values)
    return out


@dataclass(frozen=True)
class MirrorPair:
    """A CI source that mirrors another's test groups (its ``mirrors`` key)."""

    mirror: str  # source id
    mirror_regime: str
    reference: str
    reference_regime: str


class RegimeSource(CiSource, Protocol):
    @property
    def regime(self) -> str | None: ...


def mirror_pairs(
    file: str | Path, sources: Iterable[RegimeSource], ci_kinds: Collection[str]
) -> tuple[MirrorPair, ...]:
    """(mirror, reference) pairs from the ``mirrors`` keys of CI sources. ConfigError naming
    file, source and key when one does not name another CI source."""
    specs = {s.id: s for s in sources}
    pairs = []
    for spec in specs.values():
        named = spec.options.get("mirrors")
        if named is None or spec.kind not in ci_kinds:
            continue
        reference = specs.get(named) if isinstance(named, str) else None
        if reference is None or reference.kind not in ci_kinds or reference.id == spec.id:
            raise ConfigError(
                f"{file}: source {preview(spec.id)}: key 'mirrors': expected the id of another "
                f"CI source (kind buildkite or github_actions), got {preview(named)}"
            )
        pairs.append(
            MirrorPair(spec.id, spec.regime or "none", reference.id, reference.regime or "")
        )
    return tuple(pairs)
