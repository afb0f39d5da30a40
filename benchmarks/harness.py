"""The harness of `python -m benchmarks`: running tracker commands, the cached event files
and stores they run on, the results rows and the markdown table."""

from __future__ import annotations

import os
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from gen_events import generate
from whole_process import MEMORY_METHOD, run

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

AS_OF = "2026-08-31"  # the generated year ends here (gen_events.generate's default end)
SEED = 7
IMPORT_LOADER_MAX = 1_000_000  # stores above this size are filled by the sqlite3 loader


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
