"""Token lexicon: which single tokens are regime cues, and the normalised form the classifier sees.

Everything here works on one token string at a time and is cached per *lexeme* by spaCy
(``install_norms`` hooks ``vocab.lex_attr_getters[NORM]``), so a cue regex runs once per distinct
word, not once per occurrence. That is what keeps the pipeline near tokenizer speed.

NORM values the rest of the tagger relies on:
  - ``zzplat_<regime>``: a token that names a platform (docs/tagging.md "Regime" lists), e.g.
    ``MI300X`` -> ``zzplat_rocm``. The regime rules match on these; the classifier sees them as one
    feature per platform, so "crash on MI300X" and "crash on Trn2" share the "crash" evidence.
  - ``zzweak_<regime>``: an ambiguous cue that only counts when nothing stronger is named
    (``XLA`` alone, ``AMD``, ``Pallas``, ``SPMD``).
  - ``zzver`` (version-like token), ``zznum``, ``zzurl``, ``zzhash``, ``zztest`` (test_* names),
    ``zzpath`` (file paths), ``zzapi`` (dotted API names: ``jax.numpy.fill_diagonal``,
    ``torch.compile``): shapes whose exact spelling carries no class signal.
  - otherwise the lower-cased token, crudely stemmed (:func:`stem`: "fails", "failed", "failing"
    -> "fail"), so the classifier pools the evidence of a word's forms (+0.026 dev macro-F1).
"""

from __future__ import annotations

import re

from spacy.attrs import NORM
from spacy.language import Language

from tracker.names import FRAMEWORKS as FRAMEWORKS
from tracker.tagger.features import ALL_REGIMES, REGIMES  # noqa: F401  (re-exported)

# Strong single-token cues, matched case-insensitively against the whole token (fullmatch).
# Order matters only for readability; a token matches at most one regime because the lists
# are disjoint. Sources: docs/tagging.md "Regime" plus plainly vendor-specific names seen in the
# field.
_STRONG = {
    "rocm": r"""
        rocm\S* | hip | hip[a-z_]\S* | \w+_hip\w* | rccl\w* | miopen\S* | ck_\w+ | amdsmi\w*
        | amd_\w+ | navi\d+ | migraphx | mivisionx | aiter
        | roc(blas|fft|sparse|solver|rand|prim|thrust|prof\w*|tracer|minfo|wmma|decode|jpeg|shmem
              |mlir|al|m)\w*
        | amdgpu\w* | amd_?smi | amd-smi | gfx\d{2,4}[a-z0-9]*
        | (\d+x)?mi(50|60|100|\d{3}[a-z]*)(_\w+)? | mi\d{3}[a-z]*-?\w*
        | instinct | radeon | cdna\d? | rdna\d? | therock | composable_kernel | rocm_\w+ | \w+_rocm
        | \w+-rocm | hipify\w* | hipblaslt | aotriton | rocshmem | rocr | rocprofv\d
    """,
    "cuda": r"""
        cuda\S* | \S+\.cuda | \w+_cuda | \S*cudnn\S* | \S*cublas\S* | libcu\w+ | cufft | curand
        | cusolver | cusparse\w*
        | cupti | nccl\w* | nvcc | nvshmem | nvlink | nvjitlink | nvrtc | nvidia\w* | cutlass\w*
        | ptxas | ptx
        | sm_?\d{2,3}[a-z]? | (\d+x)?(h100|h200|h800|a100|b200|gb200|gh200|b300)s? | hopper | ampere
        | blackwell | h100s? | h200s? | h800s? | h20 | a100s? | a10g | a800
        | b200s? | b100 | gb200 | gb300 | gh200 | b300 | l40s? | v100s? | t4 | rtx\d* | cu1\d{2}
        | cudagraphs? | nvfp4 | nvml | dgx\w* | jetson | rubin
    """,
    "xla": r"""
        tpus? | tpu\S* | \S+tpu | \S+-tpu | libtpu\S* | trillium | ironwood | v5e(-\d+)?
        | v5p(-\d+)? | v6e(-\d+)?
        | v5litepod\S* | v4-\d+ | v7x | torch_xla\S* | torchxla\w* | torch-xla\S* | ptxla
        | pytorch/xla | xla_\w*tpu\w*
    """,
    "neuron": r"""
        neuron\S* | \S+neuronx?\S* | neuroncores? | neffs? | nki | nxdi? | trn[123]n?\S*
        | inf[12]\S* | trainium\d*
        | inferentia\d* | libneuronxla | nki\.\S+
    """,
}
_WEAK = {
    # "XLA" alone is PyTorch/XLA in PyTorch and transformers texts,
    # but generic compiler talk elsewhere.
    "xla": r"xla | spmd",
    "rocm": r"amd",
}
# Case-sensitive cues: upper-case "CK" is Composable Kernel, "ck" is anything.
_CASED = {"CK": "rocm", "HIP": "rocm", "NKI": "neuron"}
_STRONG_RE = {r: re.compile(rf"(?:{p})", re.I | re.X) for r, p in _STRONG.items()}
_WEAK_RE = {r: re.compile(rf"(?:{p})", re.I | re.X) for r, p in _WEAK.items()}

