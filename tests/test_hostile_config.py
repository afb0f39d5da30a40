"""Hostile sources.yaml: alias bombs end in one short error line, in little memory; a source id
that is a path is refused by `sources check` and by `collect`; error messages show a bounded
preview of a value, however large.

The bombs run the real CLI in a child process whose address space is capped (RLIMIT_AS), so a
regression ends in a MemoryError there rather than taking this machine's memory.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.yaml_bombs import bomb
from tracker.config.preview import PREVIEW_CHARS, preview, shown
from tracker.config.value_types import SOURCE_ID
from tracker.errors import ConfigError
from tracker.jobs.config import load_config

REPO = Path(__file__).resolve().parents[1]
ADDRESS_SPACE = 768 << 20  # bytes the child may map; `sources check` maps about 60 MB
# The child runs `tracker --sources FILE sources check` and prints its peak RSS (VmHWM, KB) at
# exit: getrusage's ru_maxrss would count the forked parent's pages from before exec.
CHILD = f"""
import atexit, resource, sys
resource.setrlimit(resource.RLIMIT_AS, ({ADDRESS_SPACE}, {ADDRESS_SPACE}))
def peak():
    print(next(l for l in open("/proc/self/status") if l.startswith("VmHWM")).split()[1])
atexit.register(peak)
from tracker.cli.main import main
sys.argv = ["tracker", "--sources", sys.argv[1], "sources", "check"]
main()
"""


def check_in_child(path: Path) -> subprocess.CompletedProcess:
    # The timeout only keeps a broken build from hanging the suite; nothing asserts on time.
    return subprocess.run(
        [sys.executable, "-c", CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=path.parent,
    )


@pytest.mark.parametrize("levels", [9, 10])
@pytest.mark.parametrize("target", ["package", "id", "top_events"])
def test_an_alias_bomb_ends_in_one_short_line_in_little_memory(tmp_path, levels, target):
    path = tmp_path / "sources.yaml"
    path.write_text(bomb(levels, target))
    done = check_in_child(path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert len(done.stderr) < 2000
    assert done.stderr.count("\n") == 1
    assert re.match(rf"tracker: error: {re.escape(str(path))}: line \d+: ", done.stderr)
    assert "YAML aliases" in done.stderr
    assert int(done.stdout.split()[-1]) < 200_000  # KB of peak RSS


ID_PROBLEM = "key 'id': must be 1 to 100 letters, digits"


@pytest.mark.parametrize(
    "source_id",
    ["../escaped/pwn", "/abs/x", ".hidden", "a/b", "..", "a\\\\b", "x" * 101, "caf\u00e9", "a b"],
)
def test_a_source_id_that_is_not_a_plain_name_is_refused(tmp_path, source_id):
    path = tmp_path / "sources.yaml"
    path.write_text(f'sources:\n  - {{id: "{source_id}", kind: pypi, project: p, package: x}}\n')
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value).startswith(f"{path}: sources[0]: {ID_PROBLEM}"), info.value


def test_every_shipped_source_id_is_a_plain_name():
    ids = [s["id"] for s in yaml.safe_load((REPO / "sources.yaml").read_text())["sources"]]
    assert ids and all(SOURCE_ID.fullmatch(i) for i in ids)
    assert load_config(REPO / "sources.yaml").sources  # the file as shipped still loads


CLEAN_ENV = {k: v for k, v in os.environ.items() if not k.startswith("TRACKER_")}


def run_cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(Path(sys.executable).parent / "tracker"), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**CLEAN_ENV, "TRACKER_DATABASE_URL": "sqlite:///tracker.db"},
    )


@pytest.mark.parametrize("source_id", ["../escaped/pwn", "/abs/x", ".hidden", "a/b"])
def test_sources_check_and_collect_refuse_a_path_like_id_creating_nothing(tmp_path, source_id):
    work = tmp_path / "work"
    work.mkdir()
    (work / "sources.yaml").write_text(
        "sources:\n"
        f'  - {{id: "{source_id}", kind: pypi, project: p, package: x, url: "http://127.0.0.1:9"}}\n'
    )
    before = sorted(tmp_path.rglob("*"))
    for args in (("sources", "check"), ("collect", "--record", "rec")):
        done = run_cli(work, "--sources", "sources.yaml", *args)
        assert done.returncode == 1, done.stderr
        assert done.stderr.count("\n") == 1
        assert done.stderr.startswith(f"tracker: error: sources.yaml: sources[0]: {ID_PROBLEM}")
    assert sorted(tmp_path.rglob("*")) == before  # no rec/, no escaped/, no database
    assert not Path("/abs").exists()


def test_an_id_with_dots_dashes_and_underscores_passes_sources_check(tmp_path):
    (tmp_path / "sources.yaml").write_text(
        "sources:\n  - {id: pypi-x.1_a, kind: pypi, project: p, package: x}\n"
    )
    done = run_cli(tmp_path, "--sources", "sources.yaml", "sources", "check")
    assert done.returncode == 0, done.stderr
    assert "ok (1 sources" in done.stdout


def nested(depth: int, width: int) -> list:
    value: list = ["x" * 1000] * width
    for _ in range(depth):
        value = [value] * width
    return value


@pytest.mark.parametrize(
    "value",
    [
        "y" * 100_000,
        nested(depth=2, width=30),  # 27,000 strings of 1,000 characters, 27 MB as repr()
        {f"key-{n}" * 50: list(range(1000)) for n in range(1000)},
        [[[[[[[[1]]]]]]]] * 10_000,
    ],
    ids=["long string", "deep and wide list", "big mapping", "many deep lists"],
)
def test_a_preview_is_bounded_whatever_the_value(value):
    assert len(preview(value)) <= PREVIEW_CHARS
    assert len(shown(value)) <= PREVIEW_CHARS + len(f" ({type(value).__name__})")


@pytest.mark.parametrize(
    "body",
    [
        # a kind's typed key, the common limits, the digest and the report sections
        "sources:\n  - {id: a, kind: pypi, project: p, package: [%s]}\n",
        "sources:\n  - {id: a, kind: pypi, project: p, package: x, max_pages: [%s]}\n",
        "sources: []\ndigest: {top_events: [%s]}\n",
        "sources: []\nreport: {stale_after_days: [%s]}\n",
        "sources:\n  - {id: a, kind: pypi, project: p, package: x, regime: [%s]}\n",
    ],
    ids=["package", "max_pages", "digest top_events", "report stale_after_days", "regime"],
)
def test_errors_show_a_bounded_preview_of_a_long_nested_value(tmp_path, body):
    big = ", ".join(f"[{'z' * 500}, [[{n}]]]" for n in range(2000))  # ~1 MB in the file
    path = tmp_path / "sources.yaml"
    path.write_text(body % big)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert len(message) < len(str(path)) + 400, message
    assert "zzz" in message  # the value is shown, shortened


@pytest.mark.parametrize(
    ("text", "said"),
    [
        # PyYAML's int constructor refuses a number of more than 4,300 digits (ValueError)
        (
            "sources:\n  - {id: a, kind: pypi, project: p, package: x, max_pages: "
            + "9" * 5000
            + "}\n",
            "a value YAML cannot read",
        ),
        # keys of mixed types: sorting them raised TypeError
        (
            "sources:\n  - {id: a, kind: pypi, project: p, package: x, 1: one, zz: two}\n",
            "unknown key",
        ),
        (
            "report: {1: one, zz: two}\nsources: []\n",
            "report: unknown key",
        ),
    ],
    ids=["5000-digit int", "mixed source keys", "mixed report keys"],
)
def test_odd_yaml_values_end_in_one_line(tmp_path, text, said):
    (tmp_path / "sources.yaml").write_text(text)
    done = run_cli(tmp_path, "--sources", "sources.yaml", "sources", "check")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr and said in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_sources_file_of_590000_sources_is_refused_early_in_little_memory(tmp_path):
    """Issue 49: `sources check` of 590,000 sources peaked at gigabytes; now refused before it
    is parsed, naming the limit (benchmarks/sources_check_memory.py measures the peak)."""
    path = tmp_path / "sources.yaml"
    with path.open("w", encoding="utf-8") as out:
        out.write("sources:\n")
        for n in range(590_000):
            out.write(f"  - {{id: s{n:07d}, kind: pypi, project: p{n:07d}, package: k{n:07d}}}\n")
    done = check_in_child(path)
    assert done.returncode == 1, done.stderr[-2000:]
    assert done.stderr.splitlines() == [
        f"tracker: error: {path}: larger than 2 MB (MAX_SOURCES_MB), the most a sources file may "
        "hold: not read (a sources file lists tens to thousands of sources; reading a larger one "
        "whole would take gigabytes of memory)"
    ]
    assert int(done.stdout.split()[-1]) < 200_000  # KB of peak RSS


def test_a_sources_file_just_under_the_limit_is_read(tmp_path):
    from tracker.config import MAX_SOURCES_MB

    path = tmp_path / "sources.yaml"
    entry = "  - {id: s, kind: pypi, project: p, package: k}\n"
    padding = "#" * 1000 + "\n"
    body = "sources:\n" + entry
    body += padding * ((MAX_SOURCES_MB * 1024 * 1024 - len(body)) // len(padding))
    path.write_text(body)
    assert len(load_config(path).sources) == 1
    path.write_text(body + padding)
    with pytest.raises(ConfigError, match="larger than 2 MB"):
        load_config(path)
