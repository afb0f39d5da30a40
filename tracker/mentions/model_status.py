"""The status of a model mention: what its own clause says, and what an introduction or heading
above it says (docs/tagging.md "Model-family mentions").

A clause (:func:`read_clause`) is read with the framework-version cues of
:func:`tracker.mentions.mentions.cued_status`, then the model rules:

- support said without the word: "now runs", "runs on", "passes the ... tests", "Day 0",
  "New model(s)", a misspelt "Suppport";
- only cues that can be about a model count as support: "should be pinned to 2.28" or "requires
  2.9" is about a release, so a model named there is ``other``;
- a maturity caveat (beta, preview, experimental, not tested, ...) or a limit ("only supports",
  "tested only on", "supported up to batch size") makes support ``other``, and so does
  improved support ("model support improved with batch size 32");
- a feature supported *for* a model is not support of the model: "support for RoPE scaling for
  Llama 3.1", "supports speculative decoding on Llama 3.1 8B", "serving is supported for
  Llama 3.3 70B", "Qwen3 VL adds sequence parallelism". These depend on where the name sits, so
  the clause gives the offsets that decide (:class:`Clause`), not a verdict.

A clause with none of these cues is *unframed*: a list item that only names a model. Lines
(:func:`lines_of`) tell which lines introduce a list: a line ending with ":", a line speaking of
"the following" models, a short models heading ("Supported models", "Models in this release",
"Compatible checkpoint examples", "New models", "Tested models"). An introduction that speaks of
models or support lends its status to the unframed items below it (:func:`intro_status`):
support, or ``other`` when it calls them beta or limits them; planned and dropped likewise.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from typing import NamedTuple

from tracker.mentions.families import MATURITY, NOT_SUPPORT
from tracker.mentions.mentions import cued_status

# Support cues that can be about a model (the framework-version ones "pinned", "requires",
# "upgraded to", "built with", "minimum" cannot).
_MODEL_CUE = re.compile(
    r"sup+ort|compatib|\badd(?:s|ed|ing)?\b|tested|validat|certif|\benabl|\bavailable"
    r"|works? with|introduc|\bprovides?\b|\bincludes?\b"
)
# Model support said without the word "support".
_EXTRA_CUE = re.compile(
    r"\bnow runs?\b|\bruns? on\b|\bpass(?:es|ed)\b[^.;]{0,60}?\btests?\b|\bday[- ]?(?:0|zero)\b"
    r"|\bnew models?\b|\bsup{3,}ort"
)
_IMPROVED = re.compile(r"\bsupport (?:is |has been )?improve")
# A feature supported for a model: the name comes after the match ("support for <feature> for
# <model>", "supports <feature> on <model>", "<feature> is supported for <model>").
_FEATURE_BEFORE = re.compile(
    r"\bsupport(?:s|ed)?\s+(?:for\s+)?(?!(?:the\s+)?(?:following|models?)\b)"
    r"(?:[^\s,;:()]+\s+){1,6}?(?:(?<!based )on|for|in|like)\s"
    r"|\b(?:is|are)\s+(?:currently\s+|now\s+)?supported\s+(?:for|on|with)\s"
)
# ... or the model is the subject that gains a feature ("Qwen3 VL adds sequence parallelism").
_FEATURE_AFTER = re.compile(r"\s(?:adds|gains|improves)\s(?!support)")
# Line-level marks of a matrix row: every check passed, nothing untested or failing.
_PASS_MARK = re.compile("\u2705|\\bpassing\\b")
_DENY_MARK = re.compile("\u274c|\u2753|\\bfail|\\bnot\\b|\\bun(?:tested|verified|supported)\\b")

# A list item: a bullet, a number, a table row.
_ITEM = re.compile(r"\s*(?:[-*+\u2022]|\d+[.)]|\|)(?:\s|$)")
_MODELISH = re.compile(r"\bmodels?\b|\bcheckpoints?\b|\barchitectures?\b|support")
_LIST_HEADING = re.compile(
    r"\b(?:supported|available|compatible|tested|validated|verified|certified|new)\b"
    r"[^.:]{0,30}\b(?:models?|checkpoints?)\b"
    r"|\b(?:models?|checkpoints?)\b[^.:]{0,30}"
    r"\b(?:supported|available|in this release|examples|validated|tested|added)\b"
)
_FOLLOWING = re.compile(r"\bthe following\b")
_TRAIL = re.compile(r"[\s*`_#>]+$")  # markup after a heading or an intro's colon
# A line break inside a sentence: the line runs on (no sentence end, not a colon) and the next
# starts in lower case or with a number ("Llama" / "3.1"), or the line ends with a comma or a
# word that cannot end a sentence ("... architectures including" / "Mixtral and DBRX.").
_RUNS_ON = re.compile(
    r"(?:,|\(|\b(?:and|or|of|for|the|a|an|with|like|including|includes|to|in|on))[ \t]*$"
)
_NEXT_LOWER = re.compile(r"[ \t]*[a-z0-9(]")


class Clause(NamedTuple):
    """What a clause says about the models named in it."""

    status: str | None  # None: unframed (no cue at all)
    maturity: bool  # says beta, preview, not tested ...
    feature_ends: tuple[int, ...]  # a name at or after one of these offsets is a feature's object
    feature_starts: tuple[int, ...]  # a name before one of these offsets gains a feature
    hardware: tuple[str, ...]


_HARDWARE = re.compile(
    r"\b(trn[1-3]|inf[12]|v5e|v5p|v6e|v7x|ironwood|trillium|mi2[0-9]{2}x?|mi3[0-9]{2}x?)\b", re.I
)


def clause_status(clause: str) -> tuple[str | None, bool]:
    """(status or None when no cue at all, maturity caveat) of a clause (rules in the module
    doc, without the position-dependent feature rule)."""
    low = clause.lower()
    status = cued_status(clause)
    if status is None:
        if _EXTRA_CUE.search(low):
            status = "supported"
        elif NOT_SUPPORT.search(low):
            status = "other"  # "untested", "only supports ...": a status is said
    elif status == "supported" and not (_MODEL_CUE.search(low) or _EXTRA_CUE.search(low)):
        status = "other"  # "should be pinned to release 2.28": about a release
    if status == "supported" and (NOT_SUPPORT.search(low) or _IMPROVED.search(low)):
        status = "other"
    return status, bool(MATURITY.search(low))


def read_clause(clause: str) -> Clause:
    """:func:`clause_status` plus the offsets of feature phrases and the hardware named."""
    status, maturity = clause_status(clause)
    ends: tuple[int, ...] = ()
    starts: tuple[int, ...] = ()
    if status not in (None, "other"):
        low = clause.lower()
        ends = tuple(m.end() for m in _FEATURE_BEFORE.finditer(low))
        if "support" not in low:
            starts = tuple(m.start() for m in _FEATURE_AFTER.finditer(low))
    hardware = tuple(sorted({h.lower() for h in _HARDWARE.findall(clause)}))
    return Clause(status, maturity, ends, starts, hardware)


def model_status(clause: str) -> str:
    """Status of a model mention from its statement alone (an unframed one is ``other``)."""
    return clause_status(clause)[0] or "other"


def row_status(line: str, carried: str | None) -> str | None:
    """The status of a name with none of its own, on ``line``: a matrix row that shows passing
    marks and none that deny ("untested", a cross, "not ...") is ``supported``; a line that
    denies is ``other``; else the ``carried`` status of the list's introduction (or None)."""
    low = line.lower()
    passed = "\u2705" in low or ("passing" in low and _PASS_MARK.search(low) is not None)
    if not passed and carried is None:
        return None  # most names: nothing on the line or above it says anything
    if _DENY_MARK.search(low) or MATURITY.search(low):
        return "other"
    return "supported" if passed else carried


