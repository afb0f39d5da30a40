"""The vendor-document parsers on the real upstream files in ../shared/corpus (read in place).

Every expected value below was read off the files themselves (headings, tables, release
history); the tests skip with a clear reason when the corpus folder is absent.
"""

from __future__ import annotations

import re
from collections import Counter
from datetime import UTC, datetime

import pytest

from tracker.collect.sources import CollectContext, changelog_markdown, compat_matrix, release_notes
from tracker.config import SourceSpec

ROCM = "rocm/ROCm@{ref}"
HISTORY = "rocm/ROCm@develop-e396b48/docs/release/versions.md"
NEURON = "aws-neuron-sdk/release-notes"


def cell(event) -> str:
    """The matrix cell (release:framework) a compat_matrix note belongs to; its external id
    also carries the cell's content."""
    return event.external_id.rsplit(":", 1)[0]


def day(y: int, m: int, d: int) -> datetime:
    return datetime(y, m, d, tzinfo=UTC)


def run(module, corpus, rel_path, project, **options):
    path = corpus / rel_path
    options.setdefault("url", str(path))
    for key in ("history_url",):
        if key in options:
            options[key] = str(corpus / options[key])
    ctx = CollectContext(SourceSpec(f"{project}-test", module.KIND, project, options=options))
    return list(module.parse(path.read_bytes(), ctx)), ctx


# ------------------------------------------------------------------------------ JAX changelog


def test_jax_changelog_every_dated_release(corpus):
    events, ctx = run(changelog_markdown, corpus, "jax/CHANGELOG.md", "jax")
    releases = {e.version: e.occurred_at for e in events if e.kind == "release"}
    # 132 "## jax|JAX x.y.z" headings; "jax 0.3.16" has no date and is skipped, not guessed
    assert len(releases) == 131
    assert "0.3.16" not in releases
    assert releases["0.11.0"] == day(2026, 7, 16)
    assert releases["0.8.2"] == day(2025, 12, 18)
    assert releases["0.5.3"] == day(2025, 3, 19)
    assert releases["0.4.21"] == day(2023, 12, 4)  # "Dec 4 2023", no comma
    assert releases["0.4.16"] == day(2023, 9, 18)  # "Sept 18, 2023"
    assert releases["0.2.0"] == day(2020, 9, 23)  # "jax (0.2.0) (September 23 2020)"
    assert releases["0.1.58"] == day(2020, 1, 28)
    # jaxlib headings are not jax releases: "jaxlib 0.1.76 (Jan 27, 2022)" leaves
    # "jax 0.1.76 (September 8, 2020)" alone, and "jaxlib 0.1.55 (September 8, 2020)" has no
    # jax counterpart: no release
    assert releases["0.1.76"] == day(2020, 9, 8)
    assert "0.1.55" not in releases
    assert all(e.occurred_at.tzinfo == UTC for e in events)
    # the Unreleased section never becomes a release, nor are its bullets stored
    assert not any("Unreleased" in (e.attrs.get("release") or "") for e in events)
    assert ctx.skipped == 2
    assert any("line 2524 'jax 0.3.16'" in w for w in ctx.warnings)
    assert any("January 12ish 2021" in w for w in ctx.warnings)


def test_jax_changelog_notes_have_sections_versions_and_dates(corpus):
    events, _ = run(changelog_markdown, corpus, "jax/CHANGELOG.md", "jax")
    notes = [e for e in events if e.kind == "note"]
    assert len({e.id for e in events}) == len(events)
    remat = next(e for e in notes if "jax.custom_remat" in e.title)
    assert (remat.version, remat.occurred_at, remat.attrs["section"]) == (
        "0.11.0",
        day(2026, 7, 16),
        "New features",
    )
    sections = Counter(e.attrs.get("section") for e in notes if e.version == "0.11.0")
    assert set(sections) >= {"New features", "Breaking changes", "Deprecations"}
    # jaxlib 0.4.32's "Breaking changes" bullets are notes marked as jaxlib's
    thunk = next(e for e in notes if "new version of the CPU backend" in e.body)
    assert (thunk.version, thunk.attrs["package"], thunk.attrs["section"]) == (
        "0.4.32",
        "jaxlib",
        "Breaking changes",
    )


# ------------------------------------------------------------------------ ROCm compat matrix


def supported(events, key):
    return next(e for e in events if cell(e) == key).attrs["supported"]


