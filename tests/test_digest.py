"""The weekly digest, sent to a real SMTP server on loopback (aiosmtpd)."""

from __future__ import annotations

import email
import email.policy
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

from tracker.config import Config, Regime
from tracker.digest import DigestError, build_message, digest_data, send
from tracker.records import Event

AS_OF = datetime(2025, 11, 24, 7, tzinfo=UTC)  # Monday 07:00 of ISO week 2025-W48 (the cron)
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


class Inbox(Message):
    def __init__(self):
        super().__init__()
        self.messages = []

    def handle_message(self, message):
        self.messages.append(message)


@pytest.fixture
def smtp_server():
    import socket

    with socket.socket() as probe:  # a free loopback port (aiosmtpd cannot start on port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    inbox = Inbox()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    yield controller, inbox
    controller.stop()


def stored(sqlite_store):
    def day(m, d):
        return datetime(2025, m, d, tzinfo=UTC)

    hostile = "<img src=x onerror=alert(1)>"
    items = [
        Event("pt", "pytorch", "release", "r2.8", day(8, 6), "2.8", version="2.8.0", url="u28"),
        Event("pt", "pytorch", "release", "r2.9", day(10, 15), "2.9", version="2.9.0", url="u29"),
        Event("m", "rocm", "note", "b", day(7, 21), "ROCm 6.4.2 fixes", url="m642"),  # reaches back
        Event(
            "m",
            "rocm",
            "note",
            "c",
            day(9, 16),
            "ROCm 7.0 supports PyTorch 2.8",
            url="m70",
            attrs={"mentions": [{"framework": "pytorch", "version": "2.8", "status": "supported"}]},
        ),
        Event("ci", "vllm", "ci_job", "j1", day(11, 18), hostile, regime="rocm", outcome="passed"),
        Event("ci", "vllm", "ci_job", "j2", day(11, 19), "j2", regime="rocm", outcome="failed"),
        Event("ci", "vllm", "ci_job", "j3", day(11, 12), "j3", regime="rocm", outcome="passed"),
    ]
    with sqlite_store.transaction() as conn:
        sqlite_store.upsert_events(conn, items)
    return Config(
        Path("sources.yaml"), (Regime("cuda", reference=True), Regime("rocm")), (), COVERAGE
    )


def test_digest_numbers(sqlite_store):
    data = digest_data(stored(sqlite_store), sqlite_store, AS_OF)
    # the last two complete weeks, not the few hours of this Monday against last week
    assert (data["digest_week"], data["week"], data["prev_week"]) == (
        "2025-W48",
        "2025-W47",
        "2025-W46",
    )
    [lag] = data["lag"]
    assert (lag["regime"], lag["artifacts"], lag["open"], lag["median"]) == ("rocm", 2, 1, 41)
    assert lag["open_now"] == ["2.9 (40 d)"]
    assert lag["latest"] == ["2.8: 41 d", "2.9: 40+ d open"]  # the trend, oldest series first
    [ci] = data["ci"]
    assert (ci["now_counts"], ci["now_rate"], ci["prev_counts"], ci["prev_rate"]) == (
        "1/2",
        0.5,
        "1/1",
        1.0,
    )


def test_digest_is_delivered_over_smtp(sqlite_store, smtp_server):
    controller, inbox = smtp_server
    data = digest_data(stored(sqlite_store), sqlite_store, AS_OF)
    message = build_message(data, "tracker@example.org", ["team@example.org"])
    send(message, controller.hostname, controller.port)
    [received] = inbox.messages
    assert received["To"] == "team@example.org"
    assert received["Subject"] == "tracker weekly digest 2025-W48: how far behind CUDA?"
    parsed = email.message_from_string(received.as_string(), policy=email.policy.default)
    text = parsed.get_body(("plain",)).get_content()
    assert "pytorch on rocm (vendor_matrix): median 41 days over 2 series, 1 open" in text
    assert "vllm rocm: 2025-W47 50.0% (1/2), 2025-W46 100% (1/1)" in text
    html = parsed.get_body(("html",)).get_content()
    assert "<img" not in html and "onerror" not in html


def test_unreachable_smtp_is_one_clear_error(sqlite_store):
    data = digest_data(stored(sqlite_store), sqlite_store, AS_OF)
    message = build_message(data, "a@b", ["c@d"])
    with pytest.raises(DigestError, match="127.0.0.1:1"):
        send(message, "127.0.0.1", 1, timeout=2)


def test_rates_read_as_exact_only_when_exact():
    from tracker.report import latest_weeks, percent

    assert [percent(r) for r in (None, 0, 1, 299 / 300, 1 / 300, 0.5, 0.9999)] == [
        "-",
        "0%",
        "100%",
        "99.7%",
        "0.3%",
        "50.0%",
        "99.9%",
    ]
    rows = [{"project": p, "week": f"2026-W{w:02d}"} for p in ("jax", "vllm") for w in range(1, 31)]
    kept = latest_weeks(rows, 12)
    assert {r["project"] for r in kept} == {"jax", "vllm"} and len(kept) == 24
    assert kept[0]["week"] == "2026-W30" and kept[-1]["week"] == "2026-W19"