# Tokens that look like cues but are not (docs/tagging.md tie-breaker 4 and common false friends).
_NOT_CUES = re.compile(
    r"""(?:tp|tp_?size\S* | xlaruntimeerror | xla_?\w*error\w* | jax | thor\w+ | hipster | inf
        | inf[12]?\d{2,}
        | ptx\w+error | nki_?\w*doc | amdahl\w*)""",
    re.I | re.X,
)
# Framework names that start a version mention ("PyTorch 2.9", "torch==2.9.1", "vLLM v0.13.0").
_FRAMEWORK = re.compile(
    r"(pytorch|torch|jaxlib|jax|vllm|tensorflow|triton)([=<>~!@-]+v?\d\S*)?", re.I
)
_VERSION = re.compile(r"v?\d+(\.\d+)+([a-z]+\d*)?(\+\w+)?|v\d+", re.I)
_NUM = re.compile(r"[-+]?\d[\d,._]*%?x?")
_URL = re.compile(r"(https?://|www\.)\S+", re.I)
_HASH = re.compile(r"[0-9a-f]{7,40}")
_API = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+(?:\(\))?")
_PATH = re.compile(r"\S*/\S*\.\w{1,5}|\S+\.(py|cc|cpp|h|cu|yaml|yml|json|md|rst|txt|sh)")


def token_regime(text: str) -> tuple[str, bool] | None:
    """Return ``(regime, strong)`` when the token string names a platform, else None."""
    if _NOT_CUES.fullmatch(text):
        return None
    if text in _CASED:
        return _CASED[text], True
    for regime, rx in _STRONG_RE.items():
        if rx.fullmatch(text):
            return regime, True
    for regime, rx in _WEAK_RE.items():
        if rx.fullmatch(text):
            return regime, False
    return None


_SUFFIXES = ("ing", "ed", "es", "s", "e")


def stem(word: str) -> str:
    """Strip one inflection suffix from an alphabetic word of 4+ letters, keeping 3+ letters
    ("crashes" -> "crash", "updated"/"update"/"updating" -> "updat"). Crude on purpose: it only
    has to map a word's forms to one feature, not produce real stems."""
    if len(word) < 4 or not word.isalpha():
        return word
    for suf in _SUFFIXES:
        if (
            word.endswith(suf)
            and len(word) - len(suf) >= 3
            and not (suf == "s" and word.endswith("ss"))
        ):
            return word[: -len(suf)]
    return word


def norm_of(text: str) -> str:
    """The classifier's view of one token (see module docstring)."""
    low = text.lower()
    if low.startswith("zz"):
        return low  # our own pseudo-tokens pass through
    fw = _FRAMEWORK.fullmatch(text)
    if fw:
        return f"zzfw_{FRAMEWORKS[fw.group(1).lower()]}"
    hit = token_regime(text)
    if hit is not None:
        return f"zzplat_{hit[0]}" if hit[1] else f"zzweak_{hit[0]}"
    if _URL.match(text):
        return "zzurl"
    if _VERSION.fullmatch(text):
        return "zzver"
    if _NUM.fullmatch(text):
        return "zznum"
    if len(text) >= 7 and _HASH.fullmatch(low) and any(c.isdigit() for c in low):
        return "zzhash"
    if low.startswith("test_") or low.startswith("test/"):
        return "zztest"
    if len(text) > 3 and _PATH.fullmatch(text):
        return "zzpath"
    if len(text) > 4 and "." in text and _API.fullmatch(text):
        return "zzapi"
    return stem(low)


def install_norms(nlp: Language) -> None:
    """Make every lexeme's NORM come from :func:`norm_of`.

    spaCy computes lexeme attributes once, when a word is first seen, through
    ``vocab.lex_attr_getters``. Lexemes already in the vocab are refreshed too, so a loaded
    model and a freshly built one agree. Must run before any text goes through ``nlp``.
    """
    nlp.vocab.lex_attr_getters[NORM] = norm_of  # type: ignore[attr-defined]  # not in the stub
    for lex in nlp.vocab:
        lex.norm_ = norm_of(lex.orth_)


class Stateless:
    """Base of our pipeline components that have no weights: spaCy's serialisation calls are
    no-ops (their tables are rebuilt from code when the pipeline loads)."""

    def to_disk(self, path, exclude=()):
        pass

    def from_disk(self, path, exclude=()):
        return self

    def to_bytes(self, exclude=()):
        return b""

    def from_bytes(self, data, exclude=()):
        return self
