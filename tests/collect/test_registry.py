"""The collector registry: every kind module registered under its own KIND, and checking
sources.yaml imports no collector (commands that never collect start without them)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys
from pathlib import Path

from tracker.collect import sources
from tracker.collect.sources import KINDS, collector_for

ROOT = Path(__file__).resolve().parents[2]


def test_every_public_module_is_registered_under_its_kind():
    public = {m.name for m in pkgutil.iter_modules(sources.__path__) if not m.name.startswith("_")}
    assert {k.module for k in KINDS.values()} == public
    for kind, entry in KINDS.items():
        module = collector_for(kind)
        assert module.KIND == kind
        assert callable(module.collect)
        assert not entry.required & entry.optional


def test_loading_the_config_imports_no_collector_no_spacy_and_no_http_client():
    probe = (
        "import sys; from tracker.jobs.config import load_config; "
        f"config = load_config({str(ROOT / 'sources.yaml')!r}); "
        "assert config.sources; "
        "loaded = sorted(m for m in sys.modules if m.startswith('tracker.collect.sources.') "
        "or m.split('.')[0] in ('spacy', 'docutils', 'feedparser', 'markdown_it', 'requests', "
        "'urllib3')); "
        "print(','.join(loaded))"
    )
    assert _printed_by(probe) == ""


def test_collectors_import_no_spacy():
    # A nightly with nothing new (every answer a 304) loads each configured collector but
    # parses nothing: spaCy (about a second) is loaded only by what tags or parses text.
    probe = (
        "import sys; from tracker.collect.sources import KINDS, collector_for; "
        "[collector_for(kind) for kind in KINDS]; "
        "print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'spacy')))"
    )
    assert _printed_by(probe) == ""


def _printed_by(probe: str) -> str:
    """What a fresh interpreter running `probe` prints (a module imported here is not seen)."""
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=ROOT
    )
    return out.stdout.strip()
