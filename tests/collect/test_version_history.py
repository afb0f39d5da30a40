"""version_history: the git history of a vendor's supported-versions tables -> one note per
(framework, version), dated by the first commit listing the release.

The shipped cassette (cassettes/therock-versions.yaml: TheRock's real commits and the versions
each listed) is replayed end to end through the real HTTP client.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, version_history
from tracker.mentions.mentions import extract_mentions_at

REPO = Path(__file__).resolve().parents[2]
CASSETTE = REPO / "cassettes" / "therock-versions.yaml"

README = """# PyTorch builds

### Supported PyTorch versions

| PyTorch version | Linux | Windows |
| --------------- | ----- | ------- |
| 2.13            | ✅ [release/2.13](https://github.com/ROCm/pytorch/tree/release/2.13) | ✅ |
| 2.13 alpha      | ✅ nightly | ✅ nightly |
| 2.8             | Previously built | Unsupported |
| 2.7             | ✅ release branch | ❌ |
| main            | ✅ | ✅ |

## Building

Version 9.9 is supported in prose, not in the table.
"""
RELEASES = """# Releases

#### Installing PyTorch Python packages

> | torch version | torchaudio version |
> | ------------- | ------------------ |
> | 2.14          | 2.11               |

#### Installing JAX Python packages

```bash
# Set the version (currently supported: 0.10.1, 0.10.2, and 0.11.0)
JAX_VERSION=0.11.0
```

> | jax version | jaxlib version   |
> | ----------- | ---------------- |
> | 0.9.2       | 0.9.2 (upstream) |

#### Installing native packages

rocm 7.15.0 is currently supported here (no framework in this heading).
"""


def _ctx(state: dict | None = None) -> CollectContext:
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source("therock-versions")
    return CollectContext(spec, http=HttpClient(), state=state or {})


def test_pytorch_table_reads_release_rows_only():
    got = version_history.listed_versions(README, "Supported PyTorch versions")
    # "2.13 alpha" is upstream's nightly, "main" no release, 2.8 no longer built; 2.7 is built
    # on Linux (a platform cell that builds it is enough)
    assert sorted(got) == [("pytorch", "2.13"), ("pytorch", "2.7")]


def test_releases_tables_and_inline_lists_under_a_framework_heading():
    got = version_history.listed_versions(RELEASES)
    assert sorted(got) == [
        ("jax", "0.10.1"),
        ("jax", "0.10.2"),
        ("jax", "0.11.0"),
        ("jax", "0.9.2"),
        ("pytorch", "2.14"),
    ]  # the "# Set the version" comment is code, not a heading; rocm 7.15.0 names no framework


def test_hostile_documents_are_bounded_and_never_raise():
    rows = "\n".join(f"| {n}.{n} | ✅ |" for n in range(5000))
    huge = "| PyTorch version | Linux |\n| --- | --- |\n" + rows
    assert len(version_history.listed_versions(huge)) == version_history.MAX_VERSIONS
    for text in (
        "|",
        "| |\n|",
        "```\n# jax\nsupported: 1.2",
        "#" * 10_000,
        "\x00| jax version |\n|x|",
    ):
        version_history.listed_versions(text)


def test_therock_cassette_dates_each_version_by_its_first_release_row():
    ctx = _ctx()
    with vcr.use_cassette(str(CASSETTE), record_mode="none"):
        events = list(version_history.collect(ctx))
    assert ctx.skipped == 0
    by = {e.external_id: e for e in events}
    assert len(by) == len(events)
    # README's release row of 2.13 (commit 013e3cb9); its "2.13 alpha" row came on 2026-05-12
    torch = by["listed:pytorch-2.13"]
    assert torch.occurred_at == datetime(2026, 7, 23, 16, 31, 50, tzinfo=UTC)
    assert torch.url == (
        "https://github.com/ROCm/TheRock/blob/013e3cb9928a76b2eea52151b29dc18473a8cdbe/"
        "external-builds/pytorch/README.md"
    )
    assert torch.project == "therock" and torch.regime == "rocm" and torch.kind == "note"
    assert torch.attrs["mentions"] == [
        {"framework": "pytorch", "version": "2.13", "status": "supported"}
    ]
    # RELEASES.md's torch table names 2.10 from 2025-11-03, before PyTorch released it: only
    # its JAX versions are read, so 2.10 is dated by README's release row (2026-01-26)
    assert by["listed:pytorch-2.10"].occurred_at.date().isoformat() == "2026-01-26"
    assert by["listed:jax-0.10.0"].occurred_at.date().isoformat() == "2026-06-29"
    assert by["listed:jax-0.11.0"].attrs["path"] == "RELEASES.md"
    assert by["listed:pytorch-2.7"].attrs["baseline"] is True
    assert by["listed:pytorch-2.12"].attrs["baseline"] is False
    # a re-run reads no commit twice and re-announces nothing
    again = _ctx(json.loads(json.dumps(ctx.state)))
    with vcr.use_cassette(str(CASSETTE), record_mode="none"):
        assert list(version_history.collect(again)) == []


def test_note_text_reads_as_support_to_the_shared_mention_extractor():
    ctx = _ctx()
    with vcr.use_cassette(str(CASSETTE), record_mode="none"):
        event = next(e for e in version_history.collect(ctx) if e.external_id.endswith("2.11"))
    anchor = event.body.index("PyTorch")
    mentions = extract_mentions_at(event.body, [("zzfw_pytorch", anchor)])
    assert {(m["framework"], m["version"], m["status"]) for m in mentions} == {
        ("pytorch", "2.11", "supported")
    }
