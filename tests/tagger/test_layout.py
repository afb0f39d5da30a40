"""Issue layout (issue 59): template headings, checklists, environment dumps and logs are
recognised; the classifier reads the title and the prose, the rules read everything.

The texts are made up for these tests, in the shapes GitHub issue forms produce."""

from __future__ import annotations

import time

import pytest

from tracker.tagger import load_tagger
from tracker.tagger.features import MAX_CHARS, prepare
from tracker.tagger.layout import split_layout

FEATURE = (
    "Add an option to export settings\n\n"
    "**Is your feature request related to a problem? Please describe.**\n"
    "Moving to a new laptop means setting everything up again.\n\n"
    "**Describe the solution you'd like**\n"
    "An export button that writes the settings to a file.\n\n"
    "**Additional context**\n"
    "None."
)

BUG = (
    "Loader crashes on empty files\n\n"
    "### Describe the bug\n"
    "Opening an empty file crashes the loader.\n\n"
    "### Environment\n"
    "- OS: Ubuntu 22.04\n"
    "- GPU: AMD Instinct MI300X\n"
    "- Version: 1.2.0\n\n"
    "### Logs\n"
    "```\n"
    "Traceback (most recent call last):\n"
    '  File "loader.py", line 3, in load\n'
    "ValueError: empty input\n"
    "```\n\n"
    "- [x] I searched the existing issues\n"
)


@pytest.fixture(scope="module")
def tagger():
    return load_tagger()


def test_template_headings_become_pseudo_tokens():
    head, tail = split_layout(FEATURE)
    lines = head.splitlines()
    assert lines[0] == "Add an option to export settings"
    assert "zztmplfeature" in lines and "zztmplother" in lines
    assert "Is your feature request" not in head and "Describe the solution" not in head
    assert "An export button that writes the settings to a file." in lines
    assert tail == ""


def test_environment_logs_and_checklists_go_after_the_prose():
    head, tail = split_layout(BUG)
    assert "Opening an empty file crashes the loader." in head
    for scaffolding in ("MI300X", "Traceback", "ValueError", "I searched"):
        assert scaffolding not in head and scaffolding in tail
    # one pseudo-token per kind of scaffolding stays in the head
    assert head.splitlines()[-1].split() == ["zzenv", "zzlog", "zzerr", "zzchecklist"]


def test_the_classifier_reads_the_head_and_the_rules_read_everything(tagger):
    p = prepare({"text": BUG})
    assert p.head < len(p.text)
    assert "MI300X" not in p.text[: p.head] and "MI300X" in p.text[p.head :]
    # the environment dump still names the platform: the regime comes from it
    assert tagger.tag(BUG).regime == "rocm"


def test_scaffolding_does_not_change_the_class_scores(tagger):
    # Same title and prose; one has a long log of alarming words, the other none.
    log = "\n```\n" + "FATAL error crash segfault regression failed\n" * 40 + "```"
    plain = tagger.tag(FEATURE)
    noisy = tagger.tag(FEATURE + log)
    assert noisy.tag == plain.tag
    # only the marker "zzlog"/"zzerr" differs between the two heads
    assert abs(noisy.score - plain.score) < 0.2


def test_version_mentions_are_read_in_scaffolding(tagger):
    text = "Import is slow after upgrading\n\n### Versions\n- torch==2.9.1\n- numpy 2.1\n"
    assert [(m["framework"], m["version"]) for m in tagger.tag(text).mentions] == [
        ("pytorch", "2.9.1")
    ]


def test_short_runs_of_key_value_lines_stay_prose():
    text = "Retry uploads\n\nNote: this matters on mobile.\nThe upload fails and starts over."
    head, tail = split_layout(text)
    assert head == text and tail == ""


def test_plain_texts_pass_unchanged():
    for text in ("Segfault in hipMemcpy on MI300X", "Title\n\nA plain body with no markup."):
        assert split_layout(text) == (text, "")


@pytest.mark.parametrize(
    "body",
    [
        "\n".join(f"key{i}: value {i}" for i in range(50_000)),
        "# " + " #" * 4000,  # a heading line made to backtrack
        "**" + "*" * 7000,
        "a" * 30 + ":" + " " * 7000 + "x",
        "```\n" + "x\n" * 50_000,  # an unclosed code block
        "|" * 8000,
        "a: N/A\n" * 5000,
        "Radeon " * 5000 + "Graphics",
    ],
)
def test_bounded_on_hostile_bodies(body):
    start = time.perf_counter()
    p = prepare({"title": "Crash", "body": body})
    assert time.perf_counter() - start < 1.0
    assert len(p.text) <= MAX_CHARS and p.head <= len(p.text)
