"""Synthetic events in the `tracker import-events` JSONL shape, streamed to disk.

    python benchmarks/gen_events.py N OUT.jsonl [--seed 7] [--end 2026-08-31]

A deterministic (seeded) mix over one year ending at --end: GitHub issues (55 %), CI runs
(38 %), release-note lines (6 %) and releases (1 %), with source ids, projects and regimes taken
from sources.yaml, so every event belongs to a known source (nothing is manual evidence). Lines
are written one at a time: 5M events never sit in memory.
"""

from __future__ import annotations

import argparse
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

# (source_id, project, regime or None, label) of sources.yaml's github_issues entries.
ISSUE_SOURCES = [
    ("pytorch-issues-rocm", "pytorch", "rocm", "module: rocm"),
    ("vllm-issues-rocm", "vllm", "rocm", "rocm"),
    ("vllm-issues-tpu", "vllm", "xla", "tpu"),
    ("vllm-issues-neuron", "vllm", "neuron", "Inferentia/Trainium"),
    ("jax-issues-rocm", "jax", "rocm", "AMD GPU"),
    ("jax-issues", "jax", None, "bug"),
    ("torch-xla-issues", "torch-xla", "xla", "bug"),
    ("neuron-sdk-issues", "neuron-sdk", "neuron", "bug"),
    ("rocm-issues", "rocm", "rocm", "bug"),
]
# (source_id, project, regime, workflow) of the CI sources.
CI_SOURCES = [
    ("pytorch-ci-rocm", "pytorch", "rocm", "rocm-mi300.yml"),
    ("pytorch-ci-trunk", "pytorch", "cuda", "trunk.yml"),
    ("jax-ci", "jax", "cuda", "wheel_tests_continuous.yml"),
    ("jax-ci", "jax", "xla", "cloud-tpu-ci-nightly.yml"),
    ("jax-ci", "jax", "rocm", "rocm-ci.yml"),
    ("torch-xla-ci-tpu", "torch-xla", "xla", "tpu_ci.yml"),
]
# (source_id, project, regime, version prefix) of the release sources.
RELEASE_SOURCES = [
    ("pytorch-releases", "pytorch", "cuda", "v2."),
    ("jax-releases", "jax", "cuda", "jax-v0."),
    ("vllm-releases", "vllm", "cuda", "v0."),
    ("rocm-releases", "rocm", "rocm", "rocm-6."),
    ("rocm-jax-releases", "rocm-jax", "rocm", "rocm-jax-v0."),
    ("torch-xla-releases", "torch-xla", "xla", "v2."),
    ("tpu-inference-tags", "tpu-inference", "xla", "v0."),
    ("vllm-neuron-tags", "vllm-neuron", "neuron", "v0."),
]
# (source_id, project, regime, product) of the release-note sources.
NOTE_SOURCES = [
    ("rocm-release-notes", "rocm", "rocm", "ROCm"),
    ("rocm-compat-matrix", "rocm", "rocm", "ROCm"),
    ("neuron-release-notes", "neuron-sdk", "neuron", "Neuron"),
    ("neuron-pytorch-notes", "neuron-sdk", "neuron", "Neuron"),
    ("jax-changelog", "jax", None, "JAX"),
]
FRAMEWORKS = [("PyTorch", "2.{}"), ("JAX", "0.4.{}"), ("vLLM", "0.{}")]

ISSUE_TITLES = [
    "[{regime}] test_{op} fails with HIP error: invalid device function",
    "Segfault in {op} on {hw} after upgrading to {fw} {ver}",
    "{fw} {ver}: {op} is 3x slower on {hw} than on A100",
    "Improve {op} throughput on {hw} with fused kernels",
    "RuntimeError: {op} not implemented for device {regime}",
    "Add support for {fw} {ver} on {hw}",
    "Docs: how to install on {hw}",
    "OOM in {op} with batch size 64 on {hw}",
    "Speed up {op} compilation by caching autotuning results",
    "Flaky test_{op} on {hw} runners",
]
ISSUE_BODIES = [
    "Steps to reproduce: run `python bench.py --op {op}` on {hw}. Expected it to finish, got a "
    "crash after {n} iterations. Environment: {fw} {ver}, driver 6.{n2}.",
    "With {fw} {ver} the {op} kernel regressed; profiling shows {n} ms spent in the allocator. "
    "This blocks our migration to {hw}.",
    "This PR-sized change adds a faster path for {op}; on {hw} it improves throughput by {n2}0%.",
    "Question about {op}: is {hw} supported in {fw} {ver}? The docs only mention CUDA.",
]
OPS = ["matmul", "conv2d", "flash_attention", "all_reduce", "layer_norm", "softmax", "gather"]
HARDWARE = {
    "rocm": ["MI300X", "MI250", "gfx942"],
    "xla": ["TPU v5e", "TPU v6e", "v7x"],
    "neuron": ["Trainium", "Inferentia2", "trn1"],
    "cuda": ["A100", "H100"],
    None: ["GPU", "TPU", "MI300X"],
}
WEIGHTS = [("issue", 0.55), ("ci_run", 0.38), ("note", 0.06), ("release", 0.01)]


def _iso(value: datetime) -> str:
    return value.isoformat()