def test_rocm_matrix_6_3_0_lists_pytorch_2_4_and_6_2_4_does_not(corpus):
    at_630, ctx = run(
        compat_matrix,
        corpus,
        ROCM.format(ref="rocm-6.3.0") + "/docs/compatibility/compatibility-matrix.rst",
        "rocm",
        history_url=HISTORY,
    )
    assert ctx.skipped == 0
    assert supported(at_630, "6.3.0:pytorch") == ["2.4", "2.3", "2.2", "2.1", "2.0", "1.13"]
    assert supported(at_630, "6.3.0:jax") == ["0.4.26"]
    assert supported(at_630, "6.3.0:tensorflow") == ["2.17.0", "2.16.2", "2.15.1"]
    row = next(e for e in at_630 if cell(e) == "6.3.0:pytorch")
    assert row.occurred_at == day(2024, 12, 3)  # versions.md: 6.3.0 | December 3, 2024
    assert row.version == "6.3.0"
    assert {"framework": "pytorch", "version": "2.4", "status": "supported"} in row.attrs[
        "mentions"
    ]
    # three release columns (6.3.0, 6.2.4, 6.1.0) x three frameworks
    assert sorted(cell(e) for e in at_630) == sorted(
        f"{v}:{f}" for v in ("6.3.0", "6.2.4", "6.1.0") for f in ("pytorch", "tensorflow", "jax")
    )

    at_624, _ = run(
        compat_matrix,
        corpus,
        ROCM.format(ref="rocm-6.2.4") + "/docs/compatibility/compatibility-matrix.rst",
        "rocm",
        history_url=HISTORY,
    )
    assert "2.4" not in supported(at_624, "6.2.4:pytorch")
    assert supported(at_624, "6.2.4:pytorch") == ["2.3", "2.2", "2.1", "2.0", "1.13"]
    assert next(e for e in at_624 if cell(e) == "6.2.4:pytorch").occurred_at == day(2024, 11, 6)


def test_rocm_historical_csv_per_release_lists(corpus):
    events, ctx = run(
        compat_matrix,
        corpus,
        ROCM.format(ref="develop-e396b48")
        + "/docs/compatibility/compatibility-matrix-historical-6.0.csv",
        "rocm",
        history_url=HISTORY,
    )
    assert ctx.skipped == 0
    # 13 ROCm columns (6.3.3 .. 6.0.0) x PyTorch, TensorFlow, JAX
    assert len(events) == 39
    assert supported(events, "6.3.3:pytorch") == ["2.4", "2.3", "2.2", "1.13"]
    assert supported(events, "6.3.0:pytorch") == ["2.4", "2.3", "2.2", "2.1", "2.0", "1.13"]
    assert supported(events, "6.2.0:pytorch") == ["2.3", "2.2", "2.1", "2.0", "1.13"]
    assert supported(events, "6.0.0:pytorch") == ["2.1", "2.0", "1.13"]
    assert supported(events, "6.3.3:jax") == ["0.4.31"]
    assert supported(events, "6.3.0:jax") == ["0.4.31"]  # the edited matrix; 0.4.26 at the tag
    assert supported(events, "6.2.4:jax") == ["0.4.26"]
    dates = {e.version: e.occurred_at for e in events}
    assert dates["6.3.3"] == day(2025, 2, 19) and dates["6.1.2"] == day(2024, 6, 4)
    assert dates["6.0.0"] == day(2023, 12, 15)


def test_rocm_matrix_without_history_skips_undated_releases(corpus):
    events, ctx = run(
        compat_matrix,
        corpus,
        ROCM.format(ref="rocm-6.3.0") + "/docs/compatibility/compatibility-matrix.rst",
        "rocm",
    )
    assert events == []
    assert ctx.skipped == 3 and all("date unknown" in w for w in ctx.warnings)


# ---------------------------------------------------------------------------- ROCm RELEASE.md


def test_rocm_release_md_sections_and_counts(corpus):
    events, ctx = run(
        release_notes,
        corpus,
        ROCM.format(ref="rocm-6.3.0") + "/RELEASE.md",
        "rocm",
        history_url=HISTORY,
    )
    assert ctx.skipped == 0
    assert {(e.version, e.occurred_at) for e in events} == {("6.3.0", day(2024, 12, 3))}
    top = Counter(e.attrs["path"][0] for e in events if e.attrs.get("path"))
    # "## ROCm known issues" has 12 "###" issues, "resolved" 1, "upcoming changes" 2
    assert top["ROCm known issues"] == 12
    assert top["ROCm resolved issues"] == 1
    assert top["ROCm upcoming changes"] == 2
    known = [e for e in events if e.attrs.get("path", [""])[0] == "ROCm known issues"]
    assert all(e.attrs["section"] == "Known issues" for e in known)
    assert known[0].title == "Instinct MI300X reports incorrect raw GPU timestamps"
    assert "command processor firmware" in known[0].body
    highlight = next(e for e in events if e.title == "PyTorch 2.4 support added")
    assert "ROCm 6.3.0 adds support for PyTorch 2.4" in highlight.body
    # component notes: "### **HIP** (6.3.0)" / "#### Resolved issues" bullets
    hip = [e for e in events if e.attrs.get("path", [])[1:2] == ["HIP (6.3.0)"]]
    assert {e.attrs["section"] for e in hip} >= {
        "New features",
        "Resolved issues",
        "Optimizations",
        "Upcoming changes",
    }


