"""`tracker tagger train` is deterministic: same data and seed, same model, same predictions.

Trains twice into tmp_path through the CLI (about 3-4 s per run with ../shared present; with
only the repository's own examples it is faster) and compares predictions on a sample.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.tagger import tagger as tagger_group
from tracker.tagger import load_tagger

SAMPLE = [
    "Segfault in hipMemcpy on MI300X with PyTorch 2.9",
    "Speed up the paged attention kernel on TPU v6e",
    "Docs: fix a typo in the Neuron install guide",
    "NCCL timeout on 8xH100 after upgrading to torch==2.9.1",
    "Add support for JAX 0.8.2 and 0.9.0.1",
    "How do I pick the number of NeuronCores?",
    "Flaky test_conv2d on gfx942 runners",
    "Initial support for Trn3",
]


@pytest.fixture(scope="module")
def model_a(tmp_path_factory):
    return _train(tmp_path_factory.mktemp("tagger"), "a", 1234)


# The real labelled texts when present (read in place); else a few of our own, so the test runs.
TRAINING = Path(
    os.environ.get("TRACKER_TRAINING", Path(__file__).resolve().parents[3] / "shared" / "training")
)
OWN_FEW = [
    {"text": "Segfault when loading a checkpoint on MI250", "label": "friction", "regime": "rocm"},
    {"text": "Faster fused attention for TPU v5p", "label": "optimization", "regime": "xla"},
    {"text": "Fix a broken link in the install page", "label": "neutral", "regime": "none"},
    {"text": "Neuron compiler hangs on a large graph", "label": "friction", "regime": "neuron"},
]


def _training_dir(tmp_path) -> Path:
    if TRAINING.is_dir():
        return TRAINING
    folder = tmp_path / "labelled"
    folder.mkdir(exist_ok=True)
    lines = [json.dumps(dict(row, source=f"own#{i}")) for i, row in enumerate(OWN_FEW)]
    (folder / "few.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def _train(tmp_path, name, seed):
    out = tmp_path / name
    args = ["train", str(_training_dir(tmp_path)), "--out", str(out), "--seed", str(seed)]
    result = CliRunner().invoke(tagger_group, args)
    assert result.exit_code == 0, result.output
    assert "model written to" in result.output
    return out


def _predictions(model_dir):
    res = load_tagger(model_dir).tag_many(SAMPLE)
    return [(r.tag, r.score, r.regime, r.mentions) for r in res]


def test_train_twice_same_seed_same_predictions(model_a, tmp_path):
    a = model_a
    b = _train(tmp_path, "b", 1234)
    assert _predictions(a) == _predictions(b)
    # The weights themselves are identical, not only the rounded scores.
    assert (a / "textcat" / "model").read_bytes() == (b / "textcat" / "model").read_bytes()
    meta = json.loads((a / "meta.json").read_text(encoding="utf-8"))
    assert meta["tracker"]["seed"] == 1234


def test_other_seed_changes_the_weights(model_a, tmp_path):
    # Guards the test above against a seed that is silently ignored.
    a = model_a
    c = _train(tmp_path, "c", 99)
    assert (a / "textcat" / "model").read_bytes() != (c / "textcat" / "model").read_bytes()


def test_train_needs_the_training_folder_and_says_what_it_expects(tmp_path):
    runner = CliRunner()
    missing = runner.invoke(tagger_group, ["train"], env={"TRACKER_TRAINING": None})
    assert missing.exit_code == 2
    assert "TRAINING_DIR" in missing.output and "TRACKER_TRAINING" in missing.output
    empty = runner.invoke(tagger_group, ["train", str(tmp_path)])
    assert empty.exit_code == 2 and "expected *.jsonl files" in empty.output
    (tmp_path / "bad.jsonl").write_text('{"text": "no label here"}\n', encoding="utf-8")
    bad = runner.invoke(tagger_group, ["train", str(tmp_path)])
    assert bad.exit_code == 1 and "bad.jsonl:1" in bad.output and '"label"' in bad.output
    helptext = runner.invoke(tagger_group, ["train", "--help"]).output
    for field in ("text", "label", "regime", "source", "section"):
        assert f"  {field} " in helptext, field
