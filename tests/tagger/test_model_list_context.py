"""A list of models under a heading or an introduction, end to end: the release-notes collector
stores each item with its heading and the paragraph that introduces its list, the store hands
them to the tagger, and the tagger gives the items the status they carry.

The document is written here in the shape of an AWS Neuron component release note (headings,
"Compatible models include:" lists of Hugging Face links); its wording is our own. Neuron 2.26.0
was tagged on 2025-09-18 (the SDK's tag history).
"""

from __future__ import annotations

import pytest

from tracker.collect.sources import CollectContext, release_notes
from tracker.config import SourceSpec
from tracker.tagger import load_tagger
from tracker.tagger.batch import tag_store

DOC = b"""\
Neuron 2.26.0 (09/18/2025)
==========================

Improvements
------------

Llama 4 model support (beta)
^^^^^^^^^^^^^^^^^^^^^^^^^^^^

Beta support for the Llama 4 family, checked on ``Trn2``. These checkpoints work:

- `Llama 4 Scout <https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct>`__
- `Llama 4 Maverick <https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E-Instruct>`__

Qwen3 (dense) model support
^^^^^^^^^^^^^^^^^^^^^^^^^^^

NxD Inference now runs Qwen3 dense models on ``Trn1``. Compatible models include:

- `Qwen3-8B <https://huggingface.co/Qwen/Qwen3-8B>`__
- `Qwen3-32B <https://huggingface.co/Qwen/Qwen3-32B>`__

Models in this Release
^^^^^^^^^^^^^^^^^^^^^^

* Gemma 3 27B (text)

Known issues
------------

* Decode throughput of Llama 3.3 70B is lower than in the previous release.
"""


def _notes() -> list:
    spec = SourceSpec(
        "nxdi-notes",
        "release_notes",
        "nxd-inference",
        options={"url": "https://example.test/nxd-inference.rst", "format": "rst"},
        regime="neuron",
    )
    return [e for e in release_notes.parse(DOC, CollectContext(spec)) if e.kind == "note"]


def test_items_keep_their_heading_and_introduction():
    by_text = {e.body: e.attrs for e in _notes()}
    scout = by_text["Llama 4 Scout"]
    assert scout["heading"] == "Llama 4 model support (beta)"
    assert scout["intro"].startswith("Beta support for the Llama 4 family")
    assert by_text["Qwen3-32B"]["intro"].endswith("Compatible models include:")
    assert by_text["Gemma 3 27B (text)"]["heading"] == "Models in this Release"
    assert "intro" not in by_text["Gemma 3 27B (text)"]


@pytest.mark.parametrize("store", ["sqlite", "pg"], indirect=True)
def test_stored_items_are_tagged_with_the_status_they_carry(store):
    notes = _notes()
    with store.transaction() as conn:
        store.upsert_events(conn, notes)
    tag_store(store)
    found = {
        (row["attrs"].get("line"), m["model"], m["status"])
        for row in store.coverage_events(["nxd-inference"])
        for m in row["mentions"] or []
        if "model" in m
    }
    lines = {e.body: e.attrs["line"] for e in notes}
    expected = {
        (lines["Llama 4 Scout"], "llama4", "other"),  # under a beta heading and introduction
        (lines["Llama 4 Maverick"], "llama4", "other"),
        (lines["Qwen3-8B"], "qwen3", "supported"),  # "Compatible models include:"
        (lines["Qwen3-32B"], "qwen3", "supported"),
        (lines["Gemma 3 27B (text)"], "gemma3", "supported"),  # "Models in this Release"
    }
    assert expected <= found
    # the introductions themselves: "now runs" is support, beta is not
    intro = next(e for e in notes if e.body.startswith("NxD Inference now runs"))
    assert (intro.attrs["line"], "qwen3", "supported") in found
    # a known issue naming a model is not carried anywhere
    issue = next(e for e in notes if "Decode throughput" in e.body)
    assert (issue.attrs["line"], "llama3.3", "other") in found
    assert not {f for f in found if f[2] == "supported" and f[1] in ("llama4", "llama3.3")}


def test_without_its_context_an_item_is_only_named():
    """The same items tagged as bare texts: nothing carries, so the model is only named."""
    results = load_tagger().tag_many(["Qwen3-32B", "Gemma 3 27B (text)"])
    assert [m["status"] for r in results for m in r.mentions] == ["other", "other"]
    with_context = load_tagger().tag_many(
        [
            {"text": "Qwen3-32B", "intro": "Compatible models include:"},
            {"text": "Gemma 3 27B (text)", "heading": "Models in this Release"},
        ]
    )
    assert [m["status"] for r in with_context for m in r.mentions] == ["supported", "supported"]
