"""The collect benchmark: `tracker collect` of generated issues from the local GitHub-shaped
server (benchmarks/fake_github.py), next to the fetch floor (the same listing, nothing stored)."""

from __future__ import annotations

import statistics
from pathlib import Path

import yaml
from fake_github import FakeGitHub
from harness import ROOT, Harness, human
from whole_process import Run, repeat, run

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


def collect_sources(h: Harness, url: str) -> Path:
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
    path = h.work / "collect-sources.yaml"
    path.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return path


def bench_collect(h: Harness, issues: int) -> None:
    h.say(f"collect {human(issues)} issues")
    env = h.env(TRACKER_GITHUB_TOKEN="bench-not-a-token")
    with FakeGitHub(issues) as fake:
        sources = collect_sources(h, fake.url)
        db = h.work / "collect.db"
        requests: list[int] = []

        def once() -> Run:
            fake.reset()
            result = run(
                h.tracker_cmd(db, "collect", "--source", "bench-issues", sources=sources),
                env=env,
            )
            requests.append(fake.requests)
            return result

        def floor_once() -> Run:
            fake.reset()
            return run([h.python, "-c", _FETCH_FLOOR, fake.url, str(issues)], env=env)

        floor = repeat(h.repeat, floor_once)
        floor_requests = fake.requests
        sample = repeat(h.repeat, once, before=lambda: h.fresh_db(db))
        stored = run(
            h.tracker_cmd(db, "query", "select count(*) from events", "--format", "csv"),
            env=env,
        ).stdout.split()[-1]
        fake.reset()
        rerun = run(
            h.tracker_cmd(db, "collect", "--source", "bench-issues", sources=sources),
            env=env,
        )
        re_requests, re_304 = fake.requests, fake.not_modified
    rate = issues / sample.wall
    base = (
        f"fetch floor {issues / floor.wall:,.0f}/s ({floor.wall:.2f} s, "
        f"{floor_requests} req, {floor.peak_mb:.0f} MB)"
    )
    h.say(f"  stored {stored} events of {issues}")
    h.add(
        "collect",
        f"collect {human(issues)}: issues/s",
        f"{rate:,.0f}/s ({sample.wall:.2f} s)",
        base,
        ">= 8,000/s",
        rate >= 8000,
    )
    req = int(statistics.median(requests))
    h.add("collect", f"collect {human(issues)}: requests", str(req), base, "<= 101", req <= 101)
    h.add(
        "collect",
        f"collect {human(issues)}: peak RSS",
        f"{sample.peak_mb:.0f} MB",
        base,
        "<= 100 MB",
        sample.peak_mb <= 100,
    )
    h.add(
        "collect",
        "collect re-run (nothing new)",
        f"{re_requests} req, {re_304} x 304, {rerun.wall:.2f} s",
        "-",
        "1 request, a 304",
        re_requests == 1 and re_304 == 1,
    )
    if str(stored) != str(issues):
        h.notes.append(f"collect stored {stored} events for {issues} issues served")
