"""Rule component: regime cues and the regime decision (docs/tagging.md "Regime"), version mentions.

The ``tracker_rules`` pipeline component works on token NORMs, which
:mod:`tracker.tagger.lexicon` sets once per *lexeme* (a cue regex runs once per distinct word,
never per occurrence): every platform name is ``zzplat_<regime>``, every ambiguous cue
``zzweak_<regime>``, every framework name ``zzfw_<framework>``. A batch of Docs is read with one
``Doc.to_array([NORM, IDX])`` per Doc; each NORM hash is mapped to a bit set of cue kinds by a
lookup in a small hash table (:class:`CueTable`), and the single-token cues, the multi-token
patterns and the tie-breakers below are numpy operations over the batch's cue tokens. Only
framework names (candidate version mentions) get per-token Python work.

Results, stored on each Doc:
  ``doc._.regime``       cuda | rocm | xla | neuron | none
  ``doc._.mentions``     framework-version mentions (see :mod:`tracker.mentions.mentions`)
  ``doc._.regime_hits``  list of (regime, token index, weight) behind the decision (debugging;
                         computed on access; a negative weight marks a weak cue)

Multi-token patterns (compared by NORM): "AMD GPU(s)/hardware/accelerator(s)/Instinct/<ROCm
name>", "Composable Kernel", "amd-smi" are strong ROCm cues; "PyTorch/XLA", "PT/XLA" a strong XLA
cue. Contexts that cancel a weak cue: "XLA GPU", "XLA:CUDA", "TF XLA", "JAX XLA", "OpenXLA XLA"
(XLA the compiler, not TPU); "AMD CPU/EPYC/Ryzen/Threadripper/Zen" (an AMD CPU). A ROCm cue right
before "Graphics" is the integrated graphics of an AMD CPU ("AMD Ryzen 7 6800U with Radeon
Graphics" in an environment dump; ``layout.strip_dump_noise`` folds "Radeon(TM) 780M Graphics"
to that form), not an accelerator: neither it nor an "AMD" before it counts.

Regime decision (docs/tagging.md tie-breakers):
  1. a non-CUDA platform named anywhere (outside a comparison) wins over CUDA-looking names
     (``TestCuda...`` disabled on rocm, "hipify cuBLAS calls");
  2. a platform within ``COMPARISON_WINDOW`` tokens after "than" / "vs" / "compared" /
     "versus" / "relative" / "against" is a comparison target and does not count;
  3. among several non-CUDA platforms, the one with the most weight wins; cues in the title
     (first line) weigh triple, in the first ``HEAD_CHARS`` characters double; ties go to the
     earliest;
  4. traps stay none: "TP", ``tp_size``, ``XlaRuntimeError``, "JAX" alone never become cues, and
     weak words ("XLA" alone, "SPMD", "AMD") count only when no strong cue is present.
"""

from __future__ import annotations

import numpy
from spacy.language import Language
from spacy.tokens import Doc
from spacy.util import minibatch

from tracker.mentions.mentions import extract_mentions_at
from tracker.mentions.model_mentions import HeadTable, extract_model_mentions, head_words
from tracker.tagger.lexicon import FRAMEWORKS, REGIMES, Stateless, install_norms, norm_of
from tracker.tagger.rows import doc_rows, title_lengths

COMPARISON_WORDS = ("than", "vs", "vs.", "versus", "compared", "comparison", "relative", "against")
TITLE_WEIGHT, HEAD_WEIGHT, BODY_WEIGHT = 3, 2, 1
HEAD_CHARS = 300
COMPARISON_WINDOW = 4
BATCH_SIZE = 512

