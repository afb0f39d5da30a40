"""Time to first response end to end on a local fake of the GitHub API: github_issues sources
with ``comments: true`` collect issues and comments (per-issue listings on the backfill, the
repository-level listing on later runs, Link-paged), the report job's tables are written, and
v_issue_response / v_issue_response_quarterly hold what a computation written here, apart
from tracker.measure, finds: authors replying to themselves, bots (typed, "[bot]", ignored by
name), closings without a comment, unanswered issues, a response after as-of, a pull request.
A re-run with nothing new asks no comments at all. SQLite and PostgreSQL (`store` fixture).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, time
from fractions import Fraction
from pathlib import Path
from urllib.parse import urlencode

import pytest
from werkzeug import Request, Response

from tracker.collect.runner import run_sources
from tracker.config import Config, Regime, SourceSpec
from tracker.config.report import ReportSettings

AS_OF = datetime.combine(date(2026, 7, 31), time.max, tzinfo=UTC)  # --as-of 2026-07-31
IGNORED = "triage-helper"  # a bot GitHub types as a user: named in report.ignore_responders


@pytest.fixture(autouse=True)
def token(monkeypatch):
    monkeypatch.setenv("TRACKER_GITHUB_TOKEN", "dummy-test-token")


def t(day: str, hour: int = 0, minute: int = 0) -> datetime:
    return datetime.fromisoformat(day).replace(hour=hour, minute=minute, tzinfo=UTC)


def z(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Issue:
    number: int
    author: str
    created: datetime
    labels: list[str]
    closed: datetime | None = None
    reason: str | None = None
    pull: bool = False
    comments: list[dict] = field(default_factory=list)


class FakeGitHub:
    """Repository o/r as api.github.com serves it: the issues listing (sort=updated asc,
    inclusive since, labels, page / per_page, Link, ETag of the body, 304), the per-issue and
    the repository-level comments listings (since, sort=created asc, page / per_page, Link)."""

    def __init__(self) -> None:
        self.issues: dict[int, Issue] = {}
        self.asked: list[str] = []  # path?query of every request
        self._ids = 0
        self.hostile: dict[int, list] = {}  # issue -> raw items served first in its listing

    def add(self, issue: Issue) -> None:
        self.issues[issue.number] = issue

    def comment(self, number: int, login: str, when: datetime, kind: str = "User") -> None:
        self._ids += 1
        self.issues[number].comments.append(
            {"id": 9000 + self._ids, "login": login, "type": kind, "created": when}
        )

    def updated(self, issue: Issue) -> datetime:
        times = [issue.created, *(c["created"] for c in issue.comments)]
        return max(times + ([issue.closed] if issue.closed else []))

    def handler(self, request: Request) -> Response:
        self.asked.append(request.full_path.rstrip("?"))
        path = request.path
        if path == "/repos/o/r/issues":
            return self._issues(request)
        if path == "/repos/o/r/issues/comments":
            since = request.args.get("since")
            rows = [
                self._comment_json(n, c)
                for n, issue in self.issues.items()
                for c in issue.comments
                if since is None or z(c["created"]) >= since
            ]
            return self._page(request, sorted(rows, key=lambda c: (c["created_at"], c["id"])))
        found = re.fullmatch(r"/repos/o/r/issues/(\d+)/comments", path)
        if found:
            number = int(found.group(1))
            rows = [self._comment_json(number, c) for c in self.issues[number].comments]
            rows = self.hostile.get(number, []) + sorted(rows, key=lambda c: c["created_at"])
            return self._page(request, rows)
        return Response("not found", status=404)

    def _issues(self, request: Request) -> Response:
        since, label = request.args.get("since"), request.args.get("labels")
        rows = [
            (z(self.updated(i)), i.number)
            for i in self.issues.values()
            if (since is None or z(self.updated(i)) >= since)
            and (label is None or label in i.labels)
        ]
        return self._page(request, [self._issue_json(self.issues[n]) for _, n in sorted(rows)])

    def _page(self, request: Request, rows: list[dict]) -> Response:
        page, per_page = int(request.args.get("page", 1)), int(request.args["per_page"])
        body = json.dumps(rows[(page - 1) * per_page : page * per_page])
        etag = '"' + hashlib.sha1(body.encode()).hexdigest() + '"'
        if request.headers.get("If-None-Match") == etag:
            return Response(status=304, headers={"ETag": etag})
        headers = {"ETag": etag}
        last = max(1, math.ceil(len(rows) / per_page))
        if page < last:
            query = {k: v for k, v in request.args.items() if k != "page"}
            base = request.base_url + "?" + urlencode(query)
            headers["Link"] = (
                f'<{base}&page={page + 1}>; rel="next", <{base}&page={last}>; rel="last"'
            )
        return Response(body, content_type="application/json", headers=headers)

    def _issue_json(self, issue: Issue) -> dict:
        item = {
            "number": issue.number,
            "title": f"Issue {issue.number}",
            "body": None,
            "html_url": f"https://github.com/o/r/issues/{issue.number}",
            "user": {"login": issue.author, "type": "User"},
            "labels": [{"name": name} for name in issue.labels],
            "state": "closed" if issue.closed else "open",
            "state_reason": issue.reason,
            "comments": len(issue.comments),
            "created_at": z(issue.created),
            "updated_at": z(self.updated(issue)),
            "closed_at": z(issue.closed) if issue.closed else None,
        }
        if issue.pull:
            item["pull_request"] = {"html_url": f"https://github.com/o/r/pull/{issue.number}"}
        return item

    def _comment_json(self, number: int, c: dict) -> dict:
        return {
            "id": c["id"],
            "issue_url": f"https://api.github.com/repos/o/r/issues/{number}",
            "html_url": f"https://github.com/o/r/issues/{number}#issuecomment-{c['id']}",
            "user": {"login": c["login"], "type": c["type"]},
            "author_association": "MEMBER" if c["login"].startswith("maint") else "NONE",
            "created_at": z(c["created"]),
            "updated_at": z(c["created"]),
            "body": "text that is never kept",
        }


def backfilled(fake: FakeGitHub) -> None:
    """The repository on the first run (2026-Q1 and Q2 issues, rocm-labelled and not)."""
    add, say = fake.add, fake.comment
    add(Issue(1, "Alice", t("2026-01-05", 9), ["rocm"]))
    say(1, "alice", t("2026-01-05", 10))  # the author, in another case
    say(1, "dependabot[bot]", t("2026-01-05", 11), "Bot")
    say(1, IGNORED, t("2026-01-05", 12))  # typed User, ignored by name
    say(1, "maint-bob", t("2026-01-05", 14, 30))
    say(1, "carol", t("2026-01-05", 15))
    add(Issue(2, "carol", t("2026-01-10", 8), ["rocm"], t("2026-01-12", 8), "completed"))
    add(Issue(3, "dave", t("2026-02-01", 12), ["rocm"]))  # open, no comment (yet)
    add(Issue(4, "erin", t("2026-02-03"), ["rocm"], t("2026-02-13"), "not_planned"))
    say(4, "github-actions", t("2026-02-03", 1), "Bot")
    say(4, "erin", t("2026-02-03", 2))
    add(Issue(5, "frank", t("2026-04-02", 6), ["rocm"]))  # answered only after as-of
    add(Issue(6, "gina", t("2026-04-03"), ["rocm"], pull=True))  # a pull request
    say(6, "maint-bob", t("2026-04-03", 1))
    add(Issue(7, "hank", t("2026-04-20", 10), ["rocm", "bug"], t("2026-05-20"), "completed"))
    say(7, "hank", t("2026-04-20", 11))
    say(7, "hank", t("2026-04-21", 9))
    say(7, "ivan", t("2026-04-21", 16))  # the third comment: a second page at per_page 2
    # baseline: the rest of the repository
    add(Issue(10, "jo", t("2026-01-06", 9), ["bug"], t("2026-01-20"), "completed"))
    say(10, "maint-kim", t("2026-01-06", 11))
    add(Issue(11, "lee", t("2026-02-07", 9), []))
    add(Issue(12, "mo", t("2026-02-20", 9), [], t("2026-03-20"), "completed"))
    say(12, "ned", t("2026-02-21", 9))
    add(Issue(13, "ola", t("2026-04-10", 9), []))
    say(13, "stale[bot]", t("2026-04-11"), "Bot")
    say(13, "maint-kim", t("2026-04-12", 9))
    add(Issue(14, "pat", t("2026-05-02", 9), [], t("2026-05-03"), "not_planned"))
    say(14, "maint-kim", t("2026-05-02", 10))


def later(fake: FakeGitHub) -> None:
    """What happens upstream after the first runs (read by the repository-level listing)."""
    fake.comment(3, "dave", t("2026-06-10", 8))
    fake.comment(3, "maint-bob", t("2026-06-10", 20))  # dave's issue is answered now
    fake.comment(5, "maint-bob", t("2026-08-10", 9))  # after as-of: not yet a response
    fake.add(Issue(8, "quin", t("2026-06-15", 9), ["rocm"]))
    fake.comment(8, "renovate[bot]", t("2026-06-15", 9, 5), "Bot")
    fake.comment(8, "Quin", t("2026-06-15", 10))
    fake.comment(8, "maint-sam", t("2026-06-16", 9))
    fake.comment(11, "ned", t("2026-06-12", 9))  # a baseline issue answered late


def config_for(url: str) -> Config:
    common = {"repo": "o/r", "api_url": url, "per_page": 2, "comments": True}
    rocm = SourceSpec(
        id="r-rocm",
        kind="github_issues",
        project="r",
        regime="rocm",
        options={**common, "labels": ["rocm"]},
    )
    base = SourceSpec(
        id="r-base",
        kind="github_issues",
        project="r",
        regime="cuda",
        options={**common, "exclude_labels": ["rocm"]},
    )
    regimes = (Regime("cuda", reference=True), Regime("rocm"))
    report = ReportSettings(ignore_responders=frozenset({IGNORED}))
    return Config(Path("sources.yaml"), regimes, (rocm, base), report=report)


# -- the computation apart: plain Python over what the fake serves ---------------------------
def km(pairs: list[tuple[float, bool]], share: Fraction) -> float | None:
    pairs = sorted(pairs, key=lambda p: (p[0], not p[1]))
    left, alive, i = len(pairs), Fraction(1), 0
    while i < len(pairs):
        at, died, gone = pairs[i][0], 0, 0
        while i < len(pairs) and pairs[i][0] == at:
            died += pairs[i][1]
            gone += 1
            i += 1
        if died:
            alive = alive * (left - died) / left
            if alive <= 1 - share:
                return at
        left -= gone
    return None


def expected(fake: FakeGitHub) -> tuple[dict, dict]:
    issues, groups = {}, defaultdict(list)
    for n, issue in fake.issues.items():
        if issue.pull or issue.created > AS_OF:
            continue
        regime = "rocm" if "rocm" in issue.labels else "cuda"
        responses = [
            c["created"]
            for c in issue.comments
            if c["created"] <= AS_OF
            and c["login"].lower() != issue.author.lower()
            and c["type"] != "Bot"
            and not c["login"].endswith("[bot]")
            and c["login"] != IGNORED
        ]
        first = min(responses, default=None)
        closed = issue.closed if issue.closed and issue.closed <= AS_OF else None
        end = first or closed or AS_OF
        hours = (end - issue.created).total_seconds() / 3600
        issues[n] = (regime, first, closed, issue.reason if closed else None)
        quarter = f"{issue.created.year}-Q{(issue.created.month - 1) // 3 + 1}"
        groups[(regime, quarter)].append((hours, first is not None, issue, closed))
    quarterly = {}
    for (regime, quarter), rows in groups.items():
        median = km([(h, seen) for h, seen, _, _ in rows], Fraction(1, 2))
        base_rows = groups.get(("cuda", quarter), [])
        base = km([(h, seen) for h, seen, _, _ in base_rows], Fraction(1, 2)) if base_rows else None

        def close(reason: str, rows=rows) -> float | None:
            return km(
                [
                    (
                        ((c or AS_OF) - i.created).total_seconds() / 86400,
                        c is not None and i.reason == reason,
                    )
                    for _, _, i, c in rows
                ],
                Fraction(1, 2),
            )

        quarterly[(regime, quarter)] = {
            "issues": len(rows),
            "answered": sum(seen for _, seen, _, _ in rows),
            "median_hours": median,
            "p90_hours": km([(h, seen) for h, seen, _, _ in rows], Fraction(9, 10)),
            "median_days_to_close": close("completed"),
            "median_days_to_not_planned": close("not_planned"),
            "baseline_median_hours": base,
            "ratio_to_baseline": median / base if median is not None and base else None,
        }
    return issues, quarterly


def publish(config: Config, store) -> None:
    """What tracker.jobs.report.publish_report does for these tables."""
    from tracker.measure.figures import issue_response_figures

    figures = issue_response_figures(config, store, AS_OF, ["cuda", "rocm"])
    store.replace_issue_response(figures.issue_rows(), figures.quarterly_rows())


def close_to(a, b) -> bool:
    return (a is None and b is None) or (a is not None and b is not None and abs(a - b) < 1e-6)


def test_views_match_a_computation_apart_across_runs(store, httpserver):
    fake = FakeGitHub()
    httpserver.expect_request(re.compile(r"^/repos/o/r/.*")).respond_with_handler(fake.handler)
    backfilled(fake)
    config = config_for(httpserver.url_for("").rstrip("/"))

    first = run_sources(config, store)
    assert [r.status for r in first.results] == ["ok", "ok"]
    asked = list(fake.asked)
    assert "/repos/o/r/issues/7/comments?per_page=2&page=2" in asked  # Link paging
    assert not any(a.startswith("/repos/o/r/issues/2/comments") for a in asked)  # 0 comments
    assert not any(a.startswith("/repos/o/r/issues/6/comments") for a in asked)  # a pull

    fake.asked.clear()
    again = run_sources(config, store)
    assert [r.events_new for r in again.results] == [0, 0]
    assert not any("comments" in a for a in fake.asked)  # nothing new: no comment asked
    assert all(r.not_modified >= 1 for r in again.results)

    later(fake)
    fake.asked.clear()
    third = run_sources(config, store)
    assert [r.status for r in third.results] == ["ok", "ok"]
    repo_level = [a for a in fake.asked if a.startswith("/repos/o/r/issues/comments?")]
    assert repo_level and all("since=" in a for a in repo_level)
    assert any("page=2" in a for a in repo_level)  # Link paging of the repository listing
    assert not re.search(r"/issues/\d+/comments", " ".join(fake.asked))  # no per-issue read

    publish(config, store)
    want_issues, want_quarters = expected(fake)
    rows = {r["number"]: r for r in store.view_rows("v_issue_response")}
    assert set(rows) == set(want_issues)
    for number, (regime, first_at, closed, reason) in want_issues.items():
        row = rows[number]
        assert row["regime"] == regime
        assert _time(row["first_response_at"]) == first_at, number
        assert row["status"] == ("answered" if first_at else "unanswered")
        assert _time(row["closed_at"]) == closed and row["close_reason"] == reason
        created = fake.issues[number].created
        hours = (first_at - created).total_seconds() / 3600 if first_at else None
        assert close_to(row["hours_to_first_response"], hours), number
    assert rows[1]["responder_association"] == "MEMBER"
    assert rows[3]["status"] == "answered" and rows[5]["status"] == "unanswered"

    quarters = {
        (r["regime"], r["quarter"]): r for r in store.view_rows("v_issue_response_quarterly")
    }
    assert set(quarters) == set(want_quarters)
    for key, want in want_quarters.items():
        for column, value in want.items():
            assert (
                close_to(quarters[key][column], value)
                if isinstance(value, float) or value is None
                else quarters[key][column] == value
            ), (key, column)


def _time(value):
    if value is None or isinstance(value, datetime):
        return (
            value.astimezone(UTC)
            if isinstance(value, datetime) and value.tzinfo
            else (value.replace(tzinfo=UTC) if value else None)
        )
    return datetime.fromisoformat(str(value)).replace(tzinfo=UTC)


def test_a_refused_repository_listing_falls_back_to_per_issue(store, httpserver):
    fake = FakeGitHub()
    backfilled(fake)
    refused = {"on": False}

    def handler(request: Request) -> Response:
        if refused["on"] and request.path == "/repos/o/r/issues/comments":
            fake.asked.append(request.full_path)
            return Response('{"message": "Validation Failed"}', status=422)
        return fake.handler(request)

    httpserver.expect_request(re.compile(r"^/repos/o/r/.*")).respond_with_handler(handler)
    config = config_for(httpserver.url_for("").rstrip("/"))
    run_sources(config, store)
    later(fake)
    refused["on"] = True
    fake.asked.clear()
    result = run_sources(config, store)
    assert [r.status for r in result.results] == ["ok", "ok"]
    assert any(a.startswith("/repos/o/r/issues/3/comments") for a in fake.asked)
    publish(config, store)
    rows = {r["number"]: r for r in store.view_rows("v_issue_response")}
    assert rows[3]["status"] == "answered" and rows[8]["status"] == "answered"
    assert rows[11]["status"] == "answered"


def test_bots_and_authors_never_answer(store, httpserver):
    fake = FakeGitHub()
    fake.add(Issue(1, "Alice", t("2026-03-01"), ["rocm"]))
    fake.comment(1, "ALICE", t("2026-03-01", 1))
    fake.comment(1, "dependabot[bot]", t("2026-03-01", 2))  # typed User, "[bot]" login
    fake.comment(1, "ci", t("2026-03-01", 3), "Bot")
    fake.comment(1, IGNORED, t("2026-03-01", 4))
    httpserver.expect_request(re.compile(r"^/repos/o/r/.*")).respond_with_handler(fake.handler)
    config = config_for(httpserver.url_for("").rstrip("/"))
    run_sources(config, store)
    publish(config, store)
    (row,) = store.view_rows("v_issue_response")
    assert (row["status"], row["first_response_at"]) == ("unanswered", None)


SOURCES_YAML = """
report: {{ignore_responders: [{ignored}]}}
regimes:
  - {{id: cuda, reference: true}}
  - {{id: rocm}}
