"""The digest's "Waiting for an answer" lines (tracker.digest.response_lines): the regime
whose issues opened in the week waited longest comes first (a median not reached counts
longest), each line says how many were opened and answered, and names issues answered in the
week; a bot or the author never makes an issue answered."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from tracker.digest.response_lines import waiting_lines
from tracker.measure.response import response_figures

START = datetime(2026, 6, 15, tzinfo=UTC)  # a Monday
END = START + timedelta(days=7)


def issue(source, regime, number, opened, author="u"):
    return {
        "source_id": source, "project": "p", "regime": regime, "number": number,
        "url": f"https://github.com/o/r/issues/{number}", "created_at": opened,
        "author": author, "closed_at": None, "close_reason": None, "state": "open",
    }  # fmt: skip


def comment(source, number, author, at, kind="User"):
    return {"source_id": source, "issue": number, "author": author, "author_type": kind,
            "association": None, "created_at": at}  # fmt: skip


def test_longest_wait_first_and_answered_issues_named():
    day = timedelta(days=1)
    issues = [
        issue("a", "rocm", 1, START + day),  # answered after 2 days
        issue("a", "rocm", 2, START + day),  # only its author and a bot: unanswered
        issue("a", "rocm", 3, START - 10 * day),  # older, answered this week
        issue("b", "xla", 4, START + 2 * day),  # answered after 1 hour
        issue("c", "neuron", 5, START - 30 * day),  # nothing this week
    ]
    comments = [
        comment("a", 1, "maint", START + 3 * day),
        comment("a", 2, "u", START + 2 * day),
        comment("a", 2, "helper[bot]", START + 2 * day, "Bot"),
        comment("a", 3, "maint", START + 4 * day),
        comment("b", 4, "maint", START + 2 * day + timedelta(hours=1)),
    ]
    figures = response_figures(issues, comments, END, "cuda", ["cuda", "rocm", "xla", "neuron"])
    lines = waiting_lines(figures, START, END)
    assert [line["text"].split(":")[0] for line in lines] == ["ROCm", "XLA"]
    rocm, xla = (line["text"] for line in lines)
    # 2 opened: one answered after 48 h, one censored at the week's end (5 days): median 48 h
    assert "waited longest: 2 issue(s) opened this week, 1 answered by its end" in rocm
    assert "median wait 48 h (2.0 d)" in rocm
    assert "answered this week: #3 (p) after 336 h (14.0 d), #1 (p) after 48 h (2.0 d)" in rocm
    assert "1 issue(s) opened this week, 1 answered by its end, median wait 1 h" in xla
    assert lines[0]["url"] == "https://github.com/o/r/issues/3"


def test_one_regime_alone_is_not_called_longest():
    issues = [issue("a", "rocm", 1, START + timedelta(days=1))]
    figures = response_figures(issues, [], END, "cuda", ["cuda", "rocm"])
    (line,) = waiting_lines(figures, START, END)
    assert line["text"].startswith("ROCm: 1 issue(s) opened this week, 0 answered by its end")
    assert "more than half still unanswered" in line["text"]
