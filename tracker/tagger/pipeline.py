"""The spaCy pipeline and the public tagger object.

Pipeline (``spacy.blank("en")``, no pretrained weights):
  tokenizer -> ``tracker_rules`` (regime cues, regime decision, version mentions: rules over
               lexeme NORMs, see ``rules.py``; not spaCy's Matcher, which took 718 ms per 20,000
               texts for two of the patterns, nor the PhraseMatcher, 32 ms, against 6 ms for
               the cue table: the speed target is a ratio to the bare tokenizer)
            -> ``textcat`` (exclusive friction | optimization | neutral, bag of uni+bigrams over
               token NORMs + the title's lead word + the title's words again, counted
               ``TITLE_WEIGHT`` times, architecture ``tracker.TextCatBOWNorm.v4`` below); it
               reads each text's head only: title, prose and one pseudo-token per kind of
               scaffolding (``layout.py``), not the template headings, checklists,
               environment dumps and logs, which the rules still read
            -> ``tracker_compat`` (version bumps and framework-version compatibility statements
               are neutral, or friction when they name a defect; ``compat.py``).

The classifier reads NORM rather than ORTH so it sees lower-cased words with platforms, versions,
numbers, URLs and test names folded into a handful of shared tokens (see ``lexicon.py``): the
same defect words count whichever platform they happen on.

Combination (``Tagger.tag_many``):
  class   = argmax of classifier probabilities x label prior (GitHub labels, ``features.py``);
            the release-note section is already a feature the classifier was trained on;
            then the ``compat.py`` rule (version notes neutral, or friction when they name a
            defect), unless the labels lean to friction;
  regime  = the rule decision; if the text names no platform, a platform label ("rocm",
            "module: tpu") is used;
  nothing to go on (empty, binary, no letters) -> neutral, regime none, score 0.0.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import partial
from itertools import islice
from pathlib import Path
from typing import Any, NamedTuple, cast

import numpy
import spacy
from spacy.attrs import NORM
from spacy.language import Language
from spacy.ml.models.textcat import resize_and_set_ref, resize_linear_weighted
from spacy.pipeline import TextCategorizer
from spacy.util import registry
from thinc.api import Logistic, Model, SparseLinear_v2, chain, resizable, softmax_activation

from tracker.gcpause import gc_paused
from tracker.tagger import rules  # noqa: F401  (registers the "tracker_rules" factory)
from tracker.tagger.compat import apply as apply_compat  # also registers "tracker_compat"
from tracker.tagger.compat import version_note_class
from tracker.tagger.features import CLASSES, prepare
from tracker.tagger.lexicon import install_norms
from tracker.tagger.ngrams import NormColumns, extract_ngrams_batched
from tracker.tagger.rows import text_rows

MODEL_DIR = Path(__file__).resolve().parent / "model"
TAGGER_VERSION = "1.4.0"
BATCH_SIZE = 512
_CLASS_INDEX = {c: i for i, c in enumerate(CLASSES)}
_NEG_VALUE = -5000.0


def _bow_norm(
    exclusive_classes: bool,
    ngram_size: int,
    length: int,
    nO: int | None,
    lead: bool,
    title: bool = False,
    title_weight: float = 1.0,
) -> Model:
    length = 2 ** (length - 1).bit_length()
    sparse = SparseLinear_v2(nO=nO, length=length)
    fill = {"b": _NEG_VALUE, "W": 0}
    resizable_layer: Model = resizable(
        sparse, resize_layer=partial(resize_linear_weighted, fill_defaults=fill)
    )
    model: Model = chain(
        extract_ngrams_batched(
            ngram_size, attr=NORM, lead=lead, title=title, title_weight=title_weight
        ),
        resizable_layer,
    )
    out = softmax_activation() if exclusive_classes else Logistic()
    model = chain(model, out)
    if nO is not None:
        model.set_dim("nO", nO)
    model.set_ref("output_layer", sparse)
    model.attrs["multi_label"] = not exclusive_classes
    model.attrs["resize_output"] = partial(resize_and_set_ref, resizable_layer=resizable_layer)
    return model


@registry.architectures("tracker.TextCatBOWNorm.v1")
def build_bow_norm(
    exclusive_classes: bool, ngram_size: int, length: int = 2**17, nO: int | None = None
) -> Model:
    """spaCy's TextCatBOW.v3 with n-grams over NORM instead of ORTH (same sparse linear layer),
    features extracted per batch (``ngrams.py``). Kept so models saved by tagger <= 1.1 load."""
    return _bow_norm(exclusive_classes, ngram_size, length, nO, lead=False)


@registry.architectures("tracker.TextCatBOWNorm.v2")
def build_bow_norm_lead(
    exclusive_classes: bool, ngram_size: int, length: int = 2**17, nO: int | None = None
) -> Model:
    """v1 plus the title's lead word as one more feature (``ngrams.py``); models of tagger 1.2."""
    return _bow_norm(exclusive_classes, ngram_size, length, nO, lead=True)


