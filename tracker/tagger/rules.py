"""Rule components: regime cues and the regime decision, per TAGGING.md "Regime".

The ``tracker_rules`` pipeline component runs a spaCy ``PhraseMatcher`` over token NORMs (set
per lexeme by :mod:`tracker.tagger.lexicon`, so one pattern per regime covers every cue word)
plus a few multi-word patterns, and stores on the Doc:

  ``doc._.regime``       cuda | rocm | xla | neuron | none
  ``doc._.regime_hits``  list of (regime, token index, weight) that decided it (for debugging)
  ``doc._.mentions``     framework-version mentions (see :mod:`tracker.tagger.mentions`)

Regime decision (TAGGING.md tie-breakers):
  1. a non-CUDA platform named anywhere (outside a comparison) wins over CUDA-looking names
     (``TestCuda...`` disabled on rocm, "hipify cuBLAS calls");
  2. a platform right after "than" / "vs" / "compared to" is a comparison target and does not count;
  3. among several non-CUDA platforms, the one with the most weight wins; cues in the title
     (first line) weigh triple, in the first 300 characters double; ties go to the earliest;
  4. traps stay none: "TP", ``tp_size``, ``XlaRuntimeError``, "JAX" alone never become cues, and
     ambiguous words ("XLA" alone, "AMD", "Pallas") count only when no unambiguous cue is present
     ("XLA:GPU" and "TF XLA" are not TPU at all).
"""

from __future__ import annotations

from spacy.attrs import IDX
from spacy.language import Language
from spacy.matcher import PhraseMatcher
from spacy.tokens import Doc

from tracker.tagger.lexicon import FRAMEWORKS, REGIMES, install_norms
from tracker.tagger.mentions import extract_mentions

COMPARISON_WORDS = ("than", "vs", "vs.", "versus", "compared", "comparison", "relative", "against")
TITLE_WEIGHT, HEAD_WEIGHT, BODY_WEIGHT = 3.0, 2.0, 1.0
HEAD_CHARS = 300
COMPARISON_WINDOW = 4

# Results live in doc.user_data["tracker_rules"] = (regime, hits, mentions): reading and writing
# doc._ costs an object per access, which showed up in profiles. The extensions are views on it.
for _pos, _name in enumerate(("regime", "regime_hits", "mentions")):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, getter=lambda doc, _p=_pos: doc.user_data.get("tracker_rules", ("none", [], []))[_p])

_GPU_WORDS = ("GPU", "GPUs", "gpu", "gpus", "hardware", "accelerator", "accelerators", "Instinct", "Radeon")
_NOT_XLA_AFTER = ("GPU", "gpu", "GPUs", "CPU", "cpu", "CPUs", "CUDA", "cuda", "ROCm", "rocm")
_NOT_ROCM_AFTER = ("CPU", "cpu", "CPUs", "EPYC", "Epyc", "Ryzen", "Zen", "Zen4", "Zen5")


def _phrases() -> dict[str, list[list[str]]]:
    """Match label -> phrases (token lists; each token is compared by its NORM)."""
    p: dict[str, list[list[str]]] = {}
    for regime in REGIMES:
        p[f"STRONG_{regime}"] = [[f"zzplat_{regime}"]]
        p[f"WEAK_{regime}"] = [[f"zzweak_{regime}"]]
    p["FW"] = [[f"zzfw_{f}"] for f in sorted(set(FRAMEWORKS.values()))]
    p["MULTI_rocm"] = ([["AMD", w] for w in _GPU_WORDS] + [["composable", "kernel"], ["Composable", "Kernel"]]
                       + [["amd", "-", "smi"]])
    p["MULTI_xla"] = [["PyTorch", "/", "XLA"], ["pytorch", "/", "xla"], ["PT", "/", "XLA"]]
    # Contexts that cancel a weak cue: "XLA:GPU", "XLA GPU", "TF XLA", "JAX XLA", "AMD CPU/EPYC".
    p["NOT_xla"] = ([["XLA", w] for w in _NOT_XLA_AFTER] + [["XLA", ":", w] for w in _NOT_XLA_AFTER]
                    + [[w, "XLA"] for w in ("TF", "tf", "TensorFlow", "tensorflow", "OpenXLA", "JAX", "jax")])
    p["NOT_rocm"] = [["AMD", w] for w in _NOT_ROCM_AFTER]
    p["CMP_any"] = [[w] for w in COMPARISON_WORDS] + [["compared", "to"], ["compared", "with"]]
    return p


