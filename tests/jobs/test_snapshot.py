"""Replays report as of their snapshot; stale streams are flagged; the replayed vLLM CI matches
the corpus; an offline nightly gives the same lag whatever day it runs.

Real parts: the shipped cassettes replayed by vcrpy into real SQLite files, the CLI, a loopback
HTTP server for recording, faketime for the simulated week.
"""

from __future__ import annotations

import collections
import csv
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
import requests
import yaml
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.cassettes import read_snapshot
from tracker.collect.runner import cassette, run_sources
from tracker.errors import ConfigError
from tracker.events import Event
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report
from tracker.measure.quality.staleness import stale_sources
from tracker.store.asof import default_as_of

REPO = Path(__file__).resolve().parents[2]
CASSETTES = REPO / "cassettes"
SNAPSHOT = re.compile(r"^# snapshot: (\d{4}-\d{2}-\d{2})", re.M)


def header_date(path: Path) -> date:
    """The snapshot date a cassette states, read here with a regex of its own."""
    head = path.read_text(encoding="utf-8").split("\ninteractions:", 1)[0]
    return date.fromisoformat(SNAPSHOT.search(head).group(1))


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    runner = CliRunner()

    def invoke(*args):
        return runner.invoke(cli, list(args), catch_exceptions=False)

    return invoke


def test_every_shipped_cassette_states_its_snapshot():
    for path in sorted(CASSETTES.glob("*.yaml")):
        head = path.read_text(encoding="utf-8").split("\ninteractions:", 1)[0]
        assert SNAPSHOT.search(head), f"{path.name} states no snapshot date"
        assert read_snapshot(path) == header_date(path)
        line = next(x for x in head.splitlines() if x.startswith("# snapshot:"))
        if head.lower().startswith("# hand-written"):  # and says so on the snapshot line
            assert "hand-written" in line, path.name
        if "hand-written" in line:
            # The snapshot is the source's observation window: the day through which its public
            # record was searched, never the date of the newest record it happens to hold.
            assert "records searched through this day: " in line, path.name
            assert "newest" not in line.split("searched through", 1)[0], path.name
        # The repository explains itself: no paths into a shared folder outside it.
        assert "../shared" not in head and "/work/" not in head and "_derived/" not in head


SUBSET = ["pytorch-releases", "torch-xla-releases", "tpu-inference-tags", "vllm-ci"]


def test_replay_reports_as_of_the_newest_snapshot_and_a_later_report_too(run, tmp_path):
    expected = max(header_date(CASSETTES / f"{s}.yaml") for s in SUBSET)
    args = [a for s in SUBSET for a in ("--source", s)]
    first = run("nightly", "--replay", str(CASSETTES), *args, "--out", "r1")
    assert first.exit_code == 0, first.output
    assert f"as of {expected.isoformat()}, replay of {CASSETTES}" in first.output
    summary = json.loads((tmp_path / "r1" / "summary.json").read_text())
    assert summary["as_of"].startswith(expected.isoformat())
    page = (tmp_path / "r1" / "index.html").read_text()
    assert f"as of {expected.isoformat()}, replay of {CASSETTES}" in page.split("</h1>")[0]

    # No --replay: the store remembers that it holds a replay.
    later = run("report", "--out", "r2")
    assert json.loads((tmp_path / "r2" / "summary.json").read_text())["as_of"].startswith(
        expected.isoformat()
    )
    lag = run("lag", "--project", "pytorch", "--regime", "xla")
    lines = lag.output.splitlines()  # stderr's note comes with it through CliRunner
    assert f"lag as of {expected.isoformat()}, replay of {CASSETTES}" in lines[0]
    rows = list(csv.DictReader(lines[1:]))
    open_rows = [r for r in rows if r["status"] == "open"]
    assert open_rows, "PyTorch 2.10+ have no torch_xla release in the cassette"
    # censored at the snapshot of the torch-xla cassette (its definition's observation window,
    # docs/methodology.md), not at today and not at the newest snapshot
    seen = header_date(CASSETTES / "torch-xla-releases.yaml")
    assert seen < expected
    for row in open_rows:
        assert row["observed_through"] == seen.isoformat()
        assert int(row["lag_days"]) == (seen - date.fromisoformat(row["day0"])).days
    # --as-of overrides.
    override = run("report", "--out", "r3", "--as-of", "2026-01-31")
    assert override.exit_code == 0 and later.exit_code == 0
    assert json.loads((tmp_path / "r3" / "summary.json").read_text())["as_of"].startswith(
        "2026-01-31"
    )


