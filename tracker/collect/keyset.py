"""Keyset paging of a listing sorted oldest update first, with an inclusive ``since=`` and
page-numbered Link headers: GitHub's ``GET /repos/{repo}/issues?sort=updated&direction=asc``.

The walk (``KeysetListing``):

- After a full page the next request starts at that page's last timestamp (``since=``,
  inclusive; the items already yielded come again and are dropped). Page numbers alone lose
  items: one that is updated, deleted or loses its label after its page was read shifts the
  next unread item onto that page. Only a page whose items all share the ``since`` timestamp (a
  bulk edit) steps on by page number.
- Two pages at once, the higher first: when the Link header's rel="last" shows that the new
  ``since=`` listing holds at least two more full pages, its page 2 is asked before its page 1.
  An item only ever moves towards the front of the listing (one updated, deleted or unlabelled
  leaves its place, an update goes to the end), so whatever slides between the two answers
  lands on page 1, asked second: it is read twice (and dropped once), never missed. Page 2
  needs no boundary item, so such a pair reads one item more than two keyset pages; that slack
  lets a walk end on a page with room to spare (10,000 issues at per_page 100: 101 requests,
  the last holding 99). What this relies on: nothing enters the listing ahead of its end, i.e.
  every change that lists an issue bumps its updated_at, as GitHub's do; an issue entering
  among page 1's items between the two answers would push one past page 1 unread.
- Conditional requests: a page's validators are kept only when it ends the listing with room
  to spare (``HttpClient.get_page``). Its 304 then means the whole ``since=`` listing is as it
  was: an item added, updated, dropped or inserted anywhere before it would shift or change
  that last page. ``ended_since`` is the ``since=`` of such a last page (a page-1 page).
- Resume (``resume_since``): the next run asks that page again first when it covers the run's
  window (its ``since`` is at or before the cursor less the look-back) and its validators are
  kept. A 304 ends the run in one request; any other answer is page 1 of a listing that starts
  at or before the window, and the walk goes on from it as from any page.

Every page is a request through the one HttpClient (retries, rate limits, bounds); the page
cap, a cursor asked for twice and a full page that adds nothing stop the walk
(``HttpClient.listing``). The next request goes out (from the walk's worker thread, the client
sending one request at a time) while the current page's items are read; its error is raised
after them, so what came before is kept as with a plain loop.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

from tracker.collect.ci import iso
from tracker.collect.http import HttpClient, Page
from tracker.errors import FatalHTTPError
from tracker.records import parse_time

UNSET: Any = object()  # no resume point: not "since=None", which is the listing from its start


def resume_since(
    client: HttpClient,
    url: str,
    params: dict[str, Any],
    saved: Any,
    window: datetime | None,
) -> Any:
    """The ``since=`` to start from: `saved` (the ``ended_since`` of the previous run's walk, or
    UNSET) when its last page covers `window` (the run's start: cursor less look-back, None for
    the whole listing) and its validators are kept; else UNSET, and the walk starts at `window`."""
    if saved is UNSET:
        return UNSET
    if saved is None:
        covers = True  # the listing from its start covers any window
    else:
        start = parse_time(saved) if isinstance(saved, str) else None
        covers = start is not None and window is not None and start <= window
    if not covers:
        return UNSET
    probe = {k: v for k, v in params.items() if k not in ("since", "page")}
    if saved is not None:
        probe["since"] = saved
    return saved if client.knows(url, probe) else UNSET


class KeysetListing:
    """One walk of one listing: iterate for (timestamp, item), ascending; after it, read
    ``ended_since`` (UNSET when the walk did not end on a page it can resume from),
    ``unchanged`` (its first request was answered 304) and ``first_page_empty``.

    `params` carry ``per_page`` and, when the walk starts part-way, ``since``. `key` reads an
    item's timestamp (None: `skip` is told and the item dropped); `number` names an item in
    messages and tells two items apart; `what` names the listing and `noun` its items."""

    def __init__(
        self,
        client: HttpClient,
        url: str,
        params: dict[str, Any],
        *,
        key: Callable[[Any], datetime | None],
        number: Callable[[Any], Any],
        skip: Callable[[Any, str], None],
        what: str,
        noun: str = "item",
    ) -> None:
        self.client, self.url = client, url
        self.params = dict(params)
        self.per_page = int(params["per_page"])
        self.key, self.number, self.skip, self.noun = key, number, skip, noun
        self.guard = client.listing(what)
        self.ended_since: Any = UNSET
        self.first_page_empty = False
        self.unchanged = False  # the first request was answered 304
        self.requests = 0
        self._yielded: set[tuple[Any, datetime]] = set()
        self._last: datetime | None = None
        self.closed = False
        self._jobs: queue.SimpleQueue | None = None

    def worker(self) -> queue.SimpleQueue:
        """The queue of the walk's worker thread (started on first use)."""
        if self._jobs is None:
            self._jobs = queue.SimpleQueue()
            threading.Thread(target=_work, args=(self._jobs,), daemon=True).start()
        return self._jobs

    def __iter__(self) -> Iterator[tuple[datetime, Any]]:
        params = self.params
        try:
            page = self._get(params, conditional=True)
            if page is None:  # 304: the listing is as it was when this page ended it
                self.unchanged = True
                self._ended(params)
                return
            self.first_page_empty = not page.data
            number = 1  # of `page` within its since= listing
            while True:
                fresh = self._fresh(page.data)
                if len(page.data) < self.per_page:
                    yield from fresh
                    self._ended(params)
                    return
                if not fresh:
                    self.guard.stop(
                        f"page {self.requests} is full but holds no {self.noun} not read before"
                    )
                # The next request goes out now and is answered while this page's items are
                # read (one request at a time; its error is raised after them, as before).
                step = self._plan(params, page, number)
                if step == "pair":  # page 2 asked first, page 1 second (module docstring)
                    asks = [({**params, "page": 2}, False), (dict(params), False)]
                else:  # a keyset page may be a last page kept from an earlier run: conditional
                    asks = [(dict(params), step == "single")]
                ahead = _Ahead(self, asks)
                yield from fresh
                pages = ahead.wait()
                if step == "pair":
                    top, bottom = pages
                    assert top is not None and bottom is not None  # unconditional: no 304
                    yield from self._fresh(bottom.data)
                    page, number, params["page"] = top, 2, 2
                    continue
                if pages[0] is None:  # 304: a last page kept from an earlier run, as it was
                    self._ended(params)
                    return
                page, number = pages[0], params.get("page", 1)
        finally:
            self.closed = True  # a request not yet sent is not sent
            if self._jobs is not None:
                self._jobs.put(None)  # the worker ends

    def _plan(self, params: dict[str, Any], page: Page, number: int) -> str:
        """Set `params` to the next request after full `page` (page `number` of its listing):
        "tie" (one timestamp fills it: the next page number), "pair" or "single" (keyset)."""
        since, last = parse_time(params.get("since")), self._last
        if last is None or (since is not None and last <= since):
            params["page"] = number + 1
            return "tie"
        params["since"] = iso(last)
        params.pop("page", None)
        # The new since= listing holds at least per_page * (last - number - 1) + 2 items (the
        # rest of this listing after this page, plus the boundary item): with a difference of 3
        # or more, two full pages and more.
        if page.last_page is not None and page.last_page - number >= 3:
            return "pair"
        return "single"

    def _get(self, params: dict[str, Any], *, conditional: bool) -> Page | None:
        self.guard.visit(f"since={params.get('since')} page={params.get('page', 1)}")
        page = self.client.get_page(self.url, params, conditional=conditional)
        self.requests += 1
        if page is not None and not isinstance(page.data, list):
            # Not a skip: a caller merging several listings would let the others' later items
            # move the cursor past this one's unread items for good.
            raise FatalHTTPError(
                f"{self.url}: page {self.requests} is a JSON {type(page.data).__name__}, "
                f"not a list of {self.noun}s"
            )
        return page

    def _fresh(self, data: list) -> list[tuple[datetime, Any]]:
        """The page's items not yielded before, with their timestamps; `_last` is the last
        timestamp on the page."""
        fresh = []
        for item in data:
            stamp = self.key(item)
            if stamp is None:
                self.skip(item, "no parseable updated_at")
                continue
            self._last = stamp
            seen = (self.number(item), stamp)
            if seen in self._yielded:
                continue  # a boundary item, or one read on the other page of a pair
            self._yielded.add(seen)
            fresh.append((stamp, item))
        return fresh

    def _ended(self, params: dict[str, Any]) -> None:
        """The walk ended on (or was answered 304 for) a last page with room to spare: a page-1
        page can be asked again first by the next run (``resume_since``)."""
        if "page" not in params:
            self.ended_since = params.get("since")


class _Ahead:
    """Requests of a walk sent now by the walk's worker thread, one after the other in the order
    given (the HttpClient sends one request at a time); ``wait`` returns their pages or raises
    what one of them raised. A walk that was closed sends nothing more."""

    def __init__(self, walk: KeysetListing, asks: list[tuple[dict[str, Any], bool]]) -> None:
        self._pages: list[Page | None] = []
        self._error: BaseException | None = None
        self._done = threading.Event()
        walk.worker().put((self, walk, asks))

    def run(self, walk: KeysetListing, asks: list[tuple[dict[str, Any], bool]]) -> None:
        try:
            for params, conditional in asks:
                if walk.closed:
                    return
                self._pages.append(walk._get(params, conditional=conditional))
        except BaseException as exc:  # raised in the walk's own thread by wait()
            self._error = exc
        finally:
            self._done.set()

    def wait(self) -> list[Page | None]:
        self._done.wait()
        if self._error is not None:
            raise self._error
        return self._pages


def _work(jobs: queue.SimpleQueue) -> None:
    """A walk's worker: runs its _Ahead jobs until it gets None."""
    while (job := jobs.get()) is not None:
        ahead, walk, asks = job
        ahead.run(walk, asks)
