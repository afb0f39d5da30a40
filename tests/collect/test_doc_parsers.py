"""Vendor-document kinds on small documents written here: structure, dates, ids, bad input.

The real upstream files are exercised in test_doc_parsers_corpus.py.
"""

from __future__ import annotations

from datetime import UTC, datetime
from types import SimpleNamespace

from tracker.collect.sources import (
    KINDS,
    CollectContext,
    changelog_markdown,
    collector_for,
    compat_matrix,
    release_notes,
)
from tracker.collect.sources._docs import find_date, history_dates, versions_in
from tracker.config import SourceSpec


def ctx_for(kind: str, project: str = "p", http=None, **options) -> CollectContext:
    options.setdefault("url", "https://example.test/doc")
    return CollectContext(
        SourceSpec(f"{project}-{kind}", kind, project, options=options), http=http
    )


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def test_kinds_are_registered_and_helper_is_not():
    assert collector_for("changelog_markdown") is changelog_markdown
    assert collector_for("release_notes") is release_notes
    assert collector_for("compat_matrix") is compat_matrix
    assert not any(name.startswith("_") for name in KINDS)


def test_find_date_accepts_full_dates_only():
    assert find_date("JAX 0.4.21 (Dec 4 2023)") == day(2023, 12, 4)
    assert find_date("jax 0.4.16 (Sept 18, 2023)") == day(2023, 9, 18)
    assert find_date("Neuron 2.29.1 (5/1/2026)") == day(2026, 5, 1)
    assert find_date("**Date of release**: August 17, 2026") == day(2026, 8, 17)
    assert find_date("2025-02-19") == day(2025, 2, 19)
    assert find_date("January 12ish 2021") is None
    assert find_date("Release date: TBD") is None
    assert find_date("13/45/2024") is None


def test_versions_in_normalises_each_version():
    assert versions_in("2.4, 2.3, 2.2, 2.1, 2.0, 1.13") == [
        "2.4",
        "2.3",
        "2.2",
        "2.1",
        "2.0",
        "1.13",
    ]
    assert versions_in("vLLM v0.13.0 and JAX 0.9.0.1") == ["0.13.0", "0.9.0.1"]


# ---------------------------------------------------------------------------- changelog_markdown

CHANGELOG = """# Change log

## Unreleased

* New features
  * Something not yet released.

## JAX 0.7.1 (August 20, 2025)

* [GitHub commits](https://github.com/jax-ml/jax/compare/jax-v0.7.0...jax-v0.7.1).
* New features
  * Added a thing.
  * Added another thing.
* Bug fixes
  * Fixed a crash on TPU.

**Deprecations**

* `jax.old` is deprecated.

## Release of doom

* This heading does not parse.

## jax 0.7.0 (July 22, 2025)

### Notable bug fixes

* Fixed a hang.

## jaxlib 0.7.0 (July 22, 2025)

* Changes
  * jaxlib now needs a newer CUDA.

## jax 0.6.9

* No date on this heading.
"""


def test_changelog_releases_notes_and_sections():
    ctx = ctx_for("changelog_markdown", "jax")
    events = list(changelog_markdown.parse(CHANGELOG.encode(), ctx))
    releases = [e for e in events if e.kind == "release"]
    assert [(e.version, e.occurred_at) for e in releases] == [
        ("0.7.1", day(2025, 8, 20)),
        ("0.7.0", day(2025, 7, 22)),
    ]
    notes = [
        (e.version, e.attrs.get("section"), e.title, e.attrs.get("package"))
        for e in events
        if e.kind == "note"
    ]
    assert notes == [
        ("0.7.1", "New features", "Added a thing.", None),
        ("0.7.1", "New features", "Added another thing.", None),
        ("0.7.1", "Bug fixes", "Fixed a crash on TPU.", None),
        ("0.7.1", "Deprecations", "jax.old is deprecated.", None),
        ("0.7.0", "Notable bug fixes", "Fixed a hang.", None),
        ("0.7.0", "Changes", "jaxlib now needs a newer CUDA.", "jaxlib"),
    ]
    # notes carry their release's date; nothing from "Unreleased" is stored
    assert all(e.occurred_at == day(2025, 8, 20) for e in events if e.version == "0.7.1")
    assert not any("not yet released" in e.body for e in events)
    # the unparseable and the undated heading are skipped with their line, the rest goes on
    assert ctx.skipped == 2
    assert "line 21 'Release of doom'" in ctx.warnings[0]
    assert "line 36 'jax 0.6.9'" in ctx.warnings[1]


