"""sources.yaml + environment -> validated, typed specs.

Every error names the file, the source and the key, so that a cron mail says what to fix.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from tracker.config.database import DatabaseWaits, parse_database_waits
from tracker.config.digest import Thresholds, parse_thresholds
from tracker.config.preview import preview, shown, unknown_key
from tracker.config.report import ReportSettings, parse_report_settings
from tracker.config.value_types import VALUE_TYPES
from tracker.config.yamlload import MAX_SOURCES_MB as MAX_SOURCES_MB
from tracker.config.yamlload import read_sources_text, safe_load_yaml
from tracker.errors import ConfigError
from tracker.names import REFERENCE_REGIME

if TYPE_CHECKING:  # read by config_from_data: `tracker --help` and query start without them
    from tracker.config.collective_layer import CollectiveLayerRule
    from tracker.config.coverage import CoverageRule, ModelCoverageRule
    from tracker.config.kernel_layer import KernelLayerRule
    from tracker.config.triggers import MirrorPair, Selectors

DEFAULT_SOURCES = "sources.yaml"
DEFAULT_DATABASE = "sqlite:///tracker.db"

TOP_LEVEL_KEYS = {"regimes", "sources", "coverage", "settings", "report", "digest", "database"}
REGIME_KEYS = {"id", "vendor", "silicon", "reference", "description"}
# Keys every source entry may carry, whatever its kind.
COMMON_KEYS = {"id", "kind", "project", "regime", "enabled", "description", "lookback_days"}
COMMON_KEYS.add("moved_to")  # the source that now carries this one's channel (windows)
# Bounds of a source's HTTP (tracker/collect/limits.py has the defaults): positive numbers.
LIMIT_KEYS = {"max_pages": int, "max_body_mb": float, "time_budget_seconds": float}
COMMON_KEYS |= set(LIMIT_KEYS)
REQUIRED_COMMON = {"id", "kind", "project"}
DATABASE_SCHEMES = ("sqlite", "postgresql")


# The keys every source may carry, typed like a kind's keys in KINDS.
COMMON_TYPES: dict[str, Any] = {
    "id": "source_id",
    "kind": "text",
    "project": "text",
    "regime": "text",
    "enabled": "bool",
    "description": "text",
    "lookback_days": "non_negative_number",
    "moved_to": "source_id",
}


@dataclass(frozen=True)
class Regime:
    """A software stack a model can run on (docs/methodology.md, regimes)."""

    id: str
    vendor: str = ""
    silicon: str = ""
    reference: bool = False


@dataclass(frozen=True)
class SourceSpec:
    """One validated source entry. `options` holds the kind-specific keys."""

    id: str
    kind: str
    project: str
    regime: str | None = None
    enabled: bool = True
    lookback_days: float = 0.0
    options: Mapping[str, Any] = field(default_factory=dict)
    # None: the default of tracker/collect/limits.py (or the kind's own MAX_PAGES).
    max_pages: int | None = None
    max_body_mb: float | None = None
    time_budget_seconds: float | None = None
    # The channel moved to that source (a repository retired for a new one): this source's facts
    # stay evidence, but its silence narrows no observation window (measure.lag.windows).
    moved_to: str | None = None


@dataclass(frozen=True)
class Config:
    """The whole sources.yaml, each section checked and typed once by read_config: the stages
    receive these records and never read the file's raw sections again."""

    path: Path
    regimes: tuple[Regime, ...]
    sources: tuple[SourceSpec, ...]
    coverage: tuple[CoverageRule, ...] = ()  # the framework rules of `coverage:`
    settings: Mapping[str, Any] = field(default_factory=dict)
    report: ReportSettings = field(default_factory=ReportSettings)
    digest: Thresholds = field(default_factory=Thresholds)
    database: DatabaseWaits = field(default_factory=DatabaseWaits)  # before TRACKER_DB_*
    model_coverage: tuple[ModelCoverageRule, ...] = ()  # its `artifact: model` rules
    kernel_layer: KernelLayerRule | None = None  # its `artifact: kernel` entry, if any
    collective_layer: CollectiveLayerRule | None = None  # its `artifact: collective` entry
    triggers: Selectors = field(default_factory=dict)  # CI source id -> its headline triggers
    mirrors: tuple[MirrorPair, ...] = ()  # CI sources that mirror another's test groups

    def source(self, source_id: str) -> SourceSpec:
        for spec in self.sources:
            if spec.id == source_id:
                return spec
        known = ", ".join(s.id for s in self.sources)
        raise ConfigError(f"{self.path}: no source with id {source_id!r} (known: {known})")

    @property
    def regime_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.regimes)

    @property
    def reference_regime(self) -> str:
        """The regime marked ``reference: true`` (day 0 is its own), cuda when none is."""
        return _reference(self.regimes)


