"""Precision and recall of model-family mentions per status, on labelled lines of real documents.

A labels file is tab-separated, ``#`` lines are comments, the first other line is the header
``file  line  model  status  note``: ``file`` is a path under the corpus folder, ``line`` a
1-based line number, ``model`` a family id, ``status`` supported | planned | dropped | other
(or ``none``: this family must not be reported for this line), ``note`` free text that may give
the line's context:

- ``context: line N`` / ``context: lines N-M``: those lines belong to the same text as the
  labelled line (the start of a wrapped sentence, the introduction of a list the item is in):
  the text read is lines N..M, then the labelled line, joined by newlines as in the file;
- ``heading: line N`` / ``heading: lines N-M``: those lines are headings or lead-ins the text
  sits under, given to the extractor as its ``context`` (as the tagger gets a stored note's
  heading, topic and intro);
- ``through: line K``: the text runs on to line K (a name split over two lines, "Llama" /
  "3.1", counts for the line it starts on).

The documents are read in place, never copied. The names that count for a labelled line are
those that start on it (:func:`tracker.mentions.model_mentions.mentions_at` gives positions);
names on its context lines are read only for their status. Scoring: a predicted (family,
status) pair that is labelled is a true positive, any other predicted pair a false positive
(counted under its predicted status), a label not predicted a false negative. All labels of one
line must give the same context.
"""

from __future__ import annotations

import csv
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from tracker.mentions.model_mentions import mentions_at

STATUSES = ("supported", "planned", "dropped", "other")
_SPAN = r"lines?\s+(\d+)(?:\s*-\s*(\d+))?"
_CONTEXT = re.compile(r"\bcontext:\s*" + _SPAN)
_HEADING = re.compile(r"\bheading:\s*" + _SPAN)
_THROUGH = re.compile(r"\bthrough:\s*" + _SPAN)


@dataclass(frozen=True)
class Label:
    file: str
    line: int
    model: str
    status: str
    note: str


@dataclass
class Result:
    """Counts per status, and every error as (kind, file, line, model, status, note)."""

    tp: Counter = field(default_factory=Counter)
    fp: Counter = field(default_factory=Counter)
    fn: Counter = field(default_factory=Counter)
    errors: list[tuple[str, str, int, str, str, str]] = field(default_factory=list)
    lines: int = 0
    missing: list[str] = field(default_factory=list)  # files not found under the corpus

    def precision(self, status: str | None = None) -> float | None:
        tp, fp = self._sum(self.tp, status), self._sum(self.fp, status)
        return tp / (tp + fp) if tp + fp else None

    def recall(self, status: str | None = None) -> float | None:
        tp, fn = self._sum(self.tp, status), self._sum(self.fn, status)
        return tp / (tp + fn) if tp + fn else None

    @staticmethod
    def _sum(counts: Counter, status: str | None) -> int:
        return sum(counts.values()) if status is None else counts[status]


def read_labels(path: Path) -> dict[tuple[str, int], list[Label]]:
    """(file, line) -> its labels, in file order."""
    rows = [
        line
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    out: dict[tuple[str, int], list[Label]] = defaultdict(list)
    for row in csv.DictReader(rows, delimiter="\t"):
        label = Label(row["file"], int(row["line"]), row["model"], row["status"], row["note"] or "")
        if label.status not in STATUSES + ("none",):
            raise ValueError(f"{label.file}:{label.line}: unknown status {label.status!r}")
        out[(label.file, label.line)].append(label)
    return out


def _span(rx: re.Pattern, labels: list[Label]) -> tuple[int, int] | None:
    spans = set()
    for label in labels:
        m = rx.search(label.note)
        spans.add((int(m.group(1)), int(m.group(2) or m.group(1))) if m else None)
    if len(spans) > 1:
        raise ValueError(f"labels of {labels[0].file}:{labels[0].line} disagree on {rx.pattern}")
    return spans.pop()


def predict(lines: list[str], line: int, labels: list[Label]) -> set[tuple[str, str]]:
    """The (family, status) pairs the extractor reports for names starting on ``line``."""
    block = _span(_CONTEXT, labels)
    heading = _span(_HEADING, labels)
    through = _span(_THROUGH, labels)
    before = "\n".join(lines[block[0] - 1 : block[1]]) + "\n" if block else ""
    lo, hi = len(before), len(before) + len(lines[line - 1])
    text = before + "\n".join(lines[line - 1 : through[1] if through else line])
    context = "\n".join(lines[heading[0] - 1 : heading[1]]) if heading else None
    return {(fid, st) for pos, fid, st, _ in mentions_at(text, None, context) if lo <= pos < hi}


def evaluate(labels: dict[tuple[str, int], list[Label]], corpus: Path) -> Result:
    """Score the extractor on every labelled line whose file is under ``corpus``."""
    result = Result()
    cache: dict[str, list[str] | None] = {}
    for (file, line), rows in sorted(labels.items()):
        if file not in cache:
            path = corpus / file
            cache[file] = (
                path.read_text(encoding="utf-8", errors="replace").splitlines()
                if path.is_file()
                else None
            )
            if cache[file] is None:
                result.missing.append(file)
        lines = cache[file]
        if lines is None:
            continue
        result.lines += 1
        pred = predict(lines, line, rows)
        gold = {(r.model, r.status) for r in rows if r.status != "none"}
        notes = {r.model: r.note for r in rows}
        for model, status in sorted(gold):
            if (model, status) in pred:
                result.tp[status] += 1
            else:
                result.fn[status] += 1
                got = ",".join(s for m, s in sorted(pred) if m == model) or "-"
                result.errors.append(
                    ("FN", file, line, model, status, f"got {got}; {notes[model]}")
                )
        for model, status in sorted(pred - gold):
            result.fp[status] += 1
            result.errors.append(
                ("FP", file, line, model, status, notes.get(model, "not labelled"))
            )
    return result


def format_table(result: Result) -> str:
    """One row per status and a total: gold, predicted, TP, FP, FN, precision, recall."""

    def num(x: float | None) -> str:
        return f"{x:.3f}" if x is not None else "n/a"

    out = [f"{'status':<10} {'gold':>5} {'pred':>5} {'TP':>4} {'FP':>4} {'FN':>4} "
           f"{'precision':>9} {'recall':>6}"]  # fmt: skip
    for status in STATUSES + (None,):
        tp = Result._sum(result.tp, status)
        fp, fn = Result._sum(result.fp, status), Result._sum(result.fn, status)
        out.append(
            f"{status or 'all':<10} {tp + fn:>5} {tp + fp:>5} {tp:>4} {fp:>4} {fn:>4} "
            f"{num(result.precision(status)):>9} {num(result.recall(status)):>6}"
        )
    return "\n".join(out)
