"""`builds:` patterns and page histories against hostile input (issue 60): a pattern that can
backtrack without bound is refused when configuration is read; the withdrawal check is linear
in a page's revisions; a diff's unchanged context lines are never "removed"; a page's history
is read incrementally (a revision read before is never read again, nor diffed anew)."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from tests.measure.test_builds import PLUGIN, _config, _neuron_dates, _revision
from tracker.cli.main import cli
from tracker.collect.sources import CollectContext, doc_history
from tracker.collect.sources._revisions import changes
from tracker.config import SourceSpec
from tracker.errors import ConfigError
from tracker.measure.lag.builds import TextRecord, named_builds

REPO = Path(__file__).resolve().parents[2]
NESTED = {"contains": "rocm:", "pattern": r"rocm:v(?P<version>(\d+\.?)+)x"}


@pytest.mark.parametrize(
    "pattern",
    [r"rocm:v(?P<version>(\d+\.?)+)x", r"rocm:(?P<version>(a+)+)", r"rocm:(?P<version>(?:a|b+)*)",
     r"rocm:(?P<version>(\w+_)+)"],
)  # fmt: skip
def test_a_pattern_that_can_backtrack_without_bound_is_refused(pattern):
    with pytest.raises(ConfigError) as caught:
        _config([{"contains": "rocm:", "pattern": pattern}])
    assert "repeats a repeat, which can backtrack without bound" in str(caught.value)
    assert "vllm_rocm_image" in str(caught.value)


def test_the_shipped_patterns_with_a_delimited_repeat_are_kept():
    # sources.yaml's own: each inner repeat ends at a character it cannot match
    shipped = (r"\brocm/vllm:rocm\d+(?:\.\d+)*_(?:[0-9a-z.\-]+_)*?vllm_?"
               r"(?P<version>\d+\.\d+(?:\.\d+)*(?:\.post\d+)?)")  # fmt: skip
    _config([{"contains": "rocm/vllm:", "pattern": shipped}])
    _config(neuron_builds=PLUGIN)


def test_sources_check_refuses_it_in_one_line(tmp_path):
    sources = yaml.safe_load((REPO / "sources.yaml").read_text())
    rule = next(r for r in sources["coverage"] if r["project"] == "vllm")
    channel = next(c for c in rule["regimes"]["rocm"] if c.get("builds"))
    channel["builds"] = [NESTED]
    path = tmp_path / "sources.yaml"
    path.write_text(yaml.safe_dump(sources))
    result = CliRunner().invoke(cli, ["--sources", str(path), "sources", "check"])
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "repeats a repeat" in lines[0], result.output
    assert "Traceback" not in result.output


def test_withdrawal_is_linear_in_a_pages_revisions():
    start = datetime(2026, 1, 1, tzinfo=UTC)
    records = []
    for n in range(10_000):  # each revision lists a new build, none takes one out
        records.append(
            TextRecord("neuron-sdk-pages", "commit", start + timedelta(minutes=n),
                       f"https://github.com/x/y/blob/{n:040x}/index.rst",
                       f"{n % 90}.{n // 90}.0.1.0.0 (supports vLLM version",
                       "neuron-sdk-pages|index.rst", "")
        )  # fmt: skip
    records.append(
        TextRecord("neuron-sdk-pages", "commit", start + timedelta(days=30),
                   "https://github.com/x/y/blob/end/index.rst", "nothing",
                   "neuron-sdk-pages|index.rst", "5.0.0.1.0.0 (supports vLLM version")
    )  # fmt: skip
    (rule,) = _config(neuron_builds=PLUGIN).coverage
    began = time.perf_counter()
    found = named_builds([rule], records)
    took = time.perf_counter() - began
    assert len(found) == 9_999  # 5.0.0, listed then taken out with nothing in its place
    assert took < 15, f"{took:.1f} s for 10,000 revisions"


PAGE = """Component versions
==================

* - vLLM plugin for Neuron
  - 0.21.0.1.0.0 (supports vLLM version 0.21.0)
* - NxD Inference
  - 0.7.0
* - Neuron Compiler
  - 2.21.0
"""


def test_an_unchanged_context_line_is_never_removed():
    edited = PAGE.replace("0.7.0", "0.8.0")  # two lines below the vLLM cell, in its context
    added, removed = changes(PAGE, edited)
    assert "0.21.0.1.0.0" in added  # context of the added side: the row names its cell
    assert removed == "  - 0.7.0"
    records = [
        _revision("2026-08-12", "aaaaaaaa", PAGE),
        _revision("2026-08-16", "bbbbbbbb", added, removed=removed),
    ]
    assert _neuron_dates(records) == {"0.21.0": "2026-08-12"}  # not withdrawn, not re-dated


def test_a_pages_history_is_read_incrementally_and_never_rewritten(monkeypatch):
    start = datetime(2026, 1, 1, tzinfo=UTC)
    path = "release-notes/components/index.rst"
    history = [(start + timedelta(hours=n), f"{n:040x}", path) for n in range(2_500)]
    fetched: list[str] = []

    def listing(_ctx, _paths, done):
        return [c for c in history if f"{c[1]}:{c[2]}" not in done]

    def document(_ctx, sha, _path):
        fetched.append(sha)
        return f"header\nrevision {int(sha, 16)}\nfooter"

    monkeypatch.setattr(doc_history, "new_commits", listing)
    monkeypatch.setattr(doc_history, "document_at", document)
    spec = SourceSpec(id="neuron-sdk-pages", kind="doc_history", project="neuron-sdk",
                      options={"repo": "aws-neuron/aws-neuron-sdk", "revisions": True,
                               "paths": [path]})  # fmt: skip
    ctx = CollectContext(spec, state={})
    first = list(doc_history.collect_revisions(ctx))
    assert len(first) == 2_500 and first[0].body == "header\nrevision 0\nfooter"
    assert [e.attrs["revision"]["removed"] for e in first[1:3]] == ["revision 0", "revision 1"]
    fetched.clear()
    again = list(doc_history.collect_revisions(CollectContext(spec, state=dict(ctx.state))))
    assert again == [] and fetched == []  # the oldest 500, out of `read`, are not read again
    history.append((start + timedelta(days=200), "f" * 40, path))
    newest = list(doc_history.collect_revisions(CollectContext(spec, state=dict(ctx.state))))
    assert [e.external_id for e in newest] == [f"revision:{'f' * 40}:{path}"]
    assert sorted(fetched) == [history[-2][1], "f" * 40]  # its base: the revision before it