class Intro(NamedTuple):
    """What an introduction or heading lends the unframed items below it."""

    status: str | None  # carried to unframed items (None: nothing)
    maturity: bool  # beta / preview / not tested: no item below is supported


def intro_status(line: str, heading: bool = False) -> Intro | None:
    """The :class:`Intro` of ``line`` if it introduces a list (or, with ``heading``, is a
    heading or lead-in the caller knows encloses the text) and speaks of models or support;
    else None."""
    text = _TRAIL.sub("", line).strip()
    low = text.lower()
    short = len(low) <= 120 and len(low.split()) <= 10
    if not (heading or short or text.endswith(":") or "following" in low):
        return None  # most lines: long prose that introduces nothing
    if not _MODELISH.search(low):
        return None
    listing = short and _LIST_HEADING.search(low)
    if not (heading or text.endswith(":") or listing or _FOLLOWING.search(low)):
        return None
    status, maturity = clause_status(text)
    if status is None and listing:
        status = "supported"
    if maturity or status is None:
        status = "other" if maturity else None
    return Intro(status, maturity)


def unwrap(text: str) -> str:
    """``text`` with the line breaks inside a sentence made spaces (same length, so offsets
    hold): a wrapped paragraph reads as one line, a list or a new sentence does not."""
    nl = text.find("\n")
    if nl < 0:
        return text
    joins = []
    lo = 0
    while nl >= 0:
        line = text[lo:nl].rstrip()
        nxt = nl + 1
        if (
            line
            and line[-1] not in ".:!?;"
            and text[nxt : nxt + 1].strip()
            and (_NEXT_LOWER.match(text, nxt) or _RUNS_ON.search(line))
            and not _ITEM.match(text, nxt)
        ):
            joins.append(nl)
        lo, nl = nxt, text.find("\n", nxt)
    if not joins:
        return text
    parts, lo = [], 0
    for j in joins:
        parts.append(text[lo:j])
        lo = j + 1
    parts.append(text[lo:])
    return " ".join(parts)


class Lines:
    """The lines of an unwrapped text: where each starts, which are list items and which
    introduce a list (:func:`intro_status`)."""

    def __init__(self, text: str):
        self.starts: list[int] = []
        self.items: list[bool] = []
        self.intros: list[Intro | None] = []
        lo = 0
        for line in text.split("\n"):
            self.starts.append(lo)
            item = bool(_ITEM.match(line))
            self.items.append(item)
            self.intros.append(intro_status(line) if line.strip() else None)
            lo += len(line) + 1
        self.text = text

    def index(self, pos: int) -> int:
        """The line holding offset ``pos``."""
        return bisect_right(self.starts, pos) - 1

    def line(self, i: int) -> str:
        end = self.starts[i + 1] - 1 if i + 1 < len(self.starts) else len(self.text)
        return self.text[self.starts[i] : end]

    def carried(self, i: int, outer: list[Intro]) -> tuple[str | None, bool]:
        """(status carried to line ``i``, maturity above it): the nearest introduction above a
        list item (the list runs until a line that is neither an item nor blank), else the
        enclosing ``outer`` introductions (headings, lead-ins), innermost first."""
        maturity = any(x.maturity for x in outer)
        if self.intros[i] is None and self.items[i]:
            j = i - 1
            while j >= 0 and (self.items[j] or not self.line(j).strip()):
                if self.intros[j] is not None:
                    break
                j -= 1
            intro = self.intros[j] if j >= 0 else None
            if intro is not None and j < i:
                return intro.status, maturity or intro.maturity
        for x in reversed(outer):
            if x.status is not None:
                return x.status, maturity
        return None, maturity
