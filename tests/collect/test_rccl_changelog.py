"""rccl_changelog: RCCL's changelog sections -> one note per ROCm release with the NCCL versions
the section names. Heading forms and versions as RCCL's changelog writes them (ROCm/rccl and
ROCm/rocm-systems projects/rccl CHANGELOG.md); bullet texts other than the compatibility lines
are placeholders."""

from __future__ import annotations

from datetime import UTC, datetime

from tracker.collect.sources import CollectContext
from tracker.collect.sources.rccl_changelog import parse
from tracker.config import SourceSpec

URL = "https://raw.githubusercontent.com/ROCm/rocm-systems/develop/projects/rccl/CHANGELOG.md"
TEXT = """# Changelog for RCCL

## RCCL 2.31.2 for ROCm 10.0.0 (Unreleased)
### Added
* Compatibility with NCCL 2.31.2.

## RCCL 2.30.4 for ROCm 7.14.0
### Added
* Compatibility with NCCL 2.30.4.
* Compatibility with NCCL 2.29.7.
* a placeholder bullet

## RCCL 2.28.3 for ROCm 7.11

## Notes for packagers

## RCCL 2.17.1-1 for ROCm 5.7.0
### Changed
- Compatibility with NCCL 2.17.1-1

## [RCCL-2.8.4 for ROCm 4.2.0]
### Added
- Compatibility with NCCL 2.8.4
"""
READ = datetime(2026, 8, 22, 12, tzinfo=UTC)


def _ctx() -> CollectContext:
    return CollectContext(
        SourceSpec("rccl-changelog", "rccl_changelog", "rccl", "rocm", options={"url": URL})
    )


def test_each_section_names_its_release_and_nccl_versions():
    ctx = _ctx()
    events = {e.external_id: e for e in parse(TEXT.encode(), ctx, READ)}
    assert set(events) == {
        "section:rocm-10.0.0",
        "section:rocm-7.14.0",
        "section:rocm-7.11",
        "section:rocm-5.7.0",
        "section:rocm-4.2.0",
    }
    rocm714 = events["section:rocm-7.14.0"]
    assert (rocm714.kind, rocm714.version, rocm714.occurred_at, rocm714.url) == (
        "note",
        "2.30.4",
        READ,
        URL,
    )
    assert rocm714.attrs == {
        "rccl": "2.30.4",
        "rocm": "7.14.0",
        "nccl": ["2.30.4", "2.29.7"],
        "unreleased": False,
    }
    assert events["section:rocm-7.11"].attrs["nccl"] == ["2.28.3"]  # its own RCCL version
    assert events["section:rocm-5.7.0"].attrs["nccl"] == ["2.17.1"]  # 2.17.1-1: build 1
    assert events["section:rocm-4.2.0"].attrs["rccl"] == "2.8.4"  # bracketed, "RCCL-"
    assert events["section:rocm-10.0.0"].attrs["unreleased"] is True
    assert ctx.skipped == 1  # "Notes for packagers": named, the rest goes on


def test_a_document_without_sections_is_one_skip_not_a_silent_run():
    ctx = _ctx()
    assert list(parse(b"<html><body>moved</body></html>", ctx, READ)) == []
    assert ctx.skipped == 1
