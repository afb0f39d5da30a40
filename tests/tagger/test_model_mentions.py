"""Model-family mentions: the alias table folds sizes and variants into a family id, and the
status rules keep beta / preview / planned / dropped apart from support."""

from __future__ import annotations

import pytest

from tracker.errors import ConfigError
from tracker.mentions.families import load_families, normalise_name, parse_families
from tracker.mentions.model_mentions import extract_model_mentions


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
    from tracker.mentions import model_mentions

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


# -- support said other ways (made-up sentences in the shape of real release notes) ----------


@pytest.mark.parametrize(
    "text, expected",
    [
        # support without the word "support"
        ("Gemma 3 27B now runs on Trn2 instances.", [("gemma3", "supported")]),
        ("Qwen3-32B passes the accuracy and performance tests on v6e.", [("qwen3", "supported")]),
        ("New model: Qwen3-Next 80B.", [("qwen3-next", "supported")]),
        ("Llama 4 Maverick is available on Day 0.", [("llama4", "supported")]),
        ("Suppport for DBRX inference.", [("dbrx", "supported")]),
        # limits and negatives
        ("Pixtral is supported up to batch size 8.", [("pixtral", "other")]),
        ("Qwen2.5-3B (not tested, expected to work)", [("qwen2.5", "other")]),
        ("Mixtral is tested only on Trn1.", [("mixtral", "other")]),
        ("Only Llama 4 is supported for multimodal input.", [("llama4", "supported")]),
        (
            "Models using this kernel (Llama 4, DBRX) should be pinned to 2.28.",
            [("llama4", "other"), ("dbrx", "other")],
        ),  # fmt: skip
        # a feature supported for a model is not support of the model
        ("Support for scaled RoPE for Llama 3.1 models.", [("llama3.1", "other")]),
        ("NxD Inference supports speculative decoding on Llama 3.3 70B.", [("llama3.3", "other")]),
        (
            "LoRA serving is supported for Llama 3.1 8B and Llama 3.3 70B.",
            [("llama3.1", "other"), ("llama3.3", "other")],
        ),  # fmt: skip
        ("Qwen3 VL adds sequence parallelism for long prompts.", [("qwen3-vl", "other")]),
        (
            "Removed support for the legacy checkpoint format in Llama 3.2 code.",
            [("llama3.2", "other")],
        ),  # fmt: skip
        # ... but the model as the object of support still is
        ("Added support for Qwen3 dense models on Trn2.", [("qwen3", "supported")]),
        (
            "NxD Inference supports models based on the Mixtral architecture.",
            [("mixtral", "supported")],
        ),  # fmt: skip
        # slash abbreviations name every family
        (
            "Added support for Llama 3/3.1 70B.",
            [("llama3", "supported"), ("llama3.1", "supported")],
        ),
        (
            "Adds support for Qwen2/Qwen3 VL models.",
            [("qwen2-vl", "supported"), ("qwen3-vl", "supported")],
        ),  # fmt: skip
        ("Qwen3-Omni-30B-A3B untested", [("qwen3-omni", "other")]),
    ],
)
def test_support_said_other_ways(text, expected):
    assert fams(text) == expected


@pytest.mark.parametrize(
    "text, context, expected",
    [
        # an introduction in the text carries into the list below it
        ("Compatible models include:\n- Qwen3-8B\n- Qwen3-32B", None, [("qwen3", "supported")]),
        (
            "Beta support for Llama 4, checked on Trn2. These checkpoints work:\n"
            "- Llama-4-Scout-17B-16E-Instruct",
            None,
            [("llama4", "other")],
        ),
        (
            "The following models are tested only on Trn1:\n- Mixtral\n- DBRX",
            None,
            [("mixtral", "other"), ("dbrx", "other")],
        ),  # fmt: skip
        # ... an item's own words win: a bug fix in the list stays other
        (
            "Supported models:\n- Gemma 3 27B\n- Fixed a crash in Pixtral",
            None,
            [("gemma3", "supported"), ("pixtral", "other")],
        ),  # fmt: skip
        # the heading, lead-in or introduction the collector stored beside the item
        ("Llama 3.2 11B (Multimodal)", "Models in this Release", [("llama3.2", "supported")]),
        ("Qwen3-235B-A22B", "Qwen3 MoE model support (beta)", [("qwen3-moe", "other")]),
        (
            "Qwen3-235B-A22B is tested on Trn2.",
            "Qwen3 MoE model support (beta)",
            [("qwen3-moe", "other")],
        ),  # fmt: skip
        # a heading that does not speak of models carries nothing
        ("Llama 4 Scout", "Improvements", [("llama4", "other")]),
        # a wrapped sentence reads as one
        (
            "NxDI supports several architectures,\nincluding Llama 3.2 and Llama 3.3.",
            None,
            [("llama3.2", "supported"), ("llama3.3", "supported")],
        ),  # fmt: skip
        ("Neuron adds support for Llama\n3.1 on Trn2.", None, [("llama3.1", "supported")]),
        # a title and a body are not one sentence
        (
            "Llama 4 support\nLlama 4 crashes on load",
            None,
            [("llama4", "supported"), ("llama4", "other")],
        ),
        # a bare repeat takes the family's status (a link to a sample)
        (
            "Support for Llama 3.1 models. See the sample for Llama-3.1-405B.",
            None,
            [("llama3.1", "supported")],
        ),  # fmt: skip
    ],
)
def test_status_carried_from_context(text, context, expected):
    got = [(m["model"], m["status"]) for m in extract_model_mentions(text, context=context)]
    assert got == expected


def test_the_tagger_reads_the_context_only_for_model_mentions():
    from tracker.tagger import load_tagger

    bare, framed = load_tagger().tag_many(
        ["Qwen3-32B", {"text": "Qwen3-32B", "heading": "Supported models", "section": None}]
    )
    assert [m["status"] for m in bare.mentions] == ["other"]
    assert [m["status"] for m in framed.mentions] == ["supported"]
    assert (bare.tag, bare.regime) == (framed.tag, framed.regime)
