"""MLPerf Training: one round's results repository -> one `training_result` event per system and
benchmark (a result set: the runs' start, stop and status, the system's description).

Source keys: ``repo`` (the round's repository, e.g. mlcommons/training_results_v5.0), ``round``
(v5.0) and ``published`` (the round's publication date); optional ``commit`` (default: the
default branch's head, asked of the API), ``benchmarks`` (only these benchmark folders, e.g.
[llama2_70b_lora]; default all), ``max_files`` (files read per run, default 3000),
``max_file_bytes`` (a larger file is not read, default 8 MB), ``api_url`` (default
https://api.github.com), ``raw_url`` (default https://raw.githubusercontent.com).

Contract:
- ``GET {api_url}/repos/{repo}/git/trees/{commit}?recursive=1`` lists the round; the collector
  reads ``<submitter>/systems/<system>.json`` and ``<submitter>/results/<system>/<benchmark>/``
  ``result_N.txt`` and ``scaling.json`` (``GET {raw_url}/{repo}/{commit}/{path}``). A listing
  GitHub cut short (``truncated``) is said, and what it lists is read.
- Incremental: a round read whole at a commit (``ctx.state["read"]``) is not read again at that
  commit. A run cut short by ``max_files`` says so, keeps the result sets it finished
  (``ctx.state["pending"]``) and the next run goes on from there.
- The event: external_id ``<round>:<submitter>/<system>/<benchmark>``, occurred_at = the
  round's publication date, url = the result folder at the commit read, version = the round,
  regime = the accelerator's (tracker.mentions.accelerators), attrs = the system's fields
  (``system_fields``), ``runs`` (per result file: start_ms, stop_ms and status of its first
  run_start / run_stop, or the problem that makes it a failed run; a time that is no finite
  number is none), ``scaling_factor`` (scaling.json's as given, None when it holds no finite
  number, else 1.0) and ``unread`` (result files not read: too large or unreachable, or a set
  of more files than ``max_files``, which no run could read: said, and stored unread).
  Scoring (olympic mean of the runs, times the scaling factor) is tracker.measure.perf.training's.
- A system file that is not a JSON object, or a result set without one, is skipped and counted.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Iterator
from datetime import datetime
from typing import Any, TypeGuard
from urllib.parse import quote

from tracker.collect.sources import CollectContext
from tracker.collect.sources.mlperf_inference import published_date
from tracker.errors import FatalHTTPError
from tracker.events import Event
from tracker.mentions.accelerators import accelerator_regime
from tracker.names import GITHUB_API

KIND = "mlperf_training"
DEFAULT_API = GITHUB_API
DEFAULT_RAW = "https://raw.githubusercontent.com"
TREE_URL = "https://github.com/{repo}/tree/{commit}/{path}"
MAX_FILES = 3000
MAX_FILE_BYTES = 8 * 1024 * 1024
SYSTEM_PATH = re.compile(r"^(?P<submitter>[^/]+)/systems/(?P<system>[^/]+)\.json$")
RESULT_PATH = re.compile(
    r"^(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/"
    r"(?P<file>result_\d+\.txt|scaling\.json)$"
)
MLLOG = ":::MLLOG"
# Library versions named in a system file (framework, software stack, notes): "ROCm 7.0.0",
# "+rocm7.0.0.git...", "nccl_version: v2.28.3-1".
VERSION_NAMES = ("nccl", "rccl", "rocm", "cuda", "cudnn", "jax", "libtpu", "neuron")
_VERSION_TEXT = re.compile(
    r"\b(NCCL|RCCL|ROCm|CUDA|cuDNN|JAX|libtpu)[\s:=_-]*v?(\d+(?:\.\d+)+)", re.I
)
# The availability categories as the result summarizer names them (its config.yaml maps the
# spellings submitters use: "onprem" in v4.0, "Available on-premise" later).
AVAILABILITY = {
    "available on-premise": "Available on-premise",
    "onprem": "Available on-premise",
    "available onprem": "Available on-premise",
    "available": "Available on-premise",
    "available cloud": "Available cloud",
    "cloud": "Available cloud",
    "preview": "Preview",
    "research": "Research, Development, or Internal (RDI)",
    "rdi": "Research, Development, or Internal (RDI)",
}
_VERSION = re.compile(r"v?(\d+(?:\.\d+)*(?:[-+.][\w.]+)?)")


def _text(value: Any) -> str:
    """A system field as text: MLPerf writes some as objects ({"cuda_version": ...})."""
    if value is None:
        return ""
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v)}" for k, v in value.items())
    if isinstance(value, list):
        return ", ".join(_text(v) for v in value)
    return str(value).strip()


def _count(value: Any) -> int | None:
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number > 0 else None


def software_versions(system: dict[str, Any]) -> dict[str, str]:
    """The library versions a system file names (VERSION_NAMES): an object-valued software
    stack's ``<name>_version`` keys first, then "<name> <version>" in its text fields."""
    found: dict[str, str] = {}
    stack = system.get("other_software_stack")
    if isinstance(stack, dict):
        for key, value in stack.items():
            name = str(key).lower().removesuffix("_version").strip()
            match = _VERSION.search(_text(value))
            if name in VERSION_NAMES and match and name not in found:
                found[name] = match.group(1)
    for field in ("framework", "other_software_stack", "sw_notes"):
        for name, version in _VERSION_TEXT.findall(_text(system.get(field))):
            found.setdefault(name.lower(), version)
    return dict(sorted(found.items()))


