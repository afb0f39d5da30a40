"""Model-family mentions with a support status (the "Model mentions" rules of the tagging guide).

``extract_model_mentions(text)`` returns ``[{"model": family_id, "status": ..., "hardware":
[...]}]`` (``hardware`` only when the statement names some: Trn1, Trn2, v6e, MI300X, ...). One
mention per family and status, in order of appearance. Family ids come from the alias table
(:mod:`tracker.mentions.families`): "Qwen3-235B-A22B" -> ``qwen3-moe``,
"GPT-OSS 120B" -> ``gpt-oss``,
"Llama 4 Scout and Maverick" -> ``llama4``; vLLM architecture classes ("Qwen3MoeForCausalLM") too.
A slash abbreviation names each family: "Llama 2/3.1/3.3", "Qwen2/Qwen3 VL".

Status (:mod:`tracker.mentions.model_status`): the clause rules of framework mentions (dropped,
planned, other, supported, in that order), then the model rules: support said without the word
("now runs", "passes the ... tests", "Day 0", "New models"); beta, preview, a limit or "not
tested" is ``other``; a feature supported for a model is not support of the model. A name with
no status of its own takes the status of the introduction or heading above its list (in the
text, or the ``context`` the caller gives: a stored note's heading, topic and intro); a family
the text calls beta is not supported anywhere in it; a bare repeat of a family takes the status
the text gives it. Line breaks inside a sentence are read as spaces (a wrapped paragraph).

Speed: most texts name no model. The tagger's rule pass looks up every token's NORM in a
:class:`HeadTable` of the tokens a model name can start with (one vectorised lookup per batch,
beside the cue lookup it already does) and checks for "For" (architecture classes); only texts
that pass call :func:`extract_model_mentions`, with the head tokens' offsets, so no text is
scanned for names. Per mention, the name's family and the statement's status and hardware are
memoised by their text (bounded), so a repeated name or statement costs two dict lookups.
Called without offsets (collectors, tests) it finds the alias heads itself. A name whose first
token the tokenizer glues to a size not listed as an alias ("Mixtral-8x9B") is missed by the
tagger.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from tracker.mentions.families import FamilyTable, load_families, normalise_name
from tracker.mentions.mentions import _clause_bounds, _part_bounds
from tracker.mentions.model_status import (
    Intro,
    Lines,
    intro_status,
    model_status,
    read_clause,
    row_status,
    unwrap,
)

__all__ = ["HeadTable", "extract_model_mentions", "head_words", "mentions_at", "model_status"]
_ARCH = re.compile(r"\b[A-Z][A-Za-z0-9_]*For(?:CausalLM|ConditionalGeneration)\b")
# A model name runs on over letters, digits, ".", "-", "_", "/", brackets and single spaces.
_NAME_CHARS = re.compile(r"[\w.\-/()\[\] ]{0,60}")
# A slash-abbreviated name: "llama 2/3.1/3.3", "llama3/3.1", "qwen2/qwen3 vl" (lower case).
_SLASH = re.compile(
    r"(?P<base>[a-z]+[ -]?)(?P<first>[\d.]*\d[a-z]?)(?P<rest>(?:/(?:[a-z]+[ -]?)?[\d.]*\d[a-z]?)+)"
    r"(?P<suffix>[ -](?:vl|moe)\b)?"
)

# How far from a name its statement may start or end: further than a framework version's
# (CLAUSE_REACH), because model lists are long ("supports various architectures, including
# Llama versions (Llama 2, Llama 3, Llama 3.1, Llama 3.2 and Llama 3.3) and ...").
REACH = 320

_TABLE: list[FamilyTable] = []  # the shipped table, loaded on first use


def _table() -> FamilyTable:
    if not _TABLE:
        _TABLE.append(load_families())
    return _TABLE[0]


def head_words() -> list[str]:
    """Spellings a model name can start with: each alias with spaces kept, made ``-`` and
    dropped, and its leading letters ("qwen" of "Qwen/Qwen3-32B"); the rule pass keys them by
    the NORM of their first token."""
    table = _table()
    out = set(table.heads)
    for fam in table.families.values():
        for alias in fam.aliases:
            out.update({alias, alias.replace(" ", "-"), alias.replace(" ", "")})
    return sorted(out)


class HeadTable:
    """NORM hash -> "a model name can start here", for a whole batch of tokens at once.

    Direct-mapped like the rule pass's cue table: slot ``(hash >> shift) & mask`` with the
    smallest size and shift at which the keys do not collide; a lookup is a shift, a mask, a
    gather and a comparison.
    """

    def __init__(self, hashes: Iterable[int]):
        keys = sorted(set(hashes))
        size = 1 << max(8, (4 * len(keys)).bit_length())
        while True:
            shift = next(
                (
                    s
                    for s in range(64 - size.bit_length() + 2)
                    if len({(h >> s) & (size - 1) for h in keys}) == len(keys)
                ),
                None,
            )
            if shift is not None:
                break
            size <<= 1
        self.shift, self.mask = numpy.uint64(shift), numpy.uint64(size - 1)
        self.keys = numpy.zeros(size, dtype="uint64")
        self.keys[:] = numpy.uint64(0xFFFFFFFFFFFFFFFF) if 0 in keys else 0
        for h in keys:
            self.keys[(h >> shift) & (size - 1)] = h

    def heads_by_doc(self, rows: numpy.ndarray, lens: numpy.ndarray | None) -> dict[int, list[int]]:
        """Doc index -> character offsets of its head tokens, from a batch's ``[NORM, IDX]``
        rows (concatenated; ``lens``: each Doc's token count). Docs without one are absent."""
        if lens is None or not len(rows):
            return {}
        norms = rows[:, 0]
        slot = ((norms >> self.shift) & self.mask).astype(numpy.intp)
        hit = numpy.flatnonzero(self.keys[slot] == norms)
        out: dict[int, list[int]] = {}
        if len(hit):
            docs = numpy.searchsorted(numpy.cumsum(lens), hit, side="right")
            for d, idx in zip(docs.tolist(), rows[hit, 1].tolist(), strict=True):
                out.setdefault(d, []).append(idx)
        return out


def _head_starts(low: str, heads: tuple[str, ...]) -> list[int]:
    """Offsets in the lower-cased text where an alias head starts a word. One ``find`` scan per
    head: a regex alternation with a leading word boundary scanned several times slower."""
    starts = []
    for head in heads:
        p = low.find(head)
        while p >= 0:
            if p == 0 or not low[p - 1].isalnum():
                starts.append(p)
            p = low.find(head, p + 1)
    return starts


class _Memo(dict):
    """key -> ``fn(key)``, filled on first sight; bounded: cleared past ``MAX`` keys. Both
    lookups below are pure functions of their key, so a hit is the same answer."""

    MAX = 50_000

    def __init__(self, fn: Callable[[str], Any]):
        super().__init__()
        self.fn = fn

    def __missing__(self, key: str) -> Any:
        if len(self) >= self.MAX:
            self.clear()
        value = self[key] = self.fn(key)
        return value


def _resolve(window: str) -> str | None:
    """Family id of the name at the start of a lower-cased ``_NAME_CHARS`` window, or None."""
    hit = _table().match(normalise_name(window))
    return hit[0] if hit else None


# Per-mention work is a name resolution and a clause reading; texts repeat both (a name at the
# end of a title, "Qwen3-235B-A22B" in every release-note line), so each is memoised by its text.
_NAMES = _Memo(_resolve)
_SLASHES = _Memo(lambda window: _slash_families(window))
_CLAUSES = _Memo(read_clause)


def _found(text: str, starts: list[int] | None = None) -> list[tuple[int, str]]:
    """(offset, family id) of each model name and architecture class in ``text``; ``starts``:
    where names may start, if the caller knows (the rule pass's head tokens)."""
    if starts is None:
        low = text.lower()
        starts = _head_starts(low, _table().heads)
    elif text.isascii():  # O(1) for str; lower() keeps offsets, so only the window needs it
        low = text
    else:
        low = text.lower()
    names = _NAMES
    hits: list[tuple[int, str]] = []
    for p in starts:
        window = _NAME_CHARS.match(low, p)
        name = window.group().lower() if window else ""
        fid = names[name] if name else None
        if "/" in name:  # "Llama 2/3.1/3.3", "Qwen2/Qwen3 VL": one name, several families
            for i, other in enumerate(_SLASHES[name]):
                if i == 0:
                    fid = other
                else:
                    hits.append((p, other))
        if fid:
            hits.append((p, fid))
    if "For" in text:
        arch = _table().arch
        for m in _ARCH.finditer(text):
            fid = arch.get(m.group())
            if fid:
                hits.append((m.start(), fid))
    if len(hits) > 1:
        hits.sort()
    return hits


def _slash_families(window: str) -> list[str]:
    """Families of a slash-abbreviated name at the start of ``window`` ("llama 2/3.1/3.3":
    llama2, llama3.1, llama3.3; "qwen2/qwen3 vl": qwen2-vl, qwen3-vl), first the family of the
    first part; empty when the name is not one."""
    m = _SLASH.match(window)
    if not m:
        return []
    base = m.group("base") or ""
    suffix = m.group("suffix") or ""
    out: list[str] = []
    for part in [m.group("first")] + m.group("rest").split("/")[1:]:
        name = part if part[:1].isalpha() else base + part
        fid = (_resolve(name + suffix) if suffix else None) or _resolve(name)
        if fid and fid not in out:
            out.append(fid)
    return out


def mentions_at(
    text: str, starts: list[int] | None = None, context: str | None = None
) -> list[tuple[int, str, str, tuple[str, ...]]]:
    """(offset, family id, status, hardware) of every model name in ``text``, in order, with
    repeats: the positions let an evaluation score the names of one line of a longer text.
    ``context``: headings, lead-ins or an introduction the text sits under, one per line,
    outermost first (the collector's ``heading``, ``topic`` and ``intro``); their status
    carries into the text's unframed names (:mod:`tracker.mentions.model_status`)."""
    reading = unwrap(text)  # same offsets: "Llama\n3.1" in a wrapped paragraph is one name
    hits = _found(reading, starts)
    if not hits:
        return []
    outer = [
        intro
        for piece in (context.split("\n") if context else ())
        if piece.strip() and (intro := intro_status(piece, heading=True)) is not None
    ]
    multiline = "\n" in reading
    lines: Lines | None = None  # built when a name needs what is above it (most do not)
    found: list[tuple[int, str, str, tuple[str, ...]]] = []
    beta: set[str] = set()  # families the text itself calls beta, preview, ...
    bare: list[int] = []  # mentions with no status of their own or carried
    for pos, fid in hits:
        lo, hi = _part_bounds(reading, *_clause_bounds(reading, pos, REACH), pos, commas=True)
        clause = _CLAUSES[reading[lo:hi]]
        status = clause.status
        rel = pos - lo
        if status not in (None, "other") and (
            any(end <= rel for end in clause.feature_ends)
            or any(start > rel for start in clause.feature_starts)
        ):
            status = "other"  # a feature supported (planned, removed) for the model
        if status in (None, "supported") and (multiline or outer or status is None):
            if multiline:
                lines = lines or Lines(reading)
                i = lines.index(pos)
                carried, maturity = lines.carried(i, outer)
                line = lines.line(i)
            else:
                (carried, maturity), line = _outer(outer) if outer else (None, False), reading
            if status is None:
                status = row_status(line, carried)
            if maturity and status == "supported":
                status = "other"
        if clause.maturity and status == "other":
            beta.add(fid)
        if status is None:
            bare.append(len(found))
        found.append((pos, fid, status or "other", clause.hardware))
    if bare and len(bare) < len(found):
        # a bare repeat of a family the text gives a status ("See the sample for
        # Llama-3.1-405B") has that status
        framed: dict[str, str] = {}
        for i, (_, f, st, _) in enumerate(found):
            if i not in bare:
                framed.setdefault(f, st)
        for i in bare:
            p, f, st, h = found[i]
            found[i] = (p, f, framed.get(f, st), h)
    if beta:  # a family the text calls beta is not supported anywhere in it
        found = [
            (p, f, "other" if f in beta and st == "supported" else st, h) for p, f, st, h in found
        ]
    return found


def _outer(outer: list[Intro]) -> tuple[str | None, bool]:
    """(status, maturity) the enclosing introductions lend a one-line text."""
    status = next((x.status for x in reversed(outer) if x.status is not None), None)
    return status, any(x.maturity for x in outer)


def extract_model_mentions(
    text: str, starts: list[int] | None = None, context: str | None = None
) -> list[dict]:
    """All model-family mentions in ``text`` (see the module doc). ``starts``: character
    offsets where a model name may start (the tagger passes its head tokens'); None scans the
    text for every alias head. ``context``: see :func:`mentions_at`."""
    out: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for _pos, fid, status, hardware in mentions_at(text, starts, context):
        if (fid, status) in seen:
            continue
        seen.add((fid, status))
        mention: dict = {"model": fid, "status": status}
        if hardware:
            mention["hardware"] = list(hardware)  # each caller its own list (the memo's is shared)
        out.append(mention)
    return out
