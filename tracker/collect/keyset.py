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
(``HttpClient.listing``). The walk runs on a thread of its own, up to ``AHEAD`` pages ahead of
its reader: each page's next request goes out as soon as the page is in (its ``since=`` is
read off that page), while the reader is still busy with earlier items. Its reader gets the
items in the walk's order and an error after the items read before it, so what came before
is kept as with a plain loop; a reader that stops early stops the walk before its next request.
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
from tracker.events import parse_time

UNSET: Any = object()  # no resume point: not "since=None", which is the listing from its start
AHEAD = 3  # pages a walk reads ahead of its reader (each at most per_page items)
_END: list = []  # the walk ended


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
        self.what = what
        self.guard = client.listing(what)
        self.ended_since: Any = UNSET
        self.first_page_empty = False
        self.unchanged = False  # the first request was answered 304
        self.requests = 0
        self._yielded: set[tuple[Any, datetime]] = set()
        self._last: datetime | None = None
        self.closed = False
        self._skipped: list[tuple[Any, str]] = []  # by the walk's thread, told by the reader

    def __iter__(self) -> Iterator[tuple[datetime, Any]]:
        handoff: queue.Queue = queue.Queue(maxsize=AHEAD)
        walker = threading.Thread(
            target=self._produce, args=(handoff,), name=f"keyset {self.what}", daemon=True
        )
        walker.start()
        try:
            while True:
                fresh, skipped, error = handoff.get()
                for item, reason in skipped:  # told here: the collector's context is not shared
                    self.skip(item, reason)
                yield from fresh
                if error is not None:
                    raise error
                if fresh is _END:
                    return
        finally:
            self.closed = True  # the walk sends no further request

    def _produce(self, handoff: queue.Queue) -> None:
        """The walk's thread: each page's new items go to the reader as soon as it is in."""
        error: BaseException | None = None
        try:
            for fresh in self._pages():
                if not self._hand(handoff, (fresh, self._skipped, None)):
                    return
                self._skipped = []
        except BaseException as exc:  # raised in the reader's thread, after what came before
            error = exc
        self._hand(handoff, ([] if error else _END, self._skipped, error))

    def _hand(self, handoff: queue.Queue, entry: tuple) -> bool:
        """Put `entry` for the reader, waiting while the walk is AHEAD pages ahead; False once
        the reader stopped."""
        while not self.closed:
            try:
                handoff.put(entry, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _pages(self) -> Iterator[list[tuple[datetime, Any]]]:
        """The walk: per page, its (timestamp, item) pairs not read before."""
        params = self.params
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
                yield fresh
                self._ended(params)
                return
            if not fresh:
                self.guard.stop(
                    f"page {self.requests} is full but holds no {self.noun} not read before"
                )
            step = self._plan(params, page, number)
            yield fresh
            if self.closed:
                return
            if step == "pair":  # page 2 asked first, page 1 second (module docstring)
                top = self._get({**params, "page": 2}, conditional=False)
                bottom = self._get(dict(params), conditional=False)
                assert top is not None and bottom is not None  # unconditional: no 304
                yield self._fresh(bottom.data)
                page, number, params["page"] = top, 2, 2
                continue
            # a keyset page may be a last page kept from an earlier run: conditional
            next_page = self._get(dict(params), conditional=step == "single")
            if next_page is None:  # 304: a last page kept from an earlier run, as it was
                self._ended(params)
                return
            page, number = next_page, params.get("page", 1)

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
                self._skipped.append((item, "no parseable updated_at"))
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