def test_changelog_ids_are_stable_and_distinct():
    first = list(changelog_markdown.parse(CHANGELOG.encode(), ctx_for("changelog_markdown", "jax")))
    edited = CHANGELOG.replace("* Added a thing.", "* Added a thing.\n  * Added a third thing.")
    second = list(changelog_markdown.parse(edited.encode(), ctx_for("changelog_markdown", "jax")))
    assert len({e.id for e in first}) == len(first)
    assert {e.id for e in first} < {e.id for e in second}  # an added bullet keeps the others' ids


def test_changelog_empty_document_is_one_skip():
    ctx = ctx_for("changelog_markdown", "jax")
    assert list(changelog_markdown.parse(b"  \n", ctx)) == []
    assert ctx.skipped == 1


# ------------------------------------------------------------------------------- release_notes

ROCM_NOTES = """# ROCm 6.3.1 release notes

The release notes provide a summary of notable changes.

## Release highlights

Intro paragraph that is dropped.

### PyTorch 2.4 support added

ROCm now supports PyTorch 2.4.

## Detailed component changes

### **HIP** (6.3.1)

#### Resolved issues

* Fixed a memory leak in hipMalloc.
* Fixed a hang with streams.

## ROCm known issues

### Hang on MI300X with large batches

Large batches may hang. A fix is planned.

### Wrong timestamps

Timestamps are wrong on some GPUs.
"""


def test_markdown_release_notes_with_release_date_option():
    ctx = ctx_for("release_notes", "rocm", format="markdown", release_date="2024-12-20")
    events = list(release_notes.parse(ROCM_NOTES.encode(), ctx))
    assert ctx.skipped == 0
    assert {e.version for e in events} == {"6.3.1"}
    assert {e.occurred_at for e in events} == {day(2024, 12, 20)}
    by_section = {}
    for e in events:
        by_section.setdefault(e.attrs.get("section"), []).append(e.title)
    assert by_section["Known issues"] == ["Hang on MI300X with large batches", "Wrong timestamps"]
    assert by_section["Resolved issues"] == [
        "Fixed a memory leak in hipMalloc.",
        "Fixed a hang with streams.",
    ]
    assert by_section["New features"] == ["PyTorch 2.4 support added"]
    assert not any("dropped" in e.body for e in events)
    known = next(e for e in events if e.title == "Wrong timestamps")
    assert known.body == "Timestamps are wrong on some GPUs."
    assert known.attrs["path"] == ["ROCm known issues", "Wrong timestamps"]


def test_markdown_release_notes_date_from_history_or_skipped():
    history = {"6.3.1": day(2024, 12, 20)}
    ctx = ctx_for("release_notes", "rocm", format="markdown")
    events = list(release_notes.parse(ROCM_NOTES.encode(), ctx, history=history))
    assert events and {e.occurred_at for e in events} == {day(2024, 12, 20)}
    ctx = ctx_for("release_notes", "rocm", format="markdown")
    assert list(release_notes.parse(ROCM_NOTES.encode(), ctx, history={})) == []
    assert ctx.skipped == 1 and "no release date for 6.3.1" in ctx.warnings[0]


NEURON_RST = """.. _prev-rn:

Previous release notes
======================

.. toctree::
   :hidden:

   Neuron 2.26.0 </release-notes/prev/2.26.0>

.. grid:: 1

   .. grid-item-card::
      :link: /release-notes/components/index

      **Component notes**

Neuron 2.26.0 (09/18/2025)
--------------------------

Neuron 2.26.0 adds support for PyTorch 2.8 and :ref:`JAX 0.6.2 <jax-rn>`.

What's New
^^^^^^^^^^

**ML Frameworks**: Neuron now supports :doc:`vLLM </vllm/index>` 0.10.

**Library Upgrades**

- **NxD Training**: upgraded to support PyTorch 2.8.

Supported vLLM Versions
^^^^^^^^^^^^^^^^^^^^^^^

Neuron currently supports vLLM version 0.10.2.

Neuron 2.25.0
-------------

* This release has no date anywhere.

PyTorch Framework [2.8.0.2.10.*] (Neuron 2.24.0 Release)
--------------------------------------------------------

**Date of Release**: 06/24/2025

Known Issues
^^^^^^^^^^^^

* Compilation is slow for large models.
"""


