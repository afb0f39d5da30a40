"""doc_history: a supported-models page's git history -> first-listing notes.

The fixture below is a small, real-shaped history of SGLang's supported-models page (real
commit SHAs, dates, paths, family names and Hugging Face ids; our own wording and structure):
a bullet-list era page, the pipe-table page that replaced it, and the MDX HTML table. The
shipped cassette (cassettes/sglang-models.yaml) is replayed end to end through the real HTTP
client.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import vcr

from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, doc_history
from tracker.config import SourceSpec

REPO = Path(__file__).resolve().parents[2]
BULLETS = """# Supported models

## Generative Models
- Llama / Llama 2 / Llama 3 / Llama 3.1 / Llama 3.2 / Llama 3.3 / Llama 4
- DeepSeek / DeepSeek 2 / [DeepSeek 3](https://github.com/sgl-project/sglang/tree/main/benchmark/deepseek_v3)
  - `python3 -m sglang.launch_server --model-path Qwen/Qwen3-32B` (a sub-item: not a listing)

## Embedding Models
- Gemma 3 embeddings (another section)
"""
TABLE = """# Large language models

| Model family (variants) | Example Hugging Face id | Summary |
|---|---|---|
| **Qwen** (3, 3MoE, 2.5, 2 series) | `Qwen/Qwen3-4B-Base`, `Qwen/Qwen3-MoE-15B-A2B` | As Llama 4. |
| **GPT-OSS** | `openai/gpt-oss-20b` | Preview of the week. |
| **Gemma 3n** (beta) | `google/gemma-3n-E4B-it` | |
"""
MDX = """---
title: Large Language Models
---
<table>
  <tbody>
    <tr>
      <td style={{padding: "9px 12px"}}><strong>MiniMax-M2</strong></td>
      <td style={{padding: "9px 12px"}}><code>minimax/MiniMax-M2</code></td>
      <td style={{padding: "9px 12px"}}>Summary naming DeepSeek-V4, not a listing.</td>
    </tr>
  </tbody>
</table>
"""


def test_bullet_list_reads_its_section_top_level_items_and_version_slashes():
    got = doc_history.listed_families(BULLETS, "Generative Models")
    assert {"llama3.1", "llama3.2", "llama3.3", "llama4", "deepseek-v3"} <= set(got)
    assert "qwen3" not in got  # a launch command under an item
    assert "gemma3" not in got  # another section


def test_sglang_jax_style_slash_takes_the_first_name():
    got = doc_history.listed_families("- **DeepSeek V2 / V3**\n- **Qwen 3** / **Qwen 3 MoE**\n")
    assert {"deepseek-v3", "qwen3", "qwen3-moe"} <= set(got)


def test_pipe_table_reads_family_and_id_cells_only_and_drops_beta_rows():
    got = doc_history.listed_families(TABLE)
    assert {"qwen3", "qwen3-moe", "qwen2.5", "gpt-oss"} <= set(got)
    assert "llama4" not in got  # named in the description column only
    assert "gemma3n" not in got  # the row calls itself beta


def test_mdx_html_table_rows():
    assert set(doc_history.listed_families(MDX)) == {"minimax-m2"}


def _ctx(spec_id: str, state: dict | None = None) -> tuple[CollectContext, SourceSpec]:
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source(spec_id)
    return CollectContext(spec, http=HttpClient(), state=state or {}), spec


def test_sglang_models_cassette_dates_each_family_by_its_first_listing_commit():
    ctx, _ = _ctx("sglang-models")
    with vcr.use_cassette(str(REPO / "cassettes" / "sglang-models.yaml"), record_mode="none"):
        events = list(doc_history.collect(ctx))
    assert ctx.skipped == 0
    by = {e.external_id: e for e in events}
    assert len(by) == len(events)  # one note per family
    llama4 = by["listed:llama4"]  # added to the bullet list by f04c80dc (#5092)
    assert llama4.occurred_at == datetime(2025, 4, 7, 7, 29, 36, tzinfo=UTC)
    assert llama4.url == (
        "https://github.com/sgl-project/sglang/blob/f04c80dc42beee26851cb03a2b49fa3cca876607/"
        "docs/references/supported_models.md"
    )
    assert by["listed:gpt-oss"].occurred_at.date().isoformat() == "2025-09-07"  # b0fcbb74 #10134
    assert by["listed:minimax-m2"].attrs["commit"].startswith("7ebc28f5d6")
    # the first page read says "listed by then", not since when
    assert by["listed:mixtral"].attrs["baseline"] is True
    assert by["listed:qwen3"].attrs["baseline"] is False
    assert all(e.attrs["mentions"][0]["status"] == "supported" for e in events)
    # a later run reads no commit twice and re-announces nothing
    state = json.loads(json.dumps(ctx.state))
    again, _ = _ctx("sglang-models", state)
    with vcr.use_cassette(str(REPO / "cassettes" / "sglang-models.yaml"), record_mode="none"):
        assert list(doc_history.collect(again)) == []


def test_sglang_jax_readme_history_is_xla_evidence():
    ctx, spec = _ctx("sglang-jax-models")
    with vcr.use_cassette(str(REPO / "cassettes" / "sglang-jax-models.yaml"), record_mode="none"):
        events = list(doc_history.collect(ctx))
    got = {e.external_id.split(":", 1)[1]: e.occurred_at.date().isoformat() for e in events}
    assert spec.regime == "xla" and all(e.regime == "xla" for e in events)
    assert got["qwen3-moe"] == "2025-08-22" and got["deepseek-v3"] == "2026-05-03"
    assert "llama4" not in got  # named in a later README section, not the model list


def test_revisions_mode_reads_a_page_revision_by_revision_with_what_each_changed():
    """aws-neuron-sdk's component index and release-content page (cassettes/neuron-sdk-pages.yaml,
    the real history trimmed): one commit event per revision, its added lines (with context) as
    the body and its removed lines in attrs.revision; the first revision read holds the whole
    page; a second run reads nothing new."""
    from tracker.jobs.config import load_config

    root = Path(__file__).resolve().parents[2]
    spec = load_config(root / "sources.yaml").source("neuron-sdk-pages")
    cassette = str(root / "cassettes" / "neuron-sdk-pages.yaml")
    ctx = CollectContext(spec, http=HttpClient())
    with vcr.use_cassette(cassette, record_mode="none"):
        events = list(doc_history.collect(ctx))
    by = {e.external_id.split(":")[1][:8] + ":" + e.attrs["revision"]["path"]: e for e in events}
    index = "release-notes/components/index.rst"
    first = by[f"060aef30:{index}"]
    assert (
        first.kind == "commit"
        and "0.6.0" in first.body
        and first.attrs["revision"]["removed"] == ""
    )
    listed = by[f"ee7d6e00:{index}"]
    assert "0.21.0.1.0.0 (supports vLLM version 0.21.0" in listed.body
    assert "vLLM plugin for Neuron" in listed.body  # the row's name: context of its version cell
    withdrawn = by[f"993f75b6:{index}"]
    assert "0.21.0.1.0.0" in withdrawn.attrs["revision"]["removed"]
    assert "0.16.0.*" in withdrawn.body and "0.21.0.1.0.0" not in withdrawn.body
    assert withdrawn.url.endswith(f"/blob/993f75b6647a71dcece27626d8c8708864ea64de/{index}")
    assert withdrawn.occurred_at.isoformat() == "2026-07-10T19:32:43+00:00"
    again = CollectContext(spec, http=HttpClient(), state=json.loads(json.dumps(ctx.state)))
    with vcr.use_cassette(cassette, record_mode="none", allow_playback_repeats=True):
        assert list(doc_history.collect(again)) == []