def _reference(regimes: tuple[Regime, ...]) -> str:
    return next((r.id for r in regimes if r.reference), REFERENCE_REGIME)


def sources_path(explicit: str | os.PathLike | None = None) -> Path:
    """--sources, else TRACKER_SOURCES, else ./sources.yaml."""
    return Path(explicit or os.environ.get("TRACKER_SOURCES") or DEFAULT_SOURCES)


def database_url(explicit: str | None = None, where: str = "--db") -> str:
    """`explicit` (from `where`: --db, or the variable click read it from), else
    TRACKER_DATABASE_URL, else an SQLite file tracker.db in the working directory.

    postgresql:// URLs use psycopg. Anything that is not an sqlite:// or postgresql:// URL is a
    ConfigError: a bare word used to become an empty SQLite file of that name.
    """
    if explicit:
        return checked_database_url(explicit, where)
    url = os.environ.get("TRACKER_DATABASE_URL") or DEFAULT_DATABASE
    return checked_database_url(url, "TRACKER_DATABASE_URL")


def query_database_url(default: str) -> str:
    """The URL `tracker query` uses: TRACKER_QUERY_DATABASE_URL (a read-only login, see
    docs/operations.md) when set, else `default` (the store's URL)."""
    url = os.environ.get("TRACKER_QUERY_DATABASE_URL")
    return checked_database_url(url, "TRACKER_QUERY_DATABASE_URL") if url else default


def query_role() -> str:
    """The read-only PostgreSQL role `tracker query` switches to from a privileged session:
    TRACKER_QUERY_ROLE, else tracker_reader."""
    return os.environ.get("TRACKER_QUERY_ROLE") or "tracker_reader"


def checked_database_url(url: str, where: str) -> str:
    """`url` with postgresql:// (and postgres://) mapped to psycopg; ConfigError naming `where`
    (the option or variable it came from) unless it is an SQLite or PostgreSQL URL."""
    # psycopg (3) is the driver we ship; a plain postgresql:// URL would ask for psycopg2.
    for plain in ("postgresql://", "postgres://"):
        if url.startswith(plain):
            url = "postgresql+psycopg://" + url[len(plain) :]
    hint = "e.g. sqlite:///tracker.db or postgresql+psycopg://user@host/dbname"
    if "://" not in url:
        raise ConfigError(
            f"{where}: {url!r} is not a database URL ({hint}; an SQLite file is sqlite:///{url})"
        )
    from sqlalchemy.engine import make_url  # here: ~0.3 s, and `tracker --help` reads this module
    from sqlalchemy.exc import ArgumentError

    try:
        scheme = make_url(url).get_backend_name()
    except ArgumentError:
        raise ConfigError(f"{where}: {url!r} is not a database URL ({hint})") from None
    if scheme not in DATABASE_SCHEMES:
        raise ConfigError(
            f"{where}: database {scheme!r} is not supported (SQLite or PostgreSQL: {hint})"
        )
    return url


class KindKeys(Protocol):
    """What config checking needs of a source kind: its keys and their types (see KINDS)."""

    @property
    def required(self) -> Collection[str]: ...

    @property
    def optional(self) -> Collection[str]: ...

    @property
    def types(self) -> Mapping[str, Any]: ...


def read_config(path: str | os.PathLike | None, kinds: Mapping[str, KindKeys]) -> Config:
    """Read sources.yaml and check it whole (config_from_data). Raises ConfigError naming file,
    source and key; a file over MAX_SOURCES_MB is refused before it is parsed."""
    import yaml  # here: commands that read no sources.yaml (query, --help) start without it

    file = sources_path(path)
    try:
        raw = safe_load_yaml(read_sources_text(file), str(file))
    except FileNotFoundError:
        raise ConfigError(f"{file}: not found (pass --sources or set TRACKER_SOURCES)") from None
    except UnicodeDecodeError as exc:
        byte = f"byte {exc.object[exc.start]:#04x} at offset {exc.start}"
        raise ConfigError(f"{file}: not UTF-8 text ({byte}); save it as UTF-8") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{file}: not valid YAML: {exc}") from None
    except ValueError as exc:  # a value its constructor refuses (an int of 5,000 digits)
        raise ConfigError(f"{file}: a value YAML cannot read: {preview(str(exc))}") from None
    return config_from_data(file, raw, kinds)