def test_as_of_follows_the_cassette_headers(tmp_path, sqlite_store):
    folder = tmp_path / "cassettes"
    folder.mkdir()
    for source_id, day in (
        ("pytorch-releases", "2030-01-02"),
        ("torch-xla-releases", "2029-05-06"),
    ):
        text = (CASSETTES / f"{source_id}.yaml").read_text(encoding="utf-8")
        text = SNAPSHOT.sub(f"# snapshot: {day}", text, count=1)
        (folder / f"{source_id}.yaml").write_text(text, encoding="utf-8")
    config = load_config(REPO / "sources.yaml")
    summary = run_sources(
        config, sqlite_store, only=["pytorch-releases", "torch-xla-releases"], replay=folder
    )
    assert summary.exit_code == 0
    point = default_as_of(sqlite_store)
    assert point.snapshot == date(2030, 1, 2) and point.replay == str(folder)
    assert point.when == datetime(2030, 1, 2, 23, 59, 59, 999999, tzinfo=UTC)
    # A live run of ONE source afterwards (the other failed, say): the store holds live facts
    # now, so the other's old snapshot must not date it back: the wall clock applies.
    with sqlite_store.transaction() as conn:
        sqlite_store.record_run(
            conn,
            {
                "batch": "live",
                "source_id": "torch-xla-releases",
                "started_at": datetime.now(UTC),
                "status": "ok",
            },
        )
    assert default_as_of(sqlite_store) is None
    # A live run of both: likewise.
    with sqlite_store.transaction() as conn:
        for source_id in ("pytorch-releases", "torch-xla-releases"):
            sqlite_store.record_run(
                conn,
                {
                    "batch": "live",
                    "source_id": source_id,
                    "started_at": datetime.now(UTC),
                    "status": "ok",
                },
            )
    assert default_as_of(sqlite_store) is None


def test_record_writes_the_snapshot_line(tmp_path, httpserver):
    httpserver.expect_request("/thing").respond_with_json({"ok": 1})
    with cassette("demo", None, tmp_path):
        assert requests.get(httpserver.url_for("/thing"), timeout=5).json() == {"ok": 1}
    path = tmp_path / "demo.yaml"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith(f"# snapshot: {datetime.now(UTC).date().isoformat()} (recorded")
    assert read_snapshot(path) == datetime.now(UTC).date()
    assert yaml.safe_load(path.read_text())["interactions"]  # still a cassette vcrpy reads
    httpserver.clear()
    with cassette("demo", tmp_path, None):  # and replays, with no server behind it
        assert requests.get(httpserver.url_for("/thing"), timeout=5).json() == {"ok": 1}


# -- staleness -----------------------------------------------------------------------------


def _release(source_id: str, project: str, version: str, when: datetime) -> Event:
    return Event(
        source_id,
        project,
        "release",
        f"release:{version}",
        when,
        f"{project} {version}",
        url=f"https://example.org/{project}/{version}",
        version=version,
    )


def _write_sources(path: Path, report: str) -> Path:
    path.write_text(
        f"""{report}
regimes: [{{id: cuda, reference: true}}, {{id: xla}}]
sources:
  - {{id: up, kind: github_releases, project: pytorch, regime: cuda, repo: o/up}}
  - {{id: xla-rel, kind: github_releases, project: torch-xla, regime: xla, repo: o/xla}}
coverage:
  - project: pytorch
    series: minor
    regimes:
      xla:
        - {{definition: torch_xla_release, primary: true,
            evidence: {{project: torch-xla, kind: release}}}}
""",
        encoding="utf-8",
    )
    return path


def test_a_stale_stream_is_flagged(tmp_path, sqlite_store):
    events = [
        _release("up", "pytorch", "2.8.0", datetime(2025, 8, 6, tzinfo=UTC)),
        _release("up", "pytorch", "2.10.0", datetime(2026, 8, 1, tzinfo=UTC)),
        _release("xla-rel", "torch-xla", "2.8.0", datetime(2025, 8, 8, tzinfo=UTC)),
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, events)
    as_of = datetime(2026, 8, 22, 23, 59, tzinfo=UTC)
    config = load_config(_write_sources(tmp_path / "s.yaml", "report: {stale_after_days: 45}"))
    stale = stale_sources(sqlite_store, config, as_of)
    # xla-rel's newest fact is 379 days old; the upstream stream (21 days) is fresh.
    assert [(r["source_id"], r["last_evidence"], r["days_behind"]) for r in stale] == [
        ("xla-rel", "2025-08-08", 379)
    ]
    publish_report(config, sqlite_store, tmp_path / "out", as_of=as_of)
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert [r["source_id"] for r in summary["stale_sources"]] == ["xla-rel"]
    assert {r["regime"]: r["evidence_stale"] for r in summary["lag_primary"]} == {
        "cuda": "false",
        "xla": "true",
    }
    page = (tmp_path / "out" / "index.html").read_text()
    assert "Data quality: stale evidence streams" in page and "xla-rel" in page
    # A longer tolerance: nothing is stale, and the page says nothing about it.
    config = load_config(_write_sources(tmp_path / "t.yaml", "report: {stale_after_days: 400}"))
    assert stale_sources(sqlite_store, config, as_of) == []
    publish_report(config, sqlite_store, tmp_path / "out2", as_of=as_of)
    assert "stale evidence streams" not in (tmp_path / "out2" / "index.html").read_text()