def system_fields(system: dict[str, Any]) -> dict[str, Any]:
    """A system file in the stored fields: who, what division and availability, which
    accelerator and how many (per node x nodes: the summarizer's accelerators_count), the
    software stack as text and the library versions it names."""
    per_node, nodes = (
        _count(system.get("accelerators_per_node")),
        _count(system.get("number_of_nodes")),
    )
    status = _text(system.get("status"))
    return {
        "submitter": _text(system.get("submitter")),
        "division": _text(system.get("division")).lower(),
        "availability": AVAILABILITY.get(status.lower(), status),
        "system_name": _text(system.get("system_name")),
        "accelerator": _text(system.get("accelerator_model_name")),
        "accelerators_per_node": per_node,
        "nodes": nodes,
        "accelerators": per_node * nodes if per_node and nodes else None,
        "framework": _text(system.get("framework")),
        "software": _text(system.get("other_software_stack")),
        "notes": _text(system.get("sw_notes"))[:200],
        "precision": _text(system.get("lowest_numerical_precision_linear"))[:40],
        "versions": software_versions(system),
    }


def _samples(metadata: Any) -> int | None:
    count = metadata.get("samples_count") if isinstance(metadata, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) and count > 0 else None


def read_run(text: str) -> dict[str, Any]:
    """One result file's run as the summarizer reads it: the time_ms of run_start and run_stop
    (each the last seen before both are) and run_stop's status; ``problem`` names what makes
    it a failed run (no run_start or run_stop, a status other than success). Also ``samples``:
    the samples trained, run_stop's metadata.samples_count, else the last samples_count logged
    before it (None when the log names none), and ``precision``: the value of a
    ``lowest_numerical_precision_linear`` log key (v6.0 logs carry one), else None."""
    start = stop = status = samples = precision = None
    for line in text.splitlines():
        at = line.find(MLLOG)
        if at < 0:
            continue
        try:
            record = json.loads(line[at + len(MLLOG) :])
        except ValueError:
            continue
        if not isinstance(record, dict):
            continue
        if record.get("key") == "lowest_numerical_precision_linear":
            value = record.get("value")
            precision = value[:40] if isinstance(value, str) else precision
        if record.get("key") not in ("run_start", "run_stop"):
            if start is not None and stop is None:
                samples = _samples(record.get("metadata")) or samples
            continue
        moment = record.get("time_ms")
        if not _finite(moment):
            continue  # NaN, Infinity: no time (and no JSON a store accepts)
        if record["key"] == "run_start":
            start = moment
        else:
            stop = moment
            metadata = record.get("metadata")
            status = metadata.get("status") if isinstance(metadata, dict) else None
            samples = _samples(metadata) or samples
        if start is not None and stop is not None:
            break
    run: dict[str, Any] = {"start_ms": start, "stop_ms": stop, "status": status}
    if samples is not None:
        run["samples"] = samples
    if precision is not None:
        run["precision"] = precision
    if start is None:
        run["problem"] = "run_start not recorded"
    elif stop is None:
        run["problem"] = "run_stop not recorded"
    elif status != "success":
        run["problem"] = f"run_stop status {str(status)[:40]!r}"
    return run


