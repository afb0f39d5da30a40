"""A local, GitHub-shaped issues API for benchmarking `tracker collect` without the network.

    python benchmarks/fake_github.py [--issues 10000] [--port 8765]

Serves ``GET /repos/{owner}/{repo}/issues`` the way api.github.com does for the parameters the
issues collector sends: ``state=all&sort=updated&direction=asc``, ``since`` (inclusive, on
updated_at), ``per_page`` (default 30, max 100) and ``page``; a ``Link`` header with rel="next"
and rel="last" while pages remain; a strong ``ETag`` on every 200 (hash of the body) and
``304 Not Modified`` when ``If-None-Match`` matches; ``X-RateLimit-*`` headers. HTTP/1.1
keep-alive. The issues are built once (distinct updated_at, one minute apart, ending a day ago)
and pre-serialised, so the server is not the slow side. Other paths answer 404. With ``all_304``
every request, on any path, answers 304 Not Modified: a nightly run "with nothing new
upstream" for every source pointed here. Counts requests and 304s; thread-safe.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import threading
import time
from bisect import bisect_left
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlsplit


def make_issues(n: int, seed_end: datetime | None = None) -> tuple[list[datetime], list[str]]:
    """(updated_at ascending, JSON text of each issue) for `n` issues."""
    end = seed_end or (datetime.now(UTC) - timedelta(days=1)).replace(second=0, microsecond=0)
    start = end - timedelta(minutes=n)
    times, texts = [], []
    for i in range(n):
        number = i + 1
        created = start - timedelta(days=30) + timedelta(minutes=i)
        updated = start + timedelta(minutes=i + 1)
        closed = number % 3 == 0
        label = ["module: rocm", "bug", "triaged"][number % 3]
        item = {
            "url": f"https://api.github.com/repos/bench/repo/issues/{number}",
            "html_url": f"https://github.com/bench/repo/issues/{number}",
            "id": 1_000_000 + number,
            "number": number,
            "title": f"[ROCm] test_ops #{number} fails on MI300X with HIP error",
            "user": {"login": f"user{number % 997}", "id": number % 997},
            "labels": [{"id": number % 3, "name": label, "color": "ededed"}],
            "state": "closed" if closed else "open",
            "locked": False,
            "comments": number % 17,
            "created_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "updated_at": updated.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "closed_at": updated.strftime("%Y-%m-%dT%H:%M:%SZ") if closed else None,
            "author_association": "CONTRIBUTOR",
            "body": (
                f"Running test_ops on MI300X with ROCm 6.{number % 5} crashes after "
                f"{number % 300} iterations.\n\nSteps: pip install torch; python test_ops.py. "
                "Expected: pass. Actual: hipErrorInvalidDeviceFunction."
            ),
            "state_reason": "completed" if closed else None,
        }
        times.append(updated)
        texts.append(json.dumps(item))
    return times, texts


class FakeGitHub:
    """The server, run in a daemon thread: `with FakeGitHub(10_000) as gh: gh.url ...`."""

    def __init__(self, issues: int, *, port: int = 0, all_304: bool = False) -> None:
        self.times, self.texts = make_issues(issues)
        self.all_304 = all_304
        self.lock = threading.Lock()
        self.requests = 0
        self.not_modified = 0
        self.issue_requests = 0
        self.other_requests = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # quiet
                pass

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                fake._handle(self)

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeGitHub:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.server.shutdown()
        self.server.server_close()

    def reset(self) -> None:
        with self.lock:
            self.requests = self.not_modified = self.issue_requests = self.other_requests = 0

    def _count(self, *, issues: bool, not_modified: bool) -> None:
        with self.lock:
            self.requests += 1
            self.issue_requests += issues
            self.other_requests += not issues
            self.not_modified += not_modified

    def _handle(self, h: BaseHTTPRequestHandler) -> None:
        if self.all_304:
            self._count(issues=False, not_modified=True)
            self._send(h, 304, b"", {})
            return
        parts = urlsplit(h.path)
        segments = parts.path.strip("/").split("/")
        if len(segments) == 4 and segments[0] == "repos" and segments[3] == "issues":
            self._issues(h, parts.path, parse_qs(parts.query))
            return
        self._count(issues=False, not_modified=False)
        self._send(h, 404, b'{"message": "Not Found"}', {})

    def _issues(self, h: BaseHTTPRequestHandler, path: str, query: dict[str, list[str]]) -> None:
        def one(name: str, default: str) -> str:
            return query.get(name, [default])[0]

        per_page = max(1, min(100, int(one("per_page", "30"))))
        page = max(1, int(one("page", "1")))
        lo = 0
        since = one("since", "")
        if since:
            lo = bisect_left(self.times, datetime.fromisoformat(since.replace("Z", "+00:00")))
        if one("direction", "desc") != "asc" or one("sort", "created") != "updated":
            raise ValueError("the fake serves sort=updated&direction=asc only")
        total = len(self.times) - lo
        first = lo + (page - 1) * per_page
        body = ("[" + ",".join(self.texts[first : first + per_page]) + "]").encode()
        etag = '"' + hashlib.sha1(body).hexdigest() + '"'
        headers = {"ETag": etag, "Content-Type": "application/json; charset=utf-8"}
        last_page = max(1, -(-total // per_page))
        if page < last_page:
            base = f"http://{h.headers.get('Host')}{path}?"
            params = {k: v[0] for k, v in query.items()}
            links = []
            for rel, number in (("next", page + 1), ("last", last_page)):
                links.append(f'<{base}{urlencode({**params, "page": number})}>; rel="{rel}"')
            headers["Link"] = ", ".join(links)
        if h.headers.get("If-None-Match") == etag:
            self._count(issues=True, not_modified=True)
            self._send(h, 304, b"", {"ETag": etag})
            return
        self._count(issues=True, not_modified=False)
        self._send(h, 200, body, headers)

    @staticmethod
    def _send(h: BaseHTTPRequestHandler, status: int, body: bytes, headers: dict) -> None:
        h.send_response(status)
        for name, value in headers.items():
            h.send_header(name, value)
        h.send_header("X-RateLimit-Limit", "5000")
        h.send_header("X-RateLimit-Remaining", "4999")
        h.send_header("X-RateLimit-Reset", str(int(time.time()) + 3600))
        if status != 304:
            h.send_header("Content-Length", str(len(body)))
        h.end_headers()
        if body and status != 304:
            h.wfile.write(body)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--issues", type=int, default=10_000)
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--all-304", action="store_true")
    args = parser.parse_args()
    with FakeGitHub(args.issues, port=args.port, all_304=args.all_304) as fake:
        print(f"serving {args.issues} issues at {fake.url}/repos/OWNER/REPO/issues (Ctrl-C stops)")
        try:
            while True:
                time.sleep(3600)
        except KeyboardInterrupt:
            print(f"{fake.requests} requests, {fake.not_modified} answered 304")


if __name__ == "__main__":
    main()
