"""`config_history`: the git history of a benchmark's configuration files -> one `commit` event
per configuration entry (entry key, model, runner, framework), dated by the first commit that holds
it.

An independent benchmark (InferenceX: ``configs/amd-master.yaml``, ``configs/nvidia-master.yaml``)
keeps one YAML mapping per configuration: ``<key>: {image, model, runner, framework, ...}``. The
files' history says when a model first got a configuration on each vendor's hardware, which is
the model layer's evidence that it ran there (docs/methodology.md, "Independent benchmark").

Source keys: ``repo`` ("SemiAnalysisAI/InferenceX"), ``paths`` (the files, oldest first: files
move, ``.github/configs/`` -> ``configs/`` -> ``configs/deprecated/``; each path's history is
read, all merged by commit date), ``hardware`` (``{regime: [hardware name, ...]}``: the runner
map, e.g. ``rocm: [mi300x, mi355x]``), optional ``api_url``, ``raw_url``.

Contract:
- Requests as doc_history's: ``GET {api_url}/repos/{repo}/commits?path=<path>&per_page=100
  [&since=<ctx.since>]`` per path (Link pagination), then ``GET {raw_url}/{repo}/{sha}/{path}``
  for each commit not read before, oldest first. A file that cannot be fetched (404) or read
  (not YAML, not a mapping, an alias bomb, nested too deep) is skipped with one line; the other
  commits go on. An entry without text ``model``, ``runner`` and ``framework`` is skipped with one
  line; the rest of the file goes on.
- Runner -> hardware: the runner's first word ("cluster:mi355x-amds" -> ``mi355x``, "gb300-nv"
  -> ``gb300``), looked up in ``hardware``. A runner whose hardware is not there is never guessed:
  its event has regime ``none`` and ``attrs.config.regime`` "unknown" (the data-quality section
  lists it).
- Model id -> family through the alias table (tracker.mentions.families): the part after the last
  "/" ("amd/GLM-5.1-MXFP4" -> GLM-5.1), so a vendor's quantized repackaging is the family it
  quantizes. An unknown model still gets its event, with no model mention.
- One ``commit`` event per (key, model, runner, framework), the commit that first holds it (not a
  note: the tagger does not read it and it counts in no friction tally): ``external_id``
  ``config:<key>|<model>|<runner>|<framework>``, URL the commit on github.com, regime the
  runner's, attrs ``mentions`` ([{model, status: supported}] when the family is known),
  ``config`` ({regime, hardware, runner, framework, model, key, image, path, commit, baseline}):
  ``baseline`` is true for entries of the first commit read (the history says "by then", not
  "since then"). ``ctx.state["seen"]`` keeps the entries seen and ``ctx.state["read"]`` the
  commits read, so a nightly run fetches only new commits.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tracker.collect.sources import CollectContext
from tracker.collect.sources.doc_history import (
    DEFAULT_RAW,
    READ_LIMIT,
    commit_date,
    path_commits,
)
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.config import safe_load_yaml
from tracker.config.preview import preview
from tracker.errors import ConfigError, FatalHTTPError, first_line
from tracker.events import Event
from tracker.mentions.families import load_families, normalise_name

KIND = "config_history"
AUTH = "github"

SEEN_LIMIT = 50_000  # entries remembered as seen: a bound on the state's size
ENTRY_LIMIT = 5_000  # entries read per file version: a bound on one hostile file
FIELD_CHARS = 120  # a key, model id, runner or framework longer than this is not one
UNKNOWN = "unknown"

_SHA = re.compile(r"^[0-9a-f]{40}$")
_HARDWARE_WORD = re.compile(r"^[a-z0-9]+")


@dataclass(frozen=True)
class ConfigEntry:
    """One configuration of the benchmark file: what runs where, with what."""

    key: str
    model: str
    runner: str
    framework: str
    image: str = ""

    @property
    def seen_key(self) -> str:
        return f"{self.key}|{self.model}|{self.runner}|{self.framework}"


def hardware_of(runner: str) -> str:
    """The hardware a runner label names: its first word, a "cluster:" prefix and suffixes
    after "-" or "_" dropped ("cluster:mi355x-amds" -> "mi355x", "gb300-nv" -> "gb300")."""
    low = runner.strip().lower().rsplit(":", 1)[-1]
    word = _HARDWARE_WORD.match(low)
    return word.group() if word else ""


def runner_regimes(hardware: Mapping[str, Any]) -> dict[str, str]:
    """The ``hardware`` option ({regime: [names]}) as hardware name -> regime."""
    return {str(name).lower(): str(regime) for regime, names in hardware.items() for name in names}


def model_family(model: str) -> str | None:
    """The family id of a model id ("deepseek-ai/DeepSeek-V4-Pro", "nvidia/Kimi-K2.5-NVFP4"):
    the name after the last "/" read through the alias table; None when no alias fits."""
    name = model.rstrip("/").rsplit("/", 1)[-1]
    hit = load_families().match(normalise_name(name))
    return hit[0] if hit else None


def _text(value: Any) -> str | None:
    if isinstance(value, str) and value.strip() and len(value) <= FIELD_CHARS:
        return value.strip()
    return None


def config_entries(
    text: str,
    skip: Callable[[str, str], None],
    capped: Callable[[str, str], None] | None = None,
) -> list[ConfigEntry]:
    """The configuration entries of one version of the file. ValueError when the file is not a
    YAML mapping (or is hostile: aliases past the loader's budget, nested too deep); an entry that
    is not one is handed to ``skip(where, why)`` and left out."""
    try:
        doc = safe_load_yaml(text, "configuration file")
    except RecursionError:
        raise ValueError("nested too deep to read") from None
    except ConfigError as exc:
        raise ValueError(first_line(exc)) from None
    except Exception as exc:  # yaml.YAMLError, or a constructor's error on a hostile tag
        raise ValueError(f"not YAML: {first_line(exc)}") from None
    if not isinstance(doc, dict):
        raise ValueError(f"not a mapping of configurations ({type(doc).__name__})")
    out: list[ConfigEntry] = []
    for number, (key, value) in enumerate(doc.items(), 1):
        if number > ENTRY_LIMIT:  # a bound: said by `capped` (CollectContext.capped) where given
            (capped or skip)(
                "ENTRY_LIMIT", f"only the first {ENTRY_LIMIT} entries of a file are read"
            )
            break
        name = _text(key) if isinstance(key, str) else None
        if name is None:
            skip(f"entry {preview(key)}", "its key is not a short text")
            continue
        fields = value if isinstance(value, dict) else {}
        model, runner, framework = (_text(fields.get(k)) for k in ("model", "runner", "framework"))
        if model is None or runner is None or framework is None:
            skip(f"entry {preview(name)}", "needs text 'model', 'runner' and 'framework'")
            continue
        image = fields.get("image")
        out.append(
            ConfigEntry(name, model, runner, framework, image if isinstance(image, str) else "")
        )
    return out


def entry_event(
    ctx: CollectContext,
    entry: ConfigEntry,
    regimes: Mapping[str, str],
    sha: str,
    when: datetime,
    path: str,
    baseline: bool,
) -> Event:
    """The event of one configuration's first commit (see the module doc)."""
    repo = ctx.option("repo")
    hardware = hardware_of(entry.runner)
    regime = regimes.get(hardware)
    family = model_family(entry.model)
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="commit",
        external_id=f"config:{entry.seen_key}",
        occurred_at=when,
        title=f"{entry.model} on {entry.runner} ({entry.framework}): {entry.key}",
        body=entry.image,
        url=f"https://github.com/{repo}/commit/{sha}",
        regime=regime or "none",
        attrs={
            "section": "Benchmark configurations",
            "mentions": [{"model": family, "status": "supported"}] if family else [],
            "config": {
                "regime": regime or UNKNOWN,
                "hardware": hardware,
                "runner": entry.runner,
                "framework": entry.framework,
                "model": entry.model,
                "key": entry.key,
                "image": entry.image[: FIELD_CHARS * 2],
                "path": path,
                "commit": sha,
                "baseline": baseline,
            },
        },
    )


