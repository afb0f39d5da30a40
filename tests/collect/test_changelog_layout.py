"""changelog_markdown: a changelog whose release headings are not where the source says is a
reported skip ("layout changed?"), never a silent run with no events."""

from __future__ import annotations

import pytest

from tracker.collect.sources import CollectContext, changelog_markdown
from tracker.config import SourceSpec


def jax_ctx(**options) -> CollectContext:
    options.setdefault("url", "https://example.test/CHANGELOG.md")
    return CollectContext(SourceSpec("jax-changelog", "changelog_markdown", "jax", options=options))


MOVED = """# Change log

## Unreleased

### jax 0.9.0 (January 20, 2026)

* Fixed a crash on ROCm.
"""

HTML = b"<html><body><h1>JAX</h1><p>Sign in to GitHub</p></body></html>"


@pytest.mark.parametrize("content", [MOVED.encode(), HTML], ids=["moved-to-h3", "html-page"])
def test_no_release_heading_at_the_level_is_one_document_skip(content):
    ctx = jax_ctx()
    assert list(changelog_markdown.parse(content, ctx)) == []
    assert ctx.skipped == 1
    assert "jax-changelog: skipped document: no release heading" in ctx.warnings[0]
    assert "'## <package> <version> (<date>)'" in ctx.warnings[0]
    assert "level 2" in ctx.warnings[0] and "layout changed?" in ctx.warnings[0]


def test_heading_level_option_reads_the_moved_layout():
    ctx = jax_ctx(heading_level=3)
    events = list(changelog_markdown.parse(MOVED.encode(), ctx))
    assert [(e.kind, e.version) for e in events] == [("release", "0.9.0"), ("note", "0.9.0")]
    assert ctx.skipped == 0


def test_release_headings_of_another_package_only_are_not_a_layout_change():
    ctx = jax_ctx()
    text = "# Change log\n\n## jaxlib 0.9.0 (January 20, 2026)\n\n* Fixed a crash on ROCm.\n"
    events = list(changelog_markdown.parse(text.encode(), ctx))
    assert [(e.kind, e.attrs.get("package")) for e in events] == [("note", "jaxlib")]
    assert ctx.skipped == 0
