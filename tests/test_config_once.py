"""sources.yaml is read and checked once (issue 30): load_config returns typed records and the
stages (the lag, the report, the digest, the CI rates) receive those very objects; none of
them parses a section of the file again."""

from __future__ import annotations

from datetime import date

import pytest

import tracker.config
import tracker.config.coverage
import tracker.config.digest
import tracker.config.report
import tracker.config.triggers
from tracker.config.coverage import CoverageRule, ModelCoverageRule
from tracker.config.digest import Thresholds
from tracker.config.report import ReportSettings
from tracker.digest.data import digest_data, week_of
from tracker.jobs.config import load_config
from tracker.jobs.report import publish_report

SOURCES = """\
regimes: [{id: cuda, reference: true}, {id: rocm}]
report: {stale_after_days: 400}
digest: {open_age_days: 7, top_events: 2}
coverage:
  - project: pytorch
    regimes:
      rocm:
        - {definition: vendor_matrix, primary: true,
           evidence: {project: rocm, kind: note, mentions: pytorch}}
  - project: models
    artifact: model
    regimes:
      rocm:
        - {definition: rocm_vllm, primary: true, evidence: {project: vllm-rocm, kind: note}}
sources:
  - {id: amd-ci, kind: buildkite, project: vllm, regime: rocm, org: vllm, pipeline: amd-ci,
     trigger: [Schedule]}
  - {id: cuda-ci, kind: buildkite, project: vllm, regime: cuda, org: vllm, pipeline: ci}
  - {id: rocm-notes, kind: github_releases, project: rocm, regime: rocm, repo: ROCm/ROCm}
"""

# Every function that turns a raw section into records, by the modules that hold a name for it.
PARSERS = {
    "parse_coverage": (tracker.config.coverage,),
    "parse_model_coverage": (tracker.config.coverage,),
    "parse_report_settings": (tracker.config.report, tracker.config),
    "parse_thresholds": (tracker.config.digest, tracker.config),
    "trigger_selectors": (tracker.config.triggers,),
}


@pytest.fixture
def config(tmp_path):
    path = tmp_path / "sources.yaml"
    path.write_text(SOURCES)
    return load_config(path)


def test_load_config_types_every_section(config):
    assert [type(r) for r in config.coverage] == [CoverageRule]
    assert [type(r) for r in config.model_coverage] == [ModelCoverageRule]
    assert config.coverage[0].reference_regime == "cuda"
    assert config.report == ReportSettings(stale_after_days=400)
    assert config.digest == Thresholds(open_age_days=7, top_events=2)
    assert config.triggers == {"amd-ci": frozenset({"schedule"}), "cuda-ci": None}


def test_each_section_is_parsed_once_per_load(tmp_path, monkeypatch):
    path = tmp_path / "sources.yaml"
    path.write_text(SOURCES)
    calls: dict[str, int] = {}
    for name, modules in PARSERS.items():
        original = getattr(modules[0], name)

        def counted(*args, _name=name, _original=original, **kwargs):
            calls[_name] = calls.get(_name, 0) + 1
            return _original(*args, **kwargs)

        for module in modules:
            monkeypatch.setattr(module, name, counted)
    load_config(path)
    assert calls == dict.fromkeys(PARSERS, 1)


def test_stages_receive_the_loaded_records_and_parse_nothing(config, sqlite_store, tmp_path,
                                                             monkeypatch):  # fmt: skip
    """The report and the digest run on the loaded Config with every parser disabled, and the
    rules, settings and selectors each stage is handed are the loaded objects themselves (a
    stage that parsed again would hand on equal copies, or fail here)."""

    def reparsed(*_args, **_kwargs):
        raise AssertionError("a stage parsed a section of sources.yaml again")

    for name, modules in PARSERS.items():
        for module in modules:
            monkeypatch.setattr(module, name, reparsed)

    handed: dict[str, list] = {}

    def spy(module, name, position):
        """Record the argument at `position` of each call of module.name."""
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            handed.setdefault(f"{module.__name__}.{name}", []).append(args[position])
            return original(*args, **kwargs)

        monkeypatch.setattr(module, name, wrapper)

    import tracker.digest.data as digest_module
    import tracker.measure.facts as facts
    import tracker.measure.figures as figures

    spy(facts, "lag_samples", 0)
    spy(facts, "model_lag_samples", 0)
    spy(digest_module, "open_age_crossings", 3)
    spy(figures, "split_by_trigger", 1)  # figures reads the weekly rows once, then splits
    spy(figures, "stale_definitions", 2)

    publish_report(config, sqlite_store, tmp_path / "report")
    digest_data(config, sqlite_store, week_of(date(2026, 8, 17)))

    expected = {
        "tracker.measure.facts.lag_samples": config.coverage,  # report and digest
        "tracker.measure.facts.model_lag_samples": config.model_coverage,
        "tracker.digest.data.open_age_crossings": config.digest,
        "tracker.measure.figures.split_by_trigger": config.triggers,
        "tracker.measure.figures.stale_definitions": config.report,
    }
    assert set(handed) == set(expected)
    for key, loaded in expected.items():
        assert all(got is loaded for got in handed[key]), key
