"""Unicode bidi controls in collected text never reach the digest as controls: the text part
shows each as <U+XXXX> (an invisible U+202E reversed the rest of its line: the title, its URL,
what follows), and the HTML part too, with collected titles and job names isolated in <bdi>.
On a real SQLite file and real PostgreSQL, through `tracker digest --dry-run`."""

from __future__ import annotations

import email
import email.policy
import re

from click.testing import CliRunner

from tests.digest.test_digest import NOW, SOURCES, day, fill
from tracker.cli.main import cli
from tracker.events import Event

BIDI_CONTROLS = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
# "Crash in exe.FDP on MI300" read right to left after the override; an isolate and the marks
TITLE = "Crash in \u202eFDP.exe\u202c on MI300 \u2066x\u2069 \u200e\u200f\u061c\u202a\u202b\u202d"


def test_bidi_controls_in_a_collected_title_are_shown_not_obeyed(store, tmp_path, monkeypatch):
    sources = tmp_path / "sources.yaml"
    sources.write_text(SOURCES)
    fill(store)
    item = Event("gh", "pytorch", "issue", "bidi", day(11, 20), TITLE, url="https://gh/issue/9")
    with store.transaction() as conn:
        store.upsert_events(conn, [item])
    store.save_tags(
        [
            {
                "event_id": item.id,
                "tag": "friction",
                "score": 0.99,
                "regime": "rocm",
                "mentions": [],
                "tagger_version": "test",
            }
        ]
    )
    monkeypatch.setattr("tracker.digest.week.default_clock", lambda *_: NOW)
    monkeypatch.setenv("TRACKER_DATABASE_URL", store.url)
    monkeypatch.setenv("TRACKER_SOURCES", str(sources))
    eml = tmp_path / "digest.eml"
    result = CliRunner().invoke(cli, ["digest", "--week", "2025-W47", "--dry-run", str(eml)])
    assert result.exit_code == 0, result.output
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()

    shown = (
        "Crash in <U+202E>FDP.exe<U+202C> on MI300 <U+2066>x<U+2069> "
        "<U+200E><U+200F><U+061C><U+202A><U+202B><U+202D>"
    )
    assert f"- friction: {shown} <https://gh/issue/9>" in text
    assert not BIDI_CONTROLS.search(text)
    assert not BIDI_CONTROLS.search(html)
    assert shown.replace("<", "&lt;").replace(">", "&gt;") in html
    assert '<bdi><a href="https://gh/issue/9">Crash in &lt;U+202E&gt;FDP.exe' in html