# Cue kinds, one bit each. Bits 0-3: strong cue of REGIMES[i]; bits 4-7: weak cue of REGIMES[i].
STRONG_BITS = 0x0F
WEAK_BITS = 0xF0
FW = 1 << 8  # a framework name (anchor of a version mention)
FW_PYTORCH = 1 << 9  # "PyTorch"/"torch" (first word of "PyTorch/XLA")
CMP = 1 << 10  # comparison word
AMD_GPU_NEXT = 1 << 11  # after "AMD": makes it a strong ROCm cue
NOT_XLA_NEXT = 1 << 12  # after "XLA": XLA the compiler on GPU/CPU, not TPU
NOT_XLA_PREV = 1 << 13  # before "XLA": TF XLA, JAX XLA, OpenXLA
NOT_ROCM_NEXT = 1 << 14  # after "AMD": an AMD CPU
COLON, SLASH, HYPHEN, SMI, COMPOSABLE, KERNEL, PT = (1 << b for b in range(15, 22))
GRAPHICS = 1 << 22  # "Graphics" after "Radeon": a CPU's integrated graphics
_W_ROCM, _W_XLA = 1 << (4 + REGIMES.index("rocm")), 1 << (4 + REGIMES.index("xla"))
_ROCM, _XLA = REGIMES.index("rocm"), REGIMES.index("xla")
_REGIME_NAMES = REGIMES + ("none",)

_GPU_WORDS = ("gpu", "gpus", "hardware", "accelerator", "accelerators", "zzplat_rocm")
_NOT_XLA_AFTER = ("gpu", "gpus", "cpu", "cpus", "zzplat_cuda", "zzplat_rocm")
_NOT_XLA_BEFORE = ("tf", "zzfw_tensorflow", "openxla", "zzfw_jax")
_NOT_ROCM_AFTER = (
    "cpu", "cpus", "epyc", "ryzen", "threadripper", "athlon", "opteron", "processor",
    "processors", "apu", "apus", "zen", "zen2", "zen3", "zen4", "zen5",
)  # fmt: skip

# Results live in doc.user_data["tracker_rules"] = (regime, mentions): reading and writing doc._
# costs an object per access. The extensions are views on it.
if not Doc.has_extension("regime"):
    Doc.set_extension(
        "regime", getter=lambda doc: doc.user_data.get("tracker_rules", ("none", []))[0]
    )
if not Doc.has_extension("mentions"):
    Doc.set_extension(
        "mentions", getter=lambda doc: doc.user_data.get("tracker_rules", ("none", []))[1]
    )
if not Doc.has_extension("regime_hits"):
    Doc.set_extension("regime_hits", getter=lambda doc: _debug_hits(doc))


def cue_words() -> dict[str, int]:
    """NORM string -> cue bits (the whole rule vocabulary; see the module docstring)."""
    bits: dict[str, int] = {}

    def add(words, bit):
        for w in words:
            bits[w] = bits.get(w, 0) | bit

    for i, regime in enumerate(REGIMES):
        add([f"zzplat_{regime}"], 1 << i)
        add([f"zzweak_{regime}"], 1 << (4 + i))
    add([f"zzfw_{f}" for f in set(FRAMEWORKS.values())], FW)
    add(["zzfw_pytorch"], FW_PYTORCH)
    add(COMPARISON_WORDS, CMP)
    add(_GPU_WORDS, AMD_GPU_NEXT)
    add(_NOT_XLA_AFTER, NOT_XLA_NEXT)
    add(_NOT_XLA_BEFORE, NOT_XLA_PREV)
    add(_NOT_ROCM_AFTER, NOT_ROCM_NEXT)
    add(["graphics"], GRAPHICS)
    for word, bit in (
        (":", COLON),
        ("/", SLASH),
        ("-", HYPHEN),
        ("smi", SMI),
        ("composable", COMPOSABLE),
        ("kernel", KERNEL),
        ("pt", PT),
    ):
        add([word], bit)
    return bits


