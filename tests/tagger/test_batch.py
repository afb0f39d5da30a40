"""tag_store loads the tagger (spaCy and the model) only when something is untagged: a nightly
with nothing new upstream must not pay for it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_nothing_untagged_loads_no_spacy(tmp_path):
    probe = (
        "import sys; from tracker.store import Store; from tracker.tagger.batch import tag_store; "
        f"store = Store('sqlite:///{tmp_path / 't.db'}'); store.init_db(); "
        "print(tag_store(store)); "
        "print('spacy' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    line, loaded = out.stdout.strip().splitlines()[-2:]
    assert line.startswith("tag: 0 events tagged") and "none untagged" in line
    assert loaded == "False"
