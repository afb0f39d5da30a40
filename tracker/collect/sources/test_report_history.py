"""`test_report_history`: CI test reports a dashboard publishes in git, read through the history
of their folder -> one ``ci_tests`` event per job and build (tracker.collect.test_reports).

AMD's vLLM CI dashboard commits, per nightly build, a JSONL file of the build's test results
(``data/vllm/ci/test_results/<date>_amd.jsonl`` for the ``amd-ci`` pipeline, ``..._upstream``
for ``ci``) and drops files older than 30 days; the folder's git history keeps them all.

Source keys: ``repo``, ``path`` (the folder), ``files`` (a glob over the file names:
``"*_amd.jsonl"``), ``pipeline`` (the pipeline the reports are of: ``amd-ci``); optional
``builds`` (the id of the source collecting that pipeline's builds, e.g. a ``buildkite``
source: the reports map onto its jobs by build number and job name), ``refs`` (branches or
commit ids whose history is read, in order; default the default branch: a dashboard whose older
history sits on another ref lists it first), ``every_days`` (default 7), ``job_regimes`` (globs
over the job name, first match wins, else the source's regime), ``api_url``, ``raw_url``.

Contract:
- Per ref: ``GET {api_url}/repos/{repo}/commits?path=<path>&per_page=100[&sha=<ref>]
  [&since=<ctx.since>]`` (Link pagination, bounded by the source's page cap). Of the commits
  listed, the folder is read at the oldest one (a first read: files the next commit drops) and at
  the newest one of each ``every_days`` stretch of UTC days (files live 30 days there, so a
  stretch under 30 days misses none), oldest first, each commit once (``state["read"]``).
- At a commit: ``GET {api_url}/repos/{repo}/contents/<path>?ref=<sha>`` (the folder's files and
  their blob ids), then each file matching ``files`` whose blob id differs from the one read
  last under that name (``state["blobs"]``): ``GET {raw_url}/{repo}/<sha>/<path>/<name>``. A
  file being written during its nightly is read again once it changed; its events replace the
  earlier ones (the same ids).
- A file: one JSON object per line with ``name``, ``job_name`` (or ``classname``), ``status``,
  ``build_number`` (an aggregate row needs no ``status``). Aggregate rows count many tests:
  ``name`` ``__passed__ (N)``, ``__skipped__ (N)``, ``__xfailed__ (N)``,
  ``__unidentified_failures__ (N)``,
  ``__unidentified_errors__ (N)``; ``__job_level__``: no test output was found, the row's status
  is the job's state. Any other name is one test, counted by its status, a failing one by name.
  A line that is not such an object (JSON nested deeper than the parser's bound included) is a
  skip (line number); the rest of the file goes on; at most ROW_LIMIT lines per file are read,
  and a file cut there says so. A row naming a test of its build and job again (the same
  ``name``, ``test_id``, ``classname`` and ``job_id``, the try of the job; not an aggregate or
  job-level row, which a retried job repeats) is counted once (the first), the duplicates said
  once per job; an aggregate row, or a job report, counting more than JOB_TESTS_LIMIT tests is
  refused, said.
- Event: per (build, job) of the file, dated by the file's date (``YYYY-MM-DD_*``), ``updated_at``
  the commit's time (the cursor), URL the file at that commit on github.com, regime from
  ``job_regimes`` over the job name, attrs the counts, failing names, ``commit``, ``path`` and
  ``builds``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import date, datetime
from fnmatch import fnmatchcase
from typing import Any

from tracker.collect import ci
from tracker.collect.sources import CollectContext
from tracker.collect.sources.doc_history import DEFAULT_RAW, READ_LIMIT, commit_date, path_commits
from tracker.collect.sources.github_releases import DEFAULT_API
from tracker.collect.test_reports import NAME_CHARS, JobTests, report_event
from tracker.config.preview import preview
from tracker.errors import FatalHTTPError, first_line
from tracker.events import Event

KIND = "test_report_history"
AUTH = "github"
ASCENDING = True  # commits are read oldest first

DEFAULT_EVERY_DAYS = 7
ROW_LIMIT = 50_000  # lines read per file: a real nightly file holds a few hundred
# Tests one job runs, at most: vLLM's largest CI job runs a few thousand; an aggregate row or a
# job report counting more is no report of a job, and is refused rather than counted.
JOB_TESTS_LIMIT = 100_000
BLOB_LIMIT = 2_000  # file names whose blob ids are remembered

_SHA = re.compile(r"^[0-9a-f]{40}$")
_DAY = re.compile(r"^(\d{4}-\d{2}-\d{2})")
_AGGREGATE = re.compile(
    r"^__(passed|skipped|xfailed|xpassed|unidentified_failures|unidentified_errors)__"
    r"\s*\((\d{1,9})\)$"
)
_AGGREGATE_STATUS = {
    "passed": "passed",
    "skipped": "skipped",
    "xfailed": "xfailed",
    "xpassed": "xpassed",
    "unidentified_failures": "failed",
    "unidentified_errors": "error",
}
JOB_LEVEL = "__job_level__"


def file_day(name: str) -> date | None:
    """The nightly date a file is named by ("2026-05-08_amd.jsonl"); None when it names none."""
    found = _DAY.match(name)
    try:
        return date.fromisoformat(found.group(1)) if found else None
    except ValueError:
        return None


def parse_reports(text: str, pipeline: str, day: date, skip) -> list[JobTests]:
    """The job reports of one file, in the order their jobs first appear (see the contract);
    ``skip(where, why)`` is told of each line left out."""
    reports: dict[tuple[int, str], JobTests] = {}
    seen: set[tuple[int, str, str, str, str, str]] = set()
    duplicates: dict[tuple[int, str], int] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if number > ROW_LIMIT:
            skip(f"lines after {ROW_LIMIT}", "more lines than a test report holds: file cut")
            break
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            skip(f"line {number}", "not JSON")
            continue
        except RecursionError:  # the parser's depth bound: a row is one flat object
            skip(f"line {number}", "JSON nested deeper than a test row")
            continue
        problem = _row_problem(row)
        if problem:
            skip(f"line {number}", problem)
            continue
        job = str(row.get("job_name") or row.get("classname")).strip()[:NAME_CHARS]
        build = row["build_number"]
        report = reports.get((build, job))
        if report is None:
            report = reports[(build, job)] = JobTests(pipeline, build, job, day)
        name, status = row["name"].strip(), str(row.get("status") or "").strip().lower()
        aggregate = _AGGREGATE.match(name)
        test = (
            build,
            job,
            name,
            *(str(row.get(k) or "") for k in ("test_id", "classname", "job_id")),
        )
        if name != JOB_LEVEL and not aggregate and test in seen:
            # one test of one try of one job given again (one name in two files is two tests,
            # a retried job's tries have their job_id); a job's aggregate and job-level rows
            # repeat for each try of a retried job
            duplicates[(build, job)] = duplicates.get((build, job), 0) + 1
            continue
        seen.add(test)
        if name == JOB_LEVEL:
            report.job_level = status
        elif aggregate and int(aggregate.group(2)) > JOB_TESTS_LIMIT:
            skip(f"line {number}", f"{int(aggregate.group(2)):,} tests, more than a job runs "
                 f"({JOB_TESTS_LIMIT:,}): not counted")  # fmt: skip
        elif aggregate:
            report.add(_AGGREGATE_STATUS[aggregate.group(1)], int(aggregate.group(2)))
        elif not report.add(status, 1, name):
            skip(f"line {number}", f"unknown test status {preview(status)}")
    for (build, job), count in duplicates.items():  # said once per job, counted once
        skip(f"{job} #{build}", f"{count:,} duplicate test rows (a name given again): counted once")
    return [r for r in reports.values() if _plausible(r, skip)]


def _plausible(report: JobTests, skip) -> bool:
    """Whether a job report's tests add up to no more than a job runs; else said, refused."""
    total = report.counted + report.skipped + report.canceled
    if total <= JOB_TESTS_LIMIT:
        return True
    skip(f"{report.job} #{report.build}", f"{total:,} tests, more than a job runs "
         f"({JOB_TESTS_LIMIT:,}): report not counted")  # fmt: skip
    return False


