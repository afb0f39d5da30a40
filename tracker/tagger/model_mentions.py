"""Model-family mentions with a support status (the "Model mentions" rules of the tagging guide).

``extract_model_mentions(text)`` returns ``[{"model": family_id, "status": ..., "hardware":
[...]}]`` (``hardware`` only when the statement names some: Trn1, Trn2, v6e, MI300X, ...). One
mention per family and status, in order of appearance. Family ids come from the alias table
(:mod:`tracker.tagger.families`): "Qwen3-235B-A22B" -> ``qwen3-moe``, "GPT-OSS 120B" -> ``gpt-oss``,
"Llama 4 Scout and Maverick" -> ``llama4``; vLLM architecture classes ("Qwen3MoeForCausalLM") too.

Status: the clause rules of framework mentions (:func:`tracker.tagger.mentions.status_of`:
dropped, planned, other, supported, in that order), then one model rule: a statement that would
read as support but calls it beta, preview, early access, experimental, unverified, untested,
"not yet passing" or limited ("only supports") is ``other``, not support.

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

from tracker.tagger.families import NOT_SUPPORT as _NOT_SUPPORT
from tracker.tagger.families import FamilyTable, load_families, normalise_name
from tracker.tagger.mentions import _clause_bounds, _part, status_of

_HARDWARE = re.compile(
    r"\b(trn[1-3]|inf[12]|v5e|v5p|v6e|v7x|ironwood|trillium|mi2[0-9]{2}x?|mi3[0-9]{2}x?)\b", re.I
)
_ARCH = re.compile(r"\b[A-Z][A-Za-z0-9_]*For(?:CausalLM|ConditionalGeneration)\b")
# A model name runs on over letters, digits, ".", "-", "_", "/", brackets and single spaces.
_NAME_CHARS = re.compile(r"[\w.\-/()\[\] ]{0,60}")

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


def model_status(clause: str) -> str:
    """Status of a model mention from its statement (rules in the module doc)."""
    status = status_of(clause)
    if status == "supported" and _NOT_SUPPORT.search(clause.lower()):
        return "other"
    return status


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


def _clause_facts(clause: str) -> tuple[str, tuple[str, ...]]:
    """(status, hardware named, sorted) of a mention's statement."""
    return model_status(clause), tuple(sorted({h.lower() for h in _HARDWARE.findall(clause)}))


# Per-mention work is a name resolution and a clause reading; texts repeat both (a name at the
# end of a title, "Qwen3-235B-A22B" in every release-note line), so each is memoised by its text.
_NAMES = _Memo(_resolve)
_CLAUSES = _Memo(_clause_facts)


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
        fid = names[window.group().lower()] if window else None
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


def extract_model_mentions(text: str, starts: list[int] | None = None) -> list[dict]:
    """All model-family mentions in ``text`` (see the module doc). ``starts``: character
    offsets where a model name may start (the tagger passes its head tokens'); None scans the
    text for every alias head."""
    hits = _found(text, starts)
    if not hits:
        return []
    out: list[dict] = []
    seen: set[tuple[str, str]] = set()
    for pos, fid in hits:
        status, hardware = _CLAUSES[_part(text, *_clause_bounds(text, pos), pos, commas=True)]
        if (fid, status) in seen:
            continue
        seen.add((fid, status))
        mention: dict = {"model": fid, "status": status}
        if hardware:
            mention["hardware"] = list(hardware)  # each caller its own list (the memo's is shared)
        out.append(mention)
    return out