def test_rst_release_notes_sphinx_roles_dates_sections_mentions():
    ctx = ctx_for("release_notes", "neuron-sdk", format="rst", releases=True)
    events = list(release_notes.parse(NEURON_RST.encode(), ctx))
    releases = [(e.version, e.occurred_at) for e in events if e.kind == "release"]
    assert releases == [("2.26.0", day(2025, 9, 18)), ("2.24.0", day(2025, 6, 24))]
    notes = {e.title: e for e in events if e.kind == "note"}
    summary = notes["Neuron 2.26.0 adds support for PyTorch 2.8 and JAX 0.6.2."]
    assert summary.version == "2.26.0" and summary.occurred_at == day(2025, 9, 18)
    frameworks = notes["ML Frameworks: Neuron now supports vLLM 0.10."]
    assert frameworks.attrs["section"] == "New features"
    assert frameworks.attrs["topic"] == "ML Frameworks"
    assert "mentions" not in frameworks.attrs  # free text: left to the tagger
    upgrade = notes["NxD Training: upgraded to support PyTorch 2.8."]
    assert upgrade.attrs["topic"] == "NxD Training"
    vllm = notes["Neuron currently supports vLLM version 0.10.2."]
    assert vllm.attrs["mentions"] == [
        {"framework": "vllm", "version": "0.10.2", "status": "supported"}
    ]
    slow = notes["Compilation is slow for large models."]
    assert (slow.version, slow.occurred_at, slow.attrs["section"]) == (
        "2.24.0",
        day(2025, 6, 24),
        "Known issues",
    )
    # Neuron 2.25.0 has no date in the document: skipped, counted, never guessed
    assert ctx.skipped == 1 and "'Neuron 2.25.0'" in ctx.warnings[0]
    assert not any(e.version == "2.25.0" for e in events)


BROKEN_TABLE_RST = """AWS Neuron SDK 2.30.0 release notes
===================================

**Date of release**: May 21, 2026

+-----------+-----------+
| Package   | Version   |
+===========+===========+
| torch     | 2.9 and a cell that runs over
+-----------+-----------+

* Added support for JAX 0.8.2.
"""


def test_rst_broken_table_is_skipped_and_rest_kept():
    ctx = ctx_for("release_notes", "neuron-sdk", format="rst")
    events = list(release_notes.parse(BROKEN_TABLE_RST.encode(), ctx))
    assert [e.title for e in events] == ["Added support for JAX 0.8.2."]
    assert events[0].occurred_at == day(2026, 5, 21) and events[0].version == "2.30.0"
    assert ctx.skipped == 1 and "Malformed table" in ctx.warnings[0]


HTML_PAGE = """<html><head><title>Release notes</title><script>var x = 1;</script></head>
<body><nav><ul><li>Home</li></ul></nav><main>
<h1>Neuron 2.26.0 (09/18/2025)</h1>
<p>This release adds support for PyTorch 2.8.</p>
<h2>Known Issues</h2>
<ul><li><p>Threefry RNG is not completely supported.</p></li>
    <li>Host callbacks are not supported.</li></ul>
<h2>Supported vLLM Versions</h2>
<p>Neuron currently supports vLLM version 0.10.2.</p>
</main></body></html>"""


def test_html_release_notes():
    ctx = ctx_for("release_notes", "neuron-sdk", format="html")
    events = list(release_notes.parse(HTML_PAGE.encode(), ctx))
    assert ctx.skipped == 0
    assert [(e.title, e.attrs.get("section")) for e in events] == [
        ("This release adds support for PyTorch 2.8.", None),
        ("Threefry RNG is not completely supported.", "Known issues"),
        ("Host callbacks are not supported.", "Known issues"),
        ("Neuron currently supports vLLM version 0.10.2.", None),
    ]
    assert {(e.version, e.occurred_at) for e in events} == {("2.26.0", day(2025, 9, 18))}
    assert events[-1].attrs["mentions"] == [
        {"framework": "vllm", "version": "0.10.2", "status": "supported"}
    ]
    assert not any("Home" in e.body for e in events)  # navigation dropped


def test_html_changed_layout_is_a_counted_skip():
    page = "<html><body><div class='card'>Everything moved into cards</div></body></html>"
    ctx = ctx_for("release_notes", "neuron-sdk", format="html")
    assert list(release_notes.parse(page.encode(), ctx)) == []
    assert ctx.skipped == 1 and "no release heading" in ctx.warnings[0]