def _row_problem(row: Any) -> str | None:
    if not isinstance(row, dict):
        return "not a JSON object"
    build = row.get("build_number")
    if not isinstance(build, int) or isinstance(build, bool) or build < 0:
        return "no build number"
    job = row.get("job_name") or row.get("classname")
    if not isinstance(job, str) or not job.strip():
        return "no job name"
    name = row.get("name")
    if not isinstance(name, str):
        return "no test name"
    # an aggregate row's name says what it counts; any other row needs its status
    if not isinstance(row.get("status"), str) and not _AGGREGATE.match(name.strip()):
        return "no test status"
    return None


def chosen_commits(commits: Iterable[tuple[datetime, str]], every_days: int) -> list[str]:
    """The commits the folder is read at: the oldest, and the newest of each stretch of
    ``every_days`` UTC days (counted from 1970-01-01), oldest first."""
    ordered = sorted(commits)
    if not ordered:
        return []
    newest: dict[int, tuple[datetime, str]] = {}
    for when, sha in ordered:
        newest[when.toordinal() // every_days] = (when, sha)
    picked = {ordered[0], *newest.values()}
    return [sha for _when, sha in sorted(picked)]


def _regime(ctx: CollectContext, job: str) -> str | None:
    patterns = ci.validate_job_regimes(ctx.option("job_regimes"), ctx.spec.id)
    return ci.job_regime(job, patterns, ctx.spec.regime)


def file_events(
    ctx: CollectContext, text: str, name: str, sha: str, when: datetime
) -> Iterator[Event]:
    """The events of one file read at commit `sha` (committed at `when`)."""
    path = f"{str(ctx.option('path')).strip('/')}/{name}"
    day = file_day(name)
    if day is None:
        ctx.skip(f"{path} at {sha[:10]}", "its name starts with no date (YYYY-MM-DD)")
        return

    def skip(where: str, why: str) -> None:
        ctx.skip(f"{path} at {sha[:10]}: {where}", why)

    for report in parse_reports(text, str(ctx.option("pipeline")), day, skip):
        yield report_event(
            report,
            source_id=ctx.spec.id,
            project=ctx.spec.project,
            regime=_regime(ctx, report.job),
            url=f"https://github.com/{ctx.option('repo')}/blob/{sha}/{path}",
            updated_at=when,
            attrs={"commit": sha, "path": path, "builds": ctx.option("builds")},
        )


def _state_list(ctx: CollectContext, key: str) -> list:
    value = ctx.state.setdefault(key, [])
    if not isinstance(value, list):
        value = ctx.state[key] = []
    return value


def _state_map(ctx: CollectContext, key: str) -> dict:
    value = ctx.state.setdefault(key, {})
    if not isinstance(value, dict):
        value = ctx.state[key] = {}
    return value


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Read the folder at the chosen commits of each ref, oldest first (see the contract)."""
    repo, folder = ctx.option("repo"), str(ctx.option("path")).strip("/")
    api = str(ctx.option("api_url", DEFAULT_API)).rstrip("/")
    raw = str(ctx.option("raw_url", DEFAULT_RAW)).rstrip("/")
    every = int(ctx.option("every_days", DEFAULT_EVERY_DAYS))
    pattern = str(ctx.option("files"))
    read: list[str] = _state_list(ctx, "read")
    blobs: dict[str, str] = _state_map(ctx, "blobs")
    for ref in ctx.option("refs") or [None]:
        listed = listed_commits(ctx, api, repo, folder, ref)
        times = dict((sha, when) for when, sha in listed)
        for sha in chosen_commits(listed, every):
            if sha in read:
                continue
            yield from _read_commit(ctx, api, raw, repo, folder, pattern, sha, times[sha], blobs)
            read.append(sha)  # after its last file: a stopped run reads it again
    del read[:-READ_LIMIT]
    for name in sorted(blobs)[:-BLOB_LIMIT]:
        del blobs[name]


def listed_commits(
    ctx: CollectContext, api: str, repo: str, path: str, ref: str | None
) -> list[tuple[datetime, str]]:
    """(committer time, sha) of the commits of `ref` (None: the default branch) that touched
    `path` (a folder or a file), as listed (newest first); a listed item without a commit id or
    a committer date is a logged skip. Also read by ci_json_history."""
    listed: list[tuple[datetime, str]] = []
    for item in _ref_commits(ctx, api, repo, path, ref):
        sha, when = item["sha"], commit_date(item)
        if not _SHA.match(sha):
            ctx.skip(f"a commit of {path}", f"{preview(sha)} is not a commit id")
        elif when is None:
            ctx.skip(f"commit {sha[:10]} of {path}", "no committer date")
        else:
            listed.append((when, sha))
    return listed


def _ref_commits(ctx: CollectContext, api: str, repo: str, folder: str, ref: str | None):
    if ref is None:
        return path_commits(ctx, api, repo, folder)
    return _commits_of_ref(ctx, api, repo, folder, str(ref))


def _commits_of_ref(ctx: CollectContext, api: str, repo: str, folder: str, ref: str):
    params: dict[str, Any] = {"path": folder, "per_page": 100, "sha": ref}
    if ctx.since is not None:
        params["since"] = ci.iso(ctx.since)
    for page in ctx.client().get_pages(f"{api}/repos/{repo}/commits", params):
        if not isinstance(page, list):
            raise FatalHTTPError(f"{ctx.spec.id}: commits of {folder} at {ref}: not a JSON array")
        for item in page:
            if not isinstance(item, dict) or not isinstance(item.get("sha"), str):
                ctx.skip(f"a commit of {folder}", "not a commit object")
                continue
            yield item


def _read_commit(
    ctx: CollectContext,
    api: str,
    raw: str,
    repo: str,
    folder: str,
    pattern: str,
    sha: str,
    when: datetime,
    blobs: dict[str, str],
) -> Iterator[Event]:
    where = f"{folder} at {sha[:10]}"
    try:
        listing = ctx.client().get_json(
            f"{api}/repos/{repo}/contents/{folder}", {"ref": sha}, conditional=False
        )
    except FatalHTTPError as exc:
        ctx.skip(where, first_line(exc))
        return
    if not isinstance(listing, list):
        ctx.skip(where, "the folder listing is not a JSON array")
        return
    for entry in listing:
        if not isinstance(entry, dict):
            ctx.skip(where, "a listed file is not a JSON object")
            continue
        name, blob = entry.get("name"), entry.get("sha")
        if entry.get("type", "file") != "file" or not isinstance(name, str):
            continue
        if "/" in name or not fnmatchcase(name, pattern) or not isinstance(blob, str):
            continue
        if blobs.get(name) == blob:
            continue  # unchanged since it was read
        try:
            response = ctx.client().get(f"{raw}/{repo}/{sha}/{folder}/{name}", conditional=False)
        except FatalHTTPError as exc:
            ctx.skip(f"{folder}/{name} at {sha[:10]}", first_line(exc))
            continue
        if response is None:
            continue
        text = response.content.decode("utf-8", errors="replace")
        yield from file_events(ctx, text, name, sha, when)
        blobs[name] = blob
