"""Model-family mentions scored on labelled lines of the real vendor documents (read in place
from the corpus folder; skipped when it is absent).

Two label sets (tests/tagger/data/): the development set the extractor's rules were written
against (183 labels on 154 lines), and a held-out set labelled before the extractor was run on
it (39 labels on 36 lines). The floors sit just below the scores reached, so a regression
fails: development set precision and recall 0.989 overall; held-out 0.872 / 0.872.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.tagger.model_eval import evaluate, format_table, read_labels

DATA = Path(__file__).parent / "data"

# status -> (precision floor, recall floor); None: too few labels or predictions to hold a floor
DEV_FLOORS = {
    "supported": (0.97, 0.96),
    "planned": (1.0, 1.0),
    "other": (0.97, 0.99),
    None: (0.98, 0.98),
}
HELDOUT_FLOORS = {
    "supported": (0.78, 0.9),
    "other": (0.93, 0.82),
    None: (0.85, 0.85),
}


def _check(result, floors):
    report = format_table(result)
    for status, (p_floor, r_floor) in floors.items():
        name = status or "all"
        precision, recall = result.precision(status), result.recall(status)
        assert precision is not None and precision >= p_floor, f"{name} precision\n{report}"
        assert recall is not None and recall >= r_floor, f"{name} recall\n{report}"


def test_development_set(corpus):
    labels = read_labels(DATA / "model_support_labels.tsv")
    result = evaluate(labels, corpus)
    assert not result.missing, result.missing
    assert result.lines == len(labels) >= 150
    assert sum(result.tp.values()) + sum(result.fn.values()) >= 180
    _check(result, DEV_FLOORS)
    assert result.fp["dropped"] == 0  # nothing in the set drops a model


def test_held_out_set(corpus):
    labels = read_labels(DATA / "model_support_heldout.tsv")
    result = evaluate(labels, corpus)
    assert not result.missing, result.missing
    _check(result, HELDOUT_FLOORS)


def test_labels_name_known_families():
    from tracker.mentions.families import load_families

    families = load_families().families
    for name in ("model_support_labels.tsv", "model_support_heldout.tsv"):
        for (file, line), rows in read_labels(DATA / name).items():
            for row in rows:
                assert row.model in families, (name, file, line, row.model)


def test_notes_do_not_copy_the_documents(corpus):
    """The documents are read in place: no note repeats six words in a row of its line."""
    for name in ("model_support_labels.tsv", "model_support_heldout.tsv"):
        for (file, line), rows in read_labels(DATA / name).items():
            words = (corpus / file).read_text(encoding="utf-8").splitlines()[line - 1].split()
            runs = {" ".join(words[i : i + 6]).lower() for i in range(len(words) - 5)}
            for row in rows:
                assert not any(run in row.note.lower() for run in runs), (file, line)


def test_a_missing_document_is_skipped_not_scored(tmp_path):
    labels = read_labels(DATA / "model_support_heldout.tsv")
    result = evaluate(labels, tmp_path)
    assert result.lines == 0 and result.missing
    assert result.precision() is None and result.recall() is None


def test_context_lines_disagreeing_is_an_error(tmp_path):
    (tmp_path / "doc.md").write_text("Supported models:\n- Qwen3-8B\n", encoding="utf-8")
    bad = tmp_path / "labels.tsv"
    bad.write_text(
        "file\tline\tmodel\tstatus\tnote\n"
        "doc.md\t2\tqwen3\tsupported\tcontext: line 1\n"
        "doc.md\t2\tqwen3\tother\tno context\n",
        encoding="utf-8",
    )
    with pytest.raises(ValueError, match="disagree"):
        evaluate(read_labels(bad), tmp_path)
    good = tmp_path / "good.tsv"
    good.write_text(
        "# a comment\nfile\tline\tmodel\tstatus\tnote\n"
        "doc.md\t2\tqwen3\tsupported\tcontext: line 1\n",
        encoding="utf-8",
    )
    result = evaluate(read_labels(good), tmp_path)
    assert (result.tp["supported"], result.fp["supported"]) == (1, 0)
