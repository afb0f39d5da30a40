"""MLPerf Inference: one round's published summary file -> one `result` event per row.

Source keys: ``repo`` (the round's repository, e.g. mlcommons/inference_results_v5.1),
``round`` (v5.1) and ``published`` (the round's publication date); optional ``commit`` (the
commit to read, default ``main``), ``path`` (default ``summary_results.json``) and ``url`` (the
file's URL, default raw.githubusercontent.com/{repo}/{commit}/{path}).

Contract:
- One conditional GET of the file; a 304 yields nothing. A round never changes once published,
  so once read (``ctx.state["read"]`` holds the URL) it is not requested again.
- The file's layout is recognised by its shape (``LAYOUTS``): v4.x-v6.0 ``summary_results.json``
  (a JSON array of rows with ``Performance_Result``) and v6.1 ``summary.json`` (a JSON object of
  numbered rows with ``Result`` and ``Organization``). Any other shape fails the source with an
  error naming the file.
- Every row is stored, whatever its division, suite or units: which rows count is
  tracker.measure.perf.inference's rule (docs/methodology.md, "Delivered performance"), and what
  it left
  out is counted there. A row of an unforeseen shape is skipped and counted (``ctx.skip``).
- The event: occurred_at = the round's publication date, url = the result's folder in the
  round's repository at the commit read, version = the round, regime = the accelerator's
  (tracker.mentions.accelerators; None for other accelerators), attrs = the row in the
  layout-free fields of ``FIELDS``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime
from typing import Any

from tracker.collect.sources import CollectContext, load_json
from tracker.errors import FatalHTTPError
from tracker.events import Event
from tracker.mentions.accelerators import accelerator_regime

KIND = "mlperf_inference"
DEFAULT_PATH = "summary_results.json"
RAW_URL = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"
TREE_URL = "https://github.com/{repo}/tree/{commit}/{location}"

# The stored fields (attrs), whatever the layout, and where each layout keeps them.
FIELDS = (
    "submitter",
    "division",
    "suite",
    "availability",
    "system",
    "accelerator",
    "accelerators_per_node",
    "nodes",
    "total_accelerators",
    "benchmark",
    "scenario",
    "result",
    "units",
    "software",
    "inferred",
    "location",
    "weight_data_types",
)
SUMMARY_RESULTS = {
    "submitter": "Submitter",
    "division": "Category",
    "suite": "Suite",
    "availability": "Availability",
    "system": "System",
    "accelerator": "Accelerator",
    "accelerators_per_node": "a#",
    "nodes": "Nodes",
    "total_accelerators": "Total Accelerators",  # v6.0 on; before: a# x Nodes
    "benchmark": "Model",
    "scenario": "Scenario",
    "result": "Performance_Result",
    "units": "Performance_Units",
    "software": "Software",
    "inferred": "inferred",
    "location": "Location",
    "weight_data_types": "weight_data_types",
}
SUMMARY_JSON = {  # v6.1 (mlcommons/inference_results_v6.1, summary.json)
    "submitter": "Organization",
    "division": "Division",
    "suite": "SystemType",
    "availability": "Availability",
    "system": "SystemName",
    "accelerator": "accelerator_model_name",
    "accelerators_per_node": "accelerators_per_node",
    "nodes": "number_of_nodes",
    "total_accelerators": "total_accelerators",
    "benchmark": "Model",
    "scenario": "Scenario",
    "result": "Result",
    "units": "Units",
    "software": "framework",
    "inferred": "inferred",
    "location": "Location",
    "weight_data_types": "weight_data_types",
}
_NUMBERS = ("accelerators_per_node", "nodes", "total_accelerators", "result", "inferred")


def _summary_results(document: Any) -> list | None:
    if isinstance(document, list) and document and isinstance(document[0], dict):
        if "Performance_Result" in document[0]:
            return document
    return None


def _summary_json(document: Any) -> list | None:
    if isinstance(document, dict) and document:
        first = next(iter(document.values()))
        if isinstance(first, dict) and "Result" in first and "Organization" in first:
            return list(document.values())
    return None


# name -> (rows of a document of that layout or None, its field names)
LAYOUTS: dict[str, tuple[Callable[[Any], list | None], dict[str, str]]] = {
    "summary_results.json (v4.x-v6.0)": (_summary_results, SUMMARY_RESULTS),
    "summary.json (v6.1)": (_summary_json, SUMMARY_JSON),
}


def rows_of(document: Any, where: str) -> tuple[list, dict[str, str]]:
    """(the rows, the layout's field names) of one summary document; FatalHTTPError naming
    `where` when no known layout fits."""
    for read, names in LAYOUTS.values():
        rows = read(document)
        if rows is not None:
            return rows, names
    shape = type(document).__name__
    raise FatalHTTPError(
        f"{where}: not an MLPerf Inference summary of a known layout (a JSON {shape}; "
        f"known: {'; '.join(LAYOUTS)})"
    )


def _number(value: Any) -> float | int | None:
    """A count or result as a number: MLPerf writes some as text ("8") and "" for none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return value
    try:
        number = float(str(value).strip())
    except ValueError:
        return None
    return int(number) if number.is_integer() else number


def normalise(row: dict, names: dict[str, str]) -> dict[str, Any]:
    """One row in the layout-free fields (FIELDS): numbers as numbers (None when absent)."""
    out: dict[str, Any] = {}
    for name in FIELDS:
        value = row.get(names[name])
        if name in _NUMBERS:
            out[name] = _number(value)
        else:
            out[name] = "" if value is None else str(value).strip()
    out["location"] = out["location"].removeprefix("./")
    return out


def published_date(ctx: CollectContext) -> datetime:
    """The round's publication date (the source's `published` key): every result's date."""
    value = ctx.option("published")
    try:
        day = value if isinstance(value, date) else date.fromisoformat(str(value))
    except ValueError:
        raise FatalHTTPError(
            f"{ctx.spec.id}: the round's publication date is needed "
            f"(source key or --option published=YYYY-MM-DD), got {value!r}"
        ) from None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def result_events(document: Any, ctx: CollectContext, where: str) -> Iterator[Event]:
    """The events of one parsed summary document (see the module contract)."""
    rows, names = rows_of(document, where)
    when = published_date(ctx)
    repo, commit = ctx.option("repo"), str(ctx.option("commit") or "main")
    for index, row in enumerate(rows):
        event = None
        with ctx.item(f"row {index}"):
            event = _event(row, names, ctx, when, repo, commit, index)
        if event is not None:
            yield event


def _event(
    row: Any,
    names: dict[str, str],
    ctx: CollectContext,
    when: datetime,
    repo: str | None,
    commit: str,
    index: int,
) -> Event | None:
    if not isinstance(row, dict):
        ctx.skip(f"row {index}", "not a JSON object")
        return None
    attrs = normalise(row, names)
    if not attrs["location"] or not attrs["benchmark"] or attrs["result"] is None:
        ctx.skip(f"row {index}", "no Location, Model or numeric result")
        return None
    round_ = str(ctx.option("round") or row.get("version") or "")
    attrs["round"] = round_
    url = TREE_URL.format(repo=repo, commit=commit, location=attrs["location"]) if repo else ""
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="result",
        external_id=f"{round_}:{attrs['location']}",
        occurred_at=when,
        title=(
            f"MLPerf Inference {round_}: {attrs['submitter']} {attrs['accelerator']} "
            f"{attrs['benchmark']} {attrs['scenario']}"
        ),
        url=url,
        version=round_ or None,
        regime=accelerator_regime(attrs["accelerator"]),
        attrs=attrs,
    )


def file_url(ctx: CollectContext) -> str:
    """The summary file's URL: the ``url`` key, else the raw file at the commit."""
    if ctx.option("url"):
        return str(ctx.option("url"))
    return RAW_URL.format(
        repo=ctx.option("repo"),
        commit=ctx.option("commit") or "main",
        path=ctx.option("path") or DEFAULT_PATH,
    )


def parse(content: bytes, ctx: CollectContext) -> Iterator[Event]:
    """Events of a local summary file (``tracker parse FILE --kind mlperf_inference --option
    published=YYYY-MM-DD``)."""
    where = str(ctx.option("url") or ctx.spec.id)
    return result_events(load_json(content, ctx, "MLPerf summary", (list, dict)), ctx, where)


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the round's summary once (conditional GET) and yield one event per row."""
    url = file_url(ctx)
    if ctx.state.get("read") == url:
        return
    response = ctx.client().get(url)
    if response is None:
        return
    document = load_json(response.content, ctx, f"MLPerf summary {url}", (list, dict))
    yield from result_events(document, ctx, url)
    ctx.state["read"] = url