@registry.architectures("tracker.TextCatBOWNorm.v3")
def build_bow_norm_title(
    exclusive_classes: bool, ngram_size: int, length: int = 2**17, nO: int | None = None
) -> Model:
    """v2 plus the title's words (up to the first line break) as features of their own."""
    return _bow_norm(exclusive_classes, ngram_size, length, nO, lead=True, title=True)


@registry.architectures("tracker.TextCatBOWNorm.v4")
def build_bow_norm_title_weight(
    exclusive_classes: bool,
    ngram_size: int,
    length: int = 2**17,
    nO: int | None = None,
    title_weight: float = 1.0,
) -> Model:
    """v3 with the title's own features counted ``title_weight`` times (issue 59: the title
    weighs more than the body, as a person reads an issue)."""
    return _bow_norm(
        exclusive_classes, ngram_size, length, nO, lead=True, title=True, title_weight=title_weight
    )


# How many times the title's own features count (v4). Trained with 1, 2 and 3 on the same data
# (issue 59): field dev class macro-F1 0.885 / 0.893 / 0.894, own generic dev 0.790 / 0.812 /
# 0.821, public generic bug+feature friction-vs-not macro-F1 0.921 / 0.932 / 0.921. 3 is also
# the title weight of the regime rules (``rules.TITLE_WEIGHT``).
TITLE_WEIGHT = 3.0

TEXTCAT_CONFIG = {
    "threshold": 0.0,
    "model": {
        "@architectures": "tracker.TextCatBOWNorm.v4",
        "exclusive_classes": True,
        "ngram_size": 2,
        "length": 2**17,
        "title_weight": TITLE_WEIGHT,
    },
}


# Extra infixes: split "GPUs)(H100", "[Hopper][Warp", "jax[cuda12_pip]", "dynamo+XLA", "XLA:GPU",
# "torch==2.9.1" into their parts so each platform / framework name is its own token.
EXTRA_INFIXES = [r"[\[\](){}+=|<>;:]"]


def drop_special_cases(nlp: Language) -> None:
    """Remove the tokenizer's special cases (English contractions, abbreviations, emoticons, and
    whitespace).

    spaCy caches how each word splits, but once a special case has been met it caches no later
    word of the same string (the flag is per Doc, not per word): in real issue texts, where
    "don't", "e.g.", ":)" or a line break come early, most words were re-split by the prefix,
    suffix and infix regexes every time. Without special cases every word is cached: real texts
    tokenize about 1.4x faster, and a batch can be tokenized as one string (``rows.text_rows``).
    What changes is small and the classifier is trained on it: "don't" stays one token (its
    NORM "don't"), "e.g." splits as "e.g" + "." and ":)" as ":" + ")".
    """
    tokenizer: Any = nlp.tokenizer  # spaCy types it as any callable; this one is its Tokenizer
    if tokenizer.rules:
        tokenizer.rules = {}


def build_nlp() -> Language:
    """A fresh, untrained pipeline (used by training)."""
    nlp = spacy.blank("en")
    infixes = list(nlp.Defaults.infixes or ()) + EXTRA_INFIXES
    tokenizer: Any = nlp.tokenizer  # spaCy types it as any callable; this one is its Tokenizer
    tokenizer.infix_finditer = spacy.util.compile_infix_regex(infixes).finditer
    drop_special_cases(nlp)
    install_norms(nlp)
    nlp.add_pipe("tracker_rules")
    textcat = cast(TextCategorizer, nlp.add_pipe("textcat", config=TEXTCAT_CONFIG))
    for label in CLASSES:
        textcat.add_label(label)
    nlp.add_pipe("tracker_compat")
    return nlp


class TagResult(NamedTuple):
    """One tagged text. ``score`` is the probability of ``tag`` (0.0 when nothing to go on).

    An immutable record; a NamedTuple because one is built per text and it builds in less
    than half the time of a frozen dataclass."""

    tag: str
    score: float
    regime: str
    mentions: list = []  # always passed by the tagger; the default is never mutated
    version: str = TAGGER_VERSION