class CueTable:
    """NORM hash -> cue bits for a whole batch with a few vectorised operations.

    Plain words go through :func:`~tracker.tagger.lexicon.norm_of` so they are keyed by the NORM
    their tokens get (e.g. stemmed: "compared" -> "compar"). The table is a direct-mapped hash
    table: slot ``(hash >> shift) & mask`` with the smallest size and shift at which the cue
    words do not collide, so a lookup is a shift, a mask, two gathers and one comparison
    (a binary search over the batch cost several times more).
    """

    def __init__(self, strings):
        words: dict[str, int] = {}
        for word, b in cue_words().items():
            key = word if word.startswith("zz") else norm_of(word)
            words[key] = words.get(key, 0) | b
        hashes = {strings.add(word): b for word, b in words.items()}
        size, shift = 1 << max(8, (4 * len(hashes)).bit_length()), None
        while shift is None:
            shift = next(
                (
                    s
                    for s in range(64 - size.bit_length() + 2)
                    if len({(h >> s) & (size - 1) for h in hashes}) == len(hashes)
                ),
                None,
            )
            if shift is None:
                size <<= 1
        self.shift, self.mask = numpy.uint64(shift), numpy.uint64(size - 1)
        # Empty slots hold bits 0, so whatever hash meets them looks up as "no cue".
        self.keys = numpy.zeros(size, dtype="uint64")
        self.bits = numpy.zeros(size, dtype="int64")
        for h, b in hashes.items():
            slot = (h >> shift) & (size - 1)
            self.keys[slot], self.bits[slot] = h, b

    def lookup(self, norms: numpy.ndarray) -> numpy.ndarray:
        slot = ((norms >> self.shift) & self.mask).astype(numpy.intp)
        return numpy.where(self.keys[slot] == norms, self.bits[slot], 0)


