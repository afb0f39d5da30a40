"""config_history: a benchmark's configuration files' git history -> first-configuration events.

The shipped cassette (cassettes/inferencex-configs.yaml: the real InferenceX history, trimmed
as its header says) is replayed through the real HTTP client; incremental reads, moved files
and hostile YAML are served by pytest-httpserver on loopback.
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
import vcr

from tests.yaml_bombs import NAMES
from tracker.collect.http import HttpClient
from tracker.collect.sources import CollectContext, config_history
from tracker.config import SourceSpec

REPO = Path(__file__).resolve().parents[2]
CASSETTE = str(REPO / "cassettes" / "inferencex-configs.yaml")
SHA = [f"{n:040x}" for n in range(1, 10)]


def _configs(events) -> list:
    """The configuration events (each image's first commit is an event of its own)."""
    return [e for e in events if "config" in e.attrs]


def _images(events) -> dict[str, object]:
    return {e.attrs["image"]: e for e in events if "image" in e.attrs and "config" not in e.attrs}


def _replayed(state: dict | None = None) -> tuple[CollectContext, list]:
    from tracker.jobs.config import load_config

    spec = load_config(REPO / "sources.yaml").source("inferencex-configs")
    ctx = CollectContext(spec, http=HttpClient(), state=state or {})
    with vcr.use_cassette(CASSETTE, record_mode="none"):
        events = list(config_history.collect(ctx))
    return ctx, events


def test_recorded_history_dates_each_image_by_the_first_commit_naming_it():
    """The first commit whose files name each vLLM ROCm image (git log -p of the paths, main):
    an image bumped on an entry seen before is a record of its own."""
    _, events = _replayed()
    images = _images(events)
    first = {
        "v0.14.0": ("25bda3d71ed0", datetime(2026, 1, 21, 23, 35, 40, tzinfo=UTC)),
        "v0.17.0": ("87250a0e220c", datetime(2026, 3, 9, 17, 24, 2, tzinfo=UTC)),
        "v0.18.0": ("0d571de27697", datetime(2026, 3, 23, 14, 38, 33, tzinfo=UTC)),
        "v0.19.0": ("0ee5ff342d54", datetime(2026, 4, 5, 16, 59, 34, tzinfo=UTC)),
        "v0.21.0": ("370a162f3f9b", datetime(2026, 5, 15, 21, 57, 5, tzinfo=UTC)),
        "v0.24.0": ("44a797e14a70", datetime(2026, 7, 5, 15, 23, 26, tzinfo=UTC)),
        "v0.27.1": ("73bd8e2004b8", datetime(2026, 8, 12, 14, 17, 29, tzinfo=UTC)),
    }
    for tag, (sha, when) in first.items():
        event = images[f"vllm/vllm-openai-rocm:{tag}"]
        assert event.kind == "commit" and event.body == f"vllm/vllm-openai-rocm:{tag}"
        assert event.url.split("/commit/")[1].startswith(sha) and event.occurred_at == when
    assert len({e.external_id for e in events}) == len(events)


def test_recorded_history_dates_each_configuration_by_its_first_commit():
    ctx, events = _replayed()
    events = _configs(events)
    assert len(events) == 451 and len({e.external_id for e in events}) == 451
    # the one real commit whose amd-master.yaml is not YAML (a full-width comma): one skip
    assert ctx.skipped == 1 and "dee9cf73a0" in ctx.warnings[0]
    assert ctx.warnings[0].startswith("inferencex-configs: skipped .github/configs/amd-master")
    by = {e.external_id: e for e in events}
    glm5 = by["config:glm5-fp8-mi355x-sglang|zai-org/GLM-5-FP8|mi355x|sglang"]
    assert glm5.kind == "commit" and glm5.regime == "rocm"
    assert glm5.occurred_at == datetime(2026, 3, 7, 4, 37, 40, tzinfo=UTC)
    assert glm5.url == (
        "https://github.com/SemiAnalysisAI/InferenceX/commit/f3d0fc5bd7b148daad4e16a7ae79cbf762e9e278"
    )
    assert glm5.attrs["mentions"] == [{"model": "glm-5", "status": "supported"}]
    assert glm5.attrs["config"]["path"] == ".github/configs/amd-master.yaml"
    # a vendor's quantized repackaging is the family it quantizes; runners name their hardware
    k3 = [e for e in events if e.attrs["config"]["model"] == "moonshotai/Kimi-K3"]
    assert {e.attrs["mentions"][0]["model"] for e in k3} == {"kimi-k3"}
    amd = [e for e in k3 if e.regime == "rocm"]
    assert {e.attrs["config"]["runner"] for e in amd} == {"cluster:mi355x-amds"}
    assert {e.attrs["config"]["hardware"] for e in amd} == {"mi355x"}
    nv = [e for e in events if e.attrs["config"]["model"] == "nvidia/GLM-5.1-NVFP4"]
    assert nv and all(e.regime == "cuda" for e in nv)
    assert {e.attrs["mentions"][0]["model"] for e in nv} == {"glm-5.1"}
    # entries of the files' new paths (moved 2026-07-02) are read; moved entries are not new
    assert any(e.attrs["config"]["path"] == "configs/nvidia-master.yaml" for e in events)
    assert not any("deprecated" in e.attrs["config"]["path"] for e in events)
    # the first commit read says "configured by then": its entries, on both files, are baseline
    first = [e for e in events if e.attrs["config"]["commit"].startswith("17d5e204f2")]
    assert {e.regime for e in first} == {"cuda", "rocm"}  # nvidia- and amd-master.yaml
    assert all(e.attrs["config"]["baseline"] for e in first)
    assert sum(e.attrs["config"]["baseline"] for e in events) == len(first)
    regimes = Counter(e.regime for e in events)
    assert regimes["none"] == 0 and regimes["rocm"] > 100 and regimes["cuda"] > 250


def test_a_later_run_reads_no_commit_twice():
    ctx, _ = _replayed()
    state = json.loads(json.dumps(ctx.state))
    again, events = _replayed(state)
    assert events == [] and again.skipped == 0


def _spec(base: str, paths: list[str]) -> SourceSpec:
    return SourceSpec(
        id="bench",
        kind="config_history",
        project="bench",
        regime=None,
        options={
            "repo": "o/r",
            "paths": paths,
            "hardware": {"rocm": ["mi355x"], "cuda": ["b200"]},
            "api_url": base,
            "raw_url": base + "/raw",
        },
    )


def _listing(httpserver, path: str, commits: list[tuple[str, str]]) -> None:
    httpserver.expect_request("/repos/o/r/commits", query_string={"path": path, "per_page": "100"}
                              ).respond_with_json(
        [{"sha": sha, "commit": {"committer": {"date": when}}} for sha, when in commits]
    )  # fmt: skip


def _file(httpserver, sha: str, path: str, text: str) -> None:
    httpserver.expect_request(f"/raw/o/r/{sha}/{path}").respond_with_data(text)


ENTRY = "{key}:\n  model: {model}\n  runner: {runner}\n  framework: {fw}\n  image: img\n"


def _entry(key: str, model: str, runner: str, fw: str = "vllm") -> str:
    return ENTRY.format(key=key, model=model, runner=runner, fw=fw)


def test_moved_file_and_incremental_run_fetch_only_new_commits(httpserver):
    old, new = ".github/configs/amd.yaml", "configs/amd.yaml"
    a = _entry("glm5-mi355x", "amd/GLM-5.1-MXFP4", "mi355x")
    b = _entry("k3-b200", "nvidia/Kimi-K3-NVFP4", "b200-dgxc")
    _listing(httpserver, old, [(SHA[1], "2026-03-02T00:00:00Z"), (SHA[0], "2026-03-01T00:00:00Z")])
    _listing(httpserver, new, [])
    _file(httpserver, SHA[0], old, a)
    _file(httpserver, SHA[1], old, a + b)
    spec = _spec(httpserver.url_for("").rstrip("/"), [old, new])
    ctx = CollectContext(spec, http=HttpClient())
    first = _configs(config_history.collect(ctx))
    assert [(e.occurred_at.day, e.regime) for e in first] == [(1, "rocm"), (2, "cuda")]
    assert first[0].attrs["config"]["baseline"] and not first[1].attrs["config"]["baseline"]
    # the file moves (same entries at the new path) and one entry is added there
    httpserver.clear()
    c = _entry("m3-mi355x", "MiniMaxAI/MiniMax-M3-MXFP8", "cluster:mi355x-amds", "sglang")
    _listing(httpserver, old, [(SHA[1], "2026-03-02T00:00:00Z"), (SHA[0], "2026-03-01T00:00:00Z")])
    _listing(httpserver, new, [(SHA[2], "2026-07-02T00:00:00Z")])
    _file(httpserver, SHA[2], new, a + b + c)
    again = CollectContext(spec, http=HttpClient(), state=json.loads(json.dumps(ctx.state)))
    second = _configs(config_history.collect(again))
    assert [e.attrs["config"]["key"] for e in second] == ["m3-mi355x"]
    assert second[0].attrs["config"]["baseline"] is False
    fetched = [r.path for r, _ in httpserver.log if r.path.startswith("/raw/")]
    assert fetched == [f"/raw/o/r/{SHA[2]}/{new}"]  # old commits are not fetched again


def test_unknown_runner_is_kept_on_no_regime_never_guessed(httpserver):
    path = "configs/nvidia.yaml"
    _listing(httpserver, path, [(SHA[0], "2026-04-01T00:00:00Z")])
    _file(httpserver, SHA[0], path, _entry("x", "Qwen/Qwen3.5-397B-A17B", "rtx6000pro-lat"))
    ctx = CollectContext(_spec(httpserver.url_for("").rstrip("/"), [path]), http=HttpClient())
    (event,) = _configs(config_history.collect(ctx))
    assert event.regime == "none"
    assert event.attrs["config"]["regime"] == "unknown"
    assert event.attrs["config"]["hardware"] == "rtx6000pro"
    assert event.attrs["mentions"] == [{"model": "qwen3.5-moe", "status": "supported"}]


def _alias_bomb(levels: int = 9) -> str:
    lines = ['l1: &a ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, levels):
        above, name = NAMES[level - 1], NAMES[level]
        lines.append(f"l{level + 1}: &{name} [" + ",".join([f"*{above}"] * 9) + "]")
    return "\n".join(lines) + "\n"


HOSTILE = {
    "alias bomb": _alias_bomb(),
    "nested too deep": "a: " + "[" * 20000 + "]" * 20000 + "\n",
    "not a mapping": "- just\n- a list\n",
    "not YAML": "a: { tp: 8， ep: 1 }\n",
    "python tag": "a: !!python/object/apply:os.system ['true']\n",
}


WHY = {
    "alias bomb": "alias",
    "nested too deep": "nested too deep",
    "not a mapping": "not a mapping",
    "not YAML": "not YAML",
    "python tag": "not YAML",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_version_is_skipped_with_one_line_and_the_rest_go_on(httpserver, name):
    path = "configs/amd.yaml"
    good = _entry("glm5-mi355x", "amd/GLM-5.1-MXFP4", "mi355x")
    _listing(httpserver, path, [(SHA[1], "2026-03-02T00:00:00Z"), (SHA[0], "2026-03-01T00:00:00Z")])
    _file(httpserver, SHA[0], path, HOSTILE[name])
    _file(httpserver, SHA[1], path, good)
    ctx = CollectContext(_spec(httpserver.url_for("").rstrip("/"), [path]), http=HttpClient())
    events = _configs(config_history.collect(ctx))
    assert [e.attrs["config"]["key"] for e in events] == ["glm5-mi355x"]
    assert ctx.skipped == 1 and len(ctx.warnings) == 1
    assert ctx.warnings[0].startswith(f"bench: skipped {path} at {SHA[0][:10]}: ")
    assert "\n" not in ctx.warnings[0] and "Traceback" not in ctx.warnings[0]
    assert WHY[name] in ctx.warnings[0]


def test_a_bad_entry_is_skipped_and_its_file_goes_on():
    skipped: list[tuple[str, str]] = []
    text = (
        _entry("ok", "zai-org/GLM-5-FP8", "mi355x")
        + "no-runner:\n  model: m\n  framework: vllm\n"
        + "listy:\n  - model\n"
        + "numbers:\n  model: 1\n  runner: 2\n  framework: 3\n"
        + f"long:\n  model: {'m' * 500}\n  runner: b200\n  framework: vllm\n"
        + "123: {model: m, runner: b200, framework: vllm}\n"
    )
    got = config_history.config_entries(text, lambda w, why: skipped.append((w, why)))
    assert [e.key for e in got] == ["ok"]
    assert len(skipped) == 5


def test_hardware_words_and_families():
    assert config_history.hardware_of("cluster:mi355x-amds") == "mi355x"
    assert config_history.hardware_of("gb300-nv") == "gb300"
    assert config_history.hardware_of("mi355x-amd_0") == "mi355x"
    assert config_history.hardware_of("B200") == "b200"
    fam = config_history.model_family
    assert fam("amd/GLM-5.1-MXFP4") == "glm-5.1" and fam("zai-org/GLM-5-FP8") == "glm-5"
    assert fam("nvidia/Kimi-K2.5-NVFP4") == "kimi-k2.5" and fam("Kimi-K2.6-NVFP4") == "kimi-k2.6"
    assert fam("deepseek-ai/DeepSeek-V4-Pro") == "deepseek-v4"
    assert fam("MiniMaxAI/MiniMax-M3-MXFP8") == "minimax-m3"
    assert fam("MiniMaxAI/MiniMax-M2.5") == "minimax-m2.5"
    assert fam("nvidia/Qwen3.5-397B-A17B-NVFP4-V2") == "qwen3.5-moe"
    assert fam("moonshotai/Kimi-K3") == "kimi-k3"
    assert fam("/mnt/lustre01/models/deepseek-r1-0528") == "deepseek-r1"
    assert fam("acme/Unknown-Model") is None


def test_a_run_stopped_part_way_leaves_a_state_the_next_run_resumes_from(httpserver):
    path = "configs/amd.yaml"
    a = _entry("glm5-mi355x", "amd/GLM-5.1-MXFP4", "mi355x")
    b = _entry("glm5-mi325x", "amd/GLM-5.1-MXFP4", "mi325x")
    c = _entry("k3-mi355x", "moonshotai/Kimi-K3", "mi355x")
    _listing(httpserver, path, [(SHA[1], "2026-03-02T00:00:00Z"), (SHA[0], "2026-03-01T00:00:00Z")])
    _file(httpserver, SHA[0], path, a + b)
    _file(httpserver, SHA[1], path, a + c)  # b removed again: only the first file has it
    spec = _spec(httpserver.url_for("").rstrip("/"), [path])
    ctx = CollectContext(spec, http=HttpClient())
    events = (e for e in config_history.collect(ctx) if "config" in e.attrs)
    first = next(events)  # the runner stops here (time budget, rate limit)
    events.close()
    again = CollectContext(spec, http=HttpClient(), state=json.loads(json.dumps(ctx.state)))
    rest = _configs(config_history.collect(again))
    keys = [first.attrs["config"]["key"]] + [e.attrs["config"]["key"] for e in rest]
    assert keys == ["glm5-mi355x", "glm5-mi325x", "k3-mi355x"]  # each once, none lost