class Tagger:
    """Wraps a loaded pipeline; thread-compatible for reading, not for concurrent training."""

    def __init__(self, nlp: Language, version: str = TAGGER_VERSION):
        self.nlp = nlp
        self.version = version
        self.rules = cast(rules.RegimeRules, nlp.get_pipe("tracker_rules"))
        self.textcat = cast(TextCategorizer, nlp.get_pipe("textcat"))
        # Column of each class in the classifier's output.
        self._columns = [list(self.textcat.labels).index(c) for c in CLASSES]

    def tag_many(
        self, items: Iterable[dict | str], batch_size: int = BATCH_SIZE
    ) -> list[TagResult]:
        """Tag items (dicts with ``text`` or ``title``/``body``, optional ``labels``, ``section``,
        ``heading``, ``topic``, ``intro``).

        Never raises on odd content; see ``features.py`` for truncation and cleaning bounds.
        Runs the same components as ``nlp.pipe`` (tokenizer, ``tracker_rules``, ``textcat``),
        batch by batch, but reads the rule results and class scores directly instead of writing
        them onto each Doc and reading them back.
        """
        out: list[TagResult] = []
        it = iter(items)
        with gc_paused():
            while True:
                chunk = [
                    prepare(item if isinstance(item, dict) else {"text": item})
                    for item in islice(it, batch_size)
                ]
                if not chunk:
                    return out
                out.extend(self._tag_chunk(chunk))

    def _tag_chunk(self, chunk: list) -> list[TagResult]:
        texts = [p.text for p in chunk]
        rows, lens = text_rows(self.nlp.tokenizer, texts)
        contexts = [p.context for p in chunk]
        ruled = self.rules.annotate(None, texts, rows, lens, contexts if any(contexts) else None)
        # The classifier's first layer takes the NORM column instead of re-reading each Doc,
        # cut to each text's head (title and prose: ``features.prepare``).
        scores = self.textcat.model.predict(head_columns(rows, lens, chunk))
        probs = numpy.asarray(scores, dtype="float64")[:, self._columns]
        return self._results(chunk, ruled, probs)

    def tag(self, item: dict | str) -> TagResult:
        """Tag one item (convenience over :meth:`tag_many`)."""
        return self.tag_many([item])[0]

    def _results(self, chunk, ruled, probs) -> list[TagResult]:
        if any(p.prior is not None for p in chunk):
            prior = numpy.asarray([p.prior or (1.0, 1.0, 1.0) for p in chunk])
            probs = probs * prior
        for i, p in enumerate(chunk):
            cls = version_note_class(p.text[: p.head]) if p.text else None
            # Labels that lean to friction (a "bug" issue titled "Upgrade to PyTorch 2.9") win.
            if cls is not None and (
                cls == "friction" or p.prior is None or p.prior[0] < max(p.prior[1:])
            ):
                probs[i] = apply_compat(probs[i].tolist(), _CLASS_INDEX[cls])
        total = probs.sum(axis=1)
        total[total == 0] = 1.0
        best = probs.argmax(axis=1)
        score = (probs[numpy.arange(len(chunk)), best] / total).round(4)
        out = []
        version = self.version
        for p, (regime, mentions), b, s in zip(
            chunk, ruled, best.tolist(), score.tolist(), strict=True
        ):
            if regime == "none" and p.label_regime:
                regime = p.label_regime
            if p.empty:
                out.append(TagResult("neutral", 0.0, regime, mentions, version))
            else:
                out.append(TagResult(CLASSES[b], s, regime, mentions, version))
        return out


def head_columns(rows: numpy.ndarray, lens: numpy.ndarray, chunk: list) -> NormColumns:
    """The NORM column of each text's tokens that start in its head (``Prepared.head``): what
    the classifier reads. Texts with no scaffolding after the prose keep every token."""
    heads = numpy.fromiter((p.head for p in chunk), dtype="int64", count=len(chunk))
    chars = numpy.fromiter((len(p.text) for p in chunk), dtype="int64", count=len(chunk))
    if not len(rows) or (heads >= chars).all():
        return NormColumns(rows[:, 0], lens)
    doc = numpy.repeat(numpy.arange(len(chunk)), lens)
    keep = rows[:, 1].astype("int64") < heads[doc]
    return NormColumns(rows[keep, 0], numpy.bincount(doc[keep], minlength=len(chunk)))


_CACHE: dict[str, Tagger] = {}


def load_tagger(path: str | Path | None = None) -> Tagger:
    """Load the shipped model (or one at ``path``); cached per path within a process."""
    model_dir = Path(path) if path else MODEL_DIR
    key = str(model_dir)
    if key not in _CACHE:
        if not (model_dir / "config.cfg").exists():
            from tracker.errors import TrackerError

            raise TrackerError(
                f"no trained tagger model at {model_dir}; run `tracker tagger train`"
            )
        nlp = spacy.load(model_dir)
        drop_special_cases(nlp)  # also for models saved before this was part of build_nlp
        install_norms(nlp)
        if "tracker_compat" not in nlp.pipe_names:  # models saved before the rule existed
            nlp.add_pipe("tracker_compat")
        version = nlp.meta.get("version") or TAGGER_VERSION
        _CACHE[key] = Tagger(nlp, version)
    return _CACHE[key]
