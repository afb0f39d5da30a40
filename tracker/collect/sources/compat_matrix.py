"""`compat_matrix`: a vendor compatibility matrix -> one note per (release, framework) cell.

Source keys: ``url`` (required: ROCm ``docs/compatibility/compatibility-matrix.rst`` or the
historical ``compatibility-matrix-historical-6.0.csv``); ``format`` (rst | csv; guessed from the
URL); ``history_url`` (the release history, e.g. ROCm ``docs/release/versions.md``: version ->
release date); ``frameworks`` (which framework rows to read; default pytorch, tensorflow, jax).

Contract:
- A matrix is a table whose header row is a label followed by vendor versions ("ROCm Version",
  "6.3.0", "6.2.4", "6.1.0"); in the RST it is a csv-table or list-table (docutils, Sphinx roles
  such as ``:doc:`PyTorch <...>``` read as their text), in the CSV the same rows verbatim.
- Every row labelled with a tracked framework gives, per vendor column with a non-empty cell,
  one ``note``: version = the vendor release (PEP 440), title "ROCm 6.3.0 supports PyTorch 2.4,
  2.3, ...", attrs: framework, supported (the cell's versions, normalised), mentions (status
  supported), cell (the raw text), line.
- Its date is the vendor release's date from the release history (the document itself carries
  none). A release the history does not date is skipped with ``ctx.skip`` ("date unknown"):
  a date is never guessed, and never taken from the fetch time.
- ``external_id`` is "<vendor version>:<framework>", stable across edits of the document, so a
  re-parsed matrix updates the same event and the store keeps its first-seen date.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator
from datetime import datetime

from tracker.collect.sources import CollectContext
from tracker.collect.sources._docs import (
    format_of,
    framework_of,
    load_history,
    mentions,
    note_attrs,
    rst_tree,
    versions_in,
)
from tracker.events import Event
from tracker.versions import parse_version

KIND = "compat_matrix"

DEFAULT_FRAMEWORKS = ("pytorch", "tensorflow", "jax")
NAMES = {
    "pytorch": "PyTorch",
    "tensorflow": "TensorFlow",
    "jax": "JAX",
    "vllm": "vLLM",
    "jaxlib": "jaxlib",
    "triton": "Triton",
}
_ROLE = re.compile(r":[\w:+.-]+:`([^`<]*?)\s*(?:<[^`]*>)?`")


def _cell_text(cell: str) -> str:
    """A CSV cell as text: Sphinx roles reduced to their visible text, footnotes dropped."""
    text = _ROLE.sub(r"\1", cell)
    text = re.sub(r"\[#[^\]]*\]_", "", text)
    return " ".join(text.split())


def _tables_rst(text: str, ctx: CollectContext) -> Iterator[tuple[list[list[str]], int | None]]:
    root = rst_tree(text)
    for line, problem in root.problems:
        ctx.skip(f"line {line}", f"rst markup error, content there not read: {problem}")
    for section in root.walk():
        for block in section.blocks:
            if block.kind == "table":
                yield block.rows, block.line


def _tables_csv(text: str) -> Iterator[tuple[list[list[str]], int | None]]:
    rows = [[_cell_text(cell) for cell in row] for row in csv.reader(io.StringIO(text))]
    yield rows, 1


def _header_versions(header: list[str]) -> list[str | None] | None:
    """Vendor versions of a matrix header (None for the label column and for empty padding
    cells), or None if the table is not a matrix (e.g. the OS/kernel table)."""
    cells = [cell.strip() for cell in header[1:]]
    versions = [parse_version(cell) if cell else None for cell in cells]
    if not any(versions) or any(
        cell and v is None for cell, v in zip(cells, versions, strict=True)
    ):
        return None
    return [None] + [v.version if v else None for v in versions]


def parse(
    content: bytes, ctx: CollectContext, history: dict[str, datetime] | None = None
) -> Iterator[Event]:
    """Turn a matrix document into one note per (vendor release, framework) cell."""
    url = ctx.option("url", "")
    fmt = ctx.option("format") or format_of(url, default="rst")
    text = content.decode("utf-8", errors="replace")
    if not text.strip():
        ctx.skip("document", "empty document")
        return
    wanted = set(ctx.option("frameworks") or DEFAULT_FRAMEWORKS)
    if history is None:
        history = load_history(ctx)
    product = str(ctx.spec.project).replace("-", " ")
    product = "ROCm" if product.lower() == "rocm" else product
    try:
        tables = list(_tables_csv(text) if fmt == "csv" else _tables_rst(text, ctx))
    except Exception as exc:  # a malformed document must cost one skip, not the source
        ctx.skip("document", f"could not parse as {fmt}: {exc}")
        return
    found_matrix, seen, undated = False, set(), set()
    for rows, table_line in tables:
        if not rows:
            continue
        columns = _header_versions(rows[0])
        if columns is None:
            continue
        found_matrix = True
        for index, row in enumerate(rows[1:], start=2):
            label = row[0] if row else ""
            framework = framework_of(label) if len(label.split()) <= 3 else None
            if framework is None or framework not in wanted:
                continue
            # rows may be shorter than the header (trailing empty cells are left out)
            stray = any(
                cell.strip()
                for column, cell in zip(columns[1:], row[1:], strict=False)
                if column is None
            )
            if len(row) > len(columns) or stray:
                # cells beyond the version columns: the row no longer lines up, so no cell
                # of it can be trusted to belong to the release above it
                ctx.skip(
                    f"table line {table_line} row {index} ({label})",
                    f"{len(row) - 1} cells for {sum(map(bool, columns))} release columns",
                )
                continue
            for vendor, cell in zip(columns[1:], row[1:], strict=False):  # short rows: see above
                if vendor is None:
                    continue  # not a release column
                supported = versions_in(cell)
                key = f"{vendor}:{framework}"
                if not supported or key in seen:
                    continue
                date = history.get(vendor)
                if date is None:
                    ctx.read_again = True  # the history may date it later
                    if vendor not in undated:
                        undated.add(vendor)
                        ctx.skip(
                            f"{product} {vendor} column",
                            "release date unknown (not in the release history); its "
                            "cells are not stored",
                        )
                    continue
                seen.add(key)
                name = NAMES.get(framework, framework)
                # The cell's content is part of its id: an edited cell (a row gained or lost)
                # is a new note and the old one stays, marked vanished by `collect`, so the
                # earliest evidence is never overwritten (docs/methodology.md, coverage lag).
                yield Event(
                    ctx.spec.id,
                    ctx.spec.project,
                    "note",
                    f"{key}:{'+'.join(supported)}",
                    date,
                    f"{product} {vendor} supports {name} {', '.join(supported)}",
                    body=f"{product} {vendor} compatibility matrix: {name} {cell}",
                    url=url,
                    version=vendor,
                    regime=ctx.spec.regime,
                    attrs=note_attrs(
                        section="Framework support",
                        framework=framework,
                        supported=supported,
                        cell=cell,
                        line=table_line,
                        mentions=mentions(framework, supported),
                    ),
                )
    if not found_matrix:
        ctx.skip("document", "no table with a header of vendor versions (layout changed?)")


def collect(ctx: CollectContext) -> Iterator[Event]:
    """Fetch the matrix (a 304 means nothing new) and, when it changed, the release history.

    ctx.state["cells"] maps each cell (release:framework) to the id of its last content; a cell
    whose content changed marks its previous note vanished (kept, never deleted)."""
    response = ctx.client().get(ctx.option("url"))
    if response is None:
        return
    previous: dict = dict(ctx.state.get("cells") or {})
    current = {}
    for item in parse(response.content, ctx):
        cell = item.external_id.rsplit(":", 1)[0]
        current[cell] = item.external_id
        yield item
    for cell, old_id in previous.items():
        if current.get(cell, old_id) != old_id or cell not in current:
            ctx.mark_vanished(old_id)
    ctx.state["cells"] = current
