"""Tagger throughput: tag 20,000 synthetic texts of about 50 words.

Prints texts/s for ``Tagger.tag_many`` and for a blank-English tokenizer pass over the same
texts in the same run (the floor any spaCy pipeline pays), their ratio, and an estimate for
re-tagging 100,000 stored events. Targets (issue 5): >= 3,000 texts/s on a 2-core machine,
ratio >= 0.4, 100,000 events < 60 s.

Both passes run ``--rounds`` times, alternating, and the median ratio is reported with the
cold first round and the range (a single pass on a shared VM varies by up to a third).

``--models-ab``: instead, alternate rounds of the tagger with and without model-family mentions
(:mod:`tracker.mentions.model_mentions`) over texts of which none, 5 % and 25 % name a model, and
report the median cost of model mentions (target: under 10 % of texts/s). ``--cpu-clock`` times
those rounds in process CPU time instead of wall time: on a shared machine other processes'
bursts then stop landing on one side of a pair.

``--quality``: the issue-59 figures of this tree's tagger against a baseline revision
(``--baseline``, default the tagger before issue 59), both measured in the same run, each in a
child process of this script that imports its own tree's code and shipped model:
  - friction-vs-not macro-F1 on the bug and feature issues of the public generic set
    (``tests/tagger/data/generic_public_issues.jsonl``: real GitHub issues of projects outside
    the accelerator field, labelled by docs/tagging.md; the same file for both sides), friction
    recall on its bugs, and how many of its feature requests are called friction;
  - class and regime macro-F1 on the dev split of the labelled field texts (``--training``,
    default ``$TRACKER_TRAINING``);
  - tagging speed on the synthetic texts above: the children run alternately (baseline,
    this tree, ``--pairs`` times), each timing ``--rounds`` passes; the medians are compared.

Run: ``python benchmarks/tagger.py [--n 20000] [--seed 7] [--rounds 5] [--models-ab]``,
``python benchmarks/tagger.py --quality [--baseline REV] [--pairs 2] [--rounds 2] [--cpu-clock]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from io import BytesIO
from pathlib import Path

import spacy

from tracker.tagger import load_tagger

FILLER = (
    "the a an of to in on for with when after before during while model kernel crash error "
    "fails slow faster support added fixed regression memory upgrade install build test flaky "
    "timeout hang throughput latency attention gemm fp8 bf16 batch size tensor parallel docs "
    "example readme bump release compile graph cache scheduler request server worker process "
    "output input shape dtype layer weights checkpoint config option flag default value user "
    "run runs running training inference serving engine backend frontend api call returns "
    "raises expected actual behaviour reproduce steps environment version python package wheel "
    "image container node cluster job step log trace stack warning message this that it is was "
    "be are we our you can cannot should would could please thanks issue bug feature improve "
    "performance reduce increase"
).split()
PLATFORMS = (
    "ROCm MI300X gfx942 TPU v5e libtpu Neuron Trn2 Inferentia2 CUDA H100 cuBLAS NCCL".split()
)
MODELS = ("Qwen3-235B-A22B", "Llama 4 Scout", "GPT-OSS 120B", "DeepSeek-V3.1", "Gemma 3 (Beta)")
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


def models_ab(texts: list[str], rounds: int, seed: int, cpu_clock: bool = False) -> None:
    """Tagger texts/s with and without model mentions, alternating, in the same run."""
    import tracker.tagger.rules as rules

    clock = time.process_time if cpu_clock else time.perf_counter

    rng = random.Random(seed)
    tagger = load_tagger()
    tagger.tag_many({"text": t} for t in texts[:2000])  # warm caches
    for share in (0.0, 0.05, 0.25):
        mixed = [f"{t} {rng.choice(MODELS)}" if rng.random() < share else t for t in texts]
        with_m, without = [], []
        for _ in range(rounds):
            for on, rates in ((False, without), (True, with_m)):
                rules.MODEL_MENTIONS = on
                t0 = clock()
                tagger.tag_many({"text": t} for t in mixed)
                rates.append(len(mixed) / (clock() - t0))
        rules.MODEL_MENTIONS = True
        costs = [1 - a / b for a, b in zip(with_m, without, strict=True)]
        print(
            f"{share:.0%} of texts name a model: without model mentions "
            f"{statistics.median(without):,.0f} texts/s, with {statistics.median(with_m):,.0f}; "
            f"cost {statistics.median(costs):.1%} (median of {rounds} paired rounds, "
            f"range {min(costs):.1%} to {max(costs):.1%}; {'CPU' if cpu_clock else 'wall'} time)"
        )


ROOT = Path(__file__).resolve().parents[1]
GENERIC = ROOT / "tests" / "tagger" / "data" / "generic_public_issues.jsonl"
# The tagger as it was before issue 59 (the branch point of that work).
BASELINE_REV = "bdb722a"


def child_scores(
    generic: Path, training: Path | None, n: int, seed: int, rounds: int, cpu_clock: bool = False
) -> dict:
    """The figures of the ``tracker`` package this process imports (see ``--quality``)."""
    import tracker
    from tracker.tagger.dataset import load_field, split
    from tracker.tagger.evaluate import evaluate_rows, score

    tagger = load_tagger()
    out: dict = {"tracker": str(Path(tracker.__file__).resolve().parent)}
    rows = [json.loads(line) for line in generic.read_text(encoding="utf-8").splitlines() if line]
    rows = [r for r in rows if r.get("kind") in ("bug", "feature")]
    tags = [t.tag for t in tagger.tag_many(rows)]
    gold = ["friction" if r["label"] == "friction" else "not" for r in rows]
    pred = ["friction" if t == "friction" else "not" for t in tags]
    bugs = [p for r, p in zip(rows, pred, strict=True) if r["kind"] == "bug"]
    feats = [p for r, p in zip(rows, pred, strict=True) if r["kind"] == "feature"]
    out["generic"] = {
        "n_bug": len(bugs),
        "n_feature": len(feats),
        "macro_f1": score(gold, pred, ("friction", "not")).macro_f1,
        "bug_recall": bugs.count("friction") / len(bugs) if bugs else None,
        "feature_friction": feats.count("friction"),
    }
    if training is not None and training.is_dir():
        _, dev = split(load_field(training))
        cls, reg, _ = evaluate_rows(
            tagger, [dict(e.item(), label=e.label, regime=e.regime) for e in dev]
        )
        out["field"] = {
            "n": len(dev),
            "class_macro_f1": cls.macro_f1,
            "regime_macro_f1": reg.macro_f1 if reg else None,
        }
    texts = synthetic_texts(n, seed)
    tagger.tag_many({"text": t} for t in texts[:2000])  # warm caches
    clock = time.process_time if cpu_clock else time.perf_counter
    rates = []
    for _ in range(rounds):
        t0 = clock()
        tagger.tag_many({"text": t} for t in texts)
        rates.append(len(texts) / (clock() - t0))
    out["rates"] = rates
    return out


def _baseline_tree(rev: str, into: Path) -> Path:
    """The ``tracker`` package (code and shipped model) of revision `rev`, unpacked into `into`."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "tracker"],
        check=True,
        capture_output=True,
    ).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return into