sources:
  - {{id: r-rocm, kind: github_issues, project: r, regime: rocm, repo: o/r, api_url: "{url}",
     per_page: 2, comments: true, labels: [rocm]}}
  - {{id: r-base, kind: github_issues, project: r, regime: cuda, repo: o/r, api_url: "{url}",
     per_page: 2, comments: true, exclude_labels: [rocm]}}
"""


def test_report_cli_and_views_say_the_same(store, httpserver, tmp_path):
    """The report job writes the views; its page, summary.json and `tracker response` show
    the same numbers as the views (one computation)."""
    import csv
    import io

    from click.testing import CliRunner

    from tracker.cli.main import cli
    from tracker.jobs.config import load_config
    from tracker.jobs.report import publish_report

    fake = FakeGitHub()
    backfilled(fake)
    later(fake)
    httpserver.expect_request(re.compile(r"^/repos/o/r/.*")).respond_with_handler(fake.handler)
    path = tmp_path / "sources.yaml"
    path.write_text(SOURCES_YAML.format(ignored=IGNORED, url=httpserver.url_for("").rstrip("/")))
    config = load_config(path)
    run_sources(config, store)
    publish_report(config, store, tmp_path / "report", AS_OF)

    view = {(r["regime"], r["quarter"]): r for r in store.view_rows("v_issue_response_quarterly")}
    _, want = expected(fake)
    assert set(view) == set(want) and view[("rocm", "2026-Q1")]["issues"] == 4
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())["issue_response"]
    for row in summary["quarterly"]:
        stored = view[(row["regime"], row["quarter"])]
        for column in ("issues", "answered", "median_hours", "p90_hours", "ratio_to_baseline"):
            assert (
                close_to(row[column], stored[column])
                if row[column] is not None
                else stored[column] is None
            )
    page = (tmp_path / "report" / "index.html").read_text()
    assert "How long do users wait?" in page and 'src="first_response.png"' in page
    assert (tmp_path / "report" / "first_response.png").stat().st_size > 10_000

    result = CliRunner().invoke(
        cli,
        ["--db", store.url, "--sources", str(path), "response", "--as-of", "2026-07-31",
         "--no-issues", "--format", "csv"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    printed = list(csv.DictReader(io.StringIO(result.output)))
    assert len(printed) == len(view)
    for row in printed:
        stored = view[(row["regime"], row["quarter"])]
        assert int(row["issues"]) == stored["issues"]
        median = stored["median_hours"]
        assert row["median_hours"] == ("" if median is None else f"{median:.1f}")


def test_hostile_comments_are_skipped_one_by_one(store, httpserver):
    fake = FakeGitHub()
    fake.add(Issue(1, "alice", t("2026-03-01"), ["rocm"]))
    fake.comment(1, "maint-bob", t("2026-03-02"))
    fake.hostile[1] = [
        "not an object",
        {"id": "x", "user": {"login": "eve"}, "created_at": "2026-03-01T01:00:00Z"},
        {"id": 5, "user": None, "created_at": "2026-03-01T01:00:00Z"},
        {"id": 6, "user": {"login": "eve"}, "created_at": "yesterday"},
    ]
    httpserver.expect_request(re.compile(r"^/repos/o/r/.*")).respond_with_handler(fake.handler)
    config = config_for(httpserver.url_for("").rstrip("/"))
    (result, _) = run_sources(config, store).results
    assert (result.status, result.items_skipped) == ("ok", 4)
    publish(config, store)
    (row,) = store.view_rows("v_issue_response")
    assert _time(row["first_response_at"]) == t("2026-03-02")


def test_an_unanswered_issue_is_censored_where_its_source_was_last_looked_at():
    """A source observed through 2026-03-01 (its last successful collection): its unanswered
    issue has waited at least until then, not until as-of (its silence after says nothing), and
    an issue created after that was not observed at all. An answered one keeps its wait."""
    from tracker.measure.response import issue_responses

    def issue(source: str, number: int, created: datetime) -> dict:
        return {"source_id": source, "project": "vllm", "regime": "rocm", "number": number,
                "url": f"https://github.com/vllm-project/vllm/issues/{number}",
                "created_at": created, "closed_at": None, "state": "open",
                "author": "u"}  # fmt: skip

    as_of = t("2026-08-22")
    issues = [issue("watched", 1, t("2026-02-01")), issue("watched", 2, t("2026-04-01")),
              issue("watched", 3, t("2026-02-10")), issue("live", 4, t("2026-02-01"))]  # fmt: skip
    comments = [{"source_id": "watched", "issue": 3, "author": "m", "author_type": "User",
                 "created_at": t("2026-02-11"), "association": "MEMBER", "url": "c"}]  # fmt: skip
    rows = {r.number: r for r in issue_responses(issues, comments, as_of, frozenset(),
                                                  {"watched": t("2026-03-01")})}  # fmt: skip
    assert rows[1].status == "unanswered" and rows[1].waited_hours == 28 * 24
    assert 2 not in rows  # created after its source was last looked at
    assert rows[3].hours_to_first_response == 24
    assert rows[4].waited_hours == (as_of - t("2026-02-01")).total_seconds() / 3600
