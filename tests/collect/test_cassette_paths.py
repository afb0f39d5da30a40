"""The second guard on cassette paths: whatever id reaches the runner (config checking refuses
path-like ids first), a cassette is read and written only inside its folder. The specs here are
built directly, past config checking, as a bug elsewhere might hand them over."""

from __future__ import annotations

from pathlib import Path

import pytest

from tracker.collect.cassettes import cassette_path
from tracker.collect.runner import run_sources
from tracker.config import Config, SourceSpec
from tracker.errors import SourceError

PATH_LIKE = ["../escaped/pwn", "/abs/x", "a/b", "./x", "rec/../../up"]


@pytest.mark.parametrize("source_id", PATH_LIKE)
def test_a_cassette_path_outside_its_folder_is_refused(tmp_path, source_id):
    with pytest.raises(SourceError, match="outside"):
        cassette_path(tmp_path / "rec", source_id)


def test_a_plain_id_names_a_file_in_the_folder(tmp_path):
    assert cassette_path(tmp_path / "rec", "pypi-x.1_a") == tmp_path / "rec" / "pypi-x.1_a.yaml"
    assert cassette_path("rec", "..x") == Path("rec") / "..x.yaml"  # a name, not a parent


def spec(source_id: str, url: str) -> SourceSpec:
    return SourceSpec(id=source_id, kind="pypi", project="p", options={"package": "x", "url": url})


@pytest.mark.parametrize("mode", ["record", "replay"])
@pytest.mark.parametrize("source_id", ["../escaped/pwn", "a/b"])
def test_the_runner_fails_the_source_and_writes_nothing_outside(
    tmp_path, store, httpserver, mode, source_id
):
    httpserver.expect_request("/x").respond_with_json({"info": {}, "releases": {}})
    work = tmp_path / "work"
    (work / "rec").mkdir(parents=True)
    before = sorted(p for p in tmp_path.rglob("*") if "tracker.db" not in p.name)
    config = Config(Path("sources.yaml"), (), (spec(source_id, httpserver.url_for("/x")),))
    summary = run_sources(config, store, **{mode: work / "rec"})
    (result,) = summary.results
    assert result.status == "failed"
    assert "outside" in (result.error or "")
    assert sorted(p for p in tmp_path.rglob("*") if "tracker.db" not in p.name) == before
    assert not httpserver.log  # refused before any request
