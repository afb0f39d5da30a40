"""Rule components: regime cues and the regime decision, per TAGGING.md "Regime".

The ``tracker_rules`` pipeline component runs a spaCy ``Matcher`` over token NORMs (set per
lexeme by :mod:`tracker.tagger.lexicon`) plus a few multi-word patterns, and stores on the Doc:

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

from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc

from tracker.tagger.lexicon import FRAMEWORKS, REGIMES
from tracker.tagger.mentions import extract_mentions

COMPARISON_WORDS = {"than", "vs", "vs.", "versus", "compared", "comparison", "relative", "against"}
TITLE_WEIGHT, HEAD_WEIGHT, BODY_WEIGHT = 3.0, 2.0, 1.0
HEAD_CHARS = 300

for _name, _default in (("regime", "none"), ("regime_hits", None), ("mentions", None)):
    if not Doc.has_extension(_name):
        Doc.set_extension(_name, default=_default)


def _plat(regime: str) -> list[dict]:
    return [{"NORM": f"zzplat_{regime}"}]


def build_matcher(vocab) -> Matcher:
    """Matcher with one rule set per cue kind; the match label says what was found."""
    m = Matcher(vocab)
    for regime in REGIMES:
        m.add(f"STRONG_{regime}", [_plat(regime)])
        m.add(f"WEAK_{regime}", [[{"NORM": f"zzweak_{regime}"}]])
    gpu = {"LOWER": {"IN": ["gpu", "gpus", "gpu(s", "hardware", "accelerator", "accelerators", "instinct", "radeon"]}}
    m.add("MULTI_rocm", [[{"NORM": "zzweak_rocm"}, gpu],
                         [{"NORM": "zzweak_rocm"}, {"LOWER": {"IN": ["/", "-"]}}, {"LOWER": {"IN": ["rocm", "hip"]}}],
                         [{"LOWER": "composable"}, {"LOWER": "kernel"}],
                         [{"LOWER": "amd"}, {"LOWER": "-"}, {"LOWER": "smi"}]])
    m.add("MULTI_xla", [[{"NORM": "zzfw_pytorch"}, {"ORTH": "/"}, {"NORM": "zzweak_xla"}],
                        [{"LOWER": "cloud"}, {"NORM": "zzplat_xla"}],
                        [{"LOWER": "torch"}, {"ORTH": "_"}, {"LOWER": "xla"}]])
    m.add("FW", [[{"NORM": {"IN": [f"zzfw_{f}" for f in set(FRAMEWORKS.values())]}}]])
    m.add("MULTI_neuron", [[{"LOWER": "aws"}, {"LOWER": {"IN": ["trainium", "inferentia", "neuron"]}}]])
    # Contexts that cancel a weak cue: "XLA:GPU", "XLA GPU", "TF XLA", "AMD CPU/EPYC".
    m.add("NOT_xla", [[{"NORM": "zzweak_xla"}, {"ORTH": ":", "OP": "?"},
                       {"LOWER": {"IN": ["gpu", "cpu", "gpus", "cpus", "cuda", "rocm"]}}],
                      [{"LOWER": {"IN": ["tf", "tensorflow", "openxla", "jax"]}}, {"NORM": "zzweak_xla"}]])
    m.add("NOT_rocm", [[{"NORM": "zzweak_rocm"}, {"LOWER": {"IN": ["cpu", "cpus", "epyc", "ryzen", "zen", "zen4", "zen5"]}}]])
    return m


def decide_regime(doc: Doc, matches: list[tuple[str, int, int]]) -> tuple[str, list]:
    """Apply the tie-breakers above to labelled matches ``(label, start, end)``."""
    nl = doc.text.find("\n")
    title_chars = len(doc.text) if nl < 0 else nl
    cancelled: dict[str, set[int]] = {}
    for label, start, end in matches:
        if label.startswith("NOT_"):
            cancelled.setdefault(label[4:], set()).update(range(start, end))
    strong: dict[str, float] = {}
    weak: dict[str, float] = {}
    first: dict[str, int] = {}
    hits = []
    for label, start, end in matches:
        kind, _, regime = label.partition("_")
        if kind in ("NOT", "FW"):
            continue
        if kind == "WEAK" and start in cancelled.get(regime, ()):
            continue
        window = doc[max(0, start - 4):start]
        if any(t.lower_ in COMPARISON_WORDS for t in window):
            continue  # comparison target (tie-breaker 2)
        if doc[start].idx < title_chars:
            w = TITLE_WEIGHT
        elif doc[start].idx < HEAD_CHARS:
            w = HEAD_WEIGHT
        else:
            w = BODY_WEIGHT
        bucket = weak if kind == "WEAK" else strong
        bucket[regime] = bucket.get(regime, 0.0) + w
        first[regime] = min(first.get(regime, start), start)
        hits.append((regime, start, w if kind != "WEAK" else -w))
    scores = strong or weak
    if not scores:
        return "none", hits
    non_cuda = {r: s for r, s in scores.items() if r != "cuda"}
    if non_cuda:
        scores = non_cuda  # tie-breaker 1: a named non-CUDA platform wins
    best = max(scores.items(), key=lambda kv: (kv[1], -first[kv[0]]))
    return best[0], hits


@Language.factory("tracker_rules")
def make_rules(nlp: Language, name: str):
    """Pipeline component factory (registered as ``tracker_rules``)."""
    return RegimeRules(nlp)


class RegimeRules:
    """Sets ``doc._.regime``, ``doc._.regime_hits`` and ``doc._.mentions``; see module docstring."""

    def __init__(self, nlp: Language):
        self.matcher = build_matcher(nlp.vocab)
        self.strings = nlp.vocab.strings

    def __call__(self, doc: Doc) -> Doc:
        labelled = [(self.strings[mid], s, e) for mid, s, e in self.matcher(doc)]
        doc._.regime, doc._.regime_hits = decide_regime(doc, labelled)
        anchors = [s for label, s, _ in labelled if label == "FW"]
        doc._.mentions = extract_mentions(doc, anchors) if anchors else []
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
