"""The README tells the truth about the demo: every figure it and docs/methodology.md give of
the shipped files and of the offline demo (the size of sources.yaml, the release series and
MLPerf rounds the demo holds, its as-of date, the charts of its weekly digest, the friction
chart's period) is read from the text and checked against the files or the demo itself. A
demo change that moves one of them fails here until the text is corrected."""

from __future__ import annotations

import csv
import email
import re

from packaging.version import Version

from tests.conftest import DEMO_WEEK, REPO
from tracker.report.chart_data import friction_period

README = (REPO / "README.md").read_text()
METHODOLOGY = (REPO / "docs" / "methodology.md").read_text()
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _one(pattern: str, text: str) -> re.Match:
    found = list(re.finditer(pattern, _flat(text)))
    assert len(found) == 1, (pattern, [m.group(0) for m in found])
    return found[0]


def test_the_size_of_the_shipped_sources_file():
    said = int(_one(r"the shipped one is (\d+) kB", README).group(1))
    size = (REPO / "sources.yaml").stat().st_size
    assert abs(said - size / 1000) < 1, f"README says {said} kB, sources.yaml is {size} bytes"


def test_the_test_command_states_its_time():
    tests = _flat(README.split("Run the tests", 1)[1].split("\n## ", 1)[0])
    assert re.search(r"about \d+ minutes on a 2-core machine", tests), tests


def _series(report) -> dict[str, list[str]]:
    with (report / "lag.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    found: dict[str, set[str]] = {}
    for r in rows:
        found.setdefault(r["project"], set()).add(r["series"])
    return {p: sorted(s, key=Version) for p, s in found.items() if p in {"pytorch", "jax", "vllm"}}


def test_the_release_series_the_demo_holds(demo):
    series = _series(demo["report"])
    for name, project in (("PyTorch", "pytorch"), ("JAX", "jax"), ("vLLM", "vllm")):
        first, last = _one(rf"\({name} ([\d.]+)-([\d.]+)," if name == "PyTorch" else
                           rf" {name} ([\d.]+)-([\d.]+),", README).groups()  # fmt: skip
        held = series[project]
        # the README names a release series by its shortest form (JAX 0.11 for 0.11.1)
        assert held[0] == first and (held[-1] == last or held[-1].startswith(last + ".")), (
            name,
            (first, last),
            (held[0], held[-1]),
        )


def test_the_mlperf_rounds_the_demo_holds(demo):
    def rounds(name: str) -> list[str]:
        with (demo["report"] / name).open(encoding="utf-8") as handle:
            return sorted(
                {r["round"] for r in csv.DictReader(handle)}, key=lambda r: Version(r[1:])
            )

    inference = _one(r"MLPerf Inference \((v[\d.]+(?:, v[\d.]+)*)\)", README).group(1)
    assert inference.split(", ") == rounds("perf_parity.csv")
    first, last = _one(r"MLPerf Training \((v[\d.]+)-(v[\d.]+):", README).groups()
    held = rounds("perf_training.csv")
    assert (held[0], held[-1]) == (first, last)


def test_the_as_of_date_of_the_demo(demo):
    said = _one(r'\("as of (\d{4}-\d\d-\d\d), replay of cassettes/"\)', README).group(1)
    # the demo fixture runs as of its own day; the store keeps the cassettes' snapshot
    from tracker.store import open_store
    from tracker.store.asof import default_as_of

    store = open_store(f"sqlite:///{demo['folder'] / 'tracker.db'}")
    try:
        found = default_as_of(store)
        assert found is not None and found.snapshot is not None
        assert found.snapshot.isoformat() == said
    finally:
        store.close()


def test_the_charts_of_the_demo_digest(demo, tmp_path):
    found = _one(r"the demo's digest of (\d{4}-W\d\d) has (\w+)\)", README)
    week, count = found.group(1), WORDS[found.group(2)]
    assert week == DEMO_WEEK  # the demo's store is as of that week's end
    path = tmp_path / "digest.eml"
    demo["run"]("digest", "--week", week, "--dry-run", str(path))
    message = email.message_from_bytes(path.read_bytes())
    charts = [p for p in message.walk() if p.get_content_type() == "image/png"]
    assert len(charts) == count, [p.get_filename() for p in charts]


def test_the_period_of_the_friction_chart(demo):
    with (demo["report"] / "friction_weekly.csv").open(encoding="utf-8") as handle:
        rows = [
            {**r, "friction": int(r["friction"]), "optimization": int(r["optimization"])}
            for r in csv.DictReader(handle)
        ]
    _, period = friction_period(rows)
    for text in (README, METHODOLOGY):
        said = _one(r"the demo's chart(?: is|:) per (month|quarter)", text).group(1)
        assert said == period