def config_from_data(file: Path, raw: Any, kinds: Mapping[str, KindKeys]) -> Config:
    """The parsed content of sources.yaml `file` as a Config: the top level, the regimes, each
    source entry checked against the source kinds in `kinds` (kind -> its required / optional
    keys), the coverage rules, the report and digest settings and the CI trigger selectors
    (the sources of kinds that take a `trigger` key). Raises ConfigError naming file, source
    or rule, and key."""
    from tracker.config.collective_layer import parse_collective_layer
    from tracker.config.coverage import parse_coverage, parse_model_coverage
    from tracker.config.coverage_values import check_coverage_values
    from tracker.config.kernel_layer import parse_kernel_layer
    from tracker.config.triggers import SELECTOR_KEY, mirror_pairs, trigger_selectors

    if not isinstance(raw, dict):
        raise ConfigError(f"{file}: expected a mapping with a 'sources' list at the top")
    unknown = unknown_key(raw, TOP_LEVEL_KEYS)
    if unknown:
        raise ConfigError(
            f"{file}: unknown top-level key {unknown} "
            f"(allowed: {', '.join(sorted(TOP_LEVEL_KEYS))})"
        )

    regimes = tuple(_regime(file, i, entry) for i, entry in enumerate(raw.get("regimes") or []))
    regime_ids = {r.id for r in regimes} | {"none"}
    entries = raw.get("sources") or []
    if not isinstance(entries, list):
        raise ConfigError(f"{file}: 'sources' must be a list of source entries")

    seen: set[str] = set()
    specs = []
    for index, entry in enumerate(entries):
        spec = _source(file, index, entry, kinds, regime_ids if regimes else None)
        if spec.id in seen:
            raise ConfigError(f"{file}: source {spec.id!r}: duplicate id (ids must be unique)")
        seen.add(spec.id)
        specs.append(spec)
    for spec in specs:
        if spec.moved_to is not None and (spec.moved_to == spec.id or spec.moved_to not in seen):
            raise ConfigError(
                f"{file}: source {spec.id!r}: key 'moved_to': {preview(spec.moved_to)} is not "
                "another source of this file"
            )
    coverage = raw.get("coverage") or []
    if not isinstance(coverage, list):
        raise ConfigError(f"{file}: 'coverage' must be a list of rules")
    check_coverage_values(coverage, str(file))  # types first: the parsers read meanings
    rules = tuple(parse_coverage(coverage, str(file), _reference(regimes)))
    model_rules = tuple(parse_model_coverage(coverage, str(file)))
    kernel_layer = parse_kernel_layer(coverage, str(file))
    collective_layer = parse_collective_layer(coverage, str(file))
    report = parse_report_settings(raw.get("report"), file)
    digest = parse_thresholds(raw.get("digest"), str(file))
    database = parse_database_waits(raw.get("database"), file)
    ci_kinds = {k for k, m in kinds.items() if SELECTOR_KEY in {*m.required, *m.optional}}
    triggers = trigger_selectors(file, specs, ci_kinds)
    mirrors = mirror_pairs(file, specs, ci_kinds)
    return Config(
        file,
        regimes,
        tuple(specs),
        coverage=rules,
        settings=raw.get("settings") or {},
        report=report,
        digest=digest,
        database=database,
        model_coverage=model_rules,
        kernel_layer=kernel_layer,
        collective_layer=collective_layer,
        triggers=triggers,
        mirrors=mirrors,
    )


def _regime(file: Path, index: int, entry: Any) -> Regime:
    if isinstance(entry, str):
        return Regime(entry)
    if not isinstance(entry, dict) or "id" not in entry:
        raise ConfigError(f"{file}: regimes[{index}]: each regime needs an 'id'")
    unknown = unknown_key(entry, REGIME_KEYS)
    if unknown:
        raise ConfigError(f"{file}: regime {preview(entry['id'])}: unknown key {unknown}")
    types = {"id": "text", "vendor": "text", "silicon": "text", "reference": "bool"}
    for key in sorted(set(entry) & set(types)):
        _check_value(file, f"regime {preview(entry['id'])}", key, entry[key], types[key])
    return Regime(
        str(entry["id"]),
        str(entry.get("vendor", "")),
        str(entry.get("silicon", "")),
        entry.get("reference", False),
    )