def test_version_override_reads_a_page_without_release_headings():
    page = (
        "vLLM Neuron Release Notes\n=========================\n\n"
        "**Latest version (in 2.32.0)**: v0.24.0.1.1.0 (Beta)\n"
    )
    ctx = ctx_for(
        "release_notes", "neuron-sdk", format="rst", version="2.32.0", release_date="2026-08-17"
    )
    events = list(release_notes.parse(page.encode(), ctx))
    # the page is one topic heading with prose under it: one note titled by the heading
    assert [(e.version, e.occurred_at, e.title, e.body) for e in events] == [
        (
            "2.32.0",
            day(2026, 8, 17),
            "vLLM Neuron Release Notes",
            "Latest version (in 2.32.0): v0.24.0.1.1.0 (Beta)",
        )
    ]


def test_release_notes_empty_document():
    for fmt in ("markdown", "rst", "html"):
        ctx = ctx_for("release_notes", "rocm", format=fmt)
        assert list(release_notes.parse(b"", ctx)) == []
        assert ctx.skipped == 1


# ------------------------------------------------------------------------------- compat_matrix

MATRIX = """Compatibility matrix
====================

.. |br| raw:: html

   <br/>

.. container:: format-big-table

  .. csv-table::
      :header: "ROCm Version", "6.3.0", "6.2.4", "5.9.9"
      :stub-columns: 1

      :ref:`Operating systems <os>`,Ubuntu 24.04.2,"Ubuntu 24.04.1, 24.04",Ubuntu 20.04
      FRAMEWORK SUPPORT,.. _framework-support:,,
      :doc:`PyTorch <pytorch-install>`,"2.4, 2.3, 2.2 [#note]_","2.3, 2.2",2.0
      :doc:`JAX <jax-install>`,0.4.31,0.4.26,
      :doc:`TensorFlow <tf-install>`,2.17.0,2.16.1,2.15.0,2.14.0

.. [#note] A footnote.
"""
HISTORY_MD = """# ROCm release history

| Version | Release date |
| ------- | ------------ |
| [6.3.0](https://rocm.docs.amd.com/en/docs-6.3.0/) | December 3, 2024 |
| [6.2.4](https://rocm.docs.amd.com/en/docs-6.2.4/) | November 6, 2024 |
"""


def test_compat_matrix_cells_dates_and_skips():
    history = history_dates(HISTORY_MD, "markdown")
    assert history == {"6.3.0": day(2024, 12, 3), "6.2.4": day(2024, 11, 6)}
    ctx = ctx_for("compat_matrix", "rocm", format="rst")
    events = list(compat_matrix.parse(MATRIX.encode(), ctx, history=history))
    got = {e.external_id.rsplit(":", 1)[0]: (e.occurred_at, e.attrs["supported"]) for e in events}
    assert got == {
        "6.3.0:pytorch": (day(2024, 12, 3), ["2.4", "2.3", "2.2"]),
        "6.2.4:pytorch": (day(2024, 11, 6), ["2.3", "2.2"]),
        "6.3.0:jax": (day(2024, 12, 3), ["0.4.31"]),
        "6.2.4:jax": (day(2024, 11, 6), ["0.4.26"]),
    }
    first = events[0]
    assert first.title == "ROCm 6.3.0 supports PyTorch 2.4, 2.3, 2.2"
    assert first.version == "6.3.0" and first.kind == "note"
    assert first.attrs["mentions"][0] == {
        "framework": "pytorch",
        "version": "2.4",
        "status": "supported",
    }
    # 5.9.9 is not in the history: skipped once (date unknown); the TensorFlow row has more
    # cells than the header has releases (it no longer lines up): skipped
    assert ctx.skipped == 2
    assert any("5.9.9" in w and "date unknown" in w for w in ctx.warnings)
    assert any("TensorFlow" in w and "cells" in w for w in ctx.warnings)


def test_compat_matrix_edit_keeps_ids():
    history = {"6.3.0": day(2024, 12, 3), "6.2.4": day(2024, 11, 6), "5.9.9": day(2023, 1, 1)}
    before = list(
        compat_matrix.parse(MATRIX.encode(), ctx_for("compat_matrix", "rocm"), history=history)
    )
    edited = MATRIX.replace('"2.4, 2.3, 2.2 [#note]_"', '"2.5, 2.4, 2.3"')
    after = list(
        compat_matrix.parse(edited.encode(), ctx_for("compat_matrix", "rocm"), history=history)
    )
    # An edited cell is a new note (its content is in its id); every other cell keeps its id,
    # so the store keeps the earlier evidence beside the new one instead of overwriting it.
    old = {e.id: e for e in before}
    new = {e.id: e for e in after}
    assert [old[i].external_id for i in old.keys() - new.keys()] == ["6.3.0:pytorch:2.4+2.3+2.2"]
    assert [new[i].external_id for i in new.keys() - old.keys()] == ["6.3.0:pytorch:2.5+2.4+2.3"]
    assert len(old.keys() & new.keys()) == len(old) - 1


