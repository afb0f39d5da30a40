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
            "  - {id: a, kind: version_history, project: p, repo: x/y,\n"
            "     paths: [{path: RELEASES.md, frameworks: jax}]}\n",
            ["source 'a'", "key 'paths'", "'frameworks' must be a non-empty list"],
        ),
        (
            "  - {id: a, kind: wheel_index, project: p, url: 'https://x/simple/torch/'}\n",
            ["source 'a'", "missing required key 'package'"],
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
    assert database_url("sqlite:///other.db") == "sqlite:///other.db"
    assert database_url("postgresql://u@h/db") == "postgresql+psycopg://u@h/db"
    assert database_url("postgres://u@h/db") == "postgresql+psycopg://u@h/db"


@pytest.mark.parametrize(
    "value,needle",
    [
        ("notaurl", "'notaurl' is not a database URL"),
        ("other.db", "an SQLite file is sqlite:///other.db"),
        ("mysql://u@h/db", "database 'mysql' is not supported"),
        ("://", "not a database URL"),
    ],
)
def test_a_database_url_that_is_not_one_is_an_error(monkeypatch, value, needle):
    # `--db notaurl` used to create an empty SQLite file named notaurl and carry on.
    with pytest.raises(ConfigError, match="--db: .*" + needle.replace("(", r"\(")):
        database_url(value)
    monkeypatch.setenv("TRACKER_DATABASE_URL", value)
    with pytest.raises(ConfigError, match="TRACKER_DATABASE_URL: "):
        database_url()


@pytest.mark.parametrize(
    "entry,key,needle",
    [
        (
            "{id: a, kind: github_releases, project: p, repo: x/y, lookback_days: abc}",
            "lookback_days",
            "must be a number, 0 or more, not 'abc'",
        ),
        (
            "{id: a, kind: github_releases, project: p, repo: x/y, lookback_days: -1}",
            "lookback_days",
            "must be a number, 0 or more, not -1 (int)",
        ),
        (
            "{id: a, kind: [pypi], project: p, package: torch}",
            "kind",
            "must be a non-empty string, not ['pypi'] (list)",
        ),
        (
            "{id: a, kind: github_issues, project: p, repo: x/y, per_page: many}",
            "per_page",
            "must be a whole number above 0, not 'many'",
        ),
        (
            "{id: a, kind: buildkite, project: p, org: o, pipeline: c, per_page: 0}",
            "per_page",
            "must be a whole number above 0, not 0 (int)",
        ),
        (
            "{id: a, kind: github_releases, project: p, repo: x/y, enabled: 'no'}",
            "enabled",
            "must be true or false (unquoted), not 'no'",
        ),
        (
            "{id: a, kind: github_releases, project: p, repo: x/y, enabled: 0}",
            "enabled",
            "must be true or false",
        ),
        (
            "{id: a, kind: release_notes, project: p, url: u, version: 2.20}",
            "version",
            "must be a non-empty string, not 2.2 (float)",
        ),
        (
            "{id: a, kind: release_notes, project: p, url: u, format: pdf}",
            "format",
            "must be one of markdown, md, rst, html, not 'pdf'",
        ),
        (
            "{id: a, kind: docker_tags, project: p, repository: r, name_pattern: '(['}",
            "name_pattern",
            "must be a valid regular expression",
        ),
        (
            "{id: a, kind: github_issues, project: p, repo: x/y, include_pulls: 'yes'}",
            "include_pulls",
            "must be true or false",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, job_regimes: [rocm]}",
            "job_regimes",
            "must be a list of {match: glob, regime: id}",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, workflows: trunk.yml}",
            "workflows",
            "must be a list of workflow files",
        ),
        # The trigger selector is the source's (issue 20): one inside a workflow entry would
        # otherwise be ignored and the headline would count every trigger of that workflow.
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, "
            "workflows: [a.yml, {file: nightly.yml, trigger: [schedule]}]}",
            "workflows",
            "entry 2 (nightly.yml): 'trigger' belongs to the source",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, "
            "workflows: [{file: a.yml, regimes: rocm}]}",
            "workflows",
            "entry 1 (a.yml): unknown key 'regimes' (known: file, regime, job_regimes)",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, "
            "workflows: [{file: a.yml, regime: [rocm]}]}",
            "workflows",
            "entry 1 (a.yml): 'regime' must be a non-empty string",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, "
            "workflows: [{file: a.yml, job_regimes: [rocm]}]}",
            "workflows",
            "entry 1 (a.yml): 'job_regimes' must be a list of {match: glob, regime: id}",
        ),
        (
            "{id: a, kind: github_actions, project: p, repo: x/y, workflows: [{regime: rocm}]}",
            "workflows",
            "entry 1 must be a workflow file or a mapping with a 'file'",
        ),
        (
            "{id: a, kind: model_list, project: p, pages: [{url: u}]}",
            "pages",
            "must be a list of {url, version, date}",
        ),
        (
            "{id: a, kind: release_notes, project: p, url: u, release_date: someday}",
            "release_date",
            "must be a date, YYYY-MM-DD",
        ),
    ],
)
def test_bad_option_values_name_file_source_and_key(tmp_path, entry, key, needle):
    path = write(tmp_path, f"  - {entry}\n")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: source 'a': key {key!r}: "), info.value
    assert needle in str(info.value)


