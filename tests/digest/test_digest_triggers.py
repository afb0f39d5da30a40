"""The digest shows each regime's headline CI rate with the triggers it counts, and the runs of
other triggers apart and labelled (issue 20, item 1).

Real shapes: the shipped sources.yaml and the test fixtures tests/collect/cassettes/ci-shapes
(the shipped cassettes hold no run of these workflows: no public record, issue 54), jax-ci and
pytorch-ci-rocm,
whose runs carry the trigger their workflow's `on:` really has (JAX's wheel_tests_continuous.yml
on schedule, its rocm-ci.yml on push, cloud-tpu-ci-nightly.yml by workflow_dispatch; PyTorch's
rocm-mi300.yml on push and on its daily periodic-mode schedule). Job names and runner labels are
real, ids, times and outcomes illustrative (the cassette headers say which).
"""

from __future__ import annotations

from datetime import date
from pathlib import Path

from tracker.collect.runner import run_sources
from tracker.digest.data import digest_data, week_of
from tracker.digest.mail import render
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[2]
SHAPES = REPO / "tests" / "collect" / "cassettes" / "ci-shapes"


def section(text: str, title: str) -> str:
    start = text.index(f"== {title}")
    end = text.find("\n== ", start + 1)
    return text[start : end if end > 0 else len(text)]


def test_digest_headline_names_its_triggers_and_lists_the_rest_apart(sqlite_store):
    config = load_config(REPO / "sources.yaml")
    ids = ["jax-ci", "pytorch-ci-rocm"]
    summary = run_sources(config, sqlite_store, only=ids, replay=SHAPES)
    assert summary.exit_code == 0
    data = digest_data(config, sqlite_store, week_of(date(2026, 5, 4)))
    text, html = render(data, {})
    text = text.replace("\r\n", "\n")

    rocm = section(text, "ROCm")
    headline, _, apart = rocm.partition("Not in the rate above")
    # headline: JAX's scheduled continuous run (its ROCm job passed), PyTorch's push to main
    # (build and shard 1 passed, shard 2 failed)
    assert "- jax (schedule): 100% (1/1)" in headline
    assert "- pytorch (push): 66.7% (2/3)" in headline
    # apart: JAX's post-merge ROCm check, PyTorch's periodic-mode scheduled run
    assert "- jax, push: 100% (1/1)" in apart
    assert "- pytorch, schedule: 66.7% (2/3)" in apart
    assert "- pytorch, push" not in apart and "- jax, schedule" not in apart

    xla = section(text, "XLA")
    assert "- jax (schedule): 0% (0/1)" in xla  # the scheduled run's TPU job failed
    assert "- jax, workflow_dispatch: 100% (1/1)" in xla.partition("Not in the rate above")[2]

    assert "jax (schedule)" in html and "pytorch, schedule" in html