def test_compat_matrix_csv_and_layout_change():
    csv_text = (
        "ROCm Version,6.3.0, 6.2.4\n"
        '      :doc:`PyTorch <../pytorch-compatibility>`,"2.4, 2.3","2.3, 2.2"\n'
    )
    history = {"6.3.0": day(2024, 12, 3), "6.2.4": day(2024, 11, 6)}
    events = list(
        compat_matrix.parse(
            csv_text.encode(), ctx_for("compat_matrix", "rocm", format="csv"), history=history
        )
    )
    assert [(e.external_id, e.attrs["supported"]) for e in events] == [
        ("6.3.0:pytorch:2.4+2.3", ["2.4", "2.3"]),
        ("6.2.4:pytorch:2.3+2.2", ["2.3", "2.2"]),
    ]
    ctx = ctx_for("compat_matrix", "rocm", format="rst")
    assert (
        list(compat_matrix.parse(b"Title\n=====\n\nNo tables any more.\n", ctx, history=history))
        == []
    )
    assert ctx.skipped == 1 and "no table" in ctx.warnings[0]


def test_history_from_rst_list_table():
    text = """ROCm release history
====================

.. list-table::
   :header-rows: 1

   * - Version
     - Release date
   * - `7.0.0 <https://rocm.docs.amd.com/en/docs-7.0.0/>`__
     - September 16, 2025
"""
    assert history_dates(text, "rst") == {"7.0.0": day(2025, 9, 16)}


# ------------------------------------------------------------------------------------ collect


class FakeHttp:
    """Answers get(url) from a dict; None (= 304) for URLs it does not hold."""

    def __init__(self, pages: dict[str, str]):
        self.pages, self.calls = pages, []

    def get(self, url, params=None, *, conditional=True, accept=None):
        self.calls.append((url, conditional))
        if url not in self.pages:
            return None
        body = self.pages[url].encode()
        return SimpleNamespace(content=body, text=body.decode(), status_code=200)


def test_collect_fetches_document_and_history():
    http = FakeHttp({"https://x.test/matrix.rst": MATRIX, "https://x.test/versions.md": HISTORY_MD})
    ctx = ctx_for(
        "compat_matrix",
        "rocm",
        http=http,
        url="https://x.test/matrix.rst",
        history_url="https://x.test/versions.md",
    )
    events = list(compat_matrix.collect(ctx))
    assert len(events) == 4
    # the history is fetched unconditionally: a 304 on it would leave the matrix undated
    assert http.calls == [
        ("https://x.test/matrix.rst", True),
        ("https://x.test/versions.md", False),
    ]


def test_collect_not_modified_yields_nothing():
    for module, kind in (
        (changelog_markdown, "changelog_markdown"),
        (release_notes, "release_notes"),
        (compat_matrix, "compat_matrix"),
    ):
        http = FakeHttp({})
        ctx = ctx_for(kind, "rocm", http=http, url="https://x.test/doc.md")
        assert list(module.collect(ctx)) == []
        assert len(http.calls) == 1 and ctx.skipped == 0


def test_an_edited_release_note_marks_its_old_wording_vanished():
    # A note id hashes its text: upstream fixes a typo, the item comes back under a new id and the
    # old one must be marked vanished (or it counts twice); a read with a skip marks nothing.
    url = "https://x.test/notes.md"
    http = FakeHttp({url: ROCM_NOTES})
    first = ctx_for(
        "release_notes", "rocm", http=http, url=url, format="markdown", release_date="2024-12-20"
    )
    before = {e.external_id for e in release_notes.collect(first) if e.kind == "note"}
    assert first.vanished == [] and set(first.state["notes"]) == before
    http.pages[url] = ROCM_NOTES.replace(
        "Fixed a hang with streams.", "Fixed a hang with HIP streams."
    )
    second = ctx_for(
        "release_notes", "rocm", http=http, url=url, format="markdown", release_date="2024-12-20"
    )
    second.state = dict(first.state)
    after = {e.external_id for e in release_notes.collect(second) if e.kind == "note"}
    [gone] = before - after
    assert second.vanished == [gone] and len(after - before) == 1
    # the release date is gone from the page now: notes skipped, nothing marked, ids kept
    http.pages[url] = ""
    third = ctx_for("release_notes", "rocm", http=http, url=url, format="markdown")
    third.state = dict(second.state)
    list(release_notes.collect(third))
    assert third.skipped and third.vanished == [] and set(third.state["notes"]) == after