def test_enabled_takes_booleans_and_good_values_pass(tmp_path):
    path = write(
        tmp_path,
        "  - {id: a, kind: github_issues, project: p, repo: x/y, enabled: no, per_page: 50,"
        " labels: rocm, lookback_days: 1.5}\n"
        "  - {id: b, kind: release_notes, project: p, url: u, release_date: 2025-01-31}\n",
    )
    config = load_config(path)
    assert config.source("a").enabled is False and config.source("a").lookback_days == 1.5
    assert config.source("b").enabled is True


def test_a_regime_flag_must_be_a_boolean(tmp_path):
    path = tmp_path / "sources.yaml"
    path.write_text("regimes: [{id: cuda, reference: 'no'}]\nsources: []\n")
    with pytest.raises(ConfigError, match="regime 'cuda': key 'reference': must be true or false"):
        load_config(path)


def test_a_sources_file_that_is_not_utf8_is_one_error(tmp_path):
    path = tmp_path / "sources.yaml"
    path.write_bytes(
        HEAD.encode()
        + "  - {id: caf\u00e9, kind: pypi, project: p, package: x}\n".encode("latin-1")
    )
    with pytest.raises(ConfigError, match=r"sources.yaml: not UTF-8 text \(byte 0xe9"):
        load_config(path)


def test_every_option_key_of_every_kind_declares_its_type():
    # Keys without a declared type would be checked at collection time only (a traceback
    # then, not a line from `tracker sources check`).
    from tracker.collect.sources import KINDS
    from tracker.config import VALUE_TYPES

    for kind, entry in KINDS.items():
        keys = set(entry.required) | set(entry.optional)
        assert set(entry.types) == keys, (kind, keys ^ set(entry.types))
        for key, declared in entry.types.items():
            assert isinstance(declared, tuple) or callable(declared) or declared in VALUE_TYPES, (
                kind,
                key,
            )


def test_every_option_a_collector_reads_is_a_key_of_its_kind():
    # The KINDS table lives apart from the modules: a key a collector reads but its line in
    # KINDS lacks would be refused in sources.yaml as unknown.
    import re

    from tracker.collect import sources
    from tracker.collect.sources import KINDS

    folder = Path(sources.__file__).parent
    for kind, entry in KINDS.items():
        text = (folder / f"{entry.module}.py").read_text(encoding="utf-8")
        read = set(re.findall(r"\.option\(\s*\"(\w+)\"", text))
        assert read, kind
        assert read <= set(entry.required) | set(entry.optional), (kind, read - set(entry.types))


def test_moved_to_must_name_another_source(tmp_path):
    base = (
        "sources:\n"
        "  - {id: old, kind: github_tags, project: p, repo: o/old, moved_to: %s}\n"
        "  - {id: new, kind: github_tags, project: p, repo: o/new}\n"
    )
    for target, ok in (("new", True), ("old", False), ("nowhere", False)):
        path = write(tmp_path, base % target)
        if ok:
            assert load_config(path).source("old").moved_to == "new"
        else:
            with pytest.raises(ConfigError, match="moved_to.*is not another source"):
                load_config(path)


def test_the_database_section_sets_the_waits_and_the_environment_wins(tmp_path):
    from tracker.config.database import DatabaseWaits, database_waits

    assert load_config(write(tmp_path, "")).database == DatabaseWaits(15, 600, 1800)
    path = tmp_path / "s.yaml"
    path.write_text(HEAD + "database: {lock_timeout: 30, statement_timeout: 90.5}\n")
    configured = load_config(path).database
    assert configured == DatabaseWaits(15, 30, 90.5)
    env = {"TRACKER_DB_LOCK_TIMEOUT": "5", "TRACKER_DB_CONNECT_TIMEOUT": " "}
    assert database_waits(configured, env) == DatabaseWaits(15, 5, 90.5)
    for body, needle in [
        ("database: {lock_wait: 3}", "database: unknown key 'lock_wait'"),
        ("database: {lock_timeout: 0}", "database: lock_timeout: expected a number of seconds"),
        ("database: {connect_timeout: yes}", "connect_timeout: expected a number"),
        ("database: {statement_timeout: 1e12}", "at most 2,000,000"),
        ("database: 30", "'database' must be a mapping"),
    ]:
        path.write_text(HEAD + body + "\n")
        with pytest.raises(ConfigError, match=needle):
            load_config(path)


@pytest.mark.parametrize(
    ("parse", "artifact", "message"),
    [
        ("kernel", "kernel", "s.yaml: coverage: one kernel layer entry (artifact: kernel) at most"),
        (
            "collective",
            "collective",
            "s.yaml: coverage: one collectives entry (artifact: collective) at most",
        ),
    ],
)
def test_a_layer_entry_given_twice_or_with_a_stray_key_is_one_error(parse, artifact, message):
    from tracker.config.collective_layer import parse_collective_layer
    from tracker.config.kernel_layer import parse_kernel_layer

    parser = {"kernel": parse_kernel_layer, "collective": parse_collective_layer}[parse]
    entry = {"project": "x", "artifact": artifact}
    with pytest.raises(ConfigError) as twice:
        parser([entry, dict(entry)], "s.yaml")
    assert str(twice.value) == message
    with pytest.raises(ConfigError) as stray:
        parser([{**entry, "colour": "red"}], "s.yaml")
    assert str(stray.value).startswith("s.yaml: coverage rule for 'x': unknown key")
    assert parser([{"project": "y"}], "s.yaml") is None
