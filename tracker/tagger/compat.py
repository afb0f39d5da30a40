"""Rule: version bumps and framework-version compatibility statements are neutral.

docs/tagging.md lists "version bumps, pins, framework-version compatibility statements ('supports
PyTorch 2.4', 'built with JAX 0.8'), minimum-version changes, dependency changes" as neutral, and
tie-breaker 1 separates "now compatible with PyTorch 2.8" (neutral) from "initial support for
MI350" (new hardware: optimization). The classifier alone gets this wrong where the wording is the
same as a hardware or feature addition ("Added support for PyTorch 2.9 in torch-neuronx" under a
Neuron "Improvements" heading), so this rule decides it.

:func:`is_compat_statement` looks only at the *head* of a text: its first line (an issue title or
a release-note item), cut at the first sentence end, at most ``HEAD_CHARS`` characters, without
the ``zzsection_*`` / ``zzlead_*`` pseudo-tokens (docs/tagging.md, tie-breakers: the title or first
sentence decides).
The head is a compatibility statement when

  (a) a framework version ("PyTorch 2.9", "torch==2.9.1", "JAX 0.8.2 and 0.9.0.1", "vLLM v0.13.0")
      is the object of a support / compatibility / upgrade / pin / build verb ("adds support for",
      "compatible with", "upgraded to", "built with", "pin", "requires"), with at most
      ``MAX_GAP_WORDS`` words between them and no hardware or accelerator-feature name in that gap
      ("support for Trn2 with PyTorch 2.9" is about Trn2), or is the subject of one ("JAX 0.8.2 and
      0.9.0.1 are now supported", "PyTorch 2.9 support"); or
  (b) an upgrade / update / bump / pin verb is followed by a version number within
      ``MAX_GAP_WORDS`` words ("Upgraded the DLC to 2.7", "Bump ROCm to 6.4.1"), same gap rule;

and the head has no friction cue (a defect, failure, slowness or a support gap: "fails", "crash",
"not supported", "only", "fix", "slower", ...) and no optimization cue (kernels, data types,
speed, memory, throughput, "optimized", "improve": a statement that also delivers a speedup or
a kernel is not only a version note). Deprecations and removals are left to the classifier
(it already labels them neutral).

A version-change head that names a defect ("Upgrading to torch 2.9.1 breaks the wheel build",
"Upgrade to JAX 0.8 makes training 2x slower") is friction instead: the bag-of-words classifier
weighs the many upgrade words over the one defect word.

When the rule fires, its class gets probability ``max(p_class, RULE_SCORE)`` (:func:`apply`); the
other two classes keep their ratio. Entry point: :func:`version_note_class`.
"""

from __future__ import annotations

import re

from spacy.language import Language
from spacy.tokens import Doc

from tracker.tagger.lexicon import Stateless

HEAD_CHARS = 240
MAX_GAP_WORDS = 6
RULE_SCORE = 0.9

_FW = r"(?:py)?torch|jaxlib|jax|vllm|tensorflow|triton"
_V = r"v?\d+\.\d+(?:\.\d+)*(?:\.[x*])?(?:(?:rc|a|b|dev|post)\d*)?(?:\+[\w.]+)?"
# A framework version, optionally a list: "PyTorch 2.6, 2.5 and 2.4", "torch==2.9.1", "JAX v0.8".
_END = r"(?!\w|\.\w)"  # a version ends at a non-word character or a sentence's full stop
_FWV = (
    rf"\b(?:{_FW})(?:\s+versions?)?(?:\s+to)?\s*(?:[=<>~!@]=?\s*)?{_V}{_END}"
    rf"(?:\s*(?:,\s*and|,\s*or|,|and|or|&|/)\s*{_V}{_END})*"
)
# Verbs / phrases whose object is a version.
_FRAME = (
    r"support(?:s|ed|ing)?|compatib\w*|upgrad\w*|updat\w*|bump\w*|pin(?:s|ned|ning)?|built|builds?"
    r"|tested|validated|certified|requires?|required|requirements?|minimum|based|moved?|migrat\w*"
    r"|switch\w*|uses?|ships?|works?|adds?|added|adding|introduc\w*|enabl\w*|publish\w*"
)
_BUMP = r"upgrad\w*|updat\w*|bump\w*|pin(?:s|ned|ning)?|moved?|switch\w*|requires?|minimum"
_GAP = r"[^.;!?\n]{0,80}?"
_OBJECT = re.compile(rf"\b(?:{_FRAME})\b(?P<gap>{_GAP})(?:{_FWV})", re.I)
_SUBJECT = re.compile(
    rf"(?:{_FWV})\s*(?:\([^)]{{0,40}}\)\s*)?"
    r"(?:(?:is|are|has been|have been|was|were)\s+)?(?:now\s+)?"
    rf"(?:officially\s+|fully\s+)?(?:supported|compatible|support|validated|tested|certified|available)\b",
    re.I,
)
_BUMP_VERSION = re.compile(rf"\b(?:{_BUMP})\b(?P<gap>{_GAP})(?<![\w.]){_V}{_END}", re.I)