def test_rocm_release_md_undated_without_history(corpus):
    events, ctx = run(release_notes, corpus, ROCM.format(ref="rocm-6.3.3") + "/RELEASE.md", "rocm")
    assert events == [] and ctx.skipped == 1
    events, ctx = run(
        release_notes,
        corpus,
        ROCM.format(ref="rocm-6.3.3") + "/RELEASE.md",
        "rocm",
        release_date="2025-02-19",
    )
    assert {(e.version, e.occurred_at) for e in events} == {("6.3.3", day(2025, 2, 19))}


# ---------------------------------------------------------------------------- Neuron (docutils)


def neuron_note(events, version, pattern):
    return next(
        e
        for e in events
        if e.kind == "note" and e.version == version and re.search(pattern, e.body)
    )


def test_neuron_rn_releases_with_dates(corpus):
    events, ctx = run(release_notes, corpus, f"{NEURON}/prev/rn.rst", "neuron-sdk", releases=True)
    assert ctx.skipped == 0
    releases = {e.version: e.occurred_at for e in events if e.kind == "release"}
    # 47 "Neuron 2.x.y (MM/DD/YYYY)" headings, 2.31.0 down to 2.4.0
    assert len(releases) == 47
    assert releases["2.31.0"] == day(2026, 5, 21)
    assert releases["2.24.0"] == day(2025, 6, 24)
    assert releases["2.21.0"] == day(2024, 12, 20)
    assert releases["2.21.0b0"] == day(2024, 12, 3)  # "Neuron 2.21.0 Beta (12/03/2024)"
    assert releases["2.4.0"] == day(2022, 10, 27)
    assert all(e.occurred_at == releases[e.version] for e in events)


def test_neuron_rn_notes_introduce_framework_versions(corpus):
    events, _ = run(release_notes, corpus, f"{NEURON}/prev/rn.rst", "neuron-sdk")
    pt25 = neuron_note(events, "2.21.0", r"adds support for PyTorch 2\.5 and\s+JAX 0\.4\.35")
    assert pt25.occurred_at == day(2024, 12, 20)
    assert pt25.attrs["topic"] == "ML Frameworks" and pt25.attrs["section"] == "New features"
    pt27 = neuron_note(events, "2.24.0", r"adds support for PyTorch 2\.7 and JAX 0\.6")
    assert pt27.occurred_at == day(2025, 6, 24)
    jax06 = neuron_note(events, "2.24.0", r"Upgraded to JAX 0\.6\.0")
    assert jax06.attrs["topic"] == "JAX Training Support"
    pt20 = neuron_note(events, "2.15.0", r"adds support for PyTorch 2\.0 \(Beta\)")
    assert pt20.occurred_at == day(2023, 10, 26)


def test_neuron_component_pytorch(corpus):
    events, ctx = run(release_notes, corpus, f"{NEURON}/components/pytorch.rst", "neuron-sdk")
    assert ctx.skipped == 0
    pt29 = neuron_note(events, "2.27.0", r"^Added support for PyTorch 2\.9$")
    assert (pt29.occurred_at, pt29.attrs["section"]) == (day(2025, 12, 19), "Improvements")
    pt28 = neuron_note(events, "2.26.0", r"^Added support for PyTorch 2\.8")
    assert pt28.occurred_at == day(2025, 9, 18)
    eol = neuron_note(events, "2.29.0", r"PyTorch 2\.7 and 2\.8 are now End of Life")
    assert eol.occurred_at == day(2026, 4, 9)  # "**Date of Release**: 04/09/2026"
    assert neuron_note(events, "2.29.0", r"Segmentation faults").attrs["section"] == "Known issues"


def test_neuron_component_jax(corpus):
    events, ctx = run(release_notes, corpus, f"{NEURON}/components/jax.rst", "neuron-sdk")
    assert ctx.skipped == 0
    dates = {e.version: e.occurred_at for e in events}
    assert dates["2.32.0"] == day(2026, 8, 17) and dates["2.31.0"] == day(2026, 7, 7)
    assert dates["2.24.0"] == day(2025, 6, 20)  # this page's date (rn.rst says 06/24)
    new = neuron_note(
        events, "2.30.0", r"introduces support for JAX versions 0\.8\.2 and 0\.9\.0\.1"
    )
    assert (new.occurred_at, new.attrs["section"]) == (day(2026, 5, 21), "Changes")
    j062 = neuron_note(events, "2.26.0", r"support for JAX version 0\.6\.2")
    assert j062.attrs["section"] == "Improvements"
    assert (
        Counter(e.attrs.get("section") for e in events if e.version == "2.26.0")["Known issues"]
        == 20
    )


