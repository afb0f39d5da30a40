"""Stress: `tracker report` run again and again, with a chart that fails or plain, on the demo
store, optionally while busy loops load every core. Counts the runs that hang.

    python benchmarks/report_failures.py [--runs 50] [--load 2] [--plain] [--code DIR]

Builds the demo store once (`tracker nightly --replay cassettes/` into a temporary folder), then
runs `tracker report` N times as a subprocess of its own session. With a failing chart (the
default) the lag chart raises in its drawing process: every run must end with exit code 1 and
one `tracker: error:` line. A run still alive after --hang seconds counts as a hang and is
killed. After each run: processes left in its session (alive or not), `.report-staging-*`
folders left in --out. --load starts that many Python processes spinning for the whole
measurement; --code runs another checkout's tracker (PYTHONPATH) to compare with.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
STAGE_PREFIX = ".report-staging-"  # tracker/report/publish.py
_FAILING = (
    "import sys\n"
    "from tracker.report import charts\n"
    "def broken(*args):\n"
    "    raise RuntimeError('chart backend crashed')\n"
    "charts.lag_chart = broken\n"
    "from tracker.cli.main import main\n"
    "sys.argv = ['tracker', *sys.argv[1:]]\n"
    "main()\n"
)
_PLAIN = (
    "import sys\nfrom tracker.cli.main import main\nsys.argv = ['tracker', *sys.argv[1:]]\nmain()\n"
)
_SPIN = "while True:\n    pass\n"


def in_session(session: int) -> list[int]:
    """Pids (alive or zombie) whose session is `session`: what a run left behind."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        if int(text[text.rindex(")") + 2 :].split()[3]) == session:  # field 6: the session
            found.append(int(stat.parent.name))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--load", type=int, default=0, help="busy-loop processes alongside")
    parser.add_argument("--plain", action="store_true", help="no failing chart")
    parser.add_argument("--hang", type=float, default=60.0, help="seconds before a run hangs")
    parser.add_argument("--code", type=Path, default=REPO, help="checkout whose tracker runs")
    args = parser.parse_args()

    env = os.environ | {"PYTHONPATH": str(args.code), "TRACKER_SOURCES": str(REPO / "sources.yaml")}
    env.pop("TRACKER_DATABASE_URL", None)
    work = Path(tempfile.mkdtemp(prefix="report-failures-"))
    db = f"sqlite:///{work / 'tracker.db'}"
    out = work / "www"
    build = [sys.executable, "-c", _PLAIN, "--db", db, "-q", "nightly", "--replay"]
    # run from the work folder: `python -c` puts the current folder first on sys.path
    which = [sys.executable, "-c", "import tracker; print(tracker.__file__)"]
    code = subprocess.run(which, env=env, cwd=work, capture_output=True, text=True, check=True)
    subprocess.run(
        [*build, str(REPO / "cassettes"), "--out", str(out)],
        env=env,
        cwd=work,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    spinners = [subprocess.Popen([sys.executable, "-c", _SPIN]) for _ in range(args.load)]
    expected = 0 if args.plain else 1
    times, hangs, wrong, left_procs, left_stage = [], 0, 0, 0, 0
    try:
        for _ in range(args.runs):
            command = [sys.executable, "-c", _PLAIN if args.plain else _FAILING, "--db", db]
            started = time.monotonic()
            run = subprocess.Popen(
                [*command, "report", "--out", str(out)],
                env=env,
                cwd=work,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            try:
                _, err = run.communicate(timeout=args.hang)
            except subprocess.TimeoutExpired:
                hangs += 1
                os.killpg(run.pid, signal.SIGKILL)
                _, err = run.communicate()
            times.append(time.monotonic() - started)
            lines = err.decode().splitlines()
            if run.returncode != expected or (expected and len(lines) != 1):
                wrong += 1
                print(f"run ended {run.returncode}: {lines[-3:]}", file=sys.stderr)
            time.sleep(0.05)  # a killed process's children need a moment to be reparented
            left = in_session(run.pid)
            left_procs += len(left)
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            left_stage += len(list(out.glob(STAGE_PREFIX + "*")))
            for stage in out.glob(STAGE_PREFIX + "*"):
                shutil.rmtree(stage)
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()
    load = os.getloadavg()[0]
    print(
        f"{args.runs} runs ({'plain' if args.plain else 'failing lag chart'}, "
        f"{args.load} busy loops, load average {load:.1f}, {code.stdout.strip()}): "
        f"{hangs} hung (> {args.hang:g} s), {wrong} ended otherwise than expected, "
        f"{left_procs} processes and {left_stage} staging folders left; wall median "
        f"{statistics.median(times):.2f} s, max {max(times):.2f} s, total {sum(times):.0f} s"
    )
    shutil.rmtree(work)
    return 1 if hangs or wrong or left_procs or left_stage else 0


if __name__ == "__main__":
    sys.exit(main())
