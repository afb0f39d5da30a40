"""Model-family mentions: the alias table folds sizes and variants into a family id, and the
status rules keep beta / preview / planned / dropped apart from support."""

from __future__ import annotations

import pytest

from tracker.errors import ConfigError
from tracker.tagger.families import load_families, normalise_name, parse_families
from tracker.tagger.model_mentions import extract_model_mentions


def fams(text: str) -> list[tuple[str, str]]:
    return [(m["model"], m["status"]) for m in extract_model_mentions(text)]


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Added support for Qwen3-235B-A22B.", [("qwen3-moe", "supported")]),
        ("Added support for Qwen3-32B.", [("qwen3", "supported")]),
        ("Qwen3.5 is now supported.", [("qwen3.5", "supported")]),
        ("Day 0 support for Llama 4 Scout and Maverick.", [("llama4", "supported")]),
        ("Supports GPT-OSS 20B/120B on MI355X.", [("gpt-oss", "supported")]),
        ("Added support for DeepSeek-V3.1.", [("deepseek-v3.1", "supported")]),
        ("Added support for DeepSeek-V3.", [("deepseek-v3", "supported")]),
        ("Add Qwen3MoeForCausalLM to the model registry.", [("qwen3-moe", "supported")]),
        ("Gemma 3 support (Beta).", [("gemma3", "other")]),
        ("Added beta support for Llama 4.", [("llama4", "other")]),
        ("Qwen3 MoE preview support.", [("qwen3-moe", "other")]),
        ("Support for Llama 4 is in early access.", [("llama4", "other")]),
        ("Support for Gemma 3n is planned for a future release.", [("gemma3n", "planned")]),
        ("Mixtral is no longer supported on Trn1.", [("mixtral", "dropped")]),
        ("crash loading Llama-3.2-11B-Vision", [("llama3.2", "other")]),
        ("meta-llama/Llama-3.1-8B-Instruct validated", [("llama3.1", "supported")]),
        ("run the command a second time with llama.cpp and seed 3", []),
        # two statements joined by "and": each family takes its own part's cue
        (
            "Added support for Qwen3 dense models and beta support for Llama 4.",
            [("qwen3", "supported"), ("llama4", "other")],
        ),
        ("Qwen3 and Llama 4 are in beta.", [("qwen3", "other"), ("llama4", "other")]),
        # ... and a comma before a framing verb; a plain list keeps one statement
        (
            "Added support for Llama 3.3 70B, removed Llama 3.1 405B.",
            [("llama3.3", "supported"), ("llama3.1", "dropped")],
        ),
        (
            "Llama 3.1 405B, Llama 3.3 70B and Qwen3 are no longer supported on Trn1.",
            [("llama3.1", "dropped"), ("llama3.3", "dropped"), ("qwen3", "dropped")],
        ),
    ],
)
def test_families_and_status(text, expected):
    assert fams(text) == expected


def test_hardware_is_kept_as_an_attribute():
    (m,) = extract_model_mentions("Added support for Qwen3 dense models, tested on Trn1.")
    assert m == {"model": "qwen3", "status": "supported", "hardware": ["trn1"]}


def test_the_tagger_returns_model_mentions_beside_framework_ones():
    from tracker.tagger import load_tagger

    res = load_tagger().tag("Added support for Qwen3-30B-A3B and PyTorch 2.9 on Trn2")
    assert {"framework": "pytorch", "version": "2.9", "status": "supported"} in res.mentions
    assert {"model": "qwen3-moe", "status": "supported", "hardware": ["trn2"]} in res.mentions


def test_shipped_table_one_family_per_alias_and_class():
    table = load_families()
    assert table.aliases[normalise_name("Qwen3 MoE")] == "qwen3-moe"
    assert table.arch["DeepseekV3ForCausalLM"] == "deepseek-v3"
    assert table.families["llama4"].vllm == "v0.8.3"
    assert table.families["gpt-oss"].weights_date.date().isoformat() == "2025-08-05"


def test_table_rejects_an_alias_named_twice():
    raw = {"families": [{"id": "a", "aliases": ["Foo 1"]}, {"id": "b", "aliases": ["foo-1"]}]}
    with pytest.raises(ConfigError, match="names 'a' and 'b'"):
        parse_families(raw, "x.yaml")


SPELLINGS = [
    "Added support for Mixtral-8x7B",
    "Support Llama-3.1-8B-Instruct",
    "Added DeepSeek-V3.1 support",
    "Qwen2.5-VL-7B now supported",
    "gemma-3-27b-it validated",
    "openai/gpt-oss-120b supported",
    "Add Gemma3ForCausalLM",
    "Added support for Phi-4-multimodal-instruct",
    "Support for GLM-4.5-Air",
    "Kimi-K2.5 support added",
    "Llama-4-Scout-17B-16E-Instruct validated",
    "Qwen3-Coder-480B-A35B-Instruct supported",
    "OLMo-2-1124-7B supported",
    "ERNIE-4.5-21B-A3B-PT added",
    "DeepSeek-R1-0528 supported",
    "meta-llama/Llama-3.3-70B-Instruct and Qwen/Qwen3-32B supported on v6e",
]


def test_the_tagger_finds_what_a_full_scan_finds():
    """The tagger only looks where its head-token lookup points: it must miss nothing a scan
    of the whole text finds."""
    from tracker.tagger import load_tagger

    results = load_tagger().tag_many(SPELLINGS)
    for text, res in zip(SPELLINGS, results, strict=True):
        tagged = [m for m in res.mentions if "model" in m]
        assert tagged and tagged == extract_model_mentions(text), text


def test_memoised_lookups_give_each_caller_its_own_answer(monkeypatch):
    """Name resolutions and clause readings are memoised by their text (speed): a repeat must
    give the same mentions, a caller editing its result must not change the next one, and a
    memo cleared at its bound must answer as before."""
    from tracker.tagger import model_mentions

    text = "Added support for Qwen3-30B-A3B on Trn2 and MI300X."
    first = extract_model_mentions(text)
    assert first == [{"model": "qwen3-moe", "status": "supported", "hardware": ["mi300x", "trn2"]}]
    first[0]["hardware"].append("edited")
    assert extract_model_mentions(text) == [
        {"model": "qwen3-moe", "status": "supported", "hardware": ["mi300x", "trn2"]}
    ]
    monkeypatch.setattr(model_mentions._Memo, "MAX", 1)
    model_mentions._NAMES.clear()
    model_mentions._CLAUSES.clear()
    for t in (text, "Gemma 3 support (Beta).", text):
        assert extract_model_mentions(t)
    assert len(model_mentions._NAMES) <= 1 and len(model_mentions._CLAUSES) <= 1
    assert extract_model_mentions(text)[0]["hardware"] == ["mi300x", "trn2"]
