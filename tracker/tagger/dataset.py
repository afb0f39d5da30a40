"""Training and dev data for the tagger, read in place at training time.

Three sources, each a list of :class:`Example` (``text``, ``label``, ``regime``, ``source``,
``kind``, optional ``section``):

1. ``field``: the labelled texts in the training folder given to ``tracker tagger train``
   (or ``$TRACKER_TRAINING``; every ``*.jsonl`` in it). Read in place, never copied into the
   repository.
2. ``weak``: release-note items from the corpus folder (``--corpus`` or ``$TRACKER_CORPUS``;
   none without it) labelled by
   the heading they sit under (ROCm RELEASE.md "Known issues"/"Resolved issues"/"Optimizations"/
   "Removals", JAX CHANGELOG "Bug fixes"/"Deprecations", Neuron rst "Known Issues"/"Bug Fixes"/
   "Improvements"/"Breaking Changes"). Headings whose items are mixed ("Changes", "New features")
   give no label. Each weak item carries its section, so the classifier learns the
   ``zzsection_*`` pseudo-tokens and the heading, not the item's words, takes most of the
   (noisy) label. Measured by 4-fold cross-validation over the labelled field texts (dev fold
   never used): giving half the items without their section, so that their words carried the
   heading's label, cost 0.016 field macro-F1 (0.843 vs 0.859, mean of three seeds). Where the
   heading's label contradicts the tagging guide (docs/tagging.md) the item's own wording
   wins (:func:`weak_label`): version bumps and framework-version compatibility
   statements (``compat.py``) are neutral even under "Improvements", and "Fixed ..." items are
   friction under any heading.
3. ``own``: ``tracker/tagger/data/*.jsonl``, examples written and labelled for this project by
   the rules of docs/tagging.md (``kind`` = ``field`` or ``generic``: made-up issues in the
   shapes of other projects' GitHub issues, issue forms and environment dumps included; a
   generic feature request is neutral, a requested speed-up optimization, a bug friction:
   docs/tagging.md "Issues from outside the accelerator field").

Dev split: an item is dev when ``crc32(source) % 5 == 0`` (20 %, deterministic, independent of
file order). Weak items whose text equals a dev text are dropped so dev stays unseen.
"""

from __future__ import annotations

import json
import os
import re
import zlib
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, replace
from pathlib import Path

OWN_DATA = Path(__file__).resolve().parent / "data"
DEV_MODULO = 5

WEAK_SECTION_LABELS = {
    "known": "friction",
    "fixes": "friction",
    "perf": "optimization",
    "deprecations": "neutral",
    "docs": "neutral",
}
# Neuron's "Improvements" items are mostly new capabilities (optimization); other feature-like
# headings ("What's New", "Added", "New features") mix support notes, docs and APIs: no label.
WEAK_EXACT_HEADINGS = {"improvements": "optimization"}
WEAK_CAP_PER_LABEL = 250


@dataclass(frozen=True)
class Example:
    """One labelled text; ``section`` is the release-note heading if known."""

    text: str
    label: str
    regime: str
    source: str
    kind: str  # field | weak | generic
    section: str | None = None

    @property
    def is_dev(self) -> bool:
        return zlib.crc32(self.source.encode()) % DEV_MODULO == 0

    def item(self) -> dict:
        """The dict the tagger takes."""
        return {"text": self.text, "section": self.section} if self.section else {"text": self.text}


def training_dir() -> Path | None:
    """``$TRACKER_TRAINING`` as a path, or None when unset (there is no default location)."""
    value = os.environ.get("TRACKER_TRAINING")
    return Path(value) if value else None


def corpus_dir() -> Path | None:
    """``$TRACKER_CORPUS`` as a path, or None when unset (there is no default location)."""
    value = os.environ.get("TRACKER_CORPUS")
    return Path(value) if value else None


def _read_jsonl(path: Path, kind: str) -> list[Example]:
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise ValueError(f"{path}:{n}: not JSON ({exc})") from None
        if not isinstance(row, dict) or "text" not in row or "label" not in row:
            raise ValueError(f'{path}:{n}: expected a JSON object with "text" and "label"')
        out.append(
            Example(
                row["text"],
                row["label"],
                row.get("regime", "none"),
                row.get("source") or f"{path.name}:{n}",
                row.get("kind", kind),
                row.get("section"),
            )
        )
    return out


def load_field(directory: Path | None = None) -> list[Example]:
    """The labelled texts of every ``*.jsonl`` in `directory` (default ``training_dir()``);
    [] when there is no such folder."""
    d = directory if directory is not None else training_dir()
    if d is None or not d.is_dir():
        return []
    return [ex for p in sorted(d.glob("*.jsonl")) for ex in _read_jsonl(p, "field")]


def load_own() -> list[Example]:
    """Our own labelled examples under ``tracker/tagger/data``."""
    return [ex for p in sorted(OWN_DATA.glob("*.jsonl")) for ex in _read_jsonl(p, "field")]


