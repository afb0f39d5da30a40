"""Batched n-gram feature extraction for the bag-of-words classifier.

Equivalent input for the sparse linear layer as ``spacy.ml.extract_ngrams`` (per doc: n-gram
hashes of one attribute with counts, plus per-doc lengths; here repeats are listed, not counted),
but computed once per batch with a handful of numpy calls instead of several per document. With
~50-token texts the per-document numpy overhead was the largest single cost of the pipeline.

With ``lead=True`` each document also gets one *lead* feature: the NORM of the title's first word,
after leading bracket tags and punctuation ("[TPU][Bug]: **Optimize** the GELU kernel" -> the
NORM of "Optimize"), salted so it is a feature of its own. The title's leading verb says what a
text is about (docs/tagging.md tie-breaker 5), also when the body describes the slowness an
"Optimize ..." change removes. Computed here, from the same NORM column, so ``tag_many`` and the
``nlp.pipe`` path see the same feature (+0.06 generic dev macro-F1, +0.005 field; mean of 5 seeds).

With ``title=True`` (architecture v3) the title's words, up to the first line break and at most
``TITLE_MAX``, are features once more, salted: the title says what a text is about (tie-breaker
5) and a long body should not drown it. 5-fold cross-validation over the labelled field texts:
field macro-F1 0.867 -> 0.879 (two seeds); generic issues 0.900 -> 0.882.
"""

from __future__ import annotations

from typing import NamedTuple, cast

import numpy
from spacy.attrs import LOWER
from spacy.strings import hash_string  # type: ignore[attr-defined]  # not in spaCy's stub
from thinc.api import Model
from thinc.types import Ints1d

_OPEN, _CLOSE = hash_string("["), hash_string("]")
# Leading punctuation skipped before the lead word (Markdown emphasis, list marks, quotes, colons).
_SKIP = frozenset(
    hash_string(c)
    for c in ("*", "-", "#", ":", ">", "`", "'", '"', "(", ")", "_", "|", ".", "!", "~")
)
_LEAD_SALT = numpy.uint64(hash_string("zzlead"))
_TITLE_SALT = numpy.uint64(hash_string("zztitle"))
_NEWLINES = numpy.asarray(sorted(hash_string(s) for s in ("\n", "\n ", "\n\n")), dtype="uint64")
TITLE_MAX = 24  # title tokens that get a title feature
_SCAN = 16  # tokens read per document to find the lead word (a few tags + punctuation)


def lead_index(head: list[int]) -> int:
    """Index of the lead word among a document's first NORM hashes (``-1``: none found):
    skip "[...]" groups (at most ``_SCAN`` tokens) and leading punctuation."""
    j, n = 0, len(head)
    while j < n:
        h = head[j]
        if h == _OPEN:
            try:
                j = head.index(_CLOSE, j + 1) + 1
            except ValueError:
                return -1
        elif h in _SKIP:
            j += 1
        else:
            return j
    return -1


_NOT_LEAD = numpy.asarray(sorted(_SKIP | {_OPEN}), dtype="uint64")


class NormColumns(NamedTuple):
    """A batch already read off its Docs: the NORMs of all tokens, concatenated, and each Doc's
    token count (the tagger's fast path has them from ``Doc.to_array`` for its rules)."""

    norms: numpy.ndarray  # uint64
    lens: numpy.ndarray  # int64, one per Doc


def _lead_keys(uni: numpy.ndarray, lens: numpy.ndarray) -> tuple[numpy.ndarray, numpy.ndarray]:
    """(lead feature keys, document index of each) for the documents that have a lead word.

    ``uni``: the documents' NORMs concatenated, ``lens`` their lengths. Most titles start with
    their lead word, which is read for the whole batch at once; only documents whose first token
    is a bracket or punctuation go through :func:`lead_index`.
    """
    docs = numpy.flatnonzero(lens > 0)
    starts = (numpy.cumsum(lens) - lens)[docs]
    first = uni[starts]
    odd = numpy.isin(first, _NOT_LEAD)
    if odd.any():
        keep = numpy.ones(len(docs), dtype=bool)
        for i in numpy.flatnonzero(odd).tolist():
            head = uni[starts[i] : starts[i] + min(int(lens[docs[i]]), _SCAN)].tolist()
            j = lead_index(head)
            if j >= 0:
                first[i] = head[j]
            else:
                keep[i] = False
        docs, first = docs[keep], first[keep]
    return first ^ _LEAD_SALT, docs


def _title_lens(uni: numpy.ndarray, lens: numpy.ndarray, doc_ids: numpy.ndarray) -> numpy.ndarray:
    """Tokens before each document's first line break (at most ``TITLE_MAX``)."""
    starts = numpy.cumsum(lens) - lens
    newline = numpy.flatnonzero(numpy.isin(uni, _NEWLINES))
    first = numpy.full(len(lens), -1)
    if len(newline):
        docs = doc_ids[newline]
        keep = numpy.r_[True, docs[1:] != docs[:-1]]  # first newline of each document
        first[docs[keep]] = newline[keep] - starts[docs[keep]]
    title = numpy.where(first < 0, lens, first)
    return numpy.minimum(title, TITLE_MAX)


