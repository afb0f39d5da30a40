"""Parse every vendor document of a corpus folder with the parser that fits it; print MB/s.

Usage: python benchmarks/parse.py [CORPUS] [--repeat N]
       (CORPUS: a folder of upstream vendor documents laid out as below; default
       $TRACKER_CORPUS; N default 1)

Which parser reads what:
- jax/CHANGELOG.md                        -> changelog_markdown
- */compatibility-matrix*.rst, *.csv      -> compat_matrix (with the ROCm release history)
- */versions.md, */versions.rst           -> release history (version -> date)
- every other .md / .rst document         -> release_notes (markdown / rst)
Not documents, so not parsed here: vllm-ci/ (Buildkite JSON for the CI kinds), _derived/
(tables compiled for tests), licences and SOURCES.md. No network; nothing is stored.

Output: per parser the files, MB, wall seconds, MB/s, CPU seconds (wall well above CPU means
the machine was busy with something else), events and skips; then the whole corpus. The first
pass is cold: it includes importing docutils / markdown-it and the one-time registration of
Sphinx roles, as a real run would. With ``--repeat N`` the corpus is parsed N times in the same
process and each pass's total is printed (later passes are warm); the table is the first pass.
The issue's target: the whole corpus in under 2 s on the 2-core box.
"""

from __future__ import annotations

import os
import sys
import time
from collections import defaultdict
from pathlib import Path

from tracker.collect.sources import CollectContext, changelog_markdown, compat_matrix, release_notes
from tracker.collect.sources._docs import history_dates
from tracker.config import SourceSpec

HISTORY = "rocm/ROCm@develop-e396b48/docs/release/versions.md"


def plan(corpus: Path) -> list[tuple[str, Path]]:
    """(parser name, file) for each document of the corpus."""
    jobs = []
    for path in sorted(corpus.rglob("*")):
        rel = path.relative_to(corpus).as_posix()
        if (
            not path.is_file()
            or rel.startswith(("vllm-ci/", "_derived/"))
            or path.name in ("SOURCES.md",)
            or path.name.startswith("LICENSE")
        ):
            continue
        if path.suffix not in (".md", ".rst", ".csv"):
            continue
        if rel == "jax/CHANGELOG.md":
            jobs.append(("changelog_markdown", path))
        elif "compatibility-matrix" in path.name and path.suffix in (".rst", ".csv"):
            jobs.append(("compat_matrix", path))
        elif path.stem == "versions":
            jobs.append(("history", path))
        else:
            jobs.append(("release_notes", path))
    return jobs


def run_one(name: str, path: Path, history: dict) -> tuple[int, int]:
    """Parse one file; (events, skips)."""
    data = path.read_bytes()
    if name == "history":
        return len(history_dates(data.decode(), "rst" if path.suffix == ".rst" else "markdown")), 0
    module = {
        "changelog_markdown": changelog_markdown,
        "compat_matrix": compat_matrix,
        "release_notes": release_notes,
    }[name]
    options = {"url": str(path)}
    if name == "compat_matrix":
        options["format"] = "csv" if path.suffix == ".csv" else "rst"
    ctx = CollectContext(SourceSpec("bench", module.KIND, "bench", options=options))
    if name == "changelog_markdown":
        events = list(module.parse(data, ctx))
    else:
        events = list(module.parse(data, ctx, history=history))
    return len(events), ctx.skipped


TARGET_SECONDS = 2.0


def run_all(corpus: Path, jobs: list[tuple[str, Path]]) -> tuple[dict[str, list], float, float]:
    """Parse every job once: (per-parser [bytes, wall s, files, events, skips, cpu s], total
    wall seconds, total CPU seconds). The shared release history counts as a history parse."""
    totals: dict[str, list] = defaultdict(lambda: [0, 0.0, 0, 0, 0, 0.0])
    start, cpu_start = time.perf_counter(), time.process_time()
    history: dict = {}
    if (corpus / HISTORY).exists():
        history = history_dates((corpus / HISTORY).read_text(encoding="utf-8"), "markdown")
        row = totals["history"]
        row[0] += (corpus / HISTORY).stat().st_size
        row[1] += time.perf_counter() - start
        row[2] += 1
        row[5] += time.process_time() - cpu_start
    for name, path in jobs:
        t0, c0 = time.perf_counter(), time.process_time()
        events, skips = run_one(name, path, history)
        row = totals[name]
        row[0] += path.stat().st_size
        row[1] += time.perf_counter() - t0
        row[2] += 1
        row[3] += events
        row[4] += skips
        row[5] += time.process_time() - c0
    return totals, time.perf_counter() - start, time.process_time() - cpu_start


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--repeat")]
    repeat = next((int(a.split("=", 1)[1]) for a in argv[1:] if a.startswith("--repeat=")), 1)
    if "--repeat" in argv:
        repeat = int(argv[argv.index("--repeat") + 1])
        args.remove(argv[argv.index("--repeat") + 1])
    where = args[0] if args else os.environ.get("TRACKER_CORPUS")
    if not where or not Path(where).is_dir():
        print(f"corpus {where or '(none given)'} not found (pass its path or set TRACKER_CORPUS)")
        return 2
    corpus = Path(where)
    jobs = plan(corpus)
    totals, elapsed, cpu = run_all(corpus, jobs)
    print(
        f"{'parser':<20}{'files':>6}{'MB':>8}{'seconds':>9}{'MB/s':>8}{'cpu s':>8}"
        f"{'events':>8}{'skips':>7}"
    )
    for name, (size, secs, files, events, skips, cpu_s) in sorted(totals.items()):
        print(
            f"{name:<20}{files:>6}{size / 1e6:>8.3f}{secs:>9.3f}{size / 1e6 / secs:>8.2f}"
            f"{cpu_s:>8.3f}{events:>8}{skips:>7}"
        )
    size = sum(row[0] for row in totals.values())
    print(
        f"{'overall':<20}{sum(r[2] for r in totals.values()):>6}{size / 1e6:>8.3f}{elapsed:>9.3f}"
        f"{size / 1e6 / elapsed:>8.2f}{cpu:>8.3f}{sum(r[3] for r in totals.values()):>8}"
        f"{sum(r[4] for r in totals.values()):>7}"
    )
    print(
        f"target: whole corpus in under {TARGET_SECONDS:g} s -> "
        f"{'met' if elapsed < TARGET_SECONDS else 'NOT met'} ({elapsed:.3f} s, "
        f"{size / 1e6 / elapsed:.2f} MB/s)"
    )
    for attempt in range(2, repeat + 1):
        _, again, again_cpu = run_all(corpus, jobs)
        print(
            f"pass {attempt} (warm): {again:.3f} s, {size / 1e6 / again:.2f} MB/s, "
            f"cpu {again_cpu:.3f} s"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
