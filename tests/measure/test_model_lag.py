"""Model-family day-0 coverage lag: the lag machinery on model artifacts, on hand-built facts,
on the real NxD Inference release notes (corpus, read in place) and through the replayed
nightly on SQLite and PostgreSQL."""

from __future__ import annotations

import csv
import io
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.collect.sources import CollectContext, release_notes
from tracker.config import SourceSpec
from tracker.config.coverage import EvidenceRule, ModelCoverageRule, parse_model_coverage
from tracker.errors import ConfigError
from tracker.measure.lag.rows import LagRun
from tracker.measure.lag.samples import NoteFact, ReleaseFact
from tracker.measure.models.lag import model_evidence, model_lag_samples, note_context
from tracker.measure.stats.survival import kaplan_meier_median
from tracker.mentions.families import parse_families

REPO = Path(__file__).resolve().parents[2]
AS_OF = datetime(2026, 1, 1, tzinfo=UTC)


def day(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


TABLE = parse_families(
    {
        "vllm_releases": {
            "v1.0.0": {"date": "2025-04-14T02:00:00Z", "url": "https://x/v1.0.0"},
            "v1.1.0": {"date": "2025-08-01T00:00:00Z", "url": "https://x/v1.1.0"},
        },
        "families": [
            {"id": "qwen3", "aliases": ["Qwen3"], "vllm": "v1.0.0"},
            {"id": "qwen3-moe", "aliases": ["Qwen3 MoE"], "vllm": "v1.0.0"},
            {
                "id": "llama4",
                "aliases": ["Llama 4"],
                "vllm": "v1.0.0",
                "weights": {"date": "2025-04-20", "url": "https://w/llama4"},
            },
            {"id": "old", "aliases": ["Old"], "vllm": "v1.0.0"},
            {"id": "nodate", "aliases": ["Nodate"], "vllm": "v9.9.9"},
        ],
    },
    "test",
)
RULE = ModelCoverageRule(
    "models",
    ("vllm_cuda", "public_weights"),
    (
        EvidenceRule("cuda", "vllm_release", True, "vllm", "model_registry", "models"),
        EvidenceRule("neuron", "nxd_inference", True, "nxd", "note", "models"),
    ),
)


def note(when: str, *models: tuple[str, str, str], url: str = "https://n") -> NoteFact:
    return NoteFact("nxd", day(when), url, (), tuple(models))


def rows(notes, releases=(), unknown=None):
    return {
        (s.series, s.regime, s.day0_definition): s
        for s in model_lag_samples(
            [RULE],
            TABLE,
            list(releases),
            notes,
            AS_OF,
            LagRun(unknown if unknown is not None else []),
        )
    }


def test_supported_counts_and_beta_planned_dropped_known_issues_do_not():
    notes = [
        note("2025-01-01"),  # the stream starts before every day 0
        note("2025-05-01", ("qwen3-moe", "other", "Improvements")),  # "(Beta)"
        note("2025-05-02", ("llama4", "planned", "")),
        note("2025-05-03", ("qwen3-moe", "supported", "Known issues")),  # "only supports ..."
        note("2025-05-04", ("llama4", "supported", ""), ("llama4", "dropped", "")),  # mixed
        note("2025-07-31", ("qwen3", "supported", "Improvements"), url="https://n/2.25"),
    ]
    got = rows(notes)
    qwen3 = got[("qwen3", "neuron", "vllm_cuda")]
    assert (qwen3.status, qwen3.lag_days, qwen3.evidence_url) == ("covered", 108, "https://n/2.25")
    assert qwen3.artifact == "model" and qwen3.primary
    for fam in ("qwen3-moe", "llama4"):
        open_row = got[(fam, "neuron", "vllm_cuda")]
        assert open_row.status == "open" and open_row.available is None
        assert open_row.lag_days == (AS_OF.date() - day("2025-04-14").date()).days


def test_two_day0_definitions_stay_apart_and_unknown_day0_is_listed():
    unknown: list = []
    got = rows([note("2025-01-01"), note("2025-06-01", ("llama4", "supported", ""))], (), unknown)
    assert got[("llama4", "neuron", "vllm_cuda")].lag_days == 48  # 2025-04-14 -> 06-01
    weights = got[("llama4", "neuron", "public_weights")]
    assert weights.lag_days == 42 and not weights.primary
    # cuda under public_weights: the vLLM release came 6 days before the weights: negative, flagged
    cuda = got[("llama4", "cuda", "public_weights")]
    assert cuda.lag_days == -6 and cuda.negative
    assert got[("llama4", "cuda", "vllm_cuda")].lag_days == 0
    assert ("models", "qwen3", "public_weights") in {
        (u.project, u.series, u.definition) for u in unknown if u.day0_unknown
    }
    assert any(u.series == "nodate" and "v9.9.9" in u.reason for u in unknown)
    assert ("nodate", "neuron", "vllm_cuda") not in got


def test_collected_vllm_release_wins_over_the_table_date():
    releases = [ReleaseFact("vllm", "1.0.0", day("2025-04-16"), "https://gh/v1.0.0")]
    got = rows([note("2025-01-01")], releases)
    row = got[("qwen3", "cuda", "vllm_cuda")]
    assert row.day0 == day("2025-04-16") and row.day0_url == "https://gh/v1.0.0"


def test_vllm_release_notes_date_day0_when_earlier_or_when_the_table_has_none():
    vllm = [
        NoteFact(
            "vllm", day("2025-05-01"), "https://gh/v1.0.5", (), (("nodate", "supported", ""),)
        ),
        NoteFact("vllm", day("2025-03-01"), "https://gh/v0.9", (), (("qwen3", "other", ""),)),
        NoteFact(
            "vllm", day("2025-03-02"), "https://gh/v0.9.1", (), (("llama4", "supported", ""),)
        ),
    ]
    got = rows([note("2025-01-01"), *vllm])
    assert got[("nodate", "cuda", "vllm_cuda")].day0_url == "https://gh/v1.0.5"
    assert got[("llama4", "cuda", "vllm_cuda")].day0 == day("2025-03-02")  # before the table's
    assert got[("qwen3", "cuda", "vllm_cuda")].day0_url == "https://x/v1.0.0"  # "other": not


def test_a_vllm_note_about_another_regime_does_not_date_cuda_day0():
    """vLLM's notes also say "[TPU] Added support for X": the TPU's coverage, not CUDA's day 0
    (it made X's day 0 the TPU announcement and its CUDA lag 0)."""
    tpu = NoteFact(
        "vllm", day("2025-05-01"), "https://gh/v1.0.5", (), (("nodate", "supported", ""),), "xla"
    )
    unknown: list = []
    got = rows([note("2025-01-01"), tpu], (), unknown)
    assert ("nodate", "cuda", "vllm_cuda") not in got
    assert any(u.series == "nodate" and "v9.9.9" in u.reason for u in unknown)
    cuda = NoteFact(
        "vllm", day("2025-05-01"), "https://gh/v1.0.5", (), (("nodate", "supported", ""),), "cuda"
    )
    assert rows([note("2025-01-01"), cuda])[("nodate", "cuda", "vllm_cuda")].day0_url == (
        "https://gh/v1.0.5"
    )


def test_weights_out_before_the_first_vllm_release_are_open_on_cuda_not_unknown():
    """Under public_weights, a family whose vLLM release is known but after as-of is open on
    CUDA (lag so far), not unknown: its first vLLM release date is known."""
    table = parse_families(
        {
            "vllm_releases": {"v1.1.0": {"date": "2025-08-01T00:00:00Z", "url": "https://x/v1.1"}},
            "families": [
                {
                    "id": "late",
                    "aliases": ["Late"],
                    "vllm": "v1.1.0",
                    "weights": {"date": "2025-07-01", "url": "https://w/late"},
                }
            ],
        },
        "test",
    )
    unknown: list = []
    got = {
        (s.series, s.regime, s.day0_definition): s
        for s in model_lag_samples([RULE], table, [], [], day("2025-07-15"), LagRun(unknown))
    }
    row = got[("late", "cuda", "public_weights")]
    assert (row.status, row.lag_days, row.available) == ("open", 14, None)
    assert not [u for u in unknown if u.series == "late" and u.regime == "cuda"]


def test_left_truncation_is_unknown_not_open():
    unknown: list = []
    got = rows([note("2025-06-01", ("qwen3", "supported", ""))], (), unknown)
    assert ("qwen3", "neuron", "vllm_cuda") not in got
    reason = next(u.reason for u in unknown if u.series == "qwen3" and u.regime == "neuron")
    assert "precedes the first nxd note" in reason and "at most 48 days" in reason


def test_km_median_counts_open_models():
    got = rows([note("2025-01-01"), note("2025-07-31", ("qwen3", "supported", ""))])
    neuron = [s for k, s in got.items() if k[1:] == ("neuron", "vllm_cuda")]
    assert len(neuron) == 4 and sum(s.status == "open" for s in neuron) == 3
    assert kaplan_meier_median((s.lag_days, s.status == "covered") for s in neuron) is None


def test_rule_needs_one_primary_per_regime():
    raw = [
        {
            "project": "models",
            "artifact": "model",
            "regimes": {
                "rocm": [{"definition": "a", "evidence": {"project": "p", "kind": "note"}}]
            },
        }
    ]
    with pytest.raises(ConfigError, match="exactly one"):
        parse_model_coverage(raw, "s.yaml")
    raw[0]["day0"] = ["release_party"]
    with pytest.raises(ConfigError, match="release_party"):
        parse_model_coverage(raw, "s.yaml")


# -- the real NxD Inference notes (corpus, read in place) -----------------------------------------

NXDI = "aws-neuron-sdk/release-notes/components/nxd-inference.rst"
NXDI_226 = "models/regimes/aws-neuron-sdk@81ce03ae/release-notes/prev/2.26.0/nxd-inference.rst"


def nxdi_facts(corpus: Path, rel: str) -> list[NoteFact]:
    """The document through the release-notes collector and the real tagger, as the report
    reads it."""
    from tracker.tagger import load_tagger

    spec = SourceSpec("nxdi-test", release_notes.KIND, "nxd-inference", options={"format": "rst"})
    ctx = CollectContext(spec)
    events = [e for e in release_notes.parse((corpus / rel).read_bytes(), ctx) if e.kind == "note"]
    tags = load_tagger().tag_many([{"title": e.title, "body": e.body} for e in events])
    return [
        NoteFact(
            "nxd-inference",
            e.occurred_at,
            e.url,
            (),
            tuple(
                (m["model"], m["status"], note_context(e.attrs)) for m in t.mentions if "model" in m
            ),
        )
        for e, t in zip(events, tags, strict=True)
    ]


def added_in_document(text: str) -> dict[str, str]:
    """Independent reading of the file: "Added support for <name>" items and the date of the
    release section they sit in (the last "Date of Release" line above them)."""
    from tracker.mentions.families import load_families, normalise_name

    table, found, date = load_families(), {}, None
    for line in text.splitlines():
        m = re.match(r"Date of Release:\s*(\d\d)/(\d\d)/(\d{4})", line.strip())
        if m:
            date = f"{m.group(3)}-{m.group(1)}-{m.group(2)}"
        m = re.match(r"\* Added support for (.+)", line.strip())
        if m and date:
            hit = table.match(normalise_name(re.split(r"[,(]", m.group(1))[0]))
            if hit:
                found.setdefault(hit[0], date)
    return found


def test_every_model_the_nxdi_notes_add_gets_a_neuron_row_with_its_release_date(corpus):
    facts = nxdi_facts(corpus, NXDI)
    ev = EvidenceRule("neuron", "nxd_inference", True, "nxd-inference", "note", "models")
    got = {fam: when.date().isoformat() for fam, (when, _) in model_evidence(ev, facts).items()}
    added = added_in_document((corpus / NXDI).read_text(encoding="utf-8"))
    assert added == {"qwen3": "2025-07-31"}  # the one "Added support for <model>" item
    for fam, date in added.items():
        assert got.get(fam) == date, fam
    # Qwen2.5 text models are listed under "Models" of 2.24.0, tested on Trn1: support
    assert got.get("qwen2.5") == "2025-06-24"
    # (Beta) model support, a bug fix and known-issue limits are not support
    for fam in ("qwen3-moe", "pixtral", "qwen2-vl", "qwen3-vl", "llama4"):
        assert fam not in got, fam
    statuses = {(f, s) for n in facts for f, s, _ in n.models}
    assert ("qwen3-moe", "other") in statuses and ("pixtral", "other") in statuses


def test_llama4_beta_support_in_2_26_is_not_counted(corpus):
    path = corpus / NXDI_226
    if not path.exists():
        pytest.skip(f"{path} is absent")
    facts = nxdi_facts(corpus, NXDI_226)
    assert ("llama4", "other") in {(f, s) for n in facts for f, s, _ in n.models}
    ev = EvidenceRule("neuron", "nxd_inference", True, "nxd-inference", "note", "models")
    assert "llama4" not in model_evidence(ev, facts)


# -- the replayed nightly, SQLite and PostgreSQL -------------------------------------------------


def replay(tmp_path: Path, monkeypatch, url: str | None) -> list[dict]:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    if url:
        monkeypatch.setenv("TRACKER_DATABASE_URL", url)
    else:
        monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    runner = CliRunner()
    out = runner.invoke(cli, ["nightly", "--replay", str(REPO / "cassettes")])
    assert out.exit_code == 0 and " 0 failed" in out.output, out.output
    lag = runner.invoke(cli, ["lag", "--artifact", "model", "--as-of", "2026-08-31"])
    assert lag.exit_code == 0, lag.output
    view = runner.invoke(
        cli,
        [
            "query",
            "SELECT family, regime, definition, day0_definition, status, evidence_url "
            "FROM v_model_lag ORDER BY family, regime, definition, day0_definition",
            "--format",
            "json",
        ],
    )
    assert view.exit_code == 0, view.output
    return list(csv.DictReader(io.StringIO(lag.output))), json.loads(view.output)


def test_replayed_nightly_has_model_lag_for_all_four_regimes(tmp_path, monkeypatch):
    got, view = replay(tmp_path, monkeypatch, None)
    assert got and {r["artifact"] for r in got} == {"model"}
    primary = [r for r in got if r["primary"] == "true"]
    assert {r["regime"] for r in primary} == {"cuda", "rocm", "xla", "neuron"}
    assert {r["regime"] for r in primary if r["status"] == "open"} >= {"rocm", "xla", "neuron"}
    assert all(r["evidence_url"].startswith("https://") for r in got if r["status"] == "covered")
    by = {(r["series"], r["regime"], r["day0_definition"]): r for r in got}
    assert by[("qwen3", "neuron", "vllm_cuda")]["available"] == "2025-07-31"
    assert by[("qwen3-moe", "neuron", "vllm_cuda")]["status"] == "open"  # beta only
    rows = {(r["series"], r["regime"], r["definition"], r["day0_definition"]): r for r in got}
    assert rows[("llama4", "rocm", "rocm_vllm_docker", "public_weights")]["lag_days"] == "184"
    # two engines on ROCm: SGLang's first ROCm image after its page listed Llama 4 (v0.4.6.post5,
    # pushed 2025-05-24) is the headline, 135 days before AMD's rocm/vllm list named it
    llama4 = rows[("llama4", "rocm", "any_engine", "public_weights")]
    assert (llama4["lag_days"], llama4["available"]) == ("49", "2025-05-24")
    assert llama4["evidence_url"].endswith("name=v0.4.6.post5-rocm630")
    # the view holds the report's model rows (as of the nightly), framework rows stay out
    qwen3 = {
        "family": "qwen3",
        "regime": "neuron",
        "definition": "nxd_inference",
        "day0_definition": "vllm_cuda",
        "status": "covered",
        "evidence_url": by[("qwen3", "neuron", "vllm_cuda")]["evidence_url"],
    }
    assert qwen3 in view
    assert len(view) == len(got) and not any(r["family"] in ("2.9", "0.13") for r in view)
    # ... and v_lag_series keeps the framework series only (model rows, one per day-0
    # definition, would enter its aggregates twice with nothing to tell them apart)
    series = CliRunner().invoke(
        cli, ["query", "SELECT DISTINCT project FROM v_lag_series", "--format", "json"]
    )
    assert series.exit_code == 0, series.output
    projects = {r["project"] for r in json.loads(series.output)}
    assert "models" not in projects and {"pytorch", "jax", "vllm"} <= projects
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    assert any(u["project"] == "models" for u in summary["lag_unknown"])
    html = (tmp_path / "report" / "index.html").read_text()
    assert (
        "Models: day 0 on CUDA" in html and (tmp_path / "report" / "model_lag_matrix.png").exists()
    )


def test_lag_artifact_model_same_rows_on_postgresql_and_sqlite(tmp_path, monkeypatch, pg_url):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    lite, lite_view = replay(tmp_path / "a", monkeypatch, None)
    pg, pg_view = replay(tmp_path / "b", monkeypatch, pg_url)
    assert lite and pg == lite
    assert lite_view and pg_view == lite_view


# -- the model-list collector and the digest lines ---------------------------------------------


def test_support_matrix_rows_need_passing_tests_not_a_benchmark():
    from tracker.collect.sources.model_list import csv_rows

    text = (
        "Model,Type,UnitTest,Accuracy/Correctness,Benchmark\n"
        '"openai/gpt-oss-120b",Text,\u2705 Passing,\u2705 Passing,\u2753 Untested\n'
        '"deepseek-ai/DeepSeek-R1",Text,\u2705 Passing,\u2753 Untested,\u2753 Untested\n'
        '"google/gemma-4-31B-it",Multimodal,\u2705 Passing,\u2705 Passing,\u274c Failing\n'
        '"meta-llama/Llama-4-Maverick-17B-128E-Instruct",unverified,unverified,unverified\n'
        '"some/unknown-model",Text,\u2705 Passing,\u2705 Passing,\u2705 Passing\n'
        # a cell that names a pass word and denies it is no pass
        '"Qwen/Qwen3-32B",Text,Not supported,Not supported,\n'
        '"Qwen/Qwen3-30B-A3B",Text,Not yet passing,\u2705 Passing,\n'
    )
    got = {
        m["model"]: (m["status"], m.get("hardware")) for _, ms in csv_rows(text, "v7x") for m in ms
    }
    assert got == {
        "gpt-oss": ("supported", ["v7x"]),
        "deepseek-r1": ("other", ["v7x"]),
        "gemma4": ("other", ["v7x"]),
        "llama4": ("other", ["v7x"]),
        "qwen3": ("other", ["v7x"]),
        "qwen3-moe": ("other", ["v7x"]),
    }


def test_model_list_lines_are_support_unless_they_say_otherwise():
    from tracker.collect.sources.model_list import text_rows

    text = (
        "<ul><li>Llama 4 Scout and Maverick</li><li>Gemma 3 (Beta)</li></ul>\n* Qwen3 30B-A3B\n"
        "* DeepSeek V3 - not supported on MI250\n"
    )
    got = [(m["model"], m["status"]) for _, ms in text_rows(text, None) for m in ms]
    assert got == [
        ("llama4", "supported"),
        ("gemma3", "other"),
        ("qwen3-moe", "supported"),
        ("deepseek-v3", "other"),
    ]


def test_digest_model_lines_per_regime():
    from tracker.digest.model_lines import digest_model_lines

    got = rows([note("2025-01-01"), note("2025-07-31", ("qwen3", "supported", ""))])
    lines = digest_model_lines(list(got.values()), AS_OF)
    assert len(lines) == 1 and lines[0].startswith("models on neuron (nxd_inference): median lag")
    assert "1 covered, 3 open" in lines[0] and "newest covered qwen3 (108 d)" in lines[0]
    assert "longest open" in lines[0] and "+ d)" in lines[0]


def test_stored_model_mentions_structured_win_and_release_candidates_do_not_count(sqlite_store):
    from tracker.events import Event
    from tracker.measure.facts import load_facts

    items = [
        Event(
            "l",
            "vllm-rocm-docker",
            "note",
            "row",
            day("2025-10-06"),
            "Qwen3 235B-A22B",
            attrs={
                "section": "Supported models",
                "mentions": [{"model": "qwen3-moe", "status": "supported"}, "junk"],
            },
        ),  # fmt: skip
        Event(
            "r",
            "vllm",
            "note",
            "rc",
            day("2025-04-01"),
            "New models: Qwen3",
            version="0.8.4rc1",
            attrs={"mentions": [{"model": "qwen3", "status": "supported"}]},
        ),  # fmt: skip
        Event(
            "r",
            "vllm",
            "note",
            "final",
            day("2025-04-14"),
            "New models: Qwen3",
            version="0.8.4",
            attrs={
                "section": "New features",
                "heading": "Model support",
                "mentions": [{"model": "qwen3", "status": "supported"}, {"model": 3}],
            },
        ),  # fmt: skip
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    _, notes = load_facts(sqlite_store, ["vllm-rocm-docker", "vllm"])
    got = {n.occurred_at.date().isoformat(): n.models for n in notes}
    assert got["2025-10-06"] == (("qwen3-moe", "supported", "Supported models |  | "),)
    assert got["2025-04-01"] == ()  # a release candidate
    assert got["2025-04-14"] == (("qwen3", "supported", "New features | Model support | "),)
