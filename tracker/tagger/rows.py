"""Token rows for the rules: each text's tokens as ``(NORM, IDX)`` array rows, tokenized in
batches (``text_rows``) or read off parsed Docs (``doc_rows``). The rules and the classifier
read these arrays instead of spaCy Token objects: numpy over rows is the tagger's hot path."""

from __future__ import annotations

from itertools import repeat

import numpy
from spacy.attrs import IDX, NORM
from spacy.tokens import Doc


def title_lengths(texts: list[str]) -> numpy.ndarray:
    """Characters of each text's title: the text up to its first newline."""
    n = len(texts)
    newline = numpy.fromiter(map(str.find, texts, repeat("\n", n)), dtype="int64", count=n)
    return numpy.where(
        newline < 0, numpy.fromiter(map(len, texts), dtype="int64", count=n), newline
    )


RULE_ATTRS = [NORM, IDX]  # the columns the rules (and the classifier, column 0) read


def doc_rows(docs: list[Doc]) -> tuple[numpy.ndarray, numpy.ndarray]:
    """The rows the rules read, ``Doc.to_array(RULE_ATTRS)`` of each Doc concatenated, and each
    Doc's token count."""
    arrays = [doc.to_array(RULE_ATTRS) for doc in docs]
    lens = numpy.fromiter(map(len, arrays), dtype="int64", count=len(arrays))
    rows = (
        numpy.concatenate(arrays) if arrays else numpy.zeros((0, len(RULE_ATTRS)), dtype="uint64")
    )
    return rows, lens


# Between two texts of a batch tokenized as one string (``text_rows``). A whitespace run, so
# spaCy splits there exactly as at a text's end; the record separator makes the run's token
# unlike any a text yields. Its characters belong to no text, so neither do its tokens.
_SEP = " \x1e "
# Texts per tokenizer call. A Doc grows by doubling and every growth touches fresh memory: a
# 512-text Doc (~28,000 tokens, several MB) cost more than it saved; 64 texts keep each Doc
# small enough to reuse freed memory (measured: 64 texts 0.7x the per-text time, 512 texts 1.0x).
JOIN_GROUP = 64


def text_rows(tokenizer, texts: list[str]) -> tuple[numpy.ndarray, numpy.ndarray]:
    """:func:`doc_rows` of ``[tokenizer(t) for t in texts]`` without building a Doc per text.

    spaCy splits a string at whitespace and tokenizes each piece on its own (affixes, infixes,
    special cases never cross whitespace), so tokenizing the texts joined by a whitespace
    separator gives each text's tokens unchanged, at ``IDX`` shifted by where the text starts.
    One Doc and one ``to_array`` per ``JOIN_GROUP`` texts instead of per text: with ~50-token
    texts, spaCy's per-Doc overhead was a third of the tokenizing time. A text that starts or
    ends with whitespace would merge its edge into the separator's run, so it is tokenized
    alone (cleaned texts are stripped; the case is rare). ``tests/test_tagger.py`` checks the result
    against per-Doc tokenization on real and hostile texts.
    """
    n = len(texts)
    if not n:
        return numpy.zeros((0, len(RULE_ATTRS)), dtype="uint64"), numpy.zeros(0, dtype="int64")
    joinable = [i for i, t in enumerate(texts) if t and not t[0].isspace() and not t[-1].isspace()]
    pieces = [texts[i] for i in joinable] if len(joinable) < n else texts
    chars = numpy.fromiter(map(len, pieces), dtype="int64", count=len(pieces))
    starts = numpy.cumsum(chars + len(_SEP)) - (chars + len(_SEP))  # in all pieces joined
    groups = range(0, len(pieces), JOIN_GROUP)
    arrays = [tokenizer(_SEP.join(pieces[g : g + JOIN_GROUP])).to_array(RULE_ATTRS) for g in groups]
    rows = (
        numpy.concatenate(arrays) if arrays else numpy.zeros((0, len(RULE_ATTRS)), dtype="uint64")
    )
    # Each group's IDX counts from its own start; shift it to where the group starts in the whole.
    idx = rows[:, 1].astype("int64") + numpy.repeat(starts[list(groups)], [len(a) for a in arrays])
    piece = numpy.searchsorted(starts, idx, side="right") - 1
    inside = idx < starts[piece] + chars[piece]  # separator tokens start past their text's end
    rows, piece = rows[inside], piece[inside]
    rows[:, 1] = idx[inside] - starts[piece]
    counts = numpy.bincount(piece, minlength=len(pieces))
    if len(pieces) == n:
        return rows, counts
    # Rare path: put the texts tokenized alone (and the empty ones) back in their places.
    joined = numpy.split(rows, numpy.cumsum(counts)[:-1])
    parts: list[numpy.ndarray | None] = [None] * n
    # not strict: with nothing joined, numpy.split still returns one (empty) part
    for i, part in zip(joinable, joined, strict=False):
        parts[i] = part
    whole = [
        tokenizer(texts[i]).to_array(RULE_ATTRS) if part is None else part
        for i, part in enumerate(parts)
    ]
    return numpy.concatenate(whole), numpy.fromiter(map(len, whole), dtype="int64", count=n)
