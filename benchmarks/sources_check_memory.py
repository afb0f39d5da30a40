"""Peak memory of `tracker sources check` on a generated sources.yaml of many sources (issue 49:
590,000 sources peaked at 3.8 GB). A memory measurement, not a timed test: it prints the peak
resident set (VmHWM of the child, read at its exit), the exit code and the first stderr line.

    .venv/bin/python benchmarks/sources_check_memory.py                 # 590,000 sources
    .venv/bin/python benchmarks/sources_check_memory.py --sources 20000
    .venv/bin/python benchmarks/sources_check_memory.py --code /path/to/other/checkout

The child runs with an address-space cap (--cap-gb, default 6) so that a regression ends in a
MemoryError there instead of taking the machine's memory.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import atexit, resource, sys
cap = int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
def peak():
    print(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
atexit.register(peak)
from tracker.cli.main import main
sys.argv = ["tracker", "--sources", sys.argv[1], "sources", "check"]
main()
"""


def generate(path: Path, count: int) -> None:
    """`count` pypi sources, one short flow mapping each (about 70 bytes a source)."""
    with path.open("w", encoding="utf-8") as out:
        out.write("regimes:\n  - {id: cuda, reference: true}\n  - {id: rocm}\nsources:\n")
        for n in range(count):
            out.write(f"  - {{id: s{n:07d}, kind: pypi, project: p{n:07d}, package: k{n:07d}}}\n")


def measure(sources: Path, code: Path, cap: int) -> tuple[int, int, str]:
    """(peak RSS in KB, exit code, first stderr line) of `sources check` run from `code`."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(sources), str(cap)],
        capture_output=True, text=True, cwd=code, env={"PYTHONPATH": str(code), "PATH": "/usr/bin"},
    )  # fmt: skip
    lines = done.stdout.split()
    peak = int(lines[-1]) if lines and lines[-1].isdigit() else -1
    return peak, done.returncode, (done.stderr.strip().splitlines() or [""])[0][:300]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sources", type=int, default=590_000)
    parser.add_argument("--code", type=Path, default=ROOT, help="the checkout to measure")
    parser.add_argument("--cap-gb", type=float, default=6.0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sources.yaml"
        generate(path, args.sources)
        size = path.stat().st_size
        peak, code, line = measure(path, args.code, int(args.cap_gb * (1 << 30)))
    print(
        f"sources check, {args.sources:,} sources ({size / 1e6:.1f} MB): peak RSS "
        f"{peak / 1024:.0f} MB, exit {code}" + (f": {line}" if line else "")
    )


if __name__ == "__main__":
    main()
