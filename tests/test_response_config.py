"""sources.yaml's `report: ignore_responders` and `comments:` are checked once, when the file
is read: a wrong value is a ConfigError naming the file and the key."""

from __future__ import annotations

import pytest

from tracker.errors import ConfigError
from tracker.jobs.config import load_config

BASE = """
regimes: [{id: cuda, reference: true}, {id: rocm}]
sources:
  - {id: i, kind: github_issues, project: p, regime: rocm, repo: o/r, comments: COMMENTS}
"""


def write(tmp_path, text):
    path = tmp_path / "sources.yaml"
    path.write_text(text)
    return path


def test_ignored_responders_are_read_lower_case(tmp_path):
    text = "report: {ignore_responders: [PyTorchMergeBot]}\n" + BASE.replace("COMMENTS", "true")
    config = load_config(write(tmp_path, text))
    assert config.report.ignore_responders == frozenset({"pytorchmergebot"})
    assert config.sources[0].options["comments"] is True


@pytest.mark.parametrize("value", ["pytorchmergebot", "[1, 2]", "[''] "])
def test_a_bad_ignore_list_names_the_key(tmp_path, value):
    text = f"report: {{ignore_responders: {value}}}\n" + BASE.replace("COMMENTS", "true")
    with pytest.raises(ConfigError, match="ignore_responders"):
        load_config(write(tmp_path, text))


def test_comments_must_be_a_bool(tmp_path):
    with pytest.raises(ConfigError, match="comments"):
        load_config(write(tmp_path, BASE.replace("COMMENTS", "'yes please'")))
