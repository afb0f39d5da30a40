"""Whole-process benchmarks of the tracker CLI, each next to its baseline from the same run.

    python -m benchmarks [--quick] [--only NAME ...] [--repeat 3] [--fresh] [--md FILE]

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
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from fake_github import FakeGitHub  # noqa: E402
from gen_events import generate  # noqa: E402
from whole_process import MEMORY_METHOD, CommandFailed, Run, repeat, run  # noqa: E402

AS_OF = "2026-08-31"  # the generated year ends here (gen_events.generate's default end)
SEED = 7
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
IMPORT_LOADER_MAX = 1_000_000  # stores above this size are filled by the sqlite3 loader
GITHUB_KINDS = {"github_releases", "github_tags", "github_issues", "github_actions", "buildkite"}


def older_store(path: Path, revision: str | None) -> Path | None:
    """The cached store of the same size and seed at the newest revision before `revision`
    (`store-5M-s7-r0009.db` for `store-5M-s7-r0010.db`); None if there is none."""
    if not revision or not revision.isdigit():
        return None
    stem = path.name.rsplit("-r", 1)[0]
    found = {}
    for candidate in path.parent.glob(f"{stem}-r*.db"):
        rev = candidate.stem.rsplit("-r", 1)[-1]
        if rev.isdigit() and int(rev) < int(revision):
            found[int(rev)] = candidate
    return found[max(found)] if found else None


def human(n: int) -> str:
    if n >= 1_000_000 and n % 1_000_000 == 0:
        return f"{n // 1_000_000}M"
    if n >= 1_000 and n % 1_000 == 0:
        return f"{n // 1_000}k"
    return str(n)


@dataclass
class Row:
    """One line of the results table."""

    bench: str
    metric: str
    value: str
    baseline: str
    target: str
    ok: bool | None  # None: no target to pass or fail

    def status(self) -> str:
        return "-" if self.ok is None else ("PASS" if self.ok else "FAIL")


@dataclass
class Harness:
    tracker: Path
    python: Path
    cache: Path
    work: Path
    repeat: int
    fresh: bool
    rows: list[Row] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    _template: Path | None = None
    _revision: str | None = None
    _tagger_version: str | None = None
    _made: set[Path] = field(default_factory=set)  # cache entries made or checked this run

    # -- plumbing --------------------------------------------------------------------------
    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith("TRACKER_") and k not in ("GITHUB_TOKEN",)
        }
        env.update(extra)
        return env

    def tracker_cmd(self, db: Path, *args: str, sources: Path | None = None) -> list[str]:
        return [
            str(self.tracker),
            "--db",
            f"sqlite:///{db}",
            "--sources",
            str(sources or ROOT / "sources.yaml"),
            *args,
        ]

    def say(self, text: str) -> None:
        print(text, flush=True)

    def add(self, bench, metric, value, baseline, target, ok) -> None:
        row = Row(bench, metric, value, baseline, target, ok)
        self.rows.append(row)
        self.say(f"  {metric}: {value}   (baseline: {baseline}; target: {target}) {row.status()}")

    def template(self) -> Path:
        """An empty database at the newest schema (`tracker init-db`), copied per run."""
        if self._template is None:
            path = self.work / "template.db"
            result = run(self.tracker_cmd(path, "init-db"), env=self.env())
            found = re.search(r"revision (\w+)", result.stdout + result.stderr)
            self._revision = found.group(1) if found else "unknown"
            self._template = path
        return self._template

    def fresh_db(self, path: Path) -> Path:
        for suffix in ("", "-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(self.template(), path)
        return path

    def events_file(self, n: int) -> Path:
        path = self.cache / f"events-{human(n)}-s{SEED}.jsonl"
        if self.fresh and path.exists() and path not in self._made:
            path.unlink()
        if not path.exists():
            started = time.perf_counter()
            generate(n, path, SEED)
            self.say(f"  generated {path} ({time.perf_counter() - started:.1f} s)")
        self._made.add(path)
        return path

    def tagger_version(self) -> str:
        """The version `tracker tag` writes, read from a real run on two events."""
        if self._tagger_version is None:
            db = self.fresh_db(self.work / "probe.db")
            sample = self.work / "probe.jsonl"
            generate(20, sample, SEED)
            run(self.tracker_cmd(db, "import-events", str(sample)), env=self.env())
            out = run(self.tracker_cmd(db, "-q", "tag"), env=self.env())
            found = re.search(r"tagger ([^)\s]+)\)", out.stdout + out.stderr)
            if not found:
                result = run(
                    self.tracker_cmd(
                        db, "query", "select tagger_version from tags limit 1", "--format", "csv"
                    ),
                    env=self.env(),
                )
                lines = result.stdout.split()
                self._tagger_version = lines[-1] if len(lines) > 1 else "unknown"
            else:
                self._tagger_version = found.group(1)
        return self._tagger_version

    def store(self, n: int, imported: Path | None = None) -> Path:
        """A store of `n` generated events with tag rows, cached by size and schema revision.

        `imported`: a database `tracker import-events` just filled with those events (the
        import benchmark's), adopted instead of loading again."""
        self.template()
        path = self.cache / f"store-{human(n)}-s{SEED}-r{self._revision}.db"
        if self.fresh and path.exists() and path not in self._made:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
        if path.exists():
            self._made.add(path)
            return path
        started = time.perf_counter()
        tmp = self.work / f"build-{human(n)}.db"
        older = None if self.fresh else older_store(path, self._revision)
        if older is not None and imported is None:
            # A new migration need not cost a rebuild (10 min at 5M): upgrade a copy, as a
            # user's store is upgraded. The cached file itself is never written.
            shutil.copyfile(older, tmp)
            run(self.tracker_cmd(tmp, "-q", "init-db"), env=self.env())
            shutil.move(tmp, path)
            self._made.add(path)
            rev = older.stem.rsplit("-", 1)[-1]
            note = f"store {human(n)}: upgraded from {rev} by tracker init-db"
            self.notes.append(note)
            self.say(f"  {note} ({time.perf_counter() - started:.1f} s) -> {path}")
            return path
        if imported is not None:
            shutil.copyfile(imported, tmp)
            how = "tracker import-events (the import benchmark's database)"
        else:
            self.fresh_db(tmp)
            events = self.events_file(n)
            if n <= IMPORT_LOADER_MAX:
                run(self.tracker_cmd(tmp, "-q", "import-events", str(events)), env=self.env())
                how = "tracker import-events"
            else:
                run(
                    [
                        self.python,
                        HERE / "sqlite_import.py",
                        tmp,
                        events,
                        "--sources",
                        ROOT / "sources.yaml",
                    ],
                    env=self.env(),
                )
                how = "the sqlite3 loader (benchmarks/sqlite_import.py)"
        run([self.python, HERE / "fill_tags.py", tmp, self.tagger_version()], env=self.env())
        shutil.move(tmp, path)
        self._made.add(path)
        note = f"store {human(n)}: filled by {how}, tags by fill_tags.py"
        self.notes.append(note)
        self.say(f"  {note} ({time.perf_counter() - started:.1f} s) -> {path}")
        return path

    def store_note(self, n: int) -> str:
        return "import-events" if n <= IMPORT_LOADER_MAX else "sqlite3 loader"

    # -- benchmarks ------------------------------------------------------------------------
    def bench_startup(self) -> None:
        self.say("startup")
        db = self.fresh_db(self.work / "startup.db")
        floor = repeat(self.repeat, lambda: run([self.python, "-c", "pass"], env=self.env()))
        base = f"python -c pass {floor.wall:.3f} s"
        for label, args in (("tracker --help", ["--help"]), ('query "select 1"', None)):
            cmd = [str(self.tracker), *args] if args else self.tracker_cmd(db, "query", "select 1")
            sample = repeat(self.repeat, lambda cmd=cmd: run(cmd, env=self.env()))
            self.add(
                "startup",
                f"{label} wall",
                f"{sample.wall:.3f} s",
                base,
                "< 0.5 s",
                sample.wall < 0.5,
            )

    def bench_import(self, sizes: list[int], want_stores: set[int]) -> None:
        for n in sizes:
            self.say(f"import {human(n)}")
            events = self.events_file(n)
            sources = ROOT / "sources.yaml"
            base_db, db = self.work / "import-base.db", self.work / "import.db"
            base_walls, base_peaks, first, again = [], [], [], []
            for _ in range(self.repeat):  # interleaved: drift hits both sides alike
                self.fresh_db(base_db)
                b = run(
                    [self.python, HERE / "sqlite_import.py", base_db, events, "--sources", sources],
                    env=self.env(),
                )
                base_walls.append(b.wall)
                base_peaks.append(b.peak_mb)
                self.fresh_db(db)
                first.append(
                    run(self.tracker_cmd(db, "-q", "import-events", str(events)), env=self.env())
                )
                again.append(
                    run(self.tracker_cmd(db, "-q", "import-events", str(events)), env=self.env())
                )
            t1 = statistics.median(r.wall for r in first)
            t2 = statistics.median(r.wall for r in again)
            tb = statistics.median(base_walls)
            peak = max(r.peak_mb for r in first + again)
            tag = human(n)
            self.add(
                "import",
                f"import-events {tag}: first import",
                f"{t1:.2f} s ({n / t1:,.0f} ev/s)",
                f"sqlite3 {tb:.2f} s ({n / tb:,.0f} ev/s)",
                ">= 0.5x sqlite3 speed",
                None,
            )
            self.add(
                "import",
                f"import-events {tag}: speed vs sqlite3",
                f"{tb / t1:.2f}x",
                "1.00x",
                ">= 0.5x",
                tb / t1 >= 0.5,
            )
            self.add(
                "import",
                f"import-events {tag}: re-import / first",
                f"{t2 / t1:.2f}x ({t2:.2f} s)",
                f"first {t1:.2f} s",
                "<= 1.5x",
                t2 / t1 <= 1.5,
            )
            big = n >= 1_000_000 or n == sizes[-1]
            self.add(
                "import",
                f"import-events {tag}: peak RSS",
                f"{peak:.0f} MB",
                f"sqlite3 {statistics.median(base_peaks):.0f} MB",
                "< 500 MB" if big else "(target at 1M)",
                peak < 500 if big else None,
            )
            if n in want_stores:
                self.store(n, imported=db)

    def bench_report(self, sizes: list[int]) -> None:
        for i, n in enumerate(sizes):
            self.say(f"report {human(n)}")
            db = self.store(n)
            out, ref_out = self.work / "report", self.work / "report-ref"
            walls, peaks, ref_walls, ref_peaks = [], [], [], []
            for _ in range(self.repeat):
                shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(ref_out, ignore_errors=True)
                r = run([self.python, HERE / "report_reference.py", db, ref_out], env=self.env())
                ref_walls.append(r.wall)
                ref_peaks.append(r.peak_mb)
                t = run(
                    self.tracker_cmd(db, "-q", "report", "--out", str(out), "--as-of", AS_OF),
                    env=self.env(),
                )
                walls.append(t.wall)
                peaks.append(t.peak_mb)
            t, ref = statistics.median(walls), statistics.median(ref_walls)
            peak = max(peaks)
            tag = f"report {human(n)} ({self.store_note(n)} store)"
            base = f"reference {ref:.2f} s, {statistics.median(ref_peaks):.0f} MB"
            wall_target = [("<= 1.5x reference", t / ref <= 1.5), ("< 10 s", t < 10)]
            wall_target += [("< 60 s", t < 60)]
            target, ok = wall_target[min(i, 2)]
            self.add("report", f"{tag}: wall", f"{t:.2f} s ({t / ref:.2f}x)", base, target, ok)
            if i == 0:
                self.add("report", f"{tag}: ratio", f"{t / ref:.2f}x", "1.00x", "<= 1.5x", ok)
            self.add(
                "report",
                f"{tag}: peak RSS",
                f"{peak:.0f} MB",
                base,
                "< 1 GB" if i == 1 else "-",
                peak < 1024 if i == 1 else None,
            )

    def collect_sources(self, url: str) -> Path:
        real = yaml.safe_load((ROOT / "sources.yaml").read_text(encoding="utf-8"))
        doc = {
            "regimes": real["regimes"],
            "sources": [
                {
                    "id": "bench-issues",
                    "kind": "github_issues",
                    "project": "pytorch",
                    "regime": "rocm",
                    "repo": "bench/repo",
                    "api_url": url,
                }
            ],
        }
        path = self.work / "collect-sources.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        return path

    def bench_collect(self, issues: int) -> None:
        self.say(f"collect {human(issues)} issues")
        env = self.env(TRACKER_GITHUB_TOKEN="bench-not-a-token")
        with FakeGitHub(issues) as fake:
            sources = self.collect_sources(fake.url)
            db = self.work / "collect.db"
            requests: list[int] = []

            def once() -> Run:
                fake.reset()
                result = run(
                    self.tracker_cmd(db, "collect", "--source", "bench-issues", sources=sources),
                    env=env,
                )
                requests.append(fake.requests)
                return result

            def floor_once() -> Run:
                fake.reset()
                return run([self.python, "-c", _FETCH_FLOOR, fake.url, str(issues)], env=env)

            floor = repeat(self.repeat, floor_once)
            floor_requests = fake.requests
            sample = repeat(self.repeat, once, before=lambda: self.fresh_db(db))
            stored = run(
                self.tracker_cmd(db, "query", "select count(*) from events", "--format", "csv"),
                env=env,
            ).stdout.split()[-1]
            fake.reset()
            rerun = run(
                self.tracker_cmd(db, "collect", "--source", "bench-issues", sources=sources),
                env=env,
            )
            re_requests, re_304 = fake.requests, fake.not_modified
        rate = issues / sample.wall
        base = (
            f"fetch floor {issues / floor.wall:,.0f}/s ({floor.wall:.2f} s, "
            f"{floor_requests} req, {floor.peak_mb:.0f} MB)"
        )
        self.say(f"  stored {stored} events of {issues}")
        self.add(
            "collect",
            f"collect {human(issues)}: issues/s",
            f"{rate:,.0f}/s ({sample.wall:.2f} s)",
            base,
            ">= 8,000/s",
            rate >= 8000,
        )
        req = int(statistics.median(requests))
        self.add(
            "collect", f"collect {human(issues)}: requests", str(req), base, "<= 101", req <= 101
        )
        self.add(
            "collect",
            f"collect {human(issues)}: peak RSS",
            f"{sample.peak_mb:.0f} MB",
            base,
            "<= 100 MB",
            sample.peak_mb <= 100,
        )
        self.add(
            "collect",
            "collect re-run (nothing new)",
            f"{re_requests} req, {re_304} x 304, {rerun.wall:.2f} s",
            "-",
            "1 request, a 304",
            re_requests == 1 and re_304 == 1,
        )
        if str(stored) != str(issues):
            self.notes.append(f"collect stored {stored} events for {issues} issues served")

    def nightly_sources(self, url: str) -> Path:
        """sources.yaml with every source's base URL pointed at the local server."""
        doc = yaml.safe_load((ROOT / "sources.yaml").read_text(encoding="utf-8"))

        def local(value):
            if isinstance(value, str) and value.startswith(("http://", "https://")):
                return url + "/" + value.split("/", 3)[-1]
            if isinstance(value, list):
                return [local(v) for v in value]
            if isinstance(value, dict):
                return {k: local(v) for k, v in value.items()}
            return value

        sources = []
        for source in doc["sources"]:
            source = local(source)
            kind = source["kind"]
            if kind in GITHUB_KINDS:
                source["api_url"] = url
            elif kind == "doc_history":  # GitHub's API and raw documents
                source["api_url"] = source["raw_url"] = url
            elif kind == "pypi":
                source["url"] = url + "/pypi/{package}/json"
            elif kind == "docker_tags":
                source["url"] = url + "/v2/repositories/{repository}/tags?page_size=100"
            sources.append(source)
        doc["sources"] = sources
        path = self.work / "nightly-sources.yaml"
        path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
        return path

    def bench_nightly(self, n: int) -> None:
        self.say(f"nightly {human(n)}")
        store = self.store(n)
        db = self.work / "nightly.db"
        shutil.copyfile(store, db)
        env = self.env(TRACKER_GITHUB_TOKEN="bench-not-a-token")
        out, ref_out = self.work / "nightly-report", self.work / "nightly-ref"
        with FakeGitHub(0, all_304=True) as fake:
            sources = self.nightly_sources(fake.url)
            counts: list[tuple[int, int]] = []
            codes: list[int] = []

            def once() -> Run:
                fake.reset()
                shutil.rmtree(out, ignore_errors=True)
                cmd = self.tracker_cmd(
                    db, "-q", "nightly", "--out", str(out), "--as-of", AS_OF, sources=sources
                )
                result = run(cmd, env=env, ok=(0, 3))
                counts.append((fake.requests, fake.not_modified))
                codes.append(result.returncode)
                return result

            sample = repeat(self.repeat, once)
        ref = repeat(
            self.repeat,
            lambda: run([self.python, HERE / "report_reference.py", db, ref_out], env=self.env()),
        )
        req, n304 = counts[-1]
        self.add(
            "nightly",
            f"nightly {human(n)} ({self.store_note(n)} store), all 304",
            f"{sample.wall:.2f} s, {sample.peak_mb:.0f} MB, {req} req / {n304} x 304, "
            f"exit {codes[-1]}",
            f"reference report {ref.wall:.2f} s",
            "< 10 s",
            sample.wall < 10,
        )
        if codes[-1] == 3:
            tail = (
                sample.last.stdout.strip().splitlines()[-5:]
                + sample.last.stderr.strip().splitlines()[-5:]
            )
            self.notes.append("nightly exited 3 (some sources failed): " + " | ".join(tail))

    # -- output ----------------------------------------------------------------------------
    def markdown(self, mode: str, elapsed: float) -> str:
        lines = [
            f"Whole-process figures, median of {self.repeat} runs, baselines from the same run "
            f"(`python -m benchmarks{' --quick' if mode == 'quick' else ''}`, {elapsed / 60:.1f} "
            f"min; peak memory: {MEMORY_METHOD}).",
        ]
        if mode == "quick":
            lines += [
                "",
                "--quick: the sizes are stand-ins and each carries the target of the full size "
                "it stands for (import 20k for 1M; report 20k / 50k / 100k for 200k / 1M / 5M; "
                "nightly 20k for 1M).",
            ]
        lines += [
            "",
            "| benchmark | measure | value | baseline (same run) | target | |",
            "|---|---|---|---|---|---|",
        ]
        for r in self.rows:
            lines.append(
                f"| {r.bench} | {r.metric} | {r.value} | {r.baseline} | {r.target} | {r.status()} |"
            )
        if self.notes:
            lines += ["", *[f"- {note}" for note in self.notes]]
        return "\n".join(lines) + "\n"


# The collect floor: the same keyset-paged listing fetched with requests.Session and parsed with
# json.loads, nothing stored (what the server and HTTP alone cost).
_FETCH_FLOOR = """
import json, sys, requests
base, n = sys.argv[1], int(sys.argv[2])
s = requests.Session()
params = {"state": "all", "sort": "updated", "direction": "asc", "per_page": 100}
url = base + "/repos/bench/repo/issues"
seen = set()
while True:
    page = json.loads(s.get(url, params=params).content)
    seen.update(i["number"] for i in page)
    if len(page) < 100:
        break
    params["since"] = page[-1]["updated_at"]
assert len(seen) == n, (len(seen), n)
"""


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
    sizes = SIZES[mode]
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
            ("startup", h.bench_startup),
            ("import", lambda: h.bench_import(sizes["import"], want)),
            ("collect", lambda: h.bench_collect(sizes["collect"])),
            ("report", lambda: h.bench_report(sizes["report"])),
            ("nightly", lambda: h.bench_nightly(sizes["nightly"])),
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
