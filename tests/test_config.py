"""sources.yaml validation: one clear error naming file, source and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.config import database_url
from tracker.errors import ConfigError
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[1]

HEAD = """\
regimes: [{id: cuda, reference: true}, {id: rocm}]
sources:
"""


def write(tmp_path, body: str) -> Path:
    path = tmp_path / "sources.yaml"
    path.write_text(HEAD + body)
    return path


def test_shipped_sources_yaml_is_valid():
    config = load_config(REPO / "sources.yaml")
    assert {r.id for r in config.regimes} == {"cuda", "rocm", "xla", "neuron"}
    assert len({s.id for s in config.sources}) == len(config.sources)


def test_valid_entry_becomes_a_typed_spec(tmp_path):
    config = load_config(
        write(
            tmp_path,
            """\
  - id: pytorch-releases
    kind: github_releases
    project: pytorch
    regime: cuda
    repo: pytorch/pytorch
    api_url: http://127.0.0.1:8080
""",
        )
    )
    spec = config.source("pytorch-releases")
    assert (spec.kind, spec.project, spec.regime) == ("github_releases", "pytorch", "cuda")
    assert spec.options == {"repo": "pytorch/pytorch", "api_url": "http://127.0.0.1:8080"}


@pytest.mark.parametrize(
    "body,needles",
    [
        (
            "  - {id: a, kind: github_releases, project: p, repo: x/y, colour: red}\n",
            ["source 'a'", "unknown key 'colour'"],
        ),
        (
            "  - {id: a, kind: carrier_pigeon, project: p}\n",
            ["source 'a'", "key 'kind'", "unknown kind 'carrier_pigeon'"],
        ),
        (
            "  - {id: a, kind: github_releases, project: p, repo: x/y}\n"
            "  - {id: a, kind: github_releases, project: q, repo: x/z}\n",
            ["source 'a'", "duplicate id"],
        ),
        (
            "  - {id: a, kind: github_releases, project: p}\n",
            ["source 'a'", "missing required key 'repo'"],
        ),
        (
            "  - {id: a, kind: github_releases, repo: x/y}\n",
            ["source 'a'", "missing required key 'project'"],
        ),
        (
            "  - {id: a, kind: github_releases, project: p, repo: x/y, regime: tpu}\n",
            ["source 'a'", "key 'regime'", "unknown regime 'tpu'"],
        ),
        (
            "  - {id: a, kind: github_releases, project: p, repo: x/y, max_pages: 2.5}\n",
            ["source 'a'", "key 'max_pages'", "expected a positive whole number, got 2.5"],
        ),
        (
            "  - {id: a, kind: pypi, project: p, package: x, max_body_mb: 0}\n",
            ["source 'a'", "key 'max_body_mb'", "expected a positive number, got 0"],
        ),
        (
            "  - {id: a, kind: pypi, project: p, package: x, time_budget_seconds: soon}\n",
            ["source 'a'", "key 'time_budget_seconds'", "got 'soon'"],
        ),
    ],
)
def test_config_errors_name_file_source_and_key(tmp_path, body, needles):
    path = write(tmp_path, body)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    for needle in needles:
        assert needle in message


def test_limits_are_common_keys_of_every_kind(tmp_path):
    body = (
        "  - {id: a, kind: github_issues, project: p, repo: x/y, max_pages: 20,"
        " max_body_mb: 8, time_budget_seconds: 600}\n"
        "  - {id: b, kind: pypi, project: p, package: x}\n"
    )
    config = load_config(write(tmp_path, body))
    a, b = config.source("a"), config.source("b")
    assert (a.max_pages, a.max_body_mb, a.time_budget_seconds) == (20, 8.0, 600.0)
    assert "max_pages" not in a.options
    assert (b.max_pages, b.max_body_mb, b.time_budget_seconds) == (None, None, None)


def test_unknown_top_level_key_and_bad_yaml(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text("sources: []\nsorces: []\n")
    with pytest.raises(ConfigError, match="unknown top-level key 'sorces'"):
        load_config(path)
    path.write_text("sources: [\n")
    with pytest.raises(ConfigError, match="not valid YAML"):
        load_config(path)
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.yaml")


def test_database_url_precedence(monkeypatch):
    monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    assert database_url() == "sqlite:///tracker.db"
    monkeypatch.setenv("TRACKER_DATABASE_URL", "postgresql+psycopg://u@h/db")
    assert database_url() == "postgresql+psycopg://u@h/db"
    assert database_url("other.db") == "sqlite:///other.db"
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"