def decide_batch(
    rows: numpy.ndarray,
    lens: numpy.ndarray,
    title_chars: numpy.ndarray,
    table: CueTable,
    with_hits=False,
):
    """Regime of each Doc from its ``to_array([NORM, IDX])`` rows (the decision in the docstring).

    ``rows``: the rows of all Docs of a batch, concatenated; ``lens``: each Doc's token count;
    ``title_chars``: each Doc's title length (:func:`title_lengths`).

    Returns ``(regimes, anchors, hits)``: one regime per Doc; per Doc the ``(NORM hash,
    character offset)`` of each framework name; per Doc the counted hits ``(regime, token,
    weight)`` if ``with_hits``.

    Only tokens with cue bits are looked at after the lookup (a few per text, against ~50
    tokens): every hit, multi-token pattern start and anchor is such a token, and the context
    its rule reads (next two tokens, previous token, comparison words before it) is gathered
    for those positions alone.
    """
    n_docs = len(lens)
    regimes = ["none"] * n_docs
    anchors: list[list[int]] = [[] for _ in range(n_docs)]
    hits: list[list] = [[] for _ in range(n_docs)]
    arr = rows
    if not len(arr):
        return regimes, anchors, hits
    bits_all = table.lookup(arr[:, 0])
    nz = numpy.flatnonzero(bits_all)
    if not len(nz):
        return regimes, anchors, hits
    ends = numpy.cumsum(lens)
    doc_of = numpy.searchsorted(ends, nz, side="right")
    end = ends[doc_of]
    start = end - lens[doc_of]
    tok = nz - start
    padded = numpy.concatenate((bits_all, [0, 0]))
    bits = bits_all[nz]
    nxt = numpy.where(nz + 1 < end, padded[nz + 1], 0)
    nxt2 = numpy.where(nz + 2 < end, padded[nz + 2], 0)
    prev = numpy.where(tok > 0, padded[nz - 1], 0)

    # "Radeon Graphics": integrated graphics of a CPU, at this token or (for an "AMD" before
    # it) at the next one.
    igpu = ((bits & (1 << _ROCM)) != 0) & ((nxt & GRAPHICS) != 0)
    igpu_next = ((nxt & (1 << _ROCM)) != 0) & ((nxt2 & GRAPHICS) != 0)
    weak_rocm, weak_xla = (bits & _W_ROCM) != 0, (bits & _W_XLA) != 0
    multi_rocm = (
        (weak_rocm & ((nxt & AMD_GPU_NEXT) != 0) & ~igpu_next)
        | (weak_rocm & ((nxt & HYPHEN) != 0) & ((nxt2 & SMI) != 0))
        | (((bits & COMPOSABLE) != 0) & ((nxt & KERNEL) != 0))
    )
    multi_xla = ((bits & (FW_PYTORCH | PT)) != 0) & ((nxt & SLASH) != 0) & ((nxt2 & _W_XLA) != 0)
    cancelled = (
        weak_xla
        & (
            ((nxt & NOT_XLA_NEXT) != 0)
            | (((nxt & COLON) != 0) & ((nxt2 & NOT_XLA_NEXT) != 0))
            | ((prev & NOT_XLA_PREV) != 0)
        )
    ) | (weak_rocm & (((nxt & NOT_ROCM_NEXT) != 0) | igpu_next))

    # A cue right after a comparison word is a comparison target (tie-breaker 2): no comparison
    # word among the COMPARISON_WINDOW tokens before it in the same Doc.
    cmp_pos = nz[(bits & CMP) != 0]
    if len(cmp_pos):
        lo = numpy.maximum(nz - COMPARISON_WINDOW, start)
        counted = numpy.searchsorted(cmp_pos, nz) == numpy.searchsorted(cmp_pos, lo)
    else:
        counted = numpy.ones(len(nz), dtype=bool)

    strong_reg = numpy.full(len(nz), -1)
    weak_reg = numpy.full(len(nz), -1)
    for i in range(len(REGIMES)):
        strong_reg[(bits & (1 << i)) != 0] = i
        weak_reg[((bits & (1 << (4 + i))) != 0) & ~cancelled] = i
    strong_reg[igpu] = -1
    # (position, regime, strong) of every counted hit;
    # a MULTI match adds a strong hit where it starts.
    # ``pos`` indexes ``nz``.
    pos = numpy.concatenate(
        [
            numpy.flatnonzero(strong_reg >= 0),
            numpy.flatnonzero(multi_rocm),
            numpy.flatnonzero(multi_xla),
            numpy.flatnonzero(weak_reg >= 0),
        ]
    )
    reg = numpy.concatenate(
        [
            strong_reg[strong_reg >= 0],
            numpy.full(int(multi_rocm.sum()), _ROCM),
            numpy.full(int(multi_xla.sum()), _XLA),
            weak_reg[weak_reg >= 0],
        ]
    )
    strong = numpy.arange(len(pos)) < len(pos) - int((weak_reg >= 0).sum())
    keep = counted[pos]
    pos, reg, strong = pos[keep], reg[keep], strong[keep]

    fw = numpy.flatnonzero(bits & FW)
    for d, (norm, idx) in zip(doc_of[fw].tolist(), arr[nz[fw]].tolist(), strict=True):
        anchors[d].append((norm, idx))
    if not len(pos):
        return regimes, anchors, hits
    hit_doc = doc_of[pos]
    idx = arr[nz[pos], 1].astype("int64")
    # Scores only for the Docs with a hit (row ``d`` of ``docs``).
    docs, row = numpy.unique(hit_doc, return_inverse=True)
    title = numpy.asarray(title_chars, dtype="int64")[hit_doc]
    weight = numpy.where(
        idx < title, TITLE_WEIGHT, numpy.where(idx < HEAD_CHARS, HEAD_WEIGHT, BODY_WEIGHT)
    )
    n_reg = len(REGIMES)
    strong_score = numpy.zeros((len(docs), n_reg))
    weak_score = numpy.zeros((len(docs), n_reg))
    numpy.add.at(strong_score, (row[strong], reg[strong]), weight[strong])
    numpy.add.at(weak_score, (row[~strong], reg[~strong]), weight[~strong])
    first = numpy.full((len(docs), n_reg), 1 << 30)
    numpy.minimum.at(first, (row, reg), tok[pos])
    score = numpy.where(strong_score.any(axis=1, keepdims=True), strong_score, weak_score)
    present = score > 0
    several = present.sum(axis=1) > 1
    present[several, REGIMES.index("cuda")] = False  # tie-breaker 1: a named non-CUDA platform wins
    # Highest weight, then earliest first cue; weights are small integers, positions < 2**30.
    key = numpy.where(present, score * float(1 << 31) - first, -numpy.inf)
    choice = numpy.full(
        n_docs, len(REGIMES)
    )  # index into _REGIME_NAMES: "none" unless a cue counts
    decided = present.any(axis=1)
    choice[docs[decided]] = key.argmax(axis=1)[decided]
    regimes = list(map(_REGIME_NAMES.__getitem__, choice.tolist()))
    if with_hits:
        for d, r, t, w, s in zip(
            hit_doc.tolist(),
            reg.tolist(),
            tok[pos].tolist(),
            weight.tolist(),
            strong.tolist(),
            strict=True,
        ):
            hits[d].append((REGIMES[r], t, w if s else -w))
    return regimes, anchors, hits