def _finite(value: Any) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def scaling_factor(content: bytes) -> float | None:
    """scaling.json's factor as given (its range is judged when scoring); None when it has no
    finite number there (the summarizer would fail too: the set is not scored)."""
    try:
        document = json.loads(content.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    factor = document.get("scaling_factor") if isinstance(document, dict) else None
    return float(factor) if _finite(factor) else None


def listing_paths(tree: Any, benchmarks: list[str] | None) -> tuple[dict, dict]:
    """From a git tree listing: {(submitter, system): system file path} and {(submitter,
    system, benchmark): {file name: path}} for the benchmarks asked for."""
    systems: dict[tuple[str, str], str] = {}
    results: dict[tuple[str, str, str], dict[str, str]] = defaultdict(dict)
    entries = tree.get("tree") if isinstance(tree, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        path = entry.get("path") if isinstance(entry, dict) else None
        if not isinstance(path, str) or entry.get("type") != "blob":
            continue
        if found := SYSTEM_PATH.match(path):
            systems[(found["submitter"], found["system"])] = path
        elif (found := RESULT_PATH.match(path)) and (
            not benchmarks or found["benchmark"] in benchmarks
        ):
            key = (found["submitter"], found["system"], found["benchmark"])
            results[key][found["file"]] = path
    return systems, dict(results)


class _Reader:
    """The raw files of one round at one commit, within the run's file bound."""

    def __init__(self, ctx: CollectContext, repo: str, commit: str) -> None:
        self.ctx, self.repo, self.commit = ctx, repo, commit
        self.raw = str(ctx.option("raw_url") or DEFAULT_RAW).rstrip("/")
        self.budget = int(ctx.option("max_files") or MAX_FILES)
        self.left = self.budget
        self.max_bytes = int(ctx.option("max_file_bytes") or MAX_FILE_BYTES)

    def read(self, path: str) -> bytes | None:
        """The file's bytes; None when it is larger than the bound or unreachable (said)."""
        self.left -= 1
        url = f"{self.raw}/{self.repo}/{self.commit}/{quote(path)}"
        try:
            response = self.ctx.client().get(url, conditional=False)
        except FatalHTTPError as exc:  # a 404 of one file: that file, not the round
            self.ctx.skip(path, f"unreadable ({str(exc)[:120]})")
            return None
        if response is None:
            return None
        if len(response.content) > self.max_bytes:
            self.ctx.skip(path, f"larger than max_file_bytes ({len(response.content):,} bytes)")
            return None
        return response.content


def _commit(ctx: CollectContext, api: str, repo: str) -> str:
    if ctx.option("commit"):
        return str(ctx.option("commit"))
    head = ctx.client().get_json(f"{api}/repos/{repo}/commits/HEAD", conditional=False)
    sha = head.get("sha") if isinstance(head, dict) else None
    if not isinstance(sha, str) or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise FatalHTTPError(f"{ctx.spec.id}: {repo}'s head commit not in the API's answer")
    return sha


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the round once per commit (see the module contract), one event per result set."""
    api = str(ctx.option("api_url") or DEFAULT_API).rstrip("/")
    repo = str(ctx.option("repo"))
    commit = _commit(ctx, api, repo)
    if ctx.state.get("read") == commit:
        return
    tree = ctx.client().get_json(f"{api}/repos/{repo}/git/trees/{commit}", {"recursive": 1})
    if isinstance(tree, dict) and tree.get("truncated"):
        ctx.skip(repo, "GitHub cut the tree listing short (truncated): files past it not read")
    benchmarks = ctx.option("benchmarks")
    systems, results = listing_paths(tree, list(benchmarks) if benchmarks else None)
    pending = ctx.state.get("pending")
    done = (
        set(pending["done"])
        if isinstance(pending, dict) and pending.get("commit") == commit
        else set()
    )
    reader, when = _Reader(ctx, repo, commit), published_date(ctx)
    described: dict[tuple[str, str], dict | None] = {}
    finished = True
    for key in sorted(results):
        folder = "/".join(key)
        if folder in done:
            continue
        files = results[key]
        too_many = len(files) + 1 > reader.budget  # would block every run: refused, said
        if too_many:
            ctx.skip(folder, f"{len(files):,} result files, more than a run reads (max_files "
                     f"{reader.budget:,}): not read, the set not scored")  # fmt: skip
        elif reader.left < len(files) + 1:
            finished = False
            break
        event = None
        with ctx.item(folder):
            event = _result_set(
                ctx, reader, key, files, systems, described, commit, when, too_many=too_many
            )
        if event is not None:
            yield event
        done.add(folder)
    if finished:
        ctx.state.pop("pending", None)
        ctx.state["read"] = commit
        return
    left = len([k for k in results if "/".join(k) not in done])
    ctx.skip(
        repo,
        f"max_files reached: {len(done)} of {len(results)} result sets read, {left} left for "
        "the next run",
    )
    ctx.state["pending"] = {"commit": commit, "done": sorted(done)}


def _result_set(
    ctx: CollectContext,
    reader: _Reader,
    key: tuple[str, str, str],
    files: dict[str, str],
    systems: dict[tuple[str, str], str],
    described: dict[tuple[str, str], dict | None],
    commit: str,
    when: datetime,
    too_many: bool = False,
) -> Event | None:
    submitter, system, benchmark = key
    if (submitter, system) not in described:
        path = systems.get((submitter, system))
        content = reader.read(path) if path else None
        document = json.loads(content.decode("utf-8", "replace")) if content else None
        described[(submitter, system)] = document if isinstance(document, dict) else None
    desc = described[(submitter, system)]
    if desc is None:
        ctx.skip("/".join(key), "no readable system file (systems/<system>.json)")
        return None
    runs, unread = [], len(files) if too_many else 0  # too many: none read, all unread
    factor: float | None = 1.0
    for name in sorted({} if too_many else files, key=lambda n: (len(n), n)):
        content = reader.read(files[name])
        if content is None:
            unread += 1  # a scaling.json too: the score cannot be the summarizer's
        elif name == "scaling.json":
            factor = scaling_factor(content)
        else:
            runs.append({"file": name, **read_run(content.decode("utf-8", "replace"))})
    round_ = str(ctx.option("round"))
    attrs = system_fields(desc) | {
        "round": round_,
        "system": system,
        "benchmark": benchmark,
        "runs": runs,
        "scaling_factor": factor,
        "unread": unread,
    }
    folder = f"{submitter}/results/{system}/{benchmark}"
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="training_result",
        external_id=f"{round_}:{submitter}/{system}/{benchmark}",
        occurred_at=when,
        title=f"MLPerf Training {round_}: {attrs['submitter']} {attrs['accelerator']} {benchmark}",
        url=TREE_URL.format(repo=ctx.option("repo"), commit=commit, path=quote(folder)),
        version=round_,
        regime=accelerator_regime(attrs["accelerator"]),
        attrs=attrs,
    )
