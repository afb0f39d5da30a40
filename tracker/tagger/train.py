"""Deterministic training of the shipped model: ``tracker tagger train``.

Data and the dev split are described in :mod:`tracker.tagger.dataset`. Training uses a fixed seed
(``SEED``), a fixed number of epochs and sorted, hash-ordered inputs, so the same data gives the
same model. Only the ``textcat`` weights are learned; the rules have none. The model directory
(``tracker/tagger/model``) gets the spaCy pipeline plus ``meta.json`` with the tagger version,
data counts and dev scores.
"""

from __future__ import annotations

import json
import random
import shutil
import zlib
from pathlib import Path
from typing import Any

import spacy
from spacy.training import Example as SpacyExample
from spacy.util import minibatch

from tracker.tagger.dataset import Example, load_all
from tracker.tagger.evaluate import evaluate_rows
from tracker.tagger.features import CLASSES, prepare
from tracker.tagger.pipeline import MODEL_DIR, TAGGER_VERSION, Tagger, build_nlp

SEED = 1234
# 6, 8 and 12 score alike in cross-validation (field 0.857-0.862); 6 is best on generic issues
EPOCHS = 6
BATCH = 16
LEARN_RATE = 0.002


def _spacy_examples(nlp, data: list[Example]) -> list[SpacyExample]:
    out = []
    for ex in data:
        p = prepare(ex.item())
        doc = nlp.make_doc(p.text[: p.head])  # the classifier reads the head only
        cats = {c: float(c == ex.label) for c in CLASSES}
        out.append(SpacyExample.from_dict(doc, {"cats": cats}))
    return out


def train(train_data: list[Example], epochs: int = EPOCHS, seed: int = SEED, log=print):
    """Train a fresh pipeline on ``train_data``; returns the ``Language`` object."""
    spacy.util.fix_random_seed(seed)
    nlp = build_nlp()
    data = sorted(train_data, key=lambda e: (zlib.crc32(e.source.encode()), e.text))
    examples = _spacy_examples(nlp, data)
    optimizer = nlp.initialize(lambda: examples)
    optimizer.learn_rate = LEARN_RATE
    rng = random.Random(seed)
    for epoch in range(epochs):
        rng.shuffle(examples)
        losses: dict = {}
        for batch in minibatch(examples, size=BATCH):
            nlp.update(batch, sgd=optimizer, losses=losses, exclude=["tracker_rules"])
        log(f"epoch {epoch + 1:>2}/{epochs}  loss {losses.get('textcat', 0.0):.3f}")
    return nlp


def _strip_strings(model_dir: Path) -> None:
    """Keep the training texts out of the shipped model.

    spaCy saves every string it has seen (here: each token of the training texts) in
    ``vocab/strings.json``. The classifier works on hashes and the rules re-add their strings on
    load, so only our own pseudo-tokens and labels are kept.
    """
    path = model_dir / "vocab" / "strings.json"
    keep = sorted(
        s
        for s in json.loads(path.read_text(encoding="utf-8"))
        if s.startswith("zz") or s in CLASSES
    )
    path.write_text(json.dumps(keep), encoding="utf-8")


def dev_rows(dev: list[Example], kind: str | None = None) -> list[dict]:
    return [
        dict(e.item(), label=e.label, regime=e.regime)
        for e in dev
        if kind is None or e.kind == kind
    ]


def run(
    out_dir: Path = MODEL_DIR,
    seed: int = SEED,
    log=print,
    training: Path | None = None,
    corpus: Path | None = None,
) -> dict:
    """Load data (`training`: folder of labelled JSONL; `corpus`: release notes for weak
    labels; each defaults to its environment variable), train, score on dev, write the model;
    returns the dev summary."""
    train_data, dev = load_all(training, corpus)
    if not train_data:
        raise SystemExit("no training data found (give the training folder)")
    counts = {k: sum(e.kind == k for e in train_data) for k in ("field", "own", "weak", "generic")}
    log(f"train: {len(train_data)} examples {counts}; dev: {len(dev)}")
    nlp = train(train_data, seed=seed, log=log)
    tagger = Tagger(nlp)
    summary: dict[str, Any] = {"train_counts": counts, "seed": seed, "dev": {}}
    for kind in ("field", "generic", "own"):
        rows = dev_rows(dev, kind)
        if rows:
            cls, reg, _ = evaluate_rows(tagger, rows)
            summary["dev"][kind] = {
                "n": len(rows),
                "class_macro_f1": round(cls.macro_f1, 4),
                "regime_macro_f1": round(reg.macro_f1, 4) if reg else None,
            }
            log(
                f"dev {kind}: n={len(rows)} class macro-F1 {cls.macro_f1:.3f}"
                + (f"  regime macro-F1 {reg.macro_f1:.3f}" if reg and kind == "field" else "")
            )
    nlp.meta.update(
        {
            "name": "tracker_tagger",
            "version": TAGGER_VERSION,
            "description": "tracker tagger: friction/optimization/neutral, regime, mentions",
            "tracker": summary,
        }
    )
    tmp = Path(str(out_dir) + ".tmp")
    if tmp.exists():
        shutil.rmtree(tmp)
    nlp.to_disk(tmp)
    _strip_strings(tmp)
    if out_dir.exists():
        shutil.rmtree(out_dir)
    tmp.rename(out_dir)
    log(f"model written to {out_dir}")
    return summary
