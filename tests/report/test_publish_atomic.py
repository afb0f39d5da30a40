"""`--out DIR` is the previous complete report or the new complete one at every instant:
under SIGKILL at any moment of publishing, and to a reader running beside repeated publishes
(a reader that opened DIR once, as a web server or a copy does, reads files of one report).
A killed run's leftovers go at the next run, but not the folder of a report being written now.

Publishing is what is tested: the "reports" are a few small files whose content is their
generation, published by publish.staged (a real report takes seconds to write)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from tracker.report.folder_owner import MANIFEST
from tracker.report.publish import staged

REPO = Path(__file__).resolve().parents[2]
NAMES = (
    "ci_pass_rate_weekly.csv", "data_quality.csv", "friction_weekly.csv", "lag.csv",
    "lag_summary.csv", "perf_parity.csv", "summary.json", "lag.png", "model.png", "index.html",
)  # fmt: skip
KEPT = "robots.txt"  # in DIR, not written by the report
ROUNDS = 120

# Publishes generations start+1, start+2, ... into DIR forever; prints "ready" once imported,
# or (with a third argument) writes one generation half, says so and waits for a line on stdin.
PUBLISHER = """
import sys
from pathlib import Path
from tracker.report.publish import staged
out, generation, names = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
if len(sys.argv) > 4:
    with staged(out, carry_foreign=True) as stage:
        (stage / names[0]).write_text(f"{generation}\\n")
        print(stage, flush=True)
        sys.stdin.readline()
        for name in names[1:]:
            (stage / name).write_text(f"{generation}\\n")
    sys.exit(0)
print("ready", flush=True)
while True:
    generation += 1
    with staged(out, carry_foreign=True) as stage:
        for name in names:
            (stage / name).write_text(f"{generation}\\n")
"""


def publisher(out: Path, generation: int, *half: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(out), str(generation), ",".join(NAMES), *half],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=REPO, env=env,
    )  # fmt: skip


def publish(out: Path, generation: int) -> None:
    with staged(out, carry_foreign=True) as stage:
        for name in NAMES:
            (stage / name).write_text(f"{generation}\n")


def generations(folder: Path) -> dict[str, int]:
    return {name: int((folder / name).read_text()) for name in NAMES}


def shown(out: Path) -> tuple[Path, set[int]]:
    """DIR, a plain folder, and the generations it holds."""
    assert out.is_dir() and not out.is_symlink()
    assert (out / KEPT).read_text() == "User-agent: *\n"
    return out, set(generations(out).values())


def leftovers(site: Path, out: Path) -> set[str]:
    """What is under `site` (DIR's parent) besides DIR, the reports folder beside it with the
    previous report (`previous` and the folder it names, where kept), and their files."""
    reports = site / f".{out.name}.reports"
    folders, links = {out}, {reports, reports / "previous"}
    if (reports / "previous").is_symlink():
        folders.add(Path(os.path.realpath(reports / "previous")))
    found = set()
    for top, dirs, files in os.walk(site):
        for path in (Path(top, name) for name in dirs + files):
            if path in folders | links:
                continue
            if path.parent in folders and path.name in (*NAMES, KEPT, MANIFEST):
                continue
            found.add(str(path.relative_to(site)))
    return found


@pytest.fixture
def out(tmp_path) -> Path:
    """DIR as a web root holds it: a report (generation 0) and a robots.txt carried along."""
    site = tmp_path / "site"
    folder = site / "www"
    folder.mkdir(parents=True)
    (folder / KEPT).write_text("User-agent: *\n")
    publish(folder, 0)
    return folder


def test_sigkill_at_any_moment_leaves_one_whole_report_and_the_next_run_cleans_up(out):
    site, rng = out.parent, random.Random(42)
    mixed, dirty = [], 0
    for round_ in range(ROUNDS):
        child = publisher(out, round_ * 1_000_000)
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
        threading.Event().wait(rng.uniform(0, 0.03))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        folder, seen = shown(out)
        if len(seen) != 1:
            mixed.append((round_, sorted(seen), folder))
        dirty += bool(leftovers(site, out))

        publish(out, round_ * 1_000_000 + 999_999)  # the next run
        assert shown(out)[1] == {round_ * 1_000_000 + 999_999}
        assert leftovers(site, out) == set()
    assert mixed == []
    print(f"{ROUNDS} SIGKILLs, {dirty} left something the next run removed")


def test_a_reader_beside_repeated_publishes_never_sees_two_reports_mixed(out):
    publish(out, 1)
    stop, mixed, reads, vanished = threading.Event(), [], [0], [0]

    def read(folder: int, name: str) -> int:
        with open(name, opener=lambda path, flags: os.open(path, flags, dir_fd=folder)) as f:
            return int(f.read())

    def reader() -> None:
        while not stop.is_set():
            folder = os.open(out, os.O_RDONLY | os.O_DIRECTORY)  # DIR opened once, as served
            try:
                first = read(folder, "index.html")
                last = read(folder, "lag.csv")
            except FileNotFoundError:  # opened two publishes ago: gone whole, never mixed
                vanished[0] += 1
                continue
            finally:
                os.close(folder)
            reads[0] += 1
            if first != last:
                mixed.append((first, last))

    thread = threading.Thread(target=reader)
    thread.start()
    try:
        for generation in range(2, 400):
            publish(out, generation)
    finally:
        stop.set()
        thread.join(timeout=30)
    assert reads[0] > 0
    assert mixed == []
    assert shown(out)[1] == {399}
    print(f"{reads[0]} reads, {vanished[0]} of a folder already removed")


def test_the_next_run_removes_a_killed_runs_folder_but_not_a_running_ones(out):
    site = out.parent
    publish(out, 1)
    killed = publisher(out, 2, "half")
    running = publisher(out, 3, "half")
    assert killed.stdout is not None and running.stdout is not None and running.stdin
    killed_stage = Path(killed.stdout.readline().strip())
    running_stage = Path(running.stdout.readline().strip())
    killed.send_signal(signal.SIGKILL)
    killed.wait(timeout=30)
    assert killed_stage.is_dir() and running_stage.is_dir()

    publish(out, 4)  # the next run, while the other one is still writing
    assert shown(out)[1] == {4}
    assert not killed_stage.exists()
    assert running_stage.is_dir() and (running_stage / NAMES[0]).read_text() == "3\n"
    assert leftovers(site, out) == {
        str(path.relative_to(site)) for path in (running_stage, running_stage / NAMES[0])
    }

    running.stdin.write("go on\n")
    running.stdin.flush()
    assert running.wait(timeout=30) == 0
    assert shown(out)[1] == {3}
    publish(out, 5)
    assert leftovers(site, out) == set()
