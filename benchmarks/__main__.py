"""Whole-process benchmarks of the tracker CLI, each next to its baseline from the same run.

    python -m benchmarks [--quick] [--only NAME ...] [--repeat 3] [--fresh] [--md FILE]
                         [--report-sizes N ...]

From the repository root. tracker is a black box here: every figure is a `tracker ...`
subprocess (default .venv/bin/tracker; --tracker PATH), wall time and peak RSS, median of
--repeat runs. Benchmarks (--only takes these names):

  startup   `tracker --help`, `tracker query "select 1"`       target < 0.5 s each
  import    `tracker import-events` of 100k and 1M events vs a plain sqlite3 loader of the same
            JSONL (benchmarks/sqlite_import.py): speed >= 0.5x the loader's, re-import of the
            same file <= 1.5x the first, peak < 500 MB at 1M
  report    `tracker report` on 200k / 1M / 5M-event stores vs three weekly group-bys and
            three matplotlib charts (benchmarks/report_reference.py): <= 1.5x at 200k,
            < 10 s and < 1 GB at 1M, < 60 s at 5M
  collect   `tracker collect` of 10k issues from a local GitHub-shaped server
            (benchmarks/fake_github.py): >= 8,000 issues/s, <= 101 requests, <= 100 MB; a
            re-run sends 1 request and gets a 304
  nightly   `tracker nightly` on the 1M store, every source pointed at the local server,
            which answers 304 to everything: < 10 s

tracker's modules are byte-compiled first (``compileall``), as an installed package is
(--no-compile: not).

--quick shrinks the sizes (import 10k / 20k, report 20k / 50k / 100k, nightly 20k, collect
unchanged). Generated event files (benchmarks/gen_events.py, seeded) and stores are cached under
--cache (default $TMPDIR/tracker-bench) by size, seed and schema revision; --fresh rebuilds them.
A store cached at an older revision only is copied and upgraded by `tracker init-db` (the notes
say so); the older file is left as it was.
Stores for report / nightly are filled by `tracker import-events` up to 1M events and by the
sqlite3 loader above that (the output says which), then given tag rows by
benchmarks/fill_tags.py (the tagger itself is benchmarks/retag.py's subject).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_collect import bench_collect  # noqa: E402
from bench_startup import bench_startup  # noqa: E402
from bench_store import bench_import, bench_nightly, bench_report  # noqa: E402
from harness import ROOT, Harness  # noqa: E402
from whole_process import CommandFailed  # noqa: E402

SIZES = {
    "full": {
        "import": [100_000, 1_000_000],
        "report": [200_000, 1_000_000, 5_000_000],
        "nightly": 1_000_000,
        "collect": 10_000,
    },
    "quick": {
        "import": [10_000, 20_000],
        "report": [20_000, 50_000, 100_000],
        "nightly": 20_000,
        "collect": 10_000,
    },
}
NAMES = ("startup", "import", "report", "collect", "nightly")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--quick", action="store_true", help="smaller sizes (minutes, not hours)")
    parser.add_argument("--only", action="append", choices=NAMES, help="run only these")
    parser.add_argument("--repeat", type=int, default=3, help="runs per figure (median)")
    parser.add_argument("--fresh", action="store_true", help="regenerate cached files and stores")
    parser.add_argument(
        "--report-sizes",
        type=int,
        nargs="+",
        metavar="N",
        help="events of the report's stores instead of the mode's (e.g. 200000 1000000)",
    )
    parser.add_argument("--tracker", type=Path, default=ROOT / ".venv" / "bin" / "tracker")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "tracker-bench")
    parser.add_argument("--md", type=Path, help="also write the markdown table to FILE")
    parser.add_argument(
        "--no-compile", action="store_true", help="do not byte-compile tracker's modules first"
    )
    args = parser.parse_args(argv)
    venv_python = ROOT / ".venv" / "bin" / "python"
    python = venv_python if venv_python.exists() else Path(sys.executable)
    if not args.tracker.exists():
        parser.error(f"{args.tracker} not found: install tracker in .venv or pass --tracker")
    mode = "quick" if args.quick else "full"
    sizes = dict(SIZES[mode])
    if args.report_sizes:
        sizes["report"] = sorted(args.report_sizes)
    only = args.only or list(NAMES)
    args.cache.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="tracker-bench-run-") as work:
        h = Harness(args.tracker.resolve(), python, args.cache, Path(work), args.repeat, args.fresh)
        h.say(f"tracker {h.tracker}, cache {args.cache}, {mode} sizes, median of {args.repeat}")
        # Byte-compiled first, as `pip install` leaves an installed package: an editable install
        # under PYTHONDONTWRITEBYTECODE (set in some shells and containers) never writes its
        # .pyc files, and every command would compile tracker's modules from source again.
        if not args.no_compile:
            subprocess.run(
                [str(python), "-m", "compileall", "-q", str(ROOT / "tracker")], check=True
            )
            h.notes.append("tracker's modules byte-compiled before the runs (compileall)")
        want = set(sizes["report"]) if "report" in only else set()
        if "nightly" in only:
            want.add(sizes["nightly"])
        steps: list[tuple[str, Callable[[], None]]] = [
            ("startup", lambda: bench_startup(h)),
            ("import", lambda: bench_import(h, sizes["import"], want)),
            ("collect", lambda: bench_collect(h, sizes["collect"])),
            ("report", lambda: bench_report(h, sizes["report"])),
            ("nightly", lambda: bench_nightly(h, sizes["nightly"])),
        ]
        failed = False
        for name, step in steps:
            if name not in only:
                continue
            t0 = time.perf_counter()
            try:
                step()
            except CommandFailed as exc:
                failed = True
                h.notes.append(f"{name}: a command failed: {str(exc).splitlines()[0]}")
                h.say(f"  FAILED: {exc}")
            h.say(f"  ({name}: {time.perf_counter() - t0:.0f} s)")
        table = h.markdown(mode, time.perf_counter() - started)
    print()
    print(table)
    if args.md:
        args.md.parent.mkdir(parents=True, exist_ok=True)
        args.md.write_text(table, encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
