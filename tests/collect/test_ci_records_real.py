"""No CI figure rests on an invented record (issue 54, item 1).

Every CI figure (run and job pass rates, job health, test rates, parity) is computed from the
events the CI sources store, and those come from the shipped cassettes. So the guard sits where
the values enter: a CI source whose cassette header calls a figure's input (a conclusion, a
time, a count) illustrative, invented or a placeholder must store no event at all. Filler that
feeds no figure (ids numbered by hand) may be named as such; the rule reads only sentences that
name a figure's input.

The rule is checked to fail on the shape fixtures of tests/collect/cassettes/ci-shapes, which keep
the illustrative runs the demo's cassettes carried before.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tracker.collect.runner import run_sources
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[2]
SHAPES = REPO / "tests" / "collect" / "cassettes" / "ci-shapes"
CI_KINDS = {"github_actions", "buildkite", "test_report_history", "ci_json_history"}
MADE_UP = re.compile(r"illustrative|invented|placeholder|made up|by hand", re.I)
# the inputs of a CI figure: outcomes, times (weeks, streaks, ages) and counts
FIGURE_INPUT = re.compile(
    r"conclusion|outcome|state|status|result|passed|failed|time|date|count|test", re.I
)


def made_up_inputs(cassette: Path) -> list[str]:
    """The header's sentences that call a figure's input illustrative / invented / a
    placeholder."""
    head = cassette.read_text(encoding="utf-8").split("\ninteractions:", 1)[0]
    text = " ".join(line.lstrip("#").strip() for line in head.splitlines())
    sentences = re.split(r"(?<=[.;])\s+", text)
    return [s for s in sentences if MADE_UP.search(s) and FIGURE_INPUT.search(s)]


def stored_events(folder: Path, source_id: str, store) -> int:
    config = load_config(REPO / "sources.yaml")
    (result,) = run_sources(config, store, only=[source_id], replay=folder).results
    assert result.status == "ok", result.error
    return result.events_new


def ci_sources() -> list[str]:
    config = load_config(REPO / "sources.yaml")
    return [s.id for s in config.sources if s.kind in CI_KINDS and s.enabled]


def test_every_kind_of_ci_source_is_guarded():
    config = load_config(REPO / "sources.yaml")
    kinds = {s.kind for s in config.sources if s.id in config.triggers}
    assert kinds <= CI_KINDS, kinds - CI_KINDS


@pytest.mark.parametrize("source_id", ci_sources())
def test_no_ci_figure_rests_on_a_made_up_record(source_id, sqlite_store, monkeypatch):
    monkeypatch.setenv("TRACKER_BUILDKITE_TOKEN", "dummy-test-token")
    cassette = REPO / "cassettes" / f"{source_id}.yaml"
    claims = made_up_inputs(cassette)
    if not claims:
        return
    events = stored_events(REPO / "cassettes", source_id, sqlite_store)
    assert events == 0, (
        f"{cassette.name}: {events} CI events feed figures, but its header calls their "
        f"inputs made up: {claims}"
    )


@pytest.mark.parametrize("source_id", ["jax-ci", "pytorch-ci-rocm", "torch-xla-ci-tpu"])
def test_the_rule_catches_the_illustrative_runs_the_demo_carried(source_id, sqlite_store):
    """The fixtures keep the runs whose conclusions and times were made up: the rule sees both
    the claim and the events, so the test above fails on a cassette like them."""
    assert made_up_inputs(SHAPES / f"{source_id}.yaml")
    assert stored_events(SHAPES, source_id, sqlite_store) > 0


def test_filler_that_feeds_no_figure_is_not_a_claim(tmp_path):
    cassette = tmp_path / "x.yaml"
    cassette.write_text(
        "# Hand-written cassette\n# Run ids are numbered by hand; ETags are placeholders.\n"
        "interactions: []\n"
    )
    assert made_up_inputs(cassette) == []
    cassette.write_text("# Run ids and conclusions are illustrative.\ninteractions: []\n")
    assert made_up_inputs(cassette) == ["Run ids and conclusions are illustrative."]