@pytest.mark.parametrize(
    "report, message",
    [
        ("report: {stale_after_days: -1}", "stale_after_days must be a whole number"),
        ("report: {stale_after_days: soon}", "stale_after_days must be a whole number"),
        ("report: {stale_days: 3}", "report: unknown key 'stale_days'"),
        ("report: [45]", "'report' must be a mapping"),
    ],
)
def test_report_settings_are_validated(tmp_path, report, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        load_config(_write_sources(tmp_path / "s.yaml", report))


# -- the replayed vLLM CI against the corpus -------------------------------------------------


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def _corpus_job_counts(folder: Path, regimes: dict) -> dict:
    """(regime, ISO week) -> [passed, failed] jobs of both vLLM nightly pipelines, computed from
    the corpus with the job rules of the pass-rate definition: the full Buildkite build objects
    where the corpus has them (command jobs; superseded retries not counted; soft-failed jobs
    failed; passed / failed / timed_out), else the per-job results the dashboard kept (the job
    state it recorded for logs without a test summary, else failed when a test failed or
    errored, not counted when canceled). A job's regime comes from its agent queue through the
    source's job_regimes; the dashboard files name no queue, so a job takes the queue its name
    had in the full build, else the hardware its name carries."""
    counts: dict = collections.defaultdict(lambda: [0, 0])
    for tag, source_id, cache in (
        ("amd", "vllm-amd-ci", "builds_amd.json"),
        ("upstream", "vllm-ci", "builds_upstream.json"),
    ):
        rules, default = regimes[source_id]

        def regime_of(queue: str | None, rules=rules, default=default) -> str:
            return next(
                (r for glob, r in rules if fnmatch.fnmatchcase(queue or "default", glob)), default
            )

        cache_dir = folder / "vllm-ci-dashboard@2d34517" / "buildkite_cache"
        full = json.loads((cache_dir / cache).read_text())[0]
        queue_by_name: dict[str, str] = {}
        for job in full["jobs"]:
            queue = next(
                (r[6:] for r in job.get("agent_query_rules") or [] if r.startswith("queue=")), None
            )
            if queue:
                queue_by_name.setdefault(job["name"], queue)
            if job["type"] != "script" or job.get("retried") or job.get("retried_in_job_id"):
                continue
            if job["state"] not in ("passed", "failed", "timed_out"):
                continue
            failed = job["state"] != "passed" or bool(job.get("soft_failed"))
            week = iso_week(datetime.fromisoformat(job["finished_at"]))
            counts[(regime_of(queue), week)][failed] += 1
        builds: dict = {}
        for path in sorted(folder.glob(f"*/test_results/*_{tag}.jsonl")):
            rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
            jobs = collections.defaultdict(list)
            for row in rows:
                jobs[row["job_id"]].append(row)
            number = rows[0]["build_number"]
            if number == full["number"]:
                continue
            if number not in builds or len(jobs) > len(builds[number][1]):
                builds[number] = (path.name[:10], jobs)
        for day, jobs in builds.values():
            week = iso_week(date.fromisoformat(day))
            for rows in jobs.values():
                level = [r for r in rows if r["name"] == "__job_level__"]
                statuses = {r["status"] for r in rows}
                if level:
                    found = re.match(r"Job state: (\w+)", level[0]["failure_message"] or "")
                    state = found.group(1) if found else level[0]["status"]
                elif statuses & {"failed", "error"}:
                    state = "failed"
                elif statuses == {"canceled"}:
                    state = "canceled"
                else:
                    state = "passed"
                if state not in ("passed", "failed", "timed_out"):
                    continue
                name = rows[0]["job_name"]
                hardware = re.match(r"(mi\d+_\d+): ", name) or re.search(r"\((mi\d+_\d+)\)$", name)
                queue = queue_by_name.get(name) or (
                    "amd_" + hardware.group(1)
                    if hardware and (tag == "amd" or name.startswith("AMD: "))
                    else "intel-cpu"
                    if name.startswith("CPU-")
                    else None
                )
                counts[(regime_of(queue), week)][state != "passed"] += 1
    return counts


def _cassettes_through(day: date, directory: Path) -> list[date]:
    """Copies of the two vLLM CI cassettes in DIRECTORY holding only the builds created on or
    before DAY (header kept); returns the creation days of the builds left out."""
    directory.mkdir()
    later = []
    for source_id in ("vllm-ci", "vllm-amd-ci"):
        text = (CASSETTES / f"{source_id}.yaml").read_text(encoding="utf-8")
        head = text.split("\ninteractions:", 1)[0]
        cassette = yaml.safe_load(text)
        body = cassette["interactions"][0]["response"]["body"]
        builds = json.loads(body["string"])
        days = [date.fromisoformat(b["created_at"][:10]) for b in builds]
        later += [d for d in days if d > day]
        body["string"] = json.dumps([b for b, d in zip(builds, days, strict=True) if d <= day])
        (directory / f"{source_id}.yaml").write_text(
            head + "\n" + yaml.safe_dump(cassette), encoding="utf-8"
        )
    return later


def test_replayed_vllm_ci_matches_the_corpus(corpus, sqlite_store, monkeypatch, tmp_path):
    folder = corpus / "vllm-ci"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    # The corpus holds the dashboard's nightlies up to 2026-05-08; the cassettes go on to
    # 2026-05-19 (11 more per pipeline, from its later history): only the part the corpus
    # covers, every build up to its newest nightly, is compared here.
    newest = max(date.fromisoformat(p.name[:10]) for p in folder.glob("*/test_results/*.jsonl"))
    later = _cassettes_through(newest, tmp_path / "cassettes")
    assert len(later) == 22 and min(later) > newest
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    config = load_config(REPO / "sources.yaml")
    regimes = {}
    for source_id in ("vllm-ci", "vllm-amd-ci"):
        spec = config.source(source_id)
        rules = [(r["match"], r["regime"]) for r in spec.options.get("job_regimes") or []]
        regimes[source_id] = (rules, spec.regime)
    expected = _corpus_job_counts(folder, regimes)
    summary = run_sources(
        config, sqlite_store, only=["vllm-ci", "vllm-amd-ci"], replay=tmp_path / "cassettes"
    )
    assert summary.exit_code == 0
    # The view has a row per source and trigger: sum them per regime and week.
    got: dict = {}
    for r in sqlite_store.view_rows("v_ci_pass_rate_weekly"):
        if r["project"] == "vllm":
            assert r["trigger"] == "schedule"  # the demo holds nightly builds only
            pair = got.setdefault((r["regime"], r["week"]), [0, 0])
            pair[0] += r["jobs_passed"]
            pair[1] += r["jobs_failed"]
    assert got == dict(expected)
    # Seven ISO weeks (2026-W13 .. W19) for both CUDA and ROCm jobs.
    for regime in ("cuda", "rocm"):
        assert sorted(w for g, w in got if g == regime) == [f"2026-W{n}" for n in range(13, 20)]


# -- a week apart in simulated time -----------------------------------------------------------


@pytest.mark.skipif(shutil.which("faketime") is None, reason="faketime is not installed")
def test_offline_nightly_a_week_apart_gives_the_same_lag(tmp_path):
    tracker = [str(Path(sys.executable).parent / "tracker")]  # the venv's console script
    sources = [
        "pytorch-releases",
        "torch-xla-releases",
        "rocm-compat-matrix-historical",
        "neuron-pytorch-notes",
        "neuron-release-notes",
    ]
    args = [a for s in sources for a in ("--source", s)]
    env = {**os.environ, "TRACKER_SOURCES": str(REPO / "sources.yaml")}
    env.pop("TRACKER_DATABASE_URL", None)
    outputs = []
    for day in ("2026-11-23 12:00:00", "2026-11-30 12:00:00"):
        folder = tmp_path / day[:10]
        folder.mkdir()
        command = ["faketime", day, *tracker, "--db", f"sqlite:///{folder / 't.db'}"]
        done = subprocess.run(
            [*command, "nightly", "--replay", str(CASSETTES), *args, "--out", str(folder / "r")],
            env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        outputs.append((folder / "r" / "lag.csv").read_text())
    first, second = outputs
    assert ",open," in first  # open rows exist: on the wall clock they would age by 7 days
    assert first == second
