"""Scores for the tagger: per-class precision/recall/F1, macro-F1, regime accuracy and macro-F1.

Pure functions over gold/predicted label lists, plus :func:`format_report` for the CLI.
"""

from __future__ import annotations

from dataclasses import dataclass

from tracker.tagger.features import CLASSES
from tracker.tagger.lexicon import ALL_REGIMES


@dataclass(frozen=True)
class Scores:
    """Scores of one label set; ``per_label`` maps label -> (precision, recall, f1, support)."""

    labels: tuple[str, ...]
    per_label: dict
    macro_f1: float
    accuracy: float
    confusion: dict  # (gold, pred) -> count
    n: int


def score(gold: list[str], pred: list[str], labels: tuple[str, ...]) -> Scores:
    """Precision/recall/F1 per label; macro-F1 averages over labels that occur in gold or pred."""
    confusion: dict = {}
    for g, p in zip(gold, pred, strict=True):
        confusion[(g, p)] = confusion.get((g, p), 0) + 1
    per = {}
    f1s = []
    for lab in labels:
        tp = confusion.get((lab, lab), 0)
        n_pred = sum(v for (g, p), v in confusion.items() if p == lab)
        n_gold = sum(v for (g, p), v in confusion.items() if g == lab)
        prec = tp / n_pred if n_pred else 0.0
        rec = tp / n_gold if n_gold else 0.0
        f1 = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
        per[lab] = (prec, rec, f1, n_gold)
        if n_gold or n_pred:
            f1s.append(f1)
    acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold) if gold else 0.0
    return Scores(labels, per, sum(f1s) / len(f1s) if f1s else 0.0, acc, confusion, len(gold))


def evaluate_rows(tagger, rows: list[dict]) -> tuple[Scores, Scores | None, list]:
    """Tag ``rows`` (dicts: ``text`` or ``title``+``body``, gold ``label``, optional ``regime``).

    Returns (class scores, regime scores or None when no row has a regime, results).
    """
    results = tagger.tag_many(rows)
    cls = score([r["label"] for r in rows], [t.tag for t in results], CLASSES)
    with_regime = [
        (r["regime"], t.regime) for r, t in zip(rows, results, strict=True) if r.get("regime")
    ]
    reg = (
        score([g for g, _ in with_regime], [p for _, p in with_regime], ALL_REGIMES)
        if with_regime
        else None
    )
    return cls, reg, results


def format_scores(title: str, s: Scores) -> str:
    """A plain-text table: per label P/R/F1/support, macro-F1, accuracy, confusion matrix."""
    lines = [
        f"{title} (n={s.n})",
        f"{'label':<14}{'precision':>10}{'recall':>10}{'f1':>10}{'support':>9}",
    ]
    for lab in s.labels:
        p, r, f, n = s.per_label[lab]
        lines.append(f"{lab:<14}{p:>10.3f}{r:>10.3f}{f:>10.3f}{n:>9d}")
    lines.append(f"macro-F1 {s.macro_f1:.3f}   accuracy {s.accuracy:.3f}")
    lines.append("confusion (rows = gold, columns = predicted):")
    lines.append(" " * 14 + "".join(f"{lab[:12]:>13}" for lab in s.labels))
    for g in s.labels:
        lines.append(f"{g:<14}" + "".join(f"{s.confusion.get((g, p), 0):>13d}" for p in s.labels))
    return "\n".join(lines)


def format_report(cls: Scores, reg: Scores | None) -> str:
    """Class report, then regime report (accuracy and macro-F1 included)."""
    out = [format_scores("class", cls)]
    if reg is not None:
        out.append("")
        out.append(format_scores("regime", reg))
        out.append(f"regime accuracy {reg.accuracy:.3f}   regime macro-F1 {reg.macro_f1:.3f}")
    return "\n".join(out)