# ----------------------------------------------------------------------- sources + cassettes

DOC_SOURCES = {  # source id -> (events, a fact the hand-written cassette states)
    # three release headings, their entries trimmed: no notes
    "jax-changelog": (3, ("release", "0.8.2", day(2025, 12, 18))),
    # RELEASE.md at rocm-6.3.3 trimmed to headings and its one resolved-issue bullet, word for
    # word: the bullet is the one note (a topic heading with no prose under it makes none)
    "rocm-release-notes": (1, ("note", "6.3.3", day(2025, 2, 19))),
    # 3 columns (7.2.3, 7.2.2, 7.1.0) x PyTorch and JAX rows
    "rocm-compat-matrix": (6, ("note", "7.2.3", day(2026, 5, 4))),
    # 23 columns (6.0.0 .. 7.2.3) x PyTorch and JAX rows
    "rocm-compat-matrix-historical": (46, ("note", "7.0.0", day(2025, 9, 16))),
    # 12 release headings (2.20.0 .. 2.30.0), one or more notes each: 24 events
    "neuron-release-notes": (24, ("release", "2.23.0", day(2025, 5, 20))),
    "neuron-release-content": (6, ("note", "2.28.0", day(2026, 2, 26))),  # one per release
    "neuron-pytorch-notes": (6, ("note", "2.29.0", day(2026, 4, 9))),
    "neuron-jax-notes": (8, ("note", "2.22.0", day(2025, 4, 3))),  # one per release
    "vllm-neuron-notes": (1, ("note", "2.32.0", day(2026, 8, 17))),
}


def test_default_sources_replay_their_cassettes():
    from pathlib import Path

    import vcr

    from tracker.collect.http import HttpClient
    from tracker.jobs.config import load_config

    repo = Path(__file__).resolve().parents[2]
    config = load_config(repo / "sources.yaml")
    for source_id, (count, fact) in DOC_SOURCES.items():
        spec = config.source(source_id)
        cassette = repo / "cassettes" / f"{source_id}.yaml"
        assert cassette.read_text().startswith("# HAND-WRITTEN cassette")
        with vcr.use_cassette(str(cassette), record_mode="none"):
            ctx = CollectContext(spec, http=HttpClient())
            events = list(collector_for(spec.kind).collect(ctx))
        assert (len(events), ctx.skipped) == (count, 0), source_id
        assert fact in {(e.kind, e.version, e.occurred_at) for e in events}, source_id


# ------------------------------------------------------------------------- parser internals

NESTED_RST = """Release 1.0
===========

* Bug fixes

  * Fixed the ``foo`` path, see :doc:`the guide <guide>`.
  * Fixed bar:

    #. first
    #. second

* New features

  - term

    definition list inside an item

.. list-table::
   :header-rows: 1

   * - Framework
     - 6.3.0
   * - PyTorch
     - 2.4, 2.3
"""


def _stock_doctree(text: str):
    """The same document parsed by docutils' own Parser class, with the same settings."""
    import copy

    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from tracker.collect.sources import _docs_rst

    _docs_rst._prepare_rst(text)
    document = new_document("<document>", copy.copy(_docs_rst._SETTINGS))
    Parser().parse(text, document)
    return document


def test_rst_parser_with_lazy_states_builds_the_stock_doctree():
    from tracker.collect.sources._docs_rst import rst_doctree

    for text in (NESTED_RST, NEURON_RST, BROKEN_TABLE_RST, MATRIX):
        ours = rst_doctree(text)
        assert ours.pformat() == _stock_doctree(text).pformat()
    # and the doctree is the real one: 7 list items at three depths (the list-table's are
    # turned into table rows), the enumerated list, the table
    tree = rst_doctree(NESTED_RST).pformat()
    assert tree.count("<list_item>") == 7 and "<enumerated_list" in tree
    assert "<table>" in tree and "2.4, 2.3" in tree


def test_gc_paused_restores_the_collector_state():
    import gc

    from tracker.gcpause import gc_paused

    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # a caller that had turned it off keeps it off
    finally:
        gc.enable()
