"""Commands start without what they do not use: `query` (an analyst's) and `--help` load neither
sources.yaml's parser, nor matplotlib, spaCy, the collectors or an HTTP client."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tracker.store import Store

HEAVY = ("yaml", "matplotlib", "spacy", "requests", "urllib3", "numpy")


@pytest.mark.parametrize("args", [["query", "select 1"], ["--help"]])
def test_a_command_imports_only_what_it_uses(tmp_path, args):
    db = tmp_path / "t.db"
    Store(f"sqlite:///{db}").init_db()
    probe = (
        "import sys\n"
        "from tracker.cli.main import cli\n"
        "try:\n"
        f"    cli.main(args=['--db', {f'sqlite:///{db}'!r}, *{args!r}], standalone_mode=False)\n"
        "finally:\n"
        f"    heavy = {HEAVY!r}\n"
        "    loaded = {m.split('.')[0] for m in sys.modules} & set(heavy)\n"
        "    loaded |= {m for m in sys.modules if m.startswith('tracker.collect.sources.')}\n"
        "    print('LOADED', ','.join(sorted(loaded)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert out.stdout.strip().splitlines()[-1] == "LOADED", out.stdout


def test_a_command_closes_its_store_before_the_process_exits(tmp_path):
    """main() skips the interpreter's final garbage collection (gc.freeze): the store must be
    closed with the command, or SQLite would leave its -wal and -shm files behind."""
    db = tmp_path / "t.db"
    url = f"sqlite:///{db}"
    store = Store(url)
    store.init_db()
    store.close()  # this process holds no connection: the last one to close removes the files
    for args in (["query", "select count(*) from events"], ["status"]):
        probe = (
            "import sys\n"
            "from tracker.cli.main import main\n"
            f"sys.argv = ['tracker', '--db', {url!r}, *{args!r}]\n"
            "main()\n"
        )
        subprocess.run([sys.executable, "-c", probe], check=True, capture_output=True, cwd=tmp_path)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["t.db"], args