# Cues that make the head about something else than a version note.
_FRICTION = re.compile(
    r"\b(?:fix\w*|bug\w*|crash\w*|errors?|exception|fail\w*|broken|break(?:s|ing)?|regress\w*|hang\w*|issues?"
    r"|known|workaround|slow\w*|missing|unsupported|incompatib\w*|not|cannot|can't|won't|doesn't|don't|isn't"
    r"|aren't|only|oom|leak\w*|wrong|incorrect|segfault\w*|timeouts?|timed out|flaky|disabled?"
    r"|degrad\w*"
    r"|worse|drop(?:s|ped)?|why|unable|problem\w*|warning\w*|limitation\w*|no|without)\b",
    re.I,
)
_OPTIMIZATION = re.compile(
    r"\b(?:kernels?|fp\d+|bf16|int[48]|mxfp\w*|nvfp4|quantiz\w*|speed\w*|faster|perf|performance|optimi\w*"
    r"|throughput|latency|memory|collectives?|attention|fus(?:ed|ion)|tun(?:ed|ing)|efficien\w*|improv\w*"
    r"|accelerat(?:e|ed|es|ion)|reduc\w*|new models?)\b",
    re.I,
)
# Hardware and accelerator features: in the gap they are the real object ("support for Trn2 ...").
_HARDWARE = re.compile(
    r"\b(?:trn\d\w*|inf\d\w*|trainium\d*|inferentia\d*|mi\d{3}\w*|gfx\d+\w*|v\d+(?:e|p|x|litepod)\w*"
    r"|ironwood|trillium|[abh]\d{2,3}s?|gb\d{3}|gh\d{3}|instinct|radeon|[rc]dna\d?|blackwell|hopper"
    r"|tpu\s*v\d\w*|sm_?\d{2,3}\w*|fp\d+|bf16|int[48])\b",
    re.I,
)
# A defect named in a version-change head makes it friction ("Upgrading to torch 2.9 breaks ...").
_DEFECT = re.compile(
    r"\b(?:break(?:s|ing)?|broke|broken|fail\w*|crash\w*|regress\w*|slower|hang(?:s|ing)?|segfault\w*|nans?"
    r"|errors?|oom|deadlock\w*|corrupt\w*)\b",
    re.I,
)
_SENTENCE_END = re.compile(r"[.!?;]\s")
_DOTTED = re.compile(r"\d\.\d")
_PSEUDO = re.compile(r"(?:zz\w+ )+")


def head(text: str) -> str:
    """The part of ``text`` the rule reads: first line, first sentence, ``HEAD_CHARS`` at most."""
    if text.startswith("zz"):
        text = _PSEUDO.sub("", text, count=1)
    nl = text.find("\n")
    first = text[:HEAD_CHARS] if nl < 0 else text[: min(nl, HEAD_CHARS)]
    m = _SENTENCE_END.search(first)
    return first[: m.start()] if m else first


def _gap_ok(gap: str) -> bool:
    return len(gap.split()) <= MAX_GAP_WORDS and not _HARDWARE.search(gap)


def _version_change(h: str) -> bool:
    if _SUBJECT.search(h):
        return True
    for rx in (_OBJECT, _BUMP_VERSION):
        for m in rx.finditer(h):
            if _gap_ok(m.group("gap")):
                return True
    return False


def version_note_class(text: str) -> str | None:
    """``"neutral"`` when the head of ``text`` is a version bump or framework-version
    compatibility statement (module docstring), ``"friction"`` when such a head also names a
    defect ("Upgrading to torch 2.9.1 breaks the wheel build", "Upgrade to JAX 0.8 makes training
    2x slower"), else None (the classifier decides)."""
    nl = text.find("\n")
    # Every shape needs a dotted version number in the head: a fast exit for most texts. The head
    # starts after the pseudo-tokens (< 64 characters), so this window covers it. (A plain
    # find of the dot first: most titles have none, and it is cheaper than the regex.)
    window = HEAD_CHARS + 64 if nl < 0 else min(nl, HEAD_CHARS + 64)
    if text.find(".", 0, window) < 0 or not _DOTTED.search(text, 0, window):
        return None
    h = head(text)
    if not _DOTTED.search(h):
        return None
    if _DEFECT.search(h):
        return "friction" if _version_change(h) else None
    if _FRICTION.search(h) or _OPTIMIZATION.search(h):
        return None
    return "neutral" if _version_change(h) else None


def is_compat_statement(text: str) -> bool:
    """Whether the head of ``text`` is a version bump or framework-version compatibility statement
    (see the module docstring)."""
    return version_note_class(text) == "neutral"


def apply(probs: list[float], winner: int) -> list[float]:
    """Class probabilities after the rule fired: class ``winner`` (its index in ``probs``) gets
    ``max(p_winner, RULE_SCORE)``, the others share the rest in their old ratio."""
    total = sum(probs) or 1.0
    p = [x / total for x in probs]
    keep = max(p[winner], RULE_SCORE)
    rest = 1.0 - p[winner]
    return [
        keep if i == winner else (x / rest * (1.0 - keep) if rest > 0 else 0.0)
        for i, x in enumerate(p)
    ]


@Language.factory("tracker_compat")
def make_compat(nlp: Language, name: str):
    """Pipeline component (after ``textcat``): applies the rule to ``doc.cats`` on the
    ``nlp(...)`` / ``nlp.pipe`` path, as :meth:`Tagger.tag_many` does on its fast path."""
    return CompatRule()


class CompatRule(Stateless):
    """See the module docstring. No weights; serialisation is a no-op."""

    def __call__(self, doc: Doc) -> Doc:
        cls = version_note_class(doc.text) if doc.cats else None
        if cls is not None:
            labels = list(doc.cats)
            new = apply([doc.cats[k] for k in labels], labels.index(cls))
            doc.cats = dict(zip(labels, new, strict=True))
        return doc
