"""The report from a real store: files written, HTML escapes what was collected, evidence
traceable; an edited vendor matrix keeps its earlier evidence."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

from werkzeug import Response

from tests.configs import typed_config
from tracker.collect.runner import run_sources
from tracker.config import Regime, SourceSpec
from tracker.events import Event
from tracker.jobs.report import publish_report

REGIMES = (Regime("cuda", reference=True), Regime("rocm"))
COVERAGE = (
    {
        "project": "pytorch",
        "series": "minor",
        "regimes": {
            "rocm": [
                {
                    "definition": "vendor_matrix",
                    "primary": True,
                    "evidence": {"project": "rocm", "kind": "note", "mentions": "pytorch"},
                }
            ]
        },
    },
)


def day(y, m, d):
    return datetime(y, m, d, tzinfo=UTC)


def test_report_files_and_escaping(sqlite_store, tmp_path):
    hostile = '<script>alert("x")</script>'
    items = [
        Event(
            "pytorch-releases",
            "pytorch",
            "release",
            "release:v2.8.0",
            day(2025, 8, 6),
            f"PyTorch 2.8.0 {hostile}",
            url="javascript:alert(1)",
            version="2.8.0",
        ),
        # An earlier ROCm note naming no framework: the rocm notes reach back before day 0.
        Event(
            "rocm-notes",
            "rocm",
            "note",
            "6.4.2#1",
            day(2025, 7, 21),
            "Fixed a hang in rocprof",
            url="https://rocm.docs.amd.com/n",
        ),
        Event(
            "rocm-matrix",
            "rocm",
            "note",
            "7.0.0:pytorch:2.8",
            day(2025, 9, 16),
            "ROCm 7.0.0 supports PyTorch 2.8",
            url="https://rocm.docs.amd.com/m",
            attrs={"mentions": [{"framework": "pytorch", "version": "2.8", "status": "supported"}]},
        ),
        Event(
            "amd-ci",
            "vllm",
            "ci_run",
            "build:1",
            day(2025, 9, 17),
            hostile,
            regime="rocm",
            outcome="passed",
        ),
        Event(
            "amd-ci",
            "vllm",
            "ci_job",
            "job:1:a",
            day(2025, 9, 17),
            "job",
            regime="rocm",
            outcome="failed",
        ),
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    config = typed_config(REGIMES, (), COVERAGE)
    out = tmp_path / "report"
    lines = publish_report(config, sqlite_store, out, as_of=day(2025, 12, 31))
    assert "2 lag samples: 2 covered, 0 open" in lines[0]
    for name in (
        "index.html",
        "lag.csv",
        "lag_summary.csv",
        "ci_pass_rate_weekly.csv",
        "friction_weekly.csv",
        "summary.json",
        "lag.png",
        "headline_lag.png",
        "headline_lag_quarterly.csv",
        "data_quality.csv",
    ):
        assert (out / name).stat().st_size > 0, name
    html = (out / "index.html").read_text()
    # issue 22: one CI week is too little for a chart (it was a near-empty box): a sentence
    # with its counts instead, and no PNG
    assert not (out / "ci_job_pass_rate.png").exists()
    assert "vllm: CI jobs in 1 week(s) only (2025-W38): rocm 0/1 jobs passed" in html
    # the answer first: the headline chart and the verdicts come before any table, every
    # contents link has its target, and the page is laid out for phones too
    assert '<meta name="viewport"' in html and "max-width: 100%" in html
    assert html.index('src="headline_lag.png"') < html.index("<table")
    targets = re.findall(r'href="#([\w-]+)"', html)
    assert len(targets) >= 10 and all(f'id="{t}"' in html for t in targets)
    quarterly = (out / "headline_lag_quarterly.csv").read_text().splitlines()
    assert quarterly[0] == (
        "regime,period,period_start,artifacts,open,open_on_stale_stream,km_median_days,"
        "at_least_days,projects"
    )
    assert "rocm,2025-Q3,2025-07-01,1,0,0,41,41.0,pytorch" in quarterly
    # data quality: a summary line with counts on the page, every item in the CSV
    quality = (out / "data_quality.csv").read_text().splitlines()
    assert quality[0] == "section,source,project,series,regime,definition,detail,url"
    assert "<script>" not in html and "javascript:" not in html
    # the refused day-0 link (javascript:) is the date as plain text, not an empty link
    assert 'href=""' not in html and '<td class="date">2025-08-06</td>' in html
    assert 'href="https://rocm.docs.amd.com/m"' in html
    lag_csv = (out / "lag.csv").read_text().splitlines()
    assert lag_csv[0] == (
        "project,series,regime,definition,primary,day0,available,lag_days,status,"
        "evidence_url,artifact,day0_definition,observed_through,covered_by,channel,"
        "evidence_kind"
    )
    assert (
        "pytorch,2.8,rocm,vendor_matrix,true,2025-08-06,2025-09-16,41,covered,"
        # no collection run recorded: observed through as-of; covered by its own evidence
        # evidence_kind: a vendor matrix row is a note
        "https://rocm.docs.amd.com/m,framework,upstream_release,2025-12-31,,,note" in lag_csv
    )
    summary = (out / "lag_summary.csv").read_text().splitlines()
    assert summary[0].endswith(
        "evidence_from,evidence_through,artifact,day0_definition,evidence_stale"
    )
    # The matrix stream ends 2025-09-16, 106 days before as-of (more than the default 45): stale.
    assert (
        "pytorch,rocm,vendor_matrix,true,all,1,1,0,41,0/1,0/1,1/1,2025-07-21,2025-09-16,"
        "framework,upstream_release,true" in summary
    )
    ci = (out / "ci_pass_rate_weekly.csv").read_text().splitlines()
    # amd-ci is no source of this config: every trigger counts, and the row says so
    assert ci[1] == "vllm,rocm,2025-W38,1,0,0,1,1.0,0.0,every trigger"
    columns, rows = sqlite_store.read_only_query(
        "SELECT series, regime, lag_days, status FROM v_lag_series WHERE regime = 'rocm'"
    )
    assert rows == [("2.8", "rocm", 41, "covered")]


MATRIX = """ROCm Version,7.0.0,6.4.0
PyTorch,"{cell}","2.6, 2.5"
"""
HISTORY = """| Version | Release date |
| ------- | ------------ |
| [7.0.0](https://rocm.docs.amd.com/en/docs-7.0.0/) | September 16, 2025 |
| [6.4.0](https://rocm.docs.amd.com/en/docs-6.4.0/) | April 11, 2025 |
"""


def test_edited_matrix_keeps_the_earlier_evidence(sqlite_store, httpserver):
    cells = iter(["2.8, 2.7", "2.7"])  # a later edit drops 2.8 from the 7.0.0 column
    httpserver.expect_request("/history.md").respond_with_data(HISTORY)
    httpserver.expect_request("/matrix.csv").respond_with_handler(
        lambda _request: Response(MATRIX.format(cell=next(cells)))
    )
    spec = SourceSpec(
        "rocm-matrix",
        "compat_matrix",
        "rocm",
        "rocm",
        options={
            "url": httpserver.url_for("/matrix.csv"),
            "format": "csv",
            "history_url": httpserver.url_for("/history.md"),
        },
    )
    config = typed_config(REGIMES, (spec,), COVERAGE)
    assert run_sources(config, sqlite_store).exit_code == 0
    assert run_sources(config, sqlite_store).exit_code == 0
    notes = {e["external_id"]: e for e in sqlite_store.iter_events(kind="note")}
    assert set(notes) == {"7.0.0:pytorch:2.8+2.7", "7.0.0:pytorch:2.7", "6.4.0:pytorch:2.6+2.5"}
    assert notes["7.0.0:pytorch:2.8+2.7"]["vanished_at"] is not None
    assert notes["7.0.0:pytorch:2.7"]["vanished_at"] is None
    assert notes["6.4.0:pytorch:2.6+2.5"]["vanished_at"] is None


def test_friction_view_counts_issues_and_notes_with_effective_tags(store, tmp_path):
    when = day(2025, 11, 19)  # ISO week 2025-W47
    items = [
        Event("i", "vllm", "issue", "1", when, "MI300X hangs", regime=None),
        Event("i", "vllm", "issue", "2", when, "MI300X slow", regime=None),
        Event("n", "neuron-sdk", "note", "3", when, "faster NKI kernels", regime="neuron"),
        Event(
            "c", "vllm", "ci_job", "4", when, "mi300: failing job", regime="rocm", outcome="failed"
        ),
        # an item edited upstream: the old wording is kept (vanished), its successor counts
        Event("n", "rocm", "note", "5", when, "Known issue: hang on MI300X (old wording)"),
    ]
    with store.transaction() as conn:
        store.upsert_events(conn, items)
        store.mark_vanished(conn, "n", ["5"], when)
    assert {t["id"] for t in store.events_to_tag()} == {
        items[0].id,
        items[1].id,
        items[2].id,
        items[4].id,
    }
    store.save_tags(
        [
            {
                "event_id": items[0].id,
                "tag": "friction",
                "score": 0.9,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "t",
            },
            {
                "event_id": items[1].id,
                "tag": "friction",
                "score": 0.8,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "t",
            },
            # the source's regime (neuron) wins over the tagger's "none"
            {
                "event_id": items[2].id,
                "tag": "optimization",
                "score": 0.7,
                "regime": "none",
                "mentions": [],
                "tagger_version": "t",
            },
            {
                "event_id": items[3].id,
                "tag": "friction",
                "score": 0.9,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "t",
            },
            {
                "event_id": items[4].id,
                "tag": "friction",
                "score": 0.9,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "t",
            },
        ]
    )
    store.set_override(items[1].id, "optimization")  # an analyst disagrees
    rows = {r["regime"]: r for r in store.view_rows("v_friction_weekly")}
    assert set(rows) == {"rocm", "neuron"}
    rocm = rows["rocm"]
    assert (rocm["week"], rocm["friction"], rocm["optimization"], rocm["neutral"]) == (
        "2025-W47",
        1,
        1,
        0,
    )
    assert rocm["friction_ratio"] == 0.5
    assert (rows["neuron"]["optimization"], rows["neuron"]["friction_ratio"]) == (1, 0.0)
    # the report shows the override as an analyst's, next to what the tagger said
    [override] = store.overrides()
    assert (override["title"], override["tag"], override["tagger_tag"]) == (
        "MI300X slow",
        "optimization",
        "friction",
    )
    publish_report(typed_config(REGIMES, (), COVERAGE), store, tmp_path / "r", as_of=when)
    html = (tmp_path / "r" / "index.html").read_text()
    assert "<h2>Analyst overrides</h2>" in html
    assert (
        "<td>MI300X slow</td><td>issue</td>\n"
        "<td>2025-11-19</td><td>optimization / (tagger&#39;s)</td>" in html
    )
    assert "<td>friction / rocm</td>" in html


def test_chart_time_axis_pooling_and_gaps(tmp_path):
    # Weeks sit at their Monday (ISO years included), lines break where a period is missing, and
    # the friction share pools a month's weekly counts instead of averaging weekly ratios.
    from datetime import date

    from tracker.report import chart_data, charts

    assert chart_data.week_start("2026-W47") == date(2026, 11, 16)
    # ISO week 1 of 2021 starts in January
    assert chart_data.week_start("2021-W01") == date(2021, 1, 4)
    # lines break at a missing week: tests/report/test_chart_rules.py (draw_shares, issue 22)
    rows = [
        {"regime": "rocm", "week": "2026-W02", "friction": 3, "optimization": 0, "neutral": 5},
        {"regime": "rocm", "week": "2026-W03", "friction": 0, "optimization": 1, "neutral": 0},
        {"regime": "rocm", "week": "2026-W10", "friction": 0, "optimization": 0, "neutral": 2},
        {"regime": "xla", "week": "2026-W06", "friction": 1, "optimization": 1, "neutral": 0},
    ]
    shares = chart_data.friction_share_by_month(rows)
    assert shares == {"rocm": [(date(2026, 1, 1), 0.75, 4)], "xla": [(date(2026, 2, 1), 0.5, 2)]}
    # issue 22: each regime has events in one month only, too few for a chart (it drew lone
    # points): no chart, a sentence per regime with its counts instead
    assert not charts.friction_chart(tmp_path / "f.png", rows)
    assert [s.split(":")[0] for s in chart_data.sparse_friction(rows)] == ["rocm", "xla"]
    # months of 2-4 events are pooled to quarters (a share of so few is noise): three months
    # of one quarter are one point, three quarters are a chart
    same_quarter = rows + [dict(rows[0], week="2026-W06"), dict(rows[0], week="2026-W10")]
    assert chart_data.friction_period(same_quarter)[1] == "quarter"
    assert not charts.friction_chart(tmp_path / "f.png", same_quarter)
    more = rows + [dict(rows[0], week="2026-W15"), dict(rows[0], week="2026-W28")]
    assert (
        charts.friction_chart(tmp_path / "f.png", more)
        and (tmp_path / "f.png").stat().st_size > 1000
    )
    # months that hold enough events stay months
    busy = [dict(r, friction=6) for r in more]
    assert chart_data.friction_period(busy)[1] == "month"
    one_week = [  # the view's counts: the chart draws them beside each rate (issue 22)
        {"project": "jax", "regime": "xla", "week": "2026-W47", "jobs_passed": 1, "jobs_failed": 1}
    ]
    assert charts.ci_pass_rate_chart(tmp_path / "c.png", one_week)
    assert not charts.ci_pass_rate_chart(tmp_path / "none.png", [])


def test_bidi_controls_in_collected_text_are_shown_not_obeyed(sqlite_store, tmp_path):
    """A U+202E in a CI job name or an evidence URL would reverse the rest of its table cell
    (and what follows it on the line): the page writes it out as <U+202E>, as the digest does."""
    override = "\u202e"
    items = [
        Event(
            "pytorch-releases",
            "pytorch",
            "release",
            "release:v2.8.0",
            day(2025, 8, 6),
            "PyTorch 2.8.0",
            url=f"https://github.com/pytorch/pytorch/releases/{override}v2.8.0",
            version="2.8.0",
        )
    ]
    for week in range(6):
        for source, regime, outcome in (
            ("amd-ci", "rocm", "failed" if week % 2 else "passed"),
            ("nv-ci", "cuda", "passed"),
        ):
            items.append(
                Event(
                    source,
                    "vllm",
                    "ci_job",
                    f"job:{week}:{regime}",
                    day(2025, 9, 1) + timedelta(days=7 * week),
                    f"entrypoints {override}tset-lmm",
                    regime=regime,
                    outcome=outcome,
                )
            )
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    out = tmp_path / "report"
    publish_report(typed_config(REGIMES, (), COVERAGE), sqlite_store, out, as_of=day(2025, 12, 31))
    html = (out / "index.html").read_text()
    assert not re.search("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]", html)
    assert "<td>entrypoints &lt;U+202E&gt;tset-lmm</td>" in html
    assert "releases/&lt;U+202E&gt;v2.8.0" in html