def build_matcher(nlp: Language) -> PhraseMatcher:
    """PhraseMatcher over NORM: single-token cues are lexeme norms, so one pattern per regime."""
    m = PhraseMatcher(nlp.vocab, attr="NORM")
    for label, phrases in _phrases().items():
        m.add(label, [Doc(nlp.vocab, words=words) for words in phrases])
    return m


# Match kinds, as small ints so the per-match loop does no string work.
STRONG, WEAK, MULTI, NOT, FW, CMP = range(6)
_KINDS = {"STRONG": STRONG, "WEAK": WEAK, "MULTI": MULTI, "NOT": NOT, "FW": FW, "CMP": CMP}


def decide_regime(doc: Doc, matches: list[tuple[int, str, int, int]], text: str) -> tuple[str, list]:
    """Apply the tie-breakers above to matches ``(kind, regime, start, end)`` sorted by start."""
    nl = text.find("\n")
    title_chars = len(text) if nl < 0 else nl
    cancelled = {(regime, i) for kind, regime, start, end in matches if kind == NOT for i in range(start, end)}
    cmp_at = [start for kind, _, start, _ in matches if kind == CMP]
    idxs = None
    strong: dict[str, float] = {}
    weak: dict[str, float] = {}
    first: dict[str, int] = {}
    hits = []
    for kind, regime, start, end in matches:
        if kind >= NOT:
            continue
        if kind == WEAK and (regime, start) in cancelled:
            continue
        if cmp_at and any(start - COMPARISON_WINDOW <= i < start for i in cmp_at):
            continue  # comparison target (tie-breaker 2)
        if idxs is None:
            idxs = doc.to_array(IDX)  # one array read instead of a Token object per match
        idx = idxs[start]
        w = TITLE_WEIGHT if idx < title_chars else HEAD_WEIGHT if idx < HEAD_CHARS else BODY_WEIGHT
        bucket = weak if kind == WEAK else strong
        bucket[regime] = bucket.get(regime, 0.0) + w
        if regime not in first:
            first[regime] = start
        hits.append((regime, start, w if kind != WEAK else -w))
    scores = strong or weak
    if not scores:
        return "none", hits
    if len(scores) > 1 and "cuda" in scores:
        del scores["cuda"]  # tie-breaker 1: a named non-CUDA platform wins
    best = max(scores.items(), key=lambda kv: (kv[1], -first[kv[0]]))
    return best[0], hits


@Language.factory("tracker_rules")
def make_rules(nlp: Language, name: str):
    """Pipeline component factory (registered as ``tracker_rules``)."""
    return RegimeRules(nlp)


class RegimeRules:
    """Sets ``doc._.regime``, ``doc._.regime_hits`` and ``doc._.mentions``; see module docstring."""

    def __init__(self, nlp: Language):
        install_norms(nlp)  # before the patterns are built: they are compared by NORM
        self.matcher = build_matcher(nlp)
        strings = nlp.vocab.strings
        self.kinds = {}
        for label in _phrases():
            kind, _, regime = label.partition("_")
            self.kinds[strings[label]] = (_KINDS[kind], regime)

    def __call__(self, doc: Doc) -> Doc:
        """Annotate ``doc``. The raw text may be passed in ``doc.user_data["text"]`` (saves
        rebuilding ``doc.text`` token by token)."""
        found = self.matcher(doc)
        if not found:
            doc.user_data["tracker_rules"] = ("none", [], [])
            return doc
        text = doc.user_data.get("text")
        if text is None:
            text = doc.text
        kinds = self.kinds
        labelled = [kinds[mid] + (s, e) for mid, s, e in found]
        regime, hits = decide_regime(doc, labelled, text)
        anchors = [s for kind, _, s, _ in labelled if kind == FW]
        doc.user_data["tracker_rules"] = (regime, hits, extract_mentions(doc, anchors, text) if anchors else [])
        return doc

    # The component has no weights: serialisation is a no-op (the matcher is rebuilt on load).
    def to_disk(self, path, exclude=()):
        pass

    def from_disk(self, path, exclude=()):
        return self

    def to_bytes(self, exclude=()):
        return b""

    def from_bytes(self, data, exclude=()):
        return self
