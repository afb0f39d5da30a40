"""Hostile-server benchmark: what the HTTP session's bounds cost at their default values.

    python benchmarks/hostile.py

Against local servers on 127.0.0.1 (pytest-httpserver), with the defaults of
tracker/collect/limits.py: an endless listing of fresh pages (stopped by the page cap of 1,000),
a next link to itself (stopped at once), and a body just over the 64 MB cap sent without a
Content-Length (refused while streaming). Prints requests, wall time and peak traced memory.
"""

from __future__ import annotations

import json
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pytest_httpserver import HTTPServer  # noqa: E402
from werkzeug import Request, Response  # noqa: E402

from tracker.collect.http import HttpClient  # noqa: E402
from tracker.errors import FatalHTTPError, ListingStopped  # noqa: E402


def measure(label: str, server: HTTPServer, run) -> None:
    server.clear_log()
    tracemalloc.start()
    started = time.monotonic()
    try:
        run()
        outcome = "no stop"
    except (ListingStopped, FatalHTTPError) as exc:
        outcome = type(exc).__name__
    took = time.monotonic() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(
        f"{label:<42} {len(server.log):>5} requests {took:>7.2f} s"
        f"  peak {peak / 2**20:>6.1f} MiB  {outcome}"
    )


def main() -> None:
    server = HTTPServer(host="127.0.0.1", port=0)
    server.start()

    def endless(request: Request) -> Response:
        page = int(request.args.get("page", 1))
        link = f'<{server.url_for("/endless")}?page={page + 1}>; rel="next"'
        body = json.dumps([{"id": page * 100 + i} for i in range(100)])
        return Response(body, content_type="application/json", headers={"Link": link})

    def chunks():
        for _ in range(65 * 16):  # 65 MiB in 64 KiB chunks, no Content-Length
            yield b" " * 65536

    server.expect_request("/endless").respond_with_handler(endless)
    server.expect_request("/self").respond_with_json(
        [1], headers={"Link": f'<{server.url_for("/self")}>; rel="next"'}
    )
    server.expect_request("/big").respond_with_handler(
        lambda request: Response(chunks(), content_type="application/json")
    )
    http = HttpClient()
    try:
        measure(
            "endless fresh pages (cap 1,000)",
            server,
            lambda: sum(1 for _ in http.get_pages(server.url_for("/endless"))),
        )
        measure(
            "next link to itself",
            server,
            lambda: sum(1 for _ in http.get_pages(server.url_for("/self"))),
        )
        measure(
            "65 MiB body, no Content-Length (cap 64 MB)",
            server,
            lambda: http.get(server.url_for("/big")),
        )
    finally:
        http.close()
        server.stop()


if __name__ == "__main__":
    main()
