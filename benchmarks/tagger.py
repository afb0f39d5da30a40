"""Tagger throughput: tag 20,000 synthetic texts of about 50 words.

Prints texts/s for ``Tagger.tag_many`` and for a blank-English tokenizer pass over the same
texts in the same run (the floor any spaCy pipeline pays), their ratio, and an estimate for
re-tagging 100,000 stored events. Targets (issue 5): >= 3,000 texts/s on a 2-core machine,
ratio >= 0.4, 100,000 events < 60 s.

Run: ``python benchmarks/tagger.py [--n 20000] [--seed 7]``
"""

from __future__ import annotations

import argparse
import random
import time

import spacy

from tracker.tagger import load_tagger

FILLER = (
    "the a an of to in on for with when after before during while model kernel crash error fails slow faster "
    "support added fixed regression memory upgrade install build test flaky timeout hang throughput latency "
    "attention gemm fp8 bf16 batch size tensor parallel docs example readme bump release compile graph cache "
    "scheduler request server worker process output input shape dtype layer weights checkpoint config option "
    "flag default value user run runs running training inference serving engine backend frontend api call "
    "returns raises expected actual behaviour reproduce steps environment version python package wheel image "
    "container node cluster job step log trace stack warning message this that it is was be are we our you "
    "can cannot should would could please thanks issue bug feature improve performance reduce increase"
).split()
PLATFORMS = "ROCm MI300X gfx942 TPU v5e libtpu Neuron Trn2 Inferentia2 CUDA H100 cuBLAS NCCL".split()
VERSIONS = ("PyTorch 2.9", "torch==2.9.1", "JAX 0.8.2", "vLLM v0.13.0", "jaxlib 0.7.1")


def synthetic_texts(n: int, seed: int) -> list[str]:
    """``n`` issue-like texts: an 8-word title and a ~42-word body.

    The word mix resembles the real field texts (about 3-6 rule matches per 50 words): one or two
    platform names, a framework version in half of them, the rest ordinary issue vocabulary.
    """
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        title = [rng.choice(FILLER) for _ in range(7)] + [rng.choice(PLATFORMS)]
        body = [rng.choice(FILLER) for _ in range(40)]
        body.insert(rng.randrange(len(body)), rng.choice(PLATFORMS))
        if rng.random() < 0.5:
            body.insert(rng.randrange(len(body)), rng.choice(VERSIONS))
        out.append(f"{' '.join(title)}\n\n{' '.join(body)}.")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    texts = synthetic_texts(args.n, args.seed)

    t0 = time.perf_counter()
    tagger = load_tagger()
    load_s = time.perf_counter() - t0

    blank = spacy.blank("en")
    t0 = time.perf_counter()
    for _ in blank.pipe(texts, batch_size=512):
        pass
    tok_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    results = tagger.tag_many({"text": t} for t in texts)
    tag_s = time.perf_counter() - t0
    assert len(results) == len(texts)

    tok_rate, tag_rate = len(texts) / tok_s, len(texts) / tag_s
    print(f"model load: {load_s:.2f} s")
    print(f"tokenizer (spacy.blank('en')): {tok_rate:,.0f} texts/s")
    print(f"tagger (tag_many):             {tag_rate:,.0f} texts/s")
    print(f"ratio tagger/tokenizer:        {tag_rate / tok_rate:.2f}")
    print(f"estimated re-tag of 100,000 events: {100_000 / tag_rate:.1f} s (tagging only, excluding store I/O)")


if __name__ == "__main__":
    main()
