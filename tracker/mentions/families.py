"""The model-family alias table (``data/model_families.yaml``) as lookups.

Contract: :func:`load_families` returns one :class:`FamilyTable` per process (cached); it maps a
model name as written ("Qwen3-235B-A22B", "Llama 4 Scout", "GPT-OSS 120B") or a vLLM architecture
class ("Qwen3MoeForCausalLM") to a size-independent family id, and holds each family's day-0 facts
(first vLLM release and its date, first public weights). The table is data: a new model is one
line in the YAML file, no code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache
from importlib import resources
from pathlib import Path

from tracker.config.preview import preview
from tracker.config.yamlload import safe_load_yaml
from tracker.errors import ConfigError

# Words that make a support statement about a model not support: a maturity caveat (beta,
# preview, not tested, ...) or a limit ("only supports", "tested only on Trn1", "supported up to
# batch size 32"). Shared by the tagger's model mentions, the model-list collector and the model
# lag (light to import).
MATURITY = re.compile(
    r"\bbeta\b|\bpreview|\bexperimental|\bunverified|\buntested|\bnot tested\b"
    r"|not yet passing|\bearly access\b"
)
NOT_SUPPORT = re.compile(
    MATURITY.pattern + r"|\bonly supports?\b|\bnot yet\b|\btested only\b|\bonly tested\b"
    r"|\bsupport(?:s|ed)? up to\b"
)
_SEP = re.compile(r"[\s_()\[\]]+")
_DASHES = re.compile(r"-{2,}")  # compiled once: re.sub(str, ...) pays a cache lookup per call
_HEAD = re.compile(r"[a-z]+")


def normalise_name(raw: str) -> str:
    """Lower case, and every run of spaces, underscores and brackets one ``-`` (so "Qwen3 MoE",
    "Qwen3_MoE" and "qwen3-moe" are one spelling)."""
    return _DASHES.sub("-", _SEP.sub("-", raw.strip().lower())).strip("-")


@dataclass(frozen=True)
class Family:
    id: str
    name: str
    aliases: tuple[str, ...]
    arch: tuple[str, ...] = ()
    vllm: str | None = None  # first vLLM release listing an architecture class, e.g. "v0.8.4"
    weights_date: datetime | None = None
    weights_url: str = ""


@dataclass(frozen=True)
class FamilyTable:
    families: dict[str, Family]
    vllm_releases: dict[str, tuple[datetime, str]]  # "v0.8.4" -> (date, url)
    # normalised alias -> family id, and the alias heads (leading letters) for the prefilter
    aliases: dict[str, str] = field(default_factory=dict)
    arch: dict[str, str] = field(default_factory=dict)
    heads: tuple[str, ...] = ()
    by_head: dict[str, list[tuple[str, str]]] = field(default_factory=dict)

    def match(self, window: str) -> tuple[str, int] | None:
        """The family of the longest alias that is a prefix of the normalised ``window`` and ends
        at a name boundary (end, ``-``, ``/`` or a ``.`` not followed by a digit), with the
        alias's length; None when no alias fits."""
        head = _HEAD.match(window)
        for alias, fid in self.by_head.get(head.group() if head else "", ()):  # longest first
            if window.startswith(alias):
                rest = window[len(alias) : len(alias) + 2]
                if not rest or rest[0] in "-/" or (rest[0] == "." and not rest[1:2].isdigit()):
                    return fid, len(alias)
        return None


def _date(raw: object, where: str) -> datetime:
    try:
        when = datetime.fromisoformat(str(raw).replace("Z", "+00:00"))
    except ValueError as exc:
        raise ConfigError(f"{where}: {preview(raw)} is not a date") from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def parse_families(raw: dict, where: str) -> FamilyTable:
    """Validate the YAML document into a :class:`FamilyTable` (ConfigError naming the line's id)."""
    releases = {
        str(tag): (_date(v.get("date"), f"{where}: vllm_releases {tag}"), str(v.get("url") or ""))
        for tag, v in (raw.get("vllm_releases") or {}).items()
    }
    families: dict[str, Family] = {}
    aliases: dict[str, str] = {}
    arch: dict[str, str] = {}
    for entry in raw.get("families") or []:
        fid = str(entry.get("id") or "")
        if not fid or not entry.get("aliases"):
            raise ConfigError(f"{where}: family {preview(entry)} needs 'id' and 'aliases'")
        if fid in families:
            raise ConfigError(f"{where}: family {preview(fid)} listed twice")
        weights = entry.get("weights") or {}
        fam = Family(
            fid,
            str(entry.get("name") or fid),
            tuple(str(a) for a in entry["aliases"]),
            tuple(str(a) for a in entry.get("arch") or ()),
            str(entry["vllm"]) if entry.get("vllm") else None,
            _date(weights["date"], f"{where}: {fid} weights") if weights.get("date") else None,
            str(weights.get("url") or ""),
        )
        families[fid] = fam
        for alias in fam.aliases:
            key = normalise_name(alias)
            if aliases.get(key, fid) != fid:
                raise ConfigError(
                    f"{where}: alias {preview(alias)} names {preview(aliases[key])} "
                    f"and {preview(fid)}"
                )
            aliases[key] = fid
        for cls in fam.arch:
            if arch.get(cls, fid) != fid:
                raise ConfigError(
                    f"{where}: class {preview(cls)} names {preview(arch[cls])} and {preview(fid)}"
                )
            arch[cls] = fid
    by_head: dict[str, list[tuple[str, str]]] = {}
    for alias, fid in sorted(aliases.items(), key=lambda kv: -len(kv[0])):
        head = _HEAD.match(alias)
        if head is None:
            raise ConfigError(
                f"{where}: alias {preview(alias)} of {preview(fid)} must start with a letter"
            )
        by_head.setdefault(head.group(), []).append((alias, fid))
    return FamilyTable(families, releases, aliases, arch, tuple(sorted(by_head)), by_head)


@lru_cache(maxsize=4)
def load_families(path: str | None = None) -> FamilyTable:
    """The shipped table (or the YAML file at ``path``), parsed once per process."""
    if path:
        text, where = Path(path).read_text(encoding="utf-8"), path
    else:
        ref = resources.files("tracker.mentions") / "data" / "model_families.yaml"
        text, where = ref.read_text(encoding="utf-8"), "model_families.yaml"
    return parse_families(safe_load_yaml(text, where) or {}, where)