def _run_child(tree: Path, args) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree))
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-scores",
        "--n",
        str(args.n),
        "--seed",
        str(args.seed),
        "--rounds",
        str(args.rounds),
        "--generic",
        str(args.generic),
    ]
    if args.training:
        cmd += ["--training", str(args.training)]
    if args.cpu_clock:
        cmd.append("--cpu-clock")
    # cwd outside any tree: the child imports ``tracker`` from PYTHONPATH alone.
    done = subprocess.run(
        cmd, env=env, cwd=tempfile.gettempdir(), check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def quality(args) -> None:
    """Baseline against this tree (see ``--quality`` in the module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        base_tree = _baseline_tree(args.baseline, Path(tmp))
        runs: dict[str, list[dict]] = {"baseline": [], "this tree": []}
        for _ in range(args.pairs):
            runs["baseline"].append(_run_child(base_tree, args))
            runs["this tree"].append(_run_child(ROOT, args))
    for side, res in runs.items():
        if not res[0]["tracker"].startswith(str(base_tree if side == "baseline" else ROOT)):
            raise SystemExit(f"{side}: imported the wrong tracker ({res[0]['tracker']})")
    base, cur = runs["baseline"][0], runs["this tree"][0]
    rate = {k: statistics.median(r for x in v for r in x["rates"]) for k, v in runs.items()}

    def row(name, key, sub, fmt="{:.3f}"):
        a, b = base.get(key, {}).get(sub), cur.get(key, {}).get(sub)
        if a is None or b is None:
            return f"{name:<46}{'no data':>10}{'no data':>10}"
        return f"{name:<46}{fmt.format(a):>10}{fmt.format(b):>10}{b - a:>+10.3f}"

    g = cur["generic"]
    print(f"baseline {args.baseline} vs this tree; generic set {args.generic.name}: ", end="")
    print(f"{g['n_bug']} bugs, {g['n_feature']} feature requests")
    print(f"{'':<46}{'baseline':>10}{'now':>10}{'change':>10}")
    print(row("generic bug+feature: friction-vs-not macro-F1", "generic", "macro_f1"))
    print(row("generic bugs: friction recall", "generic", "bug_recall"))
    print(row("generic features called friction (count)", "generic", "feature_friction", "{:d}"))
    print(row("field dev: class macro-F1", "field", "class_macro_f1"))
    print(row("field dev: regime macro-F1", "field", "regime_macro_f1"))
    print(
        f"{'tagging speed (texts/s, median)':<46}{rate['baseline']:>10,.0f}"
        f"{rate['this tree']:>10,.0f}{rate['this tree'] / rate['baseline'] - 1:>+10.1%}"
        f"  ({'CPU' if args.cpu_clock else 'wall'} time)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument(
        "--rounds",
        type=int,
        default=5,
        help="alternating tokenizer/tagger rounds; the ratio reported is their median",
    )
    ap.add_argument("--models-ab", action="store_true", help="measure model mentions' cost")
    ap.add_argument(
        "--cpu-clock",
        action="store_true",
        help="--models-ab, --quality: time rounds in process CPU time",
    )
    ap.add_argument(
        "--quality", action="store_true", help="issue-59 scores and speed against --baseline"
    )
    ap.add_argument("--baseline", default=BASELINE_REV, help="--quality: baseline git revision")
    ap.add_argument("--pairs", type=int, default=2, help="--quality: baseline/this-tree runs")
    ap.add_argument("--generic", type=Path, default=GENERIC, help=argparse.SUPPRESS)
    ap.add_argument(
        "--training",
        type=Path,
        default=os.environ.get("TRACKER_TRAINING") or None,
        help="--quality: folder of labelled field texts (default $TRACKER_TRAINING)",
    )
    ap.add_argument("--child-scores", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_scores:
        print(
            json.dumps(
                child_scores(
                    args.generic, args.training, args.n, args.seed, args.rounds, args.cpu_clock
                )
            )
        )
        return
    if args.quality:
        quality(args)
        return
    texts = synthetic_texts(args.n, args.seed)
    if args.models_ab:
        models_ab(texts, args.rounds, args.seed, args.cpu_clock)
        return

    t0 = time.perf_counter()
    tagger = load_tagger()
    load_s = time.perf_counter() - t0
    blank = spacy.blank("en")

    # Rounds alternate the two passes so both see the same machine state; on a shared 2-core VM a
    # single pass of either can be 30 % off. Round 1 is the cold one (empty tokenizer caches).
    tok_rates, tag_rates = [], []
    for r in range(args.rounds):
        t0 = time.perf_counter()
        for _ in blank.pipe(texts, batch_size=512):
            pass
        tok_rates.append(len(texts) / (time.perf_counter() - t0))

        t0 = time.perf_counter()
        results = tagger.tag_many({"text": t} for t in texts)
        tag_rates.append(len(texts) / (time.perf_counter() - t0))
        assert len(results) == len(texts)
        del results
        print(
            f"round {r + 1}: tokenizer {tok_rates[-1]:,.0f} texts/s, "
            f"tagger {tag_rates[-1]:,.0f} texts/s, "
            f"ratio {tag_rates[-1] / tok_rates[-1]:.2f}"
        )

    ratios = [a / b for a, b in zip(tag_rates, tok_rates, strict=True)]
    tag_rate = statistics.median(tag_rates)
    print(f"model load: {load_s:.2f} s")
    print(
        f"tokenizer (spacy.blank('en')): {statistics.median(tok_rates):,.0f} texts/s "
        f"(median of {args.rounds})"
    )
    print(f"tagger (tag_many):             {tag_rate:,.0f} texts/s (median of {args.rounds})")
    print(
        f"ratio tagger/tokenizer:        {statistics.median(ratios):.2f} "
        f"(median of {args.rounds} rounds; "
        f"cold first round {ratios[0]:.2f}, range {min(ratios):.2f}-{max(ratios):.2f})"
    )
    print(
        f"estimated re-tag of 100,000 events: {100_000 / tag_rate:.1f} s "
        "(tagging only, excluding store I/O)"
    )


if __name__ == "__main__":
    main()