def test_neuron_component_vllm_neuron(corpus):
    # the page names no release heading: without overrides it is a counted skip
    events, ctx = run(release_notes, corpus, f"{NEURON}/components/vllm-neuron.rst", "vllm-neuron")
    assert events == [] and ctx.skipped == 1
    # with the release it documents (Neuron 2.32.0, released 08/17/2026 per 2.32.0.rst)
    events, ctx = run(
        release_notes,
        corpus,
        f"{NEURON}/components/vllm-neuron.rst",
        "vllm-neuron",
        version="2.32.0",
        release_date="2026-08-17",
    )
    assert ctx.skipped == 0
    latest = neuron_note(events, "2.32.0", r"Latest version \(in 2\.32\.0\): v0\.24\.0\.1\.1\.0")
    assert latest.occurred_at == day(2026, 8, 17)


def test_neuron_release_content_structured_vllm_mention(corpus):
    events, _ = run(release_notes, corpus, f"{NEURON}/releasecontent.rst", "neuron-sdk")
    vllm = neuron_note(events, "2.32.0", r"supports vLLM version 0\.16\.0")
    assert vllm.occurred_at == day(2026, 8, 17)
    assert vllm.attrs["mentions"] == [
        {"framework": "vllm", "version": "0.16.0", "status": "supported"}
    ]


def test_neuron_nxd_inference_vllm_and_undated_sections(corpus):
    events, ctx = run(release_notes, corpus, f"{NEURON}/components/nxd-inference.rst", "neuron-sdk")
    v013 = neuron_note(events, "2.28.0", r"supports vLLM v0\.13\.0 and Pytorch 2\.9")
    assert v013.occurred_at == day(2026, 2, 26)
    # 2.32.0, 2.31.0 and 2.30.0 sections carry no "Date of Release": skipped, not guessed
    assert ctx.skipped == 3
    assert not {"2.32.0", "2.31.0", "2.30.0"} & {e.version for e in events}


def test_neuron_per_release_page_date_field(corpus):
    events, ctx = run(release_notes, corpus, f"{NEURON}/prev/2.27.0/nx-pytorch.rst", "neuron-sdk")
    assert ctx.skipped == 0
    # "**Date of release**: December 19, 2025" (the meta line says "Release date: TBD")
    assert {(e.version, e.occurred_at) for e in events} == {("2.27.0", day(2025, 12, 19))}
    pt29 = neuron_note(events, "2.27.0", r"^Added support for PyTorch 2\.9")
    assert pt29.attrs["section"] == "Improvements"


@pytest.mark.parametrize(
    "rel_path",
    [
        "aws-neuron-sdk/release-notes/prev/content.rst",
        "aws-neuron-sdk/release-notes/components/containers.rst",
        "aws-neuron-sdk/release-notes/components/dlamis.rst",
        "aws-neuron-sdk/about-neuron/whats-new.rst",
    ],
)
def test_other_neuron_pages_parse_with_dates(corpus, rel_path):
    events, ctx = run(release_notes, corpus, rel_path, "neuron-sdk")
    assert events, ctx.warnings
    assert all(e.occurred_at.tzinfo == UTC and e.version for e in events)


@pytest.mark.parametrize(
    "rel_path",
    [
        f"{NEURON}/prev/rn.rst",
        f"{NEURON}/components/containers.rst",
        f"{ROCM.format(ref='rocm-6.3.0')}/docs/compatibility/compatibility-matrix.rst",
        "rocm/ROCm@develop-e396b48/docs/compatibility/ml-compatibility/pytorch-compatibility.rst",
    ],
)
def test_rst_parser_builds_the_stock_docutils_doctree(corpus, rel_path):
    # the speed-ups of _docs_rst (lazily built nested states) change no node
    import copy

    from docutils.parsers.rst import Parser
    from docutils.utils import new_document

    from tracker.collect.sources import _docs_rst

    text = (corpus / rel_path).read_text(encoding="utf-8")
    ours = _docs_rst.rst_doctree(text)
    stock = new_document("<document>", copy.copy(_docs_rst._SETTINGS))
    Parser().parse(text, stock)
    assert ours.pformat() == stock.pformat()
    assert len(ours.pformat()) > 10_000
