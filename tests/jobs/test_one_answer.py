"""One answer everywhere: for the same day, the demo's report (summary.json), `tracker lag
--trend`, the view v_lag_trend and the digest of the ISO week ending that day carry the same
verdict and the same headline median per regime (docs/methodology.md, "The headline answer").

Before the answer was defined once, the digest's subject said "ROCm lag 150 d" (an all-time
pooled median) where the report said "at least 66 d", and the report's "cannot tell yet" was
"no clear change" in the CLI and the view: this test reads each output as a user would.
"""

from __future__ import annotations

import csv
import email
import io
import json
import re

import pytest

from tests.conftest import DEMO_DAY, DEMO_WEEK

DAY, WEEK = DEMO_DAY, DEMO_WEEK  # a Sunday: the end of ISO week 2026-W33
REGIMES = {"rocm": "ROCm", "xla": "XLA", "neuron": "Neuron"}
VERDICTS = {"closing", "widening", "no clear change", "cannot tell yet", "too few artifacts"}


def phrase(median: float | None, at_least: float | None) -> str:
    """The headline number as every output words it."""
    if median is not None:
        return f"{median:.0f} d"
    assert at_least is not None, "an answer without a median says what it is at least"
    return f"at least {at_least:.0f} d"


def number(text: str) -> float | None:
    return None if text in ("", None) else float(text)


@pytest.fixture(scope="module")
def outputs(demo) -> dict:
    """Every output of the demo (tests/conftest.py) as of DAY."""
    run, folder = demo["run"], demo["folder"]
    summary = json.loads((demo["report"] / "summary.json").read_text(encoding="utf-8"))
    trend = list(
        csv.DictReader(io.StringIO(run("lag", "--trend", "--as-of", DAY, "--format", "csv")))
    )
    view = json.loads(
        run(
            "query",
            "select regime, verdict, recent_median, recent_at_least, as_of from v_lag_trend "
            "where artifact_group = 'all projects'",
            "--format",
            "json",
        )
    )
    run("digest", "--week", WEEK, "--dry-run", str(folder / "digest.eml"))
    message = email.message_from_bytes((folder / "digest.eml").read_bytes())
    text = next(
        part.get_payload(decode=True).decode("utf-8")
        for part in message.walk()
        if part.get_content_type() == "text/plain"
    )
    return {
        "summary": summary,
        "trend": trend,
        "view": view,
        "subject": message["Subject"],
        "text": text,
    }


def test_the_report_answers_every_regime_as_of_the_day(outputs):
    answers = {a["regime"]: a for a in outputs["summary"]["answer"]}
    assert outputs["summary"]["as_of"].startswith(DAY)
    assert answers["cuda"]["verdict"] == "reference"
    for regime in REGIMES:
        a = answers[regime]
        assert a["verdict"] in VERDICTS
        assert a["window_end"] == DAY and a["artifacts"] > 0
        phrase(a["median_days"], a["at_least_days"])  # a number either way


def test_the_cli_the_view_and_the_digest_say_what_the_report_says(outputs):
    answers = {a["regime"]: a for a in outputs["summary"]["answer"]}
    trend = {r["regime"]: r for r in outputs["trend"] if r["artifact_group"] == "all projects"}
    view = {r["regime"]: r for r in outputs["view"]}
    subject = " ".join(outputs["subject"].split())  # folded header lines
    for regime, name in REGIMES.items():
        a = answers[regime]
        said = phrase(a["median_days"], a["at_least_days"])
        # tracker lag --trend: the pooled primary row
        row = trend[regime]
        assert row["definition"] == "primary"
        assert row["verdict"] == a["verdict"]
        assert phrase(number(row["recent_median"]), number(row["recent_at_least"])) == said
        # v_lag_trend, saved by the nightly job for the same as-of
        v = view[regime]
        assert str(v["as_of"]).startswith(DAY)
        assert v["verdict"] == a["verdict"]
        assert phrase(v["recent_median"], v["recent_at_least"]) == said
        # the digest of the week ending that day: its subject and the regime's first line
        assert f"{name} {said} ({a['verdict']})" in subject
        block = outputs["text"].split(f"== {name} ==", 1)[1]
        first = block.strip().splitlines()[0]
        assert first == f"{name}: {a['text']}"
        assert re.search(
            rf"^{re.escape(name)}: {re.escape(a['verdict'])}; median lag {re.escape(said)} ", first
        )


def test_other_figures_are_labelled_never_in_the_answers_place(outputs):
    """The all-time pooled median (150 d for ROCm on the demo, against the answer's 'at least')
    is shown under its own name in the digest, not as the regime's figure."""
    block = outputs["text"].split("== ROCm ==", 1)[1]
    lines = block.strip().splitlines()
    assert lines[1].startswith("All-time pooled median")
    assert "All-time" not in outputs["subject"]
