"""One count, one name: the nightly's summary lines and the report it writes say the same
numbers under the same names (sources collected of configured, stale sources, lag rows and
open ones, artifacts not counted, model families without a known day 0), and summary.json
holds as many rows of each."""

from __future__ import annotations

import json
import re

from tests.conftest import REPO
from tracker.jobs.config import load_config


def _one(pattern: str, text: str) -> tuple[int, ...]:
    found = re.findall(pattern, text)
    assert len(found) == 1, (pattern, found)
    return tuple(int(n) for n in (found[0] if isinstance(found[0], tuple) else (found[0],)))


def test_the_nightly_and_the_report_count_the_same(demo):
    nightly = demo["nightly"]
    html = (demo["report"] / "index.html").read_text()
    summary = json.loads((demo["report"] / "summary.json").read_text())
    config = load_config(REPO / "sources.yaml")

    collected, configured = _one(r"(\d+) collected of (\d+) configured sources: 0 failed", nightly)
    assert configured == len(config.sources)
    assert collected == sum(s.enabled for s in config.sources) < configured  # some disabled
    (stale,) = _one(r"stale evidence: (\d+) source", nightly)
    assert _one(r"(\d+) of (\d+) configured sources have no fact", html) == (stale, configured)
    assert len(summary["stale_sources"]) == stale

    samples, covered, still_open, artifacts, families = _one(
        r"\((\d+) lag samples: (\d+) covered, (\d+) open; (\d+) artifacts not counted, "
        r"(\d+) model families without a known day 0;",
        nightly,
    )
    assert covered + still_open == samples == len(summary["lag_samples"])
    assert _one(r"(\d+) rows \((\d+) open\), each with its day-0", html) == (samples, still_open)
    assert _one(r"(\d+) artifacts not counted \(by regime", html) == (artifacts,)
    assert _one(r"The (\d+) artifacts</summary>", html) == (artifacts,)
    assert _one(r"(\d+) model families without a known day 0 \(by", html) == (families,)
    unknown = summary["lag_unknown"]
    assert len([u for u in unknown if u["regime"] != "all"]) == artifacts
    assert len([u for u in unknown if u["regime"] == "all"]) == families
