"""What a CI record is, in words: where a configured CI source has no public record, one line
per project and regime (measure.ci.rates.unrecorded: "no public CI record", never a rate); where
a source's record is a sample, one line saying what it is, its bias and its weeks
(measure.ci.rates.sampled_sources). The same words in the report, the digest and summary.json."""

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


def sample_line(row: Mapping[str, Any]) -> str:
    """ "pytorch, rocm (pytorch-ci-dashboard-rocm, 2026-W08 to 2026-W15): a sample: <what>"."""
    return (
        f"{row['project']}, {row['regime']} ({row['source_id']}, {row['first_week']} to "
        f"{row['last_week']}): a sample: {row['sample']}"
    )


def sample_lines(rows: Iterable[Mapping[str, Any]], regimes: Sequence[str] = ()) -> list[str]:
    """The lines of `rows` (those of `regimes` only, when given), in the rows' order."""
    return [sample_line(r) for r in rows if not regimes or r["regime"] in regimes]