# Model-family mentions on (benchmarks/tagger.py --models-ab turns them off to measure their cost).
MODEL_MENTIONS = True


@Language.factory("tracker_rules")
def make_rules(nlp: Language, name: str):
    """Pipeline component factory (registered as ``tracker_rules``)."""
    return RegimeRules(nlp)


class RegimeRules(Stateless):
    """Sets ``doc._.regime`` and ``doc._.mentions``; see module docstring."""

    def __init__(self, nlp: Language):
        install_norms(nlp)  # the table is keyed by NORM, which lexicon.py defines
        self.table = CueTable(nlp.vocab.strings)
        self.strings = nlp.vocab.strings
        # NORM of the first token of every way a model name can start (same tokenizer as texts)
        self.heads = HeadTable(nlp.tokenizer(w)[0].norm for w in head_words())

    def annotate(
        self,
        docs: list[Doc] | None,
        texts: list[str] | None = None,
        rows: numpy.ndarray | None = None,
        lens: numpy.ndarray | None = None,
        contexts: list[str | None] | None = None,
    ) -> list[tuple[str, list]]:
        """``(regime, mentions)`` for each Doc of a batch, without writing to the Docs.

        ``texts``, ``rows`` and ``lens``: each Doc's text and the batch's :func:`doc_rows`, if the
        caller has them (then ``docs`` may be None: only these are read). ``contexts``: what
        each text sits under (:func:`tracker.tagger.features.item_context`), for model mentions.
        """
        if texts is None or rows is None or lens is None:
            if docs is None:
                raise ValueError("annotate: give the Docs, or their texts, rows and lens")
            if texts is None:
                texts = [doc.text for doc in docs]
            if rows is None or lens is None:
                rows, lens = doc_rows(docs)
        regimes, anchors, _ = decide_batch(rows, lens, title_lengths(texts), self.table)
        model_heads = self.heads.heads_by_doc(rows, lens) if MODEL_MENTIONS else {}
        out = []
        strings = self.strings
        for i, (text, regime, anchor) in enumerate(zip(texts, regimes, anchors, strict=True)):
            mentions = []
            if anchor:
                mentions = extract_mentions_at(text, [(strings[norm], idx) for norm, idx in anchor])
            if i in model_heads or (MODEL_MENTIONS and "For" in text):  # a name or a class
                models = extract_model_mentions(
                    text, model_heads.get(i, []), contexts[i] if contexts else None
                )
                if models:
                    mentions = mentions + models
            out.append((regime, mentions))
        return out

    def __call__(self, doc: Doc) -> Doc:
        doc.user_data["tracker_rules"] = self.annotate([doc])[0]
        return doc

    def pipe(self, stream, batch_size: int = BATCH_SIZE):
        """Batched ``nlp.pipe`` path: one numpy pass per batch."""
        for batch in minibatch(stream, size=batch_size):
            for doc, res in zip(batch, self.annotate(batch), strict=True):
                doc.user_data["tracker_rules"] = res
                yield doc


_DEBUG_TABLES: dict[int, CueTable] = {}


def _debug_hits(doc: Doc) -> list:
    """``doc._.regime_hits``: recomputed on access (not needed on the fast path)."""
    key = id(doc.vocab)
    if key not in _DEBUG_TABLES:
        _DEBUG_TABLES[key] = CueTable(doc.vocab.strings)
    rows, lens = doc_rows([doc])
    return decide_batch(rows, lens, title_lengths([doc.text]), _DEBUG_TABLES[key], with_hits=True)[
        2
    ][0]
