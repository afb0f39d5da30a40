"""Pure CI logic (tracker.collect.ci) and the progress helper: no network, no database."""

from __future__ import annotations

import io
import logging
from datetime import UTC

import pytest

from tracker.collect import ci
from tracker.progress import Progress


@pytest.fixture(autouse=True)
def fresh_warnings(monkeypatch):
    monkeypatch.setattr(ci, "_warned", set())


@pytest.mark.parametrize(
    "state, outcome",
    [
        ("success", "passed"),
        ("passed", "passed"),
        ("failure", "failed"),
        ("failed", "failed"),
        ("timed_out", "failed"),
        ("startup_failure", "failed"),
        ("cancelled", None),
        ("canceled", None),
        ("skipped", None),
        ("neutral", None),
        ("blocked", None),
        ("in_progress", None),
        ("queued", None),
        ("running", None),
        ("scheduled", None),
        ("failing", None),
        (None, None),
    ],
)
def test_run_outcome_follows_design_section_4(state, outcome, caplog):
    assert ci.run_outcome(state) == outcome
    assert not [r for r in caplog.records if "unknown CI state" in r.message]


def test_unknown_state_is_not_counted_and_logged_once_per_state(caplog):
    caplog.set_level(logging.WARNING, logger="tracker.ci")
    assert ci.run_outcome("exploded", where="src run 1") is None
    assert ci.job_outcome("exploded", where="src job 2") is None
    assert ci.run_outcome("vaporised", where="src run 3") is None
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 2
    assert "src run 1" in messages[0] and "'exploded'" in messages[0]
    assert "'vaporised'" in messages[1]


def test_job_outcome_soft_failed_is_failed_and_superseded_is_not_counted():
    assert ci.job_outcome("failed", soft_failed=True) == "failed"
    assert ci.job_outcome("timed_out", soft_failed=True) == "failed"
    assert ci.job_outcome("passed") == "passed"
    assert ci.job_outcome("failed", superseded=True) is None
    assert ci.job_outcome("passed", superseded=True) is None
    assert ci.job_outcome("canceled", soft_failed=True) is None  # never ran to a verdict


def test_only_command_jobs_count():
    assert ci.counts_as_job("script")
    assert not any(ci.counts_as_job(t) for t in ("waiter", "manual", "trigger"))


def test_in_progress_states():
    assert ci.is_in_progress("running") and ci.is_in_progress("in_progress")
    assert ci.is_in_progress("failing")  # a Buildkite build still running with a failure
    assert not ci.is_in_progress("passed") and not ci.is_in_progress("canceled")


RULES = [
    {"match": "amd*", "regime": "rocm"},
    {"match": "intel*", "regime": "none"},
    {"match": "*cpu*", "regime": "none"},
]


@pytest.mark.parametrize(
    "candidate, regime",
    [
        ("amd_mi300_1", "rocm"),
        ("amd-cpu", "rocm"),  # first match wins over *cpu*
        ("intel-gpu", "none"),
        ("small_cpu_queue_premerge", "none"),
        ("gpu_1_queue", "cuda"),
        ("B200", "cuda"),
        ("AMD_MI355_2", "rocm"),  # case-insensitive
    ],
)
def test_job_regime_first_match_wins(candidate, regime):
    assert ci.job_regime(candidate, RULES, "cuda") == regime


def test_job_regime_over_several_candidates_and_defaults():
    rules = [
        {"match": "*rocm*", "regime": "rocm"},
        {"match": "*cuda*", "regime": "cuda"},
        {"match": "*", "regime": "none"},
    ]
    name = "linux-jammy-rocm-py3.10 / test (default, 1, 2, linux.rocm.gpu.2)"
    assert ci.job_regime([name, "linux.rocm.gpu.2"], rules, "cuda") == "rocm"
    assert ci.job_regime(["macos-py3-arm64 / test", "macos-m1-stable"], rules, "cuda") == "none"
    assert ci.job_regime("anything", None, "xla") == "xla"
    assert ci.job_regime(None, rules[:2], "xla") == "xla"


def test_validate_job_regimes_names_the_source():
    assert ci.validate_job_regimes(None, "s") == []
    with pytest.raises(ValueError, match="vllm-ci"):
        ci.validate_job_regimes([{"match": "amd*"}], "vllm-ci")


def test_queue_of_agent_query_rules():
    assert ci.queue_of(["queue=amd_mi300_1"]) == "amd_mi300_1"
    assert ci.queue_of(["os=linux", "queue=intel-gpu"]) == "intel-gpu"
    assert ci.queue_of([]) is None and ci.queue_of(None) is None


def test_times_and_durations():
    start = ci.parse_time("2026-05-08T06:00:07.065Z")
    end = ci.parse_time("2026-05-08T09:02:14.915Z")
    assert ci.duration_seconds(start, end) == 10927.85
    assert ci.duration_seconds(start, None) is None
    assert ci.iso(start) == "2026-05-08T06:00:07Z"


class _Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self):
        return self.now


def test_progress_logs_periodic_lines_when_not_a_tty(caplog):
    caplog.set_level(logging.INFO, logger="tracker.progress")
    clock = _Clock()
    with Progress("src: runs", unit="run", every=30, stream=io.StringIO(), clock=clock) as p:
        for _ in range(5):
            clock.now += 10
            p.update()
    lines = [r.getMessage() for r in caplog.records]
    # one periodic line at 30 s (3 runs), then the final one
    assert lines == ["src: runs: 3 runs in 30s (0.1/s)", "src: runs: 5 runs in 50s (0.1/s) (done)"]
    caplog.clear()
    with Progress("src: quick", unit="run", every=30, stream=io.StringIO(), clock=clock) as p:
        p.update(7)  # under 30 s: the caller's own summary line is enough
    assert caplog.records == []


def test_progress_draws_a_tqdm_bar_on_a_tty(caplog):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    stream = Tty()
    caplog.set_level(logging.INFO, logger="tracker.progress")
    with Progress("src: issues", total=4, unit="issue", stream=stream) as p:
        p.update(4)
        assert p._bar.n == 4
    assert "src: issues" in stream.getvalue() and "/4 [" in stream.getvalue()
    assert not caplog.records  # no log lines on a terminal


def test_parse_time_is_tolerant_and_utc():
    from datetime import datetime

    assert ci.parse_time("2025-12-30T16:49:55+08:00") == datetime(
        2025, 12, 30, 8, 49, 55, tzinfo=UTC
    )
    assert ci.parse_time("2025-12-30T08:49:55") == datetime(2025, 12, 30, 8, 49, 55, tzinfo=UTC)
    assert ci.parse_time("yesterday-ish") is None and ci.parse_time(None) is None
    assert ci.created_time({"created_at": "not a time"}) is None


def test_truncated_saved_listing_is_a_clear_error_naming_the_source():
    import pytest

    from tracker.collect.sources import CollectContext, buildkite, github_issues
    from tracker.config import SourceSpec
    from tracker.errors import FatalHTTPError

    for module in (buildkite, github_issues):
        ctx = CollectContext(
            SourceSpec(
                f"saved-{module.KIND}",
                module.KIND,
                "vllm",
                options={"org": "vllm", "pipeline": "ci", "repo": "o/r"},
            )
        )
        with pytest.raises(FatalHTTPError, match=f"saved-{module.KIND}: .* is not JSON"):
            list(module.parse(b'[{"number": 1, "state": "pas', ctx))
