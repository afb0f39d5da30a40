"""Builds named in any record, on the demo (issue 46): every vLLM ROCm series whose image
InferenceX's configuration history names is dated no later than that commit; vLLM's Neuron
plugin versions date vLLM 0.17-0.24 on Neuron from aws-neuron-sdk's pages read revision by
revision (the vLLM Neuron Beta on 2026-07-21 UTC; the component index's 07-07 listing, withdrawn
on 07-10, dates nothing; Neuron 2.32.0 on 08-18 UTC); 0.25-0.27 stay open; `tracker lag` says
which kind of record dated each row.

Facts checked are the demo's cassettes (tests/conftest.py `demo`)."""

from __future__ import annotations

import csv
import io
import re

import pytest

from tracker.present.response_words import sample_note

SNAPSHOT = "2026-08-22"
IX = "https://github.com/SemiAnalysisAI/InferenceX/commit/"
# the first main-branch commit of InferenceX's configuration files naming each image
INFERENCEX = {
    "0.14": ("2026-01-21", "25bda3d71ed0"),
    "0.17": ("2026-03-09", "87250a0e220c"),
    "0.18": ("2026-03-23", "0d571de27697"),
    "0.19": ("2026-04-05", "0ee5ff342d54"),
    "0.21": ("2026-05-15", "370a162f3f9b"),
    "0.24": ("2026-07-05", "44a797e14a70"),
    "0.27": ("2026-08-12", "73bd8e2004b8"),
}
BETA = "https://github.com/aws-neuron/aws-neuron-sdk/blob/6cc93e4e3d3fb9aa2fac5c4d45d0bddd8994a4eb/"
NEURON_232 = (
    "https://github.com/aws-neuron/aws-neuron-sdk/blob/a3247f5b8c305f9b70a19993acb306122e736eec/"
)


@pytest.fixture(scope="module")
def vllm_rows(demo) -> dict[tuple[str, str, str], dict]:
    # the snapshot's day (the demo's report is as of an earlier Sunday, before Neuron 2.32.0)
    out = demo["run"]("lag", "--as-of", SNAPSHOT, "--artifact", "framework")
    return {
        (r["series"], r["regime"], r["definition"]): r
        for r in csv.DictReader(io.StringIO(out))
        if r["project"] == "vllm"
    }


def test_every_rocm_series_inferencex_names_is_dated_no_later_than_that_commit(vllm_rows):
    for series, (day, sha) in INFERENCEX.items():
        row = vllm_rows[(series, "rocm", "earliest_build")]
        assert row["status"] == "covered" and row["available"] <= day, (series, row)
        if row["available"] == day:
            assert row["evidence_url"].startswith(IX + sha)
            assert row["evidence_kind"] == "configuration commit"
    # v0.27.1 (08-12) covers 0.25 and 0.26, which no record names themselves
    for series in ("0.25", "0.26"):
        row = vllm_rows[(series, "rocm", "earliest_build")]
        assert (row["status"], row["available"], row["covered_by"]) == (
            "covered",
            "2026-08-12",
            "0.27",
        )


def test_neuron_plugin_versions_date_vllm_on_neuron_and_a_withdrawn_listing_does_not(vllm_rows):
    for series in ("0.17", "0.18", "0.19", "0.20", "0.21"):
        row = vllm_rows[(series, "neuron", "neuron_sdk")]
        # the vLLM Neuron Beta (v0.21.0.1.0.0), not the index's withdrawn 07-07 listing
        assert row["status"] == "covered" and row["available"] == "2026-07-21", row
        assert row["evidence_url"] == BETA + "release-notes/releasecontent.rst"
        assert row["evidence_kind"] == "page revision"
        assert row["covered_by"] == ("" if series == "0.21" else "0.21")
    for series in ("0.22", "0.23", "0.24"):
        row = vllm_rows[(series, "neuron", "neuron_sdk")]
        assert (row["status"], row["available"]) == ("covered", "2026-08-18"), row
        assert row["evidence_url"].startswith(NEURON_232)
    for series in ("0.25", "0.26", "0.27"):
        assert vllm_rows[(series, "neuron", "neuron_sdk")]["status"] == "open"
    # the stale "currently supports vLLM version 0.16.0" line of every release since 2.29 is
    # not the latest: it dates 0.16 by its first release only
    assert vllm_rows[("0.16", "neuron", "neuron_sdk")]["available"] == "2026-04-09"


def test_the_report_says_its_issue_threads_are_a_sample_beside_the_figure(demo):
    html = (demo["report"] / "index.html").read_text(encoding="utf-8")
    counts = re.search(r"(\d+) issues, (\d+) answered\. <strong>([^<]*)</strong>", html)
    assert counts is not None and counts.group(1) == counts.group(2)
    assert counts.group(3).startswith("A sample, not the whole stream")


def test_the_sample_note_follows_the_counts():
    assert sample_note(81, 81, replay=True).startswith("A sample, not the whole stream: this ")
    assert (
        sample_note(81, 81, replay=False)
        == "Every one of the 81 issues counted has a first response."
    )
    assert sample_note(81, 70, replay=True) == "" and sample_note(0, 0, replay=True) == ""


def test_the_reports_artifact_table_names_the_kind_of_record_that_dated_a_row(demo):
    html = (demo["report"] / "index.html").read_text(encoding="utf-8")
    # vLLM 0.17 on ROCm as of the demo's day: dated by InferenceX's commit naming v0.17.0
    link = f'<a href="{IX}87250a0e220c20993c0101f4fb892eaea0ed231b">configuration commit</a>'
    assert link in html
