"""The CLI end to end, in a subprocess-free CliRunner against real SQLite files."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from tracker.cli.main import cli

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    monkeypatch.setenv("TRACKER_SOURCES", str(REPO / "sources.yaml"))
    runner = CliRunner()

    def invoke(*args, input=None):
        return runner.invoke(cli, list(args), input=input, catch_exceptions=False)

    return invoke


MANUAL = [
    {
        "source_id": "analyst-notes",
        "project": "pytorch",
        "kind": "note",
        "external_id": "rocm-2.9-blog",
        "occurred_at": "2025-11-20T00:00:00+00:00",
        "title": "PyTorch 2.9 wheels for ROCm 7.0 announced",
        "regime": "rocm",
        "url": "https://example.org/evidence",
        "labels": ["manual"],
        "attrs": {"who": "analyst"},
    },
    {
        "source_id": "analyst-notes",
        "project": "jax",
        "kind": "release",
        "external_id": "jax-0.8.1",
        "occurred_at": "2025-11-18T00:00:00Z",
        "title": "JAX 0.8.1",
    },
]


def test_default_db_is_tracker_db_in_the_working_directory(run, tmp_path):
    result = run("init-db")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "tracker.db").exists()
    assert "sqlite:///tracker.db" in result.output


def test_import_export_round_trip_marks_manual_evidence(run, tmp_path):
    run("init-db")
    lines = "\n".join(json.dumps(m) for m in MANUAL) + "\n"
    result = run("import-events", "-", input=lines)
    assert result.exit_code == 0, result.output
    assert "imported 2 events (2 new, 2 marked as manual evidence)" in result.output
    again = run("import-events", "-", input=lines)
    assert "(0 new" in again.output
    exported = [json.loads(line) for line in run("export", "events").output.splitlines()]
    assert [e["external_id"] for e in exported] == ["jax-0.8.1", "rocm-2.9-blog"]
    assert exported[1]["attrs"] == {"who": "analyst"} and exported[1]["labels"] == ["manual"]
    assert exported[1]["occurred_at"] == "2025-11-20T00:00:00+00:00"
    imported = run("query", "SELECT count(*) AS n FROM events WHERE imported", "--format", "json")
    assert json.loads(imported.output) == [{"n": 2}]
    csv_out = run("export", "events", "--format", "csv", "--kind", "note").output.splitlines()
    assert csv_out[0].startswith("source_id,project,kind") and len(csv_out) == 2


def test_export_import_round_trip_keeps_what_vanished_upstream(run, tmp_path):
    # A note removed upstream is kept, marked vanished, and left out of the friction series;
    # exported and imported elsewhere (or re-imported), it must stay so (review finding).
    run("init-db")
    run("import-events", "-", input="\n".join(json.dumps(m) for m in MANUAL) + "\n")
    from tracker.store import Store

    store = Store(f"sqlite:///{tmp_path / 'tracker.db'}")
    with store.transaction() as conn:
        store.mark_vanished(
            conn, "analyst-notes", ["rocm-2.9-blog"], datetime(2025, 12, 1, tzinfo=UTC)
        )
    exported = run("export", "events").output
    assert '"vanished_at": "2025-12-01T00:00:00+00:00"' in exported
    assert run("import-events", "-", input=exported).exit_code == 0  # re-import into the same store
    other = tmp_path / "other"
    other.mkdir()
    run("--db", f"sqlite:///{other / 'o.db'}", "init-db")
    assert (
        run("--db", f"sqlite:///{other / 'o.db'}", "import-events", "-", input=exported).exit_code
        == 0
    )
    for url in (f"sqlite:///{tmp_path / 'tracker.db'}", f"sqlite:///{other / 'o.db'}"):
        rows = run(
            "--db",
            url,
            "query",
            "SELECT external_id, vanished_at IS NOT NULL FROM events ORDER BY external_id",
            "--format",
            "csv",
        ).output.splitlines()[1:]
        assert rows == ["jax-0.8.1,0", "rocm-2.9-blog,1"], url


def test_bad_import_line_writes_nothing(run):
    run("init-db")
    lines = json.dumps(MANUAL[0]) + "\n" + '{"source_id": "x", "kind": "release"}\n'
    result = run("import-events", "-", input=lines)
    assert result.exit_code == 1
    assert "line 2: missing" in result.output
    assert (
        run("query", "SELECT count(*) FROM events", "--format", "csv").output.splitlines()[1] == "0"
    )


OUTSIDE = "+00:00 is outside the dates tracker computes with (1970-01-01 inclusive to 2200-01-01"


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"title": {"a": 1}}, "line 2: title is a dict, not text"),
        ({"attrs": [1, 2]}, "line 2: attrs must be a JSON object"),
        ({"external_id": "x" * 600}, "line 2: external_id is 600 characters long"),
        ({"occurred_at": "0001-01-01T00:00:00+01:00"}, "line 2: a timestamp is out of range"),
        ({"occurred_at": "9999-12-31T23:30:00-05:00"}, "line 2:"),
        # valid ISO 8601, outside the dates tracker computes with (docs/methodology.md)
        (
            {"occurred_at": "9999-12-31T23:59:59Z"},
            f"line 2: occurred_at 9999-12-31T23:59:59{OUTSIDE}",
        ),
        (
            {"occurred_at": "0001-01-01T00:00:00Z"},
            f"line 2: occurred_at 0001-01-01T00:00:00{OUTSIDE}",
        ),
        (
            {"updated_at": "2200-01-01T00:00:00Z"},
            f"line 2: updated_at 2200-01-01T00:00:00{OUTSIDE}",
        ),
        ({"ended_at": "1969-12-31T23:59:59Z"}, f"line 2: ended_at 1969-12-31T23:59:59{OUTSIDE}"),
        (
            {"vanished_at": "9999-12-31T00:00:00Z"},
            f"line 2: vanished_at 9999-12-31T00:00:00{OUTSIDE}",
        ),
    ],
)
def test_unstorable_import_lines_are_refused_by_line(run, bad, message):
    # What the store would reject (or crash on) is refused with the line, before any write.
    run("init-db")
    lines = json.dumps(MANUAL[0]) + "\n" + json.dumps({**MANUAL[1], **bad}) + "\n"
    result = run("import-events", "-", input=lines)
    assert result.exit_code == 1 and message in result.output
    assert result.output.count("\n") == 1  # one line, no traceback
    assert (
        run("query", "SELECT count(*) FROM events", "--format", "csv").output.splitlines()[1] == "0"
    )


def test_query_refuses_writes_with_exit_1(run):
    run("init-db")
    result = run("query", "DELETE FROM events")
    assert result.exit_code == 1 and "refused" in result.output


def test_commands_need_init_db_first(run):
    result = run("status")
    assert result.exit_code == 1 and "tracker init-db" in result.output


def test_config_error_exit_1_and_usage_error_exit_2(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("sources:\n  - {id: a, kind: nope, project: p}\n")
    result = run("--sources", str(bad), "sources", "check")
    assert result.exit_code == 1 and "unknown kind 'nope'" in result.output
    assert run("collect", "--no-such-flag").exit_code == 2


def test_sources_check_and_list_on_the_shipped_file(run):
    result = run("sources", "check")
    assert result.exit_code == 0 and "ok" in result.output
    listing = run("sources", "list").output
    assert "pytorch-releases" in listing and "github_releases" in listing


def test_parse_prints_json_lines(run, tmp_path):
    page = [
        {
            "tag_name": "v2.9.0",
            "name": "PyTorch 2.9.0 Release",
            "draft": False,
            "prerelease": False,
            "published_at": "2025-10-15T17:01:12Z",
            "html_url": "https://github.com/pytorch/pytorch/releases/tag/v2.9.0",
            "body": "## Highlights\n\n- ROCm wheels for gfx950\n",
        }
    ]
    path = tmp_path / "page.json"
    path.write_text(json.dumps(page))
    result = run("parse", str(path), "--kind", "github_releases", "--project", "pytorch")
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.output.splitlines() if line.startswith("{")]
    assert events[0]["kind"] == "release" and events[0]["version"] == "2.9.0"
    assert any(e["kind"] == "note" and "gfx950" in e["title"] for e in events)
    assert run("parse", str(path), "--kind", "nope").exit_code == 2


def test_nightly_replay_end_to_end_is_idempotent(run, tmp_path):
    first = run("nightly", "--replay", str(REPO / "cassettes"))
    assert "report" in first.output, first.output
    assert (
        "Built from a replay of the cassettes" in (tmp_path / "report" / "index.html").read_text()
    )
    assert " 0 failed" in first.output, first.output
    count = run("query", "SELECT count(*) AS n FROM events", "--format", "json")
    n = json.loads(count.output)[0]["n"]
    assert n > 50
    second = run("collect", "--replay", str(REPO / "cassettes"))
    assert " 0 failed, 0 new events" in second.output, second.output
    assert second.exit_code == 0
    assert (
        json.loads(run("query", "SELECT count(*) AS n FROM events", "--format", "json").output)[0][
            "n"
        ]
        == n
    )
    status = run("status").output
    assert "pytorch-releases" in status and "ok" in status
    # a later `tracker report` of the same store says at its top that it is a replay too
    assert run("report", "--out", "again").exit_code == 0
    assert (
        "Built from a replay of the cassettes in" in (tmp_path / "again" / "index.html").read_text()
    )


def test_tag_store_mode_and_override_survive_retag(run):
    run("init-db")
    lines = [
        {
            "source_id": "manual",
            "project": "vllm",
            "kind": "issue",
            "external_id": "1",
            "occurred_at": "2025-11-18T00:00:00Z",
            "title": "[Bug]: vLLM crashes with HIP error on MI300X",
            "body": "segfault in rocBLAS",
        },
        {
            "source_id": "manual",
            "project": "jax",
            "kind": "note",
            "external_id": "2",
            "occurred_at": "2025-11-18T00:00:00Z",
            "title": "Faster Pallas kernels on TPU v5e",
            "attrs": {"section": "Performance"},
        },
    ]
    run("import-events", "-", input="\n".join(json.dumps(row) for row in lines) + "\n")
    first = run("tag")
    assert first.exit_code == 0 and "tag: 2 events tagged" in first.output, first.output
    assert "tag: 0 events tagged" in run("tag").output  # nothing untagged is left
    rows = json.loads(
        run(
            "query",
            "SELECT title, tag, regime, overridden FROM v_event_tags ORDER BY title",
            "--format",
            "json",
        ).output
    )
    assert [(r["tag"], r["regime"]) for r in rows] == [
        ("optimization", "xla"),
        ("friction", "rocm"),
    ]
    event_id = json.loads(
        run("query", "SELECT id FROM events WHERE external_id = '1'", "--format", "json").output
    )[0]["id"]
    assert run("tag", "--set", event_id, "neutral", "--regime", "none").exit_code == 0
    assert "tag: 2 events tagged" in run("tag", "--retag").output
    rows = json.loads(
        run(
            "query",
            "SELECT tag, regime, overridden FROM v_event_tags WHERE event_id = '" + event_id + "'",
            "--format",
            "json",
        ).output
    )
    assert rows == [{"tag": "neutral", "regime": "none", "overridden": 1}]


def test_lag_as_of_a_date_includes_that_whole_day(run, tmp_path):
    # JAX 0.7.0 was published 2025-07-22 17:46 UTC:
    # as of 2025-07-22 it exists (not only from 00:00).
    release = {
        "source_id": "analyst",
        "project": "jax",
        "kind": "release",
        "external_id": "jax-0.7.0",
        "occurred_at": "2025-07-22T17:46:00Z",
        "title": "JAX 0.7.0",
        "version": "0.7.0",
        "url": "https://github.com/jax-ml/jax/releases/tag/jax-v0.7.0",
    }
    (tmp_path / "e.jsonl").write_text(json.dumps(release) + "\n")
    run("init-db")
    result = run("import-events", str(tmp_path / "e.jsonl"))
    assert result.exit_code == 0, result.output
    out = run("lag", "--as-of", "2025-07-22", "--project", "jax", "--regime", "cuda").output
    assert "jax,0.7.0,cuda,upstream_release,true,2025-07-22,2025-07-22,0,covered," in out
    assert (
        run("lag", "--as-of", "2025-07-21", "--project", "jax").output.count("\n") == 1
    )  # header only


def test_wrong_files_and_newer_databases_are_one_clear_error(run, tmp_path):
    # Each used to end in a traceback (review findings).
    junk = tmp_path / "junk.db"
    junk.write_text("not a database\n" * 100)
    result = run("--db", f"sqlite:///{junk}", "init-db")
    assert result.exit_code == 1 and "tracker: error: database" in result.output
    assert "not a database" in result.output and "Traceback" not in result.output

    run("init-db")
    run("query", "SELECT 1")
    import sqlite3

    with sqlite3.connect(tmp_path / "tracker.db") as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0099'")
    for args in (("init-db",), ("status",)):
        result = run(*args)
        assert result.exit_code == 1 and "newer tracker" in result.output, args

    blocked = tmp_path / "file"
    blocked.write_text("")
    run("--db", f"sqlite:///{tmp_path / 'fresh.db'}", "init-db")
    result = run(
        "--db", f"sqlite:///{tmp_path / 'fresh.db'}", "report", "--out", str(blocked / "x")
    )
    assert (
        result.exit_code == 1 and str(blocked) in result.output and "Traceback" not in result.output
    )


def test_a_closed_pipe_is_not_an_error(tmp_path):
    # `tracker query ... | head -1`: the reader leaves early; no error line, no traceback.
    import subprocess
    import sys

    db = f"sqlite:///{tmp_path / 'p.db'}"
    tracker = [sys.executable, "-m", "tracker", "--db", db]
    subprocess.run(tracker + ["init-db"], check=True, capture_output=True)
    many = (
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300000) "
        "SELECT i FROM n"
    )
    proc = subprocess.Popen(
        tracker + ["query", many, "--format", "csv"], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert proc.stdout.readline().strip() == b"i"
    proc.stdout.close()
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0 and b"error" not in err and b"Traceback" not in err, err


def test_lag_filters_name_what_exists(run):
    run("init-db")
    result = run("lag", "--regime", "ROCm")
    assert (
        result.exit_code == 2
        and "'ROCm' is not a regime" in result.output
        and "rocm" in result.output
    )
    result = run("lag", "--project", "pytroch")
    assert result.exit_code == 2 and "'pytroch' has no coverage rule" in result.output
    assert run("lag", "--regime", "rocm", "--project", "pytorch").exit_code == 0


def test_unlock_lists_and_clears_locks(run):
    from tracker.store import Store
    from tracker.store.tables import locks

    run("init-db")
    now = datetime.now(UTC)
    with Store("sqlite:///tracker.db").transaction() as conn:
        conn.execute(
            locks.insert().values(
                name="nightly",
                holder="db-host-2.example:4242:ab12cd34",
                acquired_at=now,
                expires_at=now + timedelta(hours=6),
            )
        )
    listed = run("unlock")
    assert listed.exit_code == 0
    assert "nightly  db-host-2.example:4242:ab12cd34" in listed.output
    assert listed.output.rstrip().endswith("another host")
    cleared = run("unlock", "nightly", "source:none")
    assert cleared.exit_code == 1
    assert "unlocked nightly (was held by db-host-2.example:4242:ab12cd34)" in cleared.output
    assert "tracker: error: not locked: source:none" in cleared.output
    assert run("unlock").output.count("\n") == 2  # the header and its rule: nothing held


def test_bad_config_values_are_one_error_line_in_check_and_at_run_time(run, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "sources:\n  - {id: kaput, kind: github_issues, project: p, repo: a/b, per_page: many}\n"
    )
    for args in (("sources", "check"), ("collect",), ("nightly",)):
        result = run("--sources", str(bad), *args)
        assert result.exit_code == 1, args
        assert result.output == (
            f"tracker: error: {bad}: source 'kaput': key 'per_page': must be a whole number "
            "above 0, not 'many'\n"
        )
    latin = tmp_path / "latin.yaml"
    latin.write_bytes("sources: [] # caf\u00e9\n".encode("latin-1"))
    result = run("--sources", str(latin), "sources", "check")
    assert result.exit_code == 1 and "not UTF-8 text" in result.output


def test_a_db_that_is_not_a_url_is_an_error_and_creates_nothing(run, tmp_path):
    result = run("--db", "notaurl", "init-db")
    assert result.exit_code == 1
    assert result.output.startswith("tracker: error: --db: 'notaurl' is not a database URL")
    assert not (tmp_path / "notaurl").exists()


@pytest.mark.parametrize("group", [(), ("sources",), ("tagger",), ("export",)])
def test_help_lists_every_command_with_a_whole_summary(run, group):
    """Click cuts a command's first sentence to fit the listing ("Send the weekly maturity
    digest email for one complete..."): every command carries a short summary of its own."""
    text = run(*group, "--help").output
    listing = text[text.index("Commands:") :].splitlines()[1:]
    assert listing, text
    for line in listing:
        assert line.strip() and not line.rstrip().endswith("..."), line