def generate(n: int, out: Path, seed: int = 7, end: datetime | None = None) -> Path:
    """Write `n` events to `out` (JSONL) and return it; the same seed gives the same bytes."""
    rng = random.Random(seed)
    end = end or datetime(2026, 8, 31, 23, 0, tzinfo=UTC)
    start = end - timedelta(days=365)
    span = (end - start).total_seconds()
    kinds = [k for k, _ in WEIGHTS]
    cum = [w for _, w in WEIGHTS]
    counters: dict[str, int] = {}
    tmp = out.with_suffix(out.suffix + ".part")
    with tmp.open("w", encoding="utf-8") as stream:
        for i in range(n):
            kind = rng.choices(kinds, cum)[0]
            # Spread evenly over the year with jitter: roughly time-ordered, like a backfill.
            at = start + timedelta(seconds=span * (i + rng.random()) / n)
            if kind == "issue":
                record = _issue(rng, at, counters)
            elif kind == "ci_run":
                record = _ci_run(rng, at, counters)
            elif kind == "note":
                record = _note(rng, at, counters)
            else:
                record = _release(rng, at, counters)
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    tmp.replace(out)
    return out


def _next(counters: dict[str, int], key: str) -> int:
    counters[key] = counters.get(key, 0) + 1
    return counters[key]


def _words(rng: random.Random, regime: str | None) -> dict:
    fw, ver = rng.choice(FRAMEWORKS)
    return {
        "regime": regime or "accelerator",
        "op": rng.choice(OPS),
        "hw": rng.choice(HARDWARE[regime]),
        "fw": fw,
        "ver": ver.format(rng.randint(0, 13)),
        "n": rng.randint(2, 500),
        "n2": rng.randint(1, 9),
    }


def _issue(rng: random.Random, at: datetime, counters: dict[str, int]) -> dict:
    source, project, regime, label = rng.choice(ISSUE_SOURCES)
    number = _next(counters, source)
    words = _words(rng, regime)
    closed = rng.random() < 0.6
    ended = at + timedelta(hours=rng.randint(1, 24 * 60)) if closed else None
    updated = ended or at + timedelta(hours=rng.randint(0, 24 * 10))
    labels = [label] + (["bug"] if rng.random() < 0.4 else [])
    return {
        "source_id": source,
        "project": project,
        "kind": "issue",
        "external_id": f"issue:{number}",
        "occurred_at": _iso(at),
        "title": rng.choice(ISSUE_TITLES).format(**words),
        "body": rng.choice(ISSUE_BODIES).format(**words),
        "url": f"https://github.com/{project}/{project}/issues/{number}",
        "regime": regime,
        "labels": labels,
        "state": "closed" if closed else "open",
        "ended_at": _iso(ended) if ended else None,
        "updated_at": _iso(updated),
        "attrs": {
            "number": number,
            "comments": rng.randint(0, 40),
            "author": f"user{rng.randint(1, 5000)}",
            "state_reason": "completed" if closed else None,
            "pull": False,
        },
    }


def _ci_run(rng: random.Random, at: datetime, counters: dict[str, int]) -> dict:
    source, project, regime, workflow = rng.choice(CI_SOURCES)
    run = _next(counters, source) + 10_000_000
    passed = rng.random() < (0.85 if regime == "cuda" else 0.7)
    return {
        "source_id": source,
        "project": project,
        "kind": "ci_run",
        "external_id": f"run:{run}",
        "occurred_at": _iso(at),
        "title": f"{workflow} on main",
        "url": f"https://github.com/{project}/{project}/actions/runs/{run}",
        "regime": regime,
        "state": "success" if passed else "failure",
        "outcome": "passed" if passed else "failed",
        "ended_at": _iso(at + timedelta(minutes=rng.randint(5, 240))),
        "updated_at": _iso(at + timedelta(minutes=rng.randint(5, 240))),
        "attrs": {"workflow": workflow, "run_attempt": 1, "head_sha": f"{run * 7919:040x}"[:40]},
    }


def _note(rng: random.Random, at: datetime, counters: dict[str, int]) -> dict:
    source, project, regime, product = rng.choice(NOTE_SOURCES)
    number = _next(counters, source)
    version = f"{number // 40 + 1}.{number % 40}.0"
    words = _words(rng, regime)
    return {
        "source_id": source,
        "project": project,
        "kind": "note",
        "external_id": f"note:{version}:{number}",
        "occurred_at": _iso(at),
        "title": f"{product} {version}: {words['fw']} {words['ver']} support",
        "body": (
            f"{product} {version} adds support for {words['fw']} {words['ver']}. "
            f"Improved {words['op']} performance on {words['hw']}. Known issue: "
            f"{words['op']} may hang with {words['n']} ranks."
        ),
        "url": f"https://example.org/{project}/release-notes/{version}",
        "version": version,
        "regime": regime,
    }


def _release(rng: random.Random, at: datetime, counters: dict[str, int]) -> dict:
    source, project, regime, prefix = rng.choice(RELEASE_SOURCES)
    number = _next(counters, source)
    tag = f"{prefix}{number // 4}.{number % 4}"
    return {
        "source_id": source,
        "project": project,
        "kind": "release",
        "external_id": tag,
        "occurred_at": _iso(at),
        "title": tag,
        "body": f"Release {tag}. Bug fixes and performance improvements.",
        "url": f"https://github.com/{project}/{project}/releases/tag/{tag}",
        "version": tag.rsplit("v", 1)[-1].removeprefix("rocm-"),
        "regime": regime,
        "attrs": {"prerelease": False},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    generate(args.n, args.out, args.seed)


if __name__ == "__main__":
    main()