def _check_value(file: Path, where: str, key: str, value: Any, kind: Any) -> None:
    """ConfigError naming file, `where` (the source) and key unless `value` is of type `kind`
    (a VALUE_TYPES name, a tuple of allowed strings, or a function returning a problem)."""
    if isinstance(kind, tuple):
        problem = None if value in kind else f"must be one of {', '.join(kind)}"
    elif callable(kind):
        problem = kind(value)
    else:
        test, wanted = VALUE_TYPES[kind]
        problem = None if test(value) else f"must be {wanted}"
    if problem:
        raise ConfigError(f"{file}: {where}: key {key!r}: {problem}, not {shown(value)}")


def _source(
    file: Path,
    index: int,
    entry: Any,
    registry: Mapping[str, KindKeys],
    regime_ids: set[str] | None,
) -> SourceSpec:
    if not isinstance(entry, dict):
        raise ConfigError(
            f"{file}: sources[{index}]: expected a mapping, got {type(entry).__name__}"
        )
    if entry.get("id") not in (None, ""):  # first: the messages below name the source by it
        _check_value(file, f"sources[{index}]", "id", entry["id"], "source_id")
    name = entry.get("id", f"sources[{index}]")
    for key in sorted(REQUIRED_COMMON):
        if entry.get(key) in (None, ""):
            raise ConfigError(f"{file}: source {name!r}: missing required key {key!r}")
    for key in sorted(set(entry) & set(COMMON_TYPES)):
        _check_value(file, f"source {name!r}", key, entry[key], COMMON_TYPES[key])
    kind = entry["kind"]
    if kind not in registry:
        raise ConfigError(
            f"{file}: source {name!r}: key 'kind': unknown kind {preview(kind)} "
            f"(known: {', '.join(sorted(registry))})"
        )
    module = registry[kind]
    required = set(module.required)
    allowed = COMMON_KEYS | required | set(module.optional)
    for key in sorted(entry, key=str):  # keys may mix types (1: and foo:)
        if key not in allowed:
            raise ConfigError(
                f"{file}: source {name!r}: unknown key {preview(key)} for kind {kind!r} "
                f"(allowed: {', '.join(sorted(allowed - {'id', 'kind'}))})"
            )
    for key in sorted(required):
        if entry.get(key) in (None, ""):
            raise ConfigError(
                f"{file}: source {name!r}: missing required key {key!r} for kind {kind!r}"
            )
    types = module.types
    for key in sorted(set(entry) - COMMON_KEYS):
        if key in types:
            _check_value(file, f"source {name!r}", key, entry[key], types[key])
    regime = entry.get("regime")
    if regime is not None and regime_ids is not None and regime not in regime_ids:
        raise ConfigError(
            f"{file}: source {name!r}: key 'regime': unknown regime {preview(regime)} "
            f"(declared: {', '.join(sorted(regime_ids))})"
        )
    limits = {key: _limit(file, name, key, entry.get(key)) for key in LIMIT_KEYS}
    options = {k: v for k, v in entry.items() if k not in COMMON_KEYS}
    return SourceSpec(
        id=str(entry["id"]),
        kind=kind,
        project=str(entry["project"]),
        regime=regime,
        enabled=entry.get("enabled", True),
        lookback_days=float(entry.get("lookback_days", 0)),
        options=options,
        moved_to=entry.get("moved_to"),
        **limits,
    )


def _limit(file: Path, name: str, key: str, value: Any) -> Any:
    """A LIMIT_KEYS value: None when unset, else a positive number of the key's type."""
    if value is None:
        return None
    kind = LIMIT_KEYS[key]
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    if ok and kind is int and not float(value).is_integer():
        ok = False
    if not ok or value != value or value == float("inf"):
        what = "a positive whole number" if kind is int else "a positive number"
        raise ConfigError(
            f"{file}: source {name!r}: key {key!r}: expected {what}, got {preview(value)}"
        )
    return kind(value)
