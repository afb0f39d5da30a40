"""`model_list`: vendor lists of supported models (validated-model pages of a vLLM image, model
support matrices of a release) -> one `note` event per model family listed, with a structured
model mention.

Source keys: ``pages`` (required): a list of ``{url, version, date, hardware, format}``, one per
dated list: ``version`` names what the list belongs to (a docker image tag, a release tag),
``date`` (YYYY-MM-DD) is when that was published (an image's build stamp, a tag's date),
``hardware`` (optional) the accelerator the list was validated on (MI300X, v7x), ``format``
``csv`` or ``text`` (guessed from the URL: ``.csv`` is csv, anything else text).

How a list is read:

- csv (a support matrix: a model column first, then one status cell per test): a row is
  ``supported`` when every test cell passes (a check mark or "Passing") and no benchmark cell
  fails (a benchmark not run says nothing about whether the model serves correctly); a row with
  a test cell untested, unverified, failing or empty is ``other`` (listed is not supported).
  Every model row becomes a note; the hardware goes into the mention.
- text (Markdown, reStructuredText or HTML): every line naming a model family (after markup is
  stripped) is a listed model: ``supported``, unless the line itself says beta, preview,
  experimental, unverified, untested, planned or no longer supported (then that status).

Family ids come from the tagger's alias table (:mod:`tracker.mentions.families`); a line naming no
known family is not a note. The note keeps the list's URL, so every lag row points at the list.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import UTC, datetime

from tracker.collect.sources import CollectContext
from tracker.config.preview import preview
from tracker.errors import ConfigError
from tracker.events import Event
from tracker.mentions.families import NOT_SUPPORT as _NOT_SUPPORT
from tracker.mentions.mentions import status_of
from tracker.mentions.model_mentions import extract_model_mentions

KIND = "model_list"


_PASS = re.compile(r"\u2705|\bpassing\b|\bpass\b|\bsupported\b|\byes\b", re.I)
_FAIL = re.compile(r"\u274c|\bfail", re.I)
# "Not supported", "Not yet passing", "No", "N/A", "untested": a cell that names a pass word
# but denies it is not a pass.
_DENIED = re.compile(r"\bnot\b|\bno\b|\bn/?a\b|\bun(?:tested|verified|supported)\b", re.I)
_TAG = re.compile(r"<[^>]+>")
# HTML block boundaries end a line: a list written <li>a</li><li>b</li> on one line is two items.
_BLOCK = re.compile(r"<(?:/?(?:li|p|tr|div|ul|ol|table|h[1-6])\b[^>]*|br\s*/?)>", re.I)
_MARKUP = re.compile(r"^[\s*+\-#|>`]+|[`*|]+")


def _pages(ctx: CollectContext) -> list[dict]:
    pages = ctx.option("pages")
    if not isinstance(pages, list) or not all(
        isinstance(p, dict) and p.get("url") and p.get("version") and p.get("date") for p in pages
    ):
        raise ConfigError(f"{ctx.spec.id}: 'pages' must be a list of {{url, version, date}}")
    return pages


def _date(raw: object) -> datetime:
    return datetime.fromisoformat(str(raw)).replace(tzinfo=UTC)


def csv_rows(text: str, hardware: str | None) -> Iterator[tuple[str, list[dict]]]:
    """(row text, model mentions) of each model row of a support matrix."""
    rows = list(csv.reader(io.StringIO(text)))
    header = rows[0] if rows else []
    # Status columns: all but the model name and a "Type" (Text / Multimodal) column.
    names = [h.strip().lower() for h in header]
    tests = [i for i, h in enumerate(names) if i > 0 and h != "type" and "benchmark" not in h]
    benches = [i for i, h in enumerate(names) if "benchmark" in h]
    for row in rows[1:]:
        if not row or not row[0].strip():
            continue
        cell = [c.strip() for c in row] + [""] * len(header)
        passes = (
            bool(tests)
            and all(_PASS.search(cell[i]) and not _DENIED.search(cell[i]) for i in tests)
            and not any(_FAIL.search(cell[i]) for i in benches)
        )
        status = "supported" if passes else "other"
        found = extract_model_mentions(row[0])
        mentions = [
            {
                "model": m["model"],
                "status": status,
                **({"hardware": [hardware]} if hardware else {}),
            }
            for m in found
        ]
        if mentions:
            yield ", ".join(c for c in row if c), mentions


def text_rows(text: str, hardware: str | None) -> Iterator[tuple[str, list[dict]]]:
    """(line, model mentions) of each line of a model list that names a family."""
    for raw in _TAG.sub(" ", _BLOCK.sub("\n", text)).splitlines():
        line = " ".join(_MARKUP.sub(" ", raw).split())
        if not line:
            continue
        found = extract_model_mentions(line)
        if not found:
            continue
        said = status_of(line)
        if _NOT_SUPPORT.search(line.lower()) or _DENIED.search(line):
            status = "other"  # "DeepSeek V3 - not supported on MI250": listed, but denied
        elif said in ("planned", "dropped"):
            status = said
        else:
            status = "supported"  # a model on a list of supported models
        yield (
            line,
            [
                {
                    "model": m["model"],
                    "status": status,
                    **({"hardware": [hardware]} if hardware else {}),
                }
                for m in found
            ],
        )


def parse_page(content: bytes, page: dict, ctx: CollectContext) -> Iterator[Event]:
    """The note events of one list."""
    url, version = str(page["url"]), str(page["version"])
    when = _date(page["date"])
    hardware = str(page["hardware"]).lower() if page.get("hardware") else None
    fmt = page.get("format") or ("csv" if url.lower().endswith(".csv") else "text")
    text = content.decode("utf-8", errors="replace")
    rows = csv_rows(text, hardware) if fmt == "csv" else text_rows(text, hardware)
    seen: set[str] = set()
    for line, mentions in rows:
        key = f"{version}:{line[:200]}"
        if key in seen:
            continue
        seen.add(key)
        yield Event(
            ctx.spec.id,
            ctx.spec.project,
            "note",
            key,
            when,
            line[:160],
            body=line,
            url=url,
            version=version,
            regime=ctx.spec.regime,
            attrs={"section": "Supported models", "mentions": mentions, "list": version},
        )


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch every page (a 304 means that page is unchanged: nothing new from it)."""
    for page in _pages(ctx):
        try:
            _date(page["date"])
        except ValueError:
            ctx.skip(str(page["url"]), f"date {preview(page['date'])} is not YYYY-MM-DD")
            continue
        response = ctx.http.get(str(page["url"])) if ctx.http else None
        if response is None:
            continue
        yield from parse_page(response.content, page, ctx)
