"""The kernel-feature ledger (``tracker/measure/data/kernel_features.yaml``) read into records.

The ledger is part of the measure, not of sources.yaml: it says what counts as a kernel
feature's day 0 and as its arrival on each regime (docs/methodology.md, "The kernel layer"), the
way the lag definitions do, and changes with them. sources.yaml says where the evidence is
collected from; ``coverage: - {project: kernels, artifact: kernel}`` turns the layer on.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from tracker.config import safe_load_yaml
from tracker.config.preview import unknown_key
from tracker.errors import ConfigError
from tracker.names import REGIMES as ALL_REGIMES

REGIMES = ALL_REGIMES[1:]  # the regimes a feature gets a cell on besides the reference
RULE_KINDS = ("release", "commit", "listed", "release_note", "open", "untracked")
_ID = re.compile(r"^[a-z0-9][a-z0-9_]{0,49}$")  # fits lag_samples.series
_KEYS = {
    "kind", "project", "version", "path", "sha", "pr", "match",
    "channel", "label", "hardware", "note", "reason",
}  # fmt: skip
# What each kind needs besides `kind` (`commit` also needs `sha` or `pr`, or neither: the file's
# first commit; `open` names the project whose reading finds nothing yet).
_NEEDS = {
    "release": ("project", "version"),
    "commit": ("project", "path"),
    "listed": ("project", "match"),
    "release_note": ("project", "match"),
    "open": ("project", "reason"),
    "untracked": ("reason",),
}


@dataclass(frozen=True)
class KernelRule:
    """How one cell is dated (module doc of the ledger file)."""

    kind: str
    project: str = ""
    version: str = ""
    path: str = ""
    sha: str = ""
    pr: int | None = None
    match: str = ""
    channel: str = ""  # not the upstream library: where users install it from
    label: str = ""  # alpha / preview / beta / GA of the first installable release
    hardware: str = ""
    note: str = ""
    reason: str = ""

    @property
    def definition(self) -> str:
        """The lag rows' `definition`: the evidence project and kind ("aiter_commit")."""
        if self.kind == "untracked":
            return "untracked"
        return f"{self.project}_{self.kind}".replace("-", "_")


@dataclass(frozen=True)
class KernelFeature:
    id: str
    name: str
    library: str
    cuda: KernelRule
    regimes: Mapping[str, KernelRule]  # every regime of REGIMES; a missing one is untracked


def _rule(raw: Any, where: str) -> KernelRule:
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{where}: must be a mapping with a kind")
    unknown = unknown_key(raw, _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown}")
    kind = raw.get("kind")
    if kind not in RULE_KINDS:
        raise ConfigError(f"{where}: kind {kind!r} is not one of {', '.join(RULE_KINDS)}")
    missing = [k for k in _NEEDS[kind] if not raw.get(k)]
    if missing:
        raise ConfigError(f"{where}: kind {kind} needs {missing[0]!r}")
    pr = raw.get("pr")
    if pr is not None and (not isinstance(pr, int) or isinstance(pr, bool) or pr <= 0):
        raise ConfigError(f"{where}: pr must be a pull request number, not {pr!r}")
    if raw.get("match"):
        try:
            re.compile(str(raw["match"]))
        except re.error as exc:
            raise ConfigError(f"{where}: match is not a regular expression: {exc}") from None
    text = {k: str(raw.get(k) or "") for k in _KEYS - {"kind", "pr"}}
    return KernelRule(kind=kind, pr=pr, **text)


def parse_ledger(raw: Any, where: str) -> list[KernelFeature]:
    """The ledger's features (ConfigError naming the file, the feature and the key)."""
    entries = raw.get("features") if isinstance(raw, Mapping) else None
    if not isinstance(entries, list):
        raise ConfigError(f"{where}: needs a list 'features'")
    out: list[KernelFeature] = []
    seen: set[str] = set()
    for position, entry in enumerate(entries):
        if not isinstance(entry, Mapping):
            raise ConfigError(f"{where}: feature {position + 1} is not a mapping")
        fid = str(entry.get("id") or "")
        name = f"{where}: feature {fid or position + 1!r}"
        if not _ID.match(fid):
            raise ConfigError(f"{name}: id must be lower-case letters, digits and _ (50 at most)")
        if fid in seen:
            raise ConfigError(f"{name}: id listed twice")
        seen.add(fid)
        for key in ("name", "library", "cuda"):
            if not entry.get(key):
                raise ConfigError(f"{name}: needs {key!r}")
        cuda = _rule(entry["cuda"], f"{name}: cuda")
        if cuda.kind not in ("release", "commit"):
            raise ConfigError(f"{name}: cuda: day 0 is a release or a commit, not {cuda.kind}")
        given = entry.get("regimes") or {}
        if not isinstance(given, Mapping) or set(given) - set(REGIMES):
            raise ConfigError(f"{name}: regimes must be a mapping of {', '.join(REGIMES)}")
        regimes = {
            r: _rule(given[r], f"{name}: {r}")
            if r in given
            else KernelRule("untracked", reason="not in the ledger")
            for r in REGIMES
        }
        out.append(KernelFeature(fid, str(entry["name"]), str(entry["library"]), cuda, regimes))
    return out


@lru_cache(maxsize=4)
def load_ledger(path: str | None = None) -> tuple[KernelFeature, ...]:
    """The shipped ledger (or the YAML file at ``path``), parsed once per process."""
    if path:
        text, where = Path(path).read_text(encoding="utf-8"), path
    else:
        ref = resources.files("tracker.measure") / "data" / "kernel_features.yaml"
        text, where = ref.read_text(encoding="utf-8"), "kernel_features.yaml"
    return tuple(parse_ledger(safe_load_yaml(text) or {}, where))
