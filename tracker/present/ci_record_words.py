"""Where CI has no public record, the outputs say so in words (never a rate): one line per
project and regime a CI source is configured for without a record (measure.ci.rates.unrecorded),
the same words in the report, the digest and summary.json."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any


def no_record_line(row: Mapping[str, Any]) -> str:
    """ "torch-xla, xla: no public CI record (source torch-xla-ci-tpu)"."""
    sources = list(row["sources"])
    label = "source" if len(sources) == 1 else "sources"
    return f"{row['project']}, {row['regime']}: {row['text']} ({label} {', '.join(sources)})"


def no_record_lines(rows: Iterable[Mapping[str, Any]], regimes: Sequence[str] = ()) -> list[str]:
    """The lines of `rows` (those of `regimes` only, when given), in the rows' order."""
    return [no_record_line(r) for r in rows if not regimes or r["regime"] in regimes]