def extract_ngrams_batched(
    ngram_size: int,
    attr: int = LOWER,
    lead: bool = False,
    title: bool = False,
    title_weight: float = 1.0,
) -> Model:
    """Thinc layer: ``List[Doc] -> (keys uint64, counts float32, lengths int32)``.

    Instead of Docs the layer also takes each Doc's ``attr`` column as a numpy array, or a
    :class:`NormColumns` (the tagger's fast path reads ``Doc.to_array`` once for the rules and
    the classifier).
    """
    model: Model = Model("extract_ngrams_batched", _forward)
    model.attrs["ngram_size"] = ngram_size
    model.attrs["attr"] = attr
    model.attrs["lead"] = lead
    model.attrs["title"] = title
    model.attrs["title_weight"] = title_weight
    return model


def _forward(model: Model, docs, is_train: bool):
    ops = model.ops
    attr = model.attrs["attr"]
    if isinstance(docs, NormColumns):
        lens = docs.lens
        n_docs = len(lens)
        uni = numpy.ascontiguousarray(docs.norms, dtype="uint64")
    else:
        arrays = [doc if isinstance(doc, numpy.ndarray) else doc.to_array(attr) for doc in docs]
        lens = numpy.asarray([len(a) for a in arrays], dtype="int64")
        n_docs = len(docs)
        uni = None
    if not n_docs or not lens.sum():
        empty = numpy.zeros((0,), dtype="uint64")
        return (
            empty,
            numpy.zeros((0,), dtype="f"),
            numpy.zeros((n_docs,), dtype="int32"),
        ), _no_backprop
    if uni is None:
        uni = numpy.ascontiguousarray(numpy.concatenate(arrays).astype("uint64", copy=False))
    doc_ids = numpy.repeat(numpy.arange(n_docs), lens)
    lead = model.attrs.get("lead")
    if lead:
        lead_keys, lead_docs = _lead_keys(uni, lens)
    # Output layout, per document: its unigrams, then its bigrams, ..., then its lead feature,
    # each part in text order (the order the sparse linear layer sums in). Each key is written
    # straight to its slot: ``base[d]`` is where document d's part for the current n begins,
    # minus the document's first global index, so a key at global index g goes to g + base[d].
    # Repeated n-grams stay as repeated entries with count 1: the sparse linear layer sums
    # W[key] * count, so this equals spaCy's unique-with-counts form without sorting the keys.
    n_max = model.attrs["ngram_size"]
    part_lens = [lens] + [
        numpy.maximum(lens - (n - 1), 0) for n in range(2, n_max + 1) if len(uni) >= n
    ]
    lengths = numpy.sum(part_lens, axis=0)
    if lead:
        lengths[lead_docs] += 1
    title = model.attrs.get("title")
    if title:
        title_lens = _title_lens(uni, lens, doc_ids)
        lengths = lengths + title_lens
    out_start = numpy.cumsum(lengths) - lengths
    base = out_start - (
        numpy.cumsum(lens) - lens
    )  # output start - first global index, per document
    total = int(lengths.sum())
    out = numpy.empty(total, dtype="uint64")
    out[numpy.arange(len(uni)) + base[doc_ids]] = uni
    for n in range(2, len(part_lens) + 1):  # n-gram sizes no longer than the whole text
        base = base + part_lens[n - 2]  # past the previous part; window g covers uni[g : g + n]
        grams = numpy.asarray(ops.ngrams(n, cast(Ints1d, uni)))
        first = doc_ids[: len(grams)]
        same_doc = numpy.flatnonzero(
            first == doc_ids[n - 1 :]
        )  # drop windows straddling two documents
        out[same_doc + base[first[same_doc]]] = grams[same_doc]
    if lead:
        out[
            out_start[lead_docs] + lengths[lead_docs] - 1 - (title_lens[lead_docs] if title else 0)
        ] = lead_keys
    if title:
        pos_in_doc = numpy.arange(len(uni)) - (numpy.cumsum(lens) - lens)[doc_ids]
        is_title = pos_in_doc < title_lens[doc_ids]
        slot = out_start + lengths - title_lens  # where each document's title part begins
        title_slots = slot[doc_ids[is_title]] + pos_in_doc[is_title]
        out[title_slots] = uni[is_title] ^ _TITLE_SALT
    values = numpy.ones(total, dtype="f")
    weight = model.attrs.get("title_weight", 1.0)
    if title and weight != 1.0:
        # The title's own features count ``title_weight`` times (architecture v4): a long body
        # (a problem statement under a feature request's title) should not drown the title.
        values[title_slots] = weight
    return (out, values, lengths.astype("int32")), _no_backprop


def _no_backprop(d_output):
    return []