# --- weak labels from release-note headings ---------------------------------------------------

_MD_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_RST_UNDERLINE = re.compile(r"^([=\-~^\"'`*+#])\1{2,}\s*$")
_BULLET = re.compile(r"^(\s*)[-*+]\s+(.*)$")
_SECTION_BULLET = re.compile(r"^\*\s+([A-Z][A-Za-z' ]{2,30}):?\s*$")  # JAX "* Bug fixes:"


def section_items(text: str) -> list[tuple[str, str, int]]:
    """``(heading, item text, line number)`` for every bullet item of a Markdown/RST notes file.

    Wrapped continuation lines are joined; nested bullets are separate items under the same heading.
    """
    lines = text.splitlines()
    items: list[tuple[str, str, int]] = []
    heading = ""
    cur: list[str] = []
    cur_line = 0
    cur_indent = 0

    def flush():
        nonlocal cur
        if cur:
            items.append((heading, " ".join(cur), cur_line))
        cur = []

    for i, line in enumerate(lines):
        nxt = lines[i + 1] if i + 1 < len(lines) else ""
        m = _MD_HEADING.match(line)
        if m or (line.strip() and _RST_UNDERLINE.match(nxt) and not _BULLET.match(line)):
            flush()
            heading = (m.group(2) if m else line).strip("* ")
            continue
        if _RST_UNDERLINE.match(line):
            continue
        sb = _SECTION_BULLET.match(line)
        if sb:
            flush()
            heading = sb.group(1)
            continue
        b = _BULLET.match(line)
        if b:
            flush()
            cur, cur_line, cur_indent = [b.group(2).strip()], i + 1, len(b.group(1))
        elif cur and line.strip() and (len(line) - len(line.lstrip())) > cur_indent:
            cur.append(line.strip())
        else:
            flush()
    flush()
    return items


_FIXED = re.compile(r"\W*(?:fix|fixed|fixes|fixing|resolved)\b", re.I)


def weak_label(heading: str, text: str) -> str | None:
    """The weak label of a release-note item: its heading's label, overridden by its wording
    where the tagging rules are explicit (module docstring); None when the heading gives none."""
    from tracker.tagger.compat import is_compat_statement
    from tracker.tagger.features import canonical_section, clean

    sec = canonical_section(heading)
    label = WEAK_EXACT_HEADINGS.get(heading.strip().lower()) or WEAK_SECTION_LABELS.get(
        (sec or "").removeprefix("zzsection_")
    )
    if not label:
        return None
    if _FIXED.match(text):
        return "friction"
    if label != "neutral" and is_compat_statement(clean(text)):
        return "neutral"
    return label


def load_weak(
    exclude_texts: AbstractSet[str] = frozenset(), corpus: Path | None = None
) -> list[Example]:
    """Heading-labelled release-note items from the `corpus` folder (default ``corpus_dir()``),
    deduplicated by text; [] without a corpus."""
    root = corpus if corpus is not None else corpus_dir()
    if root is None or not root.is_dir():
        return []
    files = sorted(root.glob("rocm/ROCm@*/RELEASE.md")) + [root / "jax" / "CHANGELOG.md"]
    files += sorted((root / "aws-neuron-sdk" / "release-notes").rglob("*.rst"))
    seen = set(exclude_texts)
    out = []
    for path in files:
        if not path.is_file():
            continue
        rel = path.relative_to(root).as_posix()
        for heading, text, line in section_items(
            path.read_text(encoding="utf-8", errors="replace")
        ):
            label = weak_label(heading, text)
            key = _key(text)
            if not label or len(text) < 25 or key in seen:
                continue
            seen.add(key)
            out.append(Example(text, label, "none", f"corpus/{rel}:{line}", "weak", heading))
    # Cap each label (JAX deprecations alone would outnumber the real data); keep a
    # deterministic, file-order-independent sample.
    out.sort(key=lambda e: zlib.crc32(e.source.encode()))
    kept: list[Example] = []
    count: dict[str, int] = {}
    for e in out:
        if count.get(e.label, 0) < WEAK_CAP_PER_LABEL:
            count[e.label] = count.get(e.label, 0) + 1
            kept.append(e)
    return kept


def _key(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def split(examples: list[Example]) -> tuple[list[Example], list[Example]]:
    """(train, dev) by the deterministic hash of ``source``."""
    train = [e for e in examples if not e.is_dev]
    dev = [e for e in examples if e.is_dev]
    return train, dev


def load_all(
    training: Path | None = None, corpus: Path | None = None
) -> tuple[list[Example], list[Example]]:
    """(train, dev) over field + own + weak data; weak items never go to dev."""
    field_train, field_dev = split(load_field(training) + load_own())
    dev_keys = {_key(e.text) for e in field_dev}
    weak = [e for e in load_weak(dev_keys, corpus)]
    return field_train + weak, field_dev


def with_section(ex: Example, section: str | None) -> Example:
    return replace(ex, section=section)