def _paths(ctx: CollectContext) -> list[str]:
    raw = ctx.option("paths")
    if not isinstance(raw, list) or not raw or not all(isinstance(p, str) and p for p in raw):
        raise ConfigError(f"{ctx.spec.id}: 'paths' must be a non-empty list of file paths")
    return list(raw)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the new commits of every path, oldest first, and yield first configurations."""
    repo = ctx.option("repo")
    regimes = runner_regimes(ctx.option("hardware") or {})
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    raw = str(ctx.option("raw_url", DEFAULT_RAW)).rstrip("/")
    # The state's own lists, appended to as files are read: a run stopped part way (time budget,
    # rate limit) leaves a state that matches the events it yielded.
    seen: list[str] = ctx.state.setdefault("seen", [])
    if not isinstance(seen, list):
        seen = ctx.state["seen"] = []
    known = set(seen)
    read: list[str] = ctx.state.setdefault("read", [])
    if not isinstance(read, list):
        read = ctx.state["read"] = []
    done = set(read)
    todo: set[tuple[datetime, str, str]] = set()
    for path in _paths(ctx):
        for item in path_commits(ctx, api, repo, path):
            sha, when = item["sha"], commit_date(item)
            if not _SHA.match(sha):
                ctx.skip(f"a commit of {path}", f"{preview(sha)} is not a commit id")
            elif when is None:
                ctx.skip(f"commit {sha[:10]} of {path}", "no committer date")
            elif f"{sha}:{path}" not in done:
                todo.add((when, sha, path))
    # The first commit of a first read: every file's entries there were configured by then.
    baseline = min(todo)[1] if todo and not known and not read else None
    for when, sha, path in sorted(todo):
        where = f"{path} at {sha[:10]}"
        try:
            response = ctx.client().get(f"{raw}/{repo}/{sha}/{path}", conditional=False)
        except FatalHTTPError as exc:
            ctx.skip(where, first_line(exc))
            continue
        if response is None:
            continue
        text = response.content.decode("utf-8", errors="replace")

        def skip(what: str, why: str, at: str = where) -> None:
            ctx.skip(f"{at}: {what}", why)

        def capped(bound: str, why: str, at: str = where) -> None:
            ctx.capped(bound, f"{at}: {why}")

        try:
            entries = config_entries(text, skip, capped)
        except ValueError as exc:
            ctx.skip(where, str(exc))
            read.append(f"{sha}:{path}")
            continue
        for entry in entries:
            if entry.seen_key in known:
                continue
            known.add(entry.seen_key)
            seen.append(entry.seen_key)
            yield entry_event(ctx, entry, regimes, sha, when, path, sha == baseline)
        read.append(f"{sha}:{path}")  # after its last entry: a stopped run reads it again
    del seen[:-SEEN_LIMIT], read[:-READ_LIMIT]
