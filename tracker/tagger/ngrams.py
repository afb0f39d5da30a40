"""Batched n-gram feature extraction for the bag-of-words classifier.

Equivalent input for the sparse linear layer as ``spacy.ml.extract_ngrams`` (per doc: n-gram
hashes of one attribute with counts, plus per-doc lengths; here repeats are listed, not counted),
but computed once per batch with a handful of numpy calls instead of several per document. With ~50-token texts the per-document numpy overhead
was the largest single cost of the pipeline.
"""

from __future__ import annotations

import numpy
from spacy.attrs import LOWER
from thinc.api import Model


def extract_ngrams_batched(ngram_size: int, attr: int = LOWER) -> Model:
    """Thinc layer: ``List[Doc] -> (keys uint64, counts float32, lengths int32)``.

    Instead of Docs the layer also takes each Doc's ``attr`` column as a numpy array (the
    tagger's fast path reads ``Doc.to_array`` once for the rules and the classifier).
    """
    model: Model = Model("extract_ngrams_batched", _forward)
    model.attrs["ngram_size"] = ngram_size
    model.attrs["attr"] = attr
    return model


def _forward(model: Model, docs, is_train: bool):
    ops = model.ops
    attr = model.attrs["attr"]
    arrays = [doc if isinstance(doc, numpy.ndarray) else doc.to_array(attr) for doc in docs]
    lens = numpy.asarray([len(a) for a in arrays], dtype="int64")
    if not len(docs) or not lens.sum():
        empty = numpy.zeros((0,), dtype="uint64")
        return (empty, numpy.zeros((0,), dtype="f"), numpy.zeros((len(docs),), dtype="int32")), _no_backprop
    uni = numpy.ascontiguousarray(numpy.concatenate(arrays).astype("uint64", copy=False))
    doc_ids = numpy.repeat(numpy.arange(len(docs)), lens)
    keys, ids = [uni], [doc_ids]
    for n in range(2, model.attrs["ngram_size"] + 1):
        if len(uni) < n:
            break
        grams = ops.ngrams(n, uni)  # window i covers uni[i : i + n]
        first, last = doc_ids[: len(grams)], doc_ids[n - 1:]
        same_doc = first == last  # drop windows that straddle two documents
        keys.append(numpy.asarray(grams)[same_doc])
        ids.append(first[same_doc])
    keys_a, ids_a = numpy.concatenate(keys), numpy.concatenate(ids)
    # Group by document: each part is already doc-ordered, so a stable sort is one merge pass.
    # Repeated n-grams stay as repeated entries with count 1: the sparse linear layer sums
    # W[key] * count, so this equals spaCy's unique-with-counts form without sorting the keys.
    order = numpy.argsort(ids_a, kind="stable")
    lengths = numpy.bincount(ids_a, minlength=len(docs)).astype("int32")
    return (keys_a[order], numpy.ones(len(keys_a), dtype="f"), lengths), _no_backprop


def _no_backprop(d_output):
    return []
