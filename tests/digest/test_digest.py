"""The weekly digest: one ISO week's numbers, sent to a real SMTP server on loopback (aiosmtpd).

The store holds a small hand-made history (dates and versions of real PyTorch releases, made-up
vendor notes): PyTorch 2.7, 2.8 and 2.9; ROCm covers 2.7 after 28 days, 2.8 after 41 and 2.9 on
2025-11-19 (in 2025-W47, lag 35); Neuron covers 2.7 after 20 days and 2.8 after 60, 2.9 stays
open. vLLM CI jobs on ROCm pass 9 of 10 in each of the 4 weeks before W47 and 2 of 10 in W47.
"""

from __future__ import annotations

import email
import email.policy
import logging
import socket
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from click.testing import CliRunner

from tracker.cli.main import cli
from tracker.digest.data import digest_data, resolve_week, week_of
from tracker.digest.settings import smtp_settings
from tracker.errors import ConfigError
from tracker.events import Event
from tracker.jobs.config import load_config

HOSTILE = "Crash on MI300\r\nBcc: victim@example.org <script>alert(1)</script>"
SOURCES = """\
regimes:
  - {id: cuda, reference: true}
  - {id: rocm}
  - {id: neuron}
sources:
  - {id: rocm-releases, kind: github_releases, project: rocm, regime: rocm, repo: ROCm/ROCm}
coverage:
  - project: pytorch
    series: minor
    regimes:
      rocm:
        - definition: vendor_matrix
          primary: true
          evidence: {project: rocm, kind: note, mentions: pytorch}
      neuron:
        - definition: neuron_sdk
          primary: true
          evidence: {project: neuron-sdk, kind: note, mentions: pytorch}
"""
NOW = datetime(2025, 12, 3, 12, tzinfo=UTC)  # a Wednesday of 2025-W49


def day(m: int, d: int, h: int = 12) -> datetime:
    return datetime(2025, m, d, h, tzinfo=UTC)


def supports(version: str) -> dict:
    return {"mentions": [{"framework": "pytorch", "version": version, "status": "supported"}]}


def fill(store, *, quiet: bool = False) -> None:
    """The history described in the module docstring (`quiet`: releases and notes only)."""
    items = [
        Event(
            "pt",
            "pytorch",
            "release",
            "r2.7",
            day(4, 23),
            "2.7",
            version="2.7.0",
            url="https://x/2.7",
        ),
        Event(
            "pt",
            "pytorch",
            "release",
            "r2.8",
            day(8, 6),
            "2.8",
            version="2.8.0",
            url="https://x/2.8",
        ),
        Event(
            "pt",
            "pytorch",
            "release",
            "r2.9",
            day(10, 15),
            "2.9",
            version="2.9.0",
            url="https://x/2.9",
        ),
        Event("m", "rocm", "note", "a", day(4, 1), "ROCm 6.4 notes start"),
        Event(
            "m",
            "rocm",
            "note",
            "a2",
            day(5, 21),
            "ROCm 6.4.1",
            url="https://r/6.4.1",
            attrs=supports("2.7"),
        ),
        Event(
            "m",
            "rocm",
            "note",
            "b",
            day(9, 16),
            "ROCm 7.0",
            url="https://r/7.0",
            attrs=supports("2.8"),
        ),
        Event(
            "m",
            "rocm",
            "note",
            "c",
            day(11, 19),
            "ROCm 7.1",
            url="https://r/7.1",
            attrs=supports("2.9"),
        ),
        Event("n", "neuron-sdk", "note", "a", day(4, 1), "Neuron notes start"),
        Event(
            "n",
            "neuron-sdk",
            "note",
            "b",
            day(5, 13),
            "2.23",
            url="https://n/2.23",
            attrs=supports("2.7"),
        ),
        Event(
            "n",
            "neuron-sdk",
            "note",
            "c",
            day(10, 5),
            "2.26",
            url="https://n/2.26",
            attrs=supports("2.8"),
        ),
    ]
    if not quiet:
        for week_monday in (day(10, 20), day(10, 27), day(11, 3), day(11, 10)):
            for i in range(10):
                outcome = "passed" if i < 9 else "failed"
                items.append(
                    Event(
                        "ci",
                        "vllm",
                        "ci_job",
                        f"{week_monday:%m%d}-{i}",
                        week_monday,
                        "job",
                        regime="rocm",
                        outcome=outcome,
                    )
                )
        for i in range(10):
            outcome = "passed" if i < 2 else "failed"
            items.append(
                Event(
                    "ci",
                    "vllm",
                    "ci_job",
                    f"w47-{i}",
                    day(11, 18),
                    "job",
                    regime="rocm",
                    outcome=outcome,
                )
            )
        # after W47: must not change W47's numbers
        items += [
            Event(
                "ci",
                "vllm",
                "ci_job",
                f"w48-{i}",
                day(11, 25),
                "job",
                regime="rocm",
                outcome="passed",
            )
            for i in range(50)
        ]
        items.append(
            Event(
                "gh", "pytorch", "issue", "hostile", day(11, 20), HOSTILE, url="javascript:alert(1)"
            )
        )
        items.append(
            Event(
                "gh",
                "pytorch",
                "issue",
                "hang",
                day(11, 21),
                "Hang in rccl all_reduce",
                url="https://gh/issue/2",
            )
        )
        items.append(
            Event(
                "gh",
                "pytorch",
                "issue",
                "fast",
                day(11, 21),
                "Tuned GEMM kernels for MI300",
                url="https://gh/issue/3",
            )
        )
    with store.transaction() as conn:
        store.upsert_events(conn, items)
    if not quiet:
        by_title = {e.title: e.id for e in items if e.kind == "issue"}
        rows = [
            (HOSTILE, "friction", 0.97),
            ("Hang in rccl all_reduce", "friction", 0.91),
            ("Tuned GEMM kernels for MI300", "optimization", 0.88),
        ]
        store.save_tags(
            [
                {
                    "event_id": by_title[t],
                    "tag": tag,
                    "score": score,
                    "regime": "rocm",
                    "mentions": [],
                    "tagger_version": "test",
                }
                for t, tag, score in rows
            ]
        )


@pytest.fixture
def setup(store, tmp_path):
    """The history on a real SQLite file and on real PostgreSQL."""
    sources = tmp_path / "sources.yaml"
    sources.write_text(SOURCES)
    fill(store)
    return load_config(sources), store


class Inbox:
    def __init__(self, reply: str | None = None):
        self.messages: list[bytes] = []
        self.attempts = 0
        self.reply = reply  # answer every RCPT with this (a temporary failure)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        self.attempts += 1
        if self.reply:
            return self.reply
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        self.messages.append(envelope.original_content)
        return "250 Message accepted"


class Accounts:
    def __init__(self):
        self.logins: list[tuple[str, str]] = []

    def __call__(self, server, session, envelope, mechanism, auth_data):
        if isinstance(auth_data, LoginPassword):
            self.logins.append((auth_data.login.decode(), auth_data.password.decode()))
            return AuthResult(success=auth_data.password == b"s3cret-pw")
        return AuthResult(success=False)


def serve(handler, **options) -> Controller:
    with socket.socket() as probe:  # a free loopback port (aiosmtpd cannot start on port 0)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port, **options)
    controller.start()
    return controller


@pytest.fixture
def inbox():
    handler = Inbox()
    controller = serve(handler)
    yield handler, controller
    controller.stop()


@pytest.fixture
def cli_env(setup, tmp_path, monkeypatch):
    config, store = setup
    for name in (
        "TRACKER_SMTP_HOST",
        "TRACKER_SMTP_PORT",
        "TRACKER_SMTP_USER",
        "TRACKER_SMTP_PASSWORD",
        "TRACKER_SMTP_STARTTLS",
        "TRACKER_DIGEST_FROM",
        "TRACKER_DIGEST_TO",
    ):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr("tracker.digest.week.default_clock", lambda *_: NOW)
    monkeypatch.setattr("tracker.digest.mail.RETRY_DELAY", 0.01)
    monkeypatch.setenv("TRACKER_DATABASE_URL", store.url)
    monkeypatch.setenv("TRACKER_SOURCES", str(config.path))

    def invoke(*args):
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    return invoke


def parse(raw: bytes) -> email.message.EmailMessage:
    return email.message_from_bytes(raw, policy=email.policy.default)


def test_the_week_is_the_last_complete_iso_week_unless_chosen():
    assert resolve_week(None, None, NOW).name == "2025-W48"
    monday_7am = datetime(2025, 11, 24, 7, tzinfo=UTC)
    chosen = resolve_week(None, None, monday_7am)
    assert (chosen.name, chosen.start, chosen.end) == ("2025-W47", day(11, 17, 0), day(11, 24, 0))
    assert resolve_week(None, date(2025, 11, 23), NOW).name == "2025-W47"  # a Sunday ends its week
    assert resolve_week(None, date(2025, 11, 22), NOW).name == "2025-W46"
    assert resolve_week("2025-W01", None, NOW).start == datetime(2024, 12, 30, tzinfo=UTC)
    with pytest.raises(ValueError, match="not complete yet"):
        resolve_week("2025-W49", None, NOW)
    with pytest.raises(ValueError, match="not both"):
        resolve_week("2025-W47", date(2025, 11, 23), NOW)
    with pytest.raises(ValueError, match="ISO week like"):
        resolve_week("2025-47", None, NOW)
    # a replay's clock is the last instant of its snapshot day: a Sunday snapshot completes
    # its own week, by default and for --week alike
    sunday_end = datetime(2025, 11, 23, 23, 59, 59, 999999, tzinfo=UTC)
    assert resolve_week(None, None, sunday_end).name == "2025-W47"
    assert resolve_week("2025-W47", None, sunday_end).name == "2025-W47"


def test_a_past_week_gives_that_weeks_numbers(setup):
    config, store = setup
    w47 = digest_data(config, store, week_of(date(2025, 11, 17)))
    w46 = digest_data(config, store, week_of(date(2025, 11, 10)))
    rocm47, rocm46 = (next(b for b in d["regimes"] if b["regime"] == "rocm") for d in (w47, w46))
    # W47: 2.9 covered on 11-19 (lag 35), the median falls from 41 to 35
    assert (rocm47["median"], rocm47["median_before"]) == (35, 41)
    gained = [line for line in rocm47["lag_lines"] if line["kind"] == "gained"]
    assert [(g["text"], g["url"]) for g in gained] == [
        ("covered: pytorch 2.9 (vendor_matrix) on 2025-11-19, lag 35 d", "https://r/7.1")
    ]
    # the headline chart's points carry the same median with its counts (issue 22), and the
    # year-ago weeks (2024-W47 and before) hold no artifact of this history yet
    [*_, newest] = w47["history"]["lag_points"]["rocm"]
    assert (newest.period, newest.median, newest.median) == ("2025-W47", 35, rocm47["median"])
    assert newest.artifacts == len([s for s in w47["samples"] if s.regime == "rocm" and s.primary])
    assert not any(p.artifacts for p in w47["history"]["lag_year_ago"]["rocm"])
    assert "cuda" not in w47["history"]["lag_points"]  # the reference: 0 by definition
    # W46 ignores the evidence of 11-19: 2.9 is open there, 32 days old at the week's end
    assert rocm46["median"] == 41
    assert not [line for line in rocm46["lag_lines"] if line["kind"] == "gained"]
    assert [line["text"] for line in rocm46["lag_lines"] if line["kind"] == "open"] == [
        "open: pytorch 2.9 (vendor_matrix), 32 d since day 0 2025-10-15"
    ]
    # CI: W47 vs the 4 weeks before; the 50 passing jobs of W48 are not counted
    [ci] = rocm47["ci"]
    assert (ci["now_passed"], ci["now_total"], ci["prev_passed"], ci["prev_total"]) == (
        2,
        10,
        36,
        40,
    )
    assert ci["change_points"] == pytest.approx(-70)
    [ci46] = rocm46["ci"]
    assert (ci46["now_passed"], ci46["now_total"], ci46["prev_passed"], ci46["prev_total"]) == (
        9,
        10,
        27,
        30,
    )
    assert (
        w47["subject"] == "Accelerator maturity 2025-W47: lag ROCm 35 d (too few artifacts), "
        "Neuron 60 d (too few artifacts); CI rocm 20.0%"
    )
    assert w46["subject"].startswith(
        "Accelerator maturity 2025-W46: lag ROCm 41 d (too few artifacts), "
        "Neuron 60 d (too few artifacts);"
    )
    friction = rocm47["friction"]
    assert (friction["friction"], friction["optimization"]) == (2, 1)
    assert [e["tag"] for e in friction["top"]] == ["friction", "friction", "optimization"]
    assert rocm46["friction"]["top"] == []


def test_thresholds_crossed_and_configurable(setup, tmp_path):
    config, store = setup
    crossed = {
        w: digest_data(config, store, week_of(day(11, 10) + timedelta(weeks=k)))["crossed"]
        for w, k in (("W45", -1), ("W46", 0), ("W47", 1))
    }
    texts = {w: [c["text"] for c in c_list] for w, c_list in crossed.items()}
    # Neuron's 2.9 stays open past Neuron's 20-day lag of 2.7: the KM median jumps in W45
    assert "Neuron all-time median lag grew to 60 d (+40 d in the week)" in texts["W45"]
    # ROCm 2.9 (day 0 2025-10-15) passes 30 days open during W46 (Neuron's 2.9 as well)
    assert "ROCm: pytorch 2.9 (vendor_matrix) still open after 32 d (over 30 d)" in texts["W46"]
    assert "Neuron: pytorch 2.9 (neuron_sdk) still open after 32 d (over 30 d)" in texts["W46"]
    assert texts["W47"] == [
        "ROCm CI job pass rate (vllm) 20.0% (2/10) vs 90.0% (36/40) the previous 4 weeks: "
        "down 70.0 points"
    ]
    # thresholds come from sources.yaml's digest: section
    assert "ROCm all-time median lag grew to 41 d (+13 d in the week)" in texts["W46"]
    relaxed = tmp_path / "relaxed.yaml"
    relaxed.write_text(
        SOURCES + "digest: {pass_rate_drop_points: 75, open_age_days: 45, median_growth_days: 20}\n"
    )
    config = load_config(relaxed)
    for monday in (date(2025, 11, 10), date(2025, 11, 17)):
        assert digest_data(config, store, week_of(monday))["crossed"] == []
    # Neuron's 2.9 (day 0 2025-10-15) is 39 days open after W47, 46 after W48
    assert [
        c["text"] for c in digest_data(config, store, week_of(date(2025, 11, 24)))["crossed"]
    ] == ["Neuron: pytorch 2.9 (neuron_sdk) still open after 46 d (over 45 d)"]


def test_digest_section_is_validated_like_the_rest(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text(SOURCES + "digest: {pass_rate_drop: 5}\n")
    with pytest.raises(ConfigError, match=r"bad\.yaml: digest: unknown key 'pass_rate_drop'"):
        load_config(bad)
    bad.write_text(SOURCES + "digest: {open_age_days: soon}\n")
    with pytest.raises(
        ConfigError, match=r"bad\.yaml: digest: key 'open_age_days': expected a whole"
    ):
        load_config(bad)


def test_delivered_message_parts_charts_and_escaping(cli_env, inbox):
    handler, controller = inbox
    result = cli_env(
        "digest",
        "--week",
        "2025-W47",
        "--to",
        "team@example.org",
        "--smtp-host",
        "127.0.0.1",
        "--smtp-port",
        str(controller.port),
    )
    assert result.exit_code == 0, result.output
    assert result.output.startswith("digest 2025-W47 sent to team@example.org via 127.0.0.1:")
    [raw] = handler.messages
    assert len(raw) < 1_000_000
    message = parse(raw)
    assert (
        message["Subject"] == "Accelerator maturity 2025-W47: lag ROCm 35 d (too few artifacts), "
        "Neuron 60 d (too few artifacts); CI rocm 20.0%"
    )
    assert message.get_content_type() == "multipart/alternative"
    text_part, related = message.get_payload()
    assert text_part.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related"
    html_part, *images = related.get_payload()
    assert html_part.get_content_type() == "text/html"
    html = html_part.get_content()
    # issue 22: the friction events fall in one week of the 12 charted, too few for a chart (it
    # drew a lone dot): a sentence with the counts takes its place; CI has 5 weeks, a chart
    assert sorted(i.get_filename() for i in images) == ["2025-W47-ci.png", "2025-W47-lag.png"]
    assert {i.get_content_type() for i in images} == {"image/png"}
    assert (
        "ROCm: friction / optimization events in 1 week(s) only (2025-W47) of the 12 charted: "
        "2 friction of 3 (too little for a chart)" in html
    )
    for image in images:
        assert image.get_content().startswith(b"\x89PNG")
        assert f'src="cid:{image["Content-ID"].strip("<>")}"' in html
    text = text_part.get_content()
    assert "ISO week 2025-W47: 2025-11-17 to 2025-11-23 (UTC)" in text and "2025-W47" in html
    assert "- covered: pytorch 2.9 (vendor_matrix) on 2025-11-19, lag 35 d <https://r/7.1>" in text
    # the headline line says which triggers it counts (a source sources.yaml does not list: all)
    assert "- vllm (every trigger): 20.0% (2/10) vs 90.0% (36/40), -70.0 points" in text
    crossing = (
        "ROCm CI job pass rate (vllm) 20.0% (2/10) vs 90.0% (36/40) the previous 4 weeks: "
        "down 70.0 points"
    )
    assert f"CROSSED A THRESHOLD\n- {crossing}\n" in text.replace("\r\n", "\n")
    assert crossing in html.split("Crossed a threshold")[1].split("<img")[0]
    assert '(<a href="https://r/7.1">evidence</a>)' in html  # every gained lag links its evidence
    assert '<a href="https://gh/issue/2">Hang in rccl all_reduce</a>' in html
    # hostile collected text: escaped in HTML, on one line in text, in no header, no js link
    assert "<script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "javascript:" not in html and "javascript:" not in text
    assert "- friction: Crash on MI300 Bcc: victim@example.org <script>" in text
    assert message["Bcc"] is None
    headers = "".join(f"{k}: {v}\n" for k, v in message.items())
    assert "script" not in headers and "MI300" not in headers and "victim" not in headers


def test_charts_are_left_out_rather_than_exceed_the_size_limit(setup, monkeypatch):
    from tracker.digest.mail import build_message

    config, store = setup
    data = digest_data(config, store, week_of(date(2025, 11, 17)))
    settings = smtp_settings({"TRACKER_DIGEST_TO": "a@example.org"})
    full = build_message(data, settings).as_bytes()
    monkeypatch.setattr("tracker.digest.mail.MAX_BYTES", len(full) - 1000)  # ids vary a little
    small = parse(build_message(data, settings).as_bytes())
    assert not [p for p in small.walk() if p.get_content_type() == "image/png"]
    assert "cid:" not in small.get_body(("html",)).get_content()
    assert len(small.as_bytes()) < len(full)


def test_failing_source_is_in_the_data_quality_footer(setup, cli_env, inbox):
    config, store = setup
    handler, controller = inbox
    with store.transaction() as conn:
        for started, status, error in (
            (day(11, 10, 2), "ok", None),
            (
                day(11, 18, 2),
                "failed",
                "HTTP 503 from https://api.github.com/repos/ROCm/ROCm/releases",
            ),
            (day(11, 29, 2), "ok", None),  # after the week: ignored
        ):
            store.record_run(
                conn,
                {
                    "batch": started.isoformat(),
                    "source_id": "rocm-releases",
                    "started_at": started,
                    "finished_at": started,
                    "status": status,
                    "error": error,
                },
            )
    result = cli_env(
        "digest",
        "--week",
        "2025-W47",
        "--to",
        "a@example.org",
        "--smtp-host",
        "127.0.0.1",
        "--smtp-port",
        str(controller.port),
    )
    assert result.exit_code == 0, result.output
    text = parse(handler.messages[0]).get_body(("plain",)).get_content()
    footer = text.split("DATA QUALITY")[1]
    assert (
        "- rocm-releases: no success for 13 days, failed 1 time this week; last error "
        "(2025-11-18 02:00): HTTP 503 from https://api.github.com/repos/ROCm/ROCm/releases"
        in footer
    )
    # W48: the source succeeded again on 11-29
    data = digest_data(config, store, week_of(date(2025, 11, 24)))
    assert data["data_quality"] == []


def test_env_smtp_settings_login_and_flags_win(cli_env, monkeypatch, caplog):
    handler, accounts = Inbox(), Accounts()
    controller = serve(handler, authenticator=accounts, auth_require_tls=False)
    try:
        monkeypatch.setenv("TRACKER_SMTP_HOST", "127.0.0.1")
        monkeypatch.setenv("TRACKER_SMTP_PORT", "1")  # wrong on purpose: the --smtp-port flag wins
        monkeypatch.setenv("TRACKER_SMTP_USER", "digest-bot")
        monkeypatch.setenv("TRACKER_SMTP_PASSWORD", "s3cret-pw")
        monkeypatch.setenv("TRACKER_DIGEST_FROM", "tracker@example.org")
        monkeypatch.setenv("TRACKER_DIGEST_TO", "a@example.org b@example.org")
        caplog.set_level(logging.DEBUG)
        result = cli_env("-vv", "digest", "--smtp-port", str(controller.port))
        assert result.exit_code == 0, result.output
        assert accounts.logins == [("digest-bot", "s3cret-pw")]
        message = parse(handler.messages[0])
        assert (message["From"], message["To"]) == (
            "tracker@example.org",
            "a@example.org, b@example.org",
        )
        assert "2025-W48" in message["Subject"] and "digest 2025-W48 sent" in result.output
        assert "s3cret-pw" not in result.output + caplog.text
    finally:
        controller.stop()
    settings = smtp_settings(
        {"TRACKER_SMTP_STARTTLS": "yes", "TRACKER_SMTP_PASSWORD": "pw"}, port=2525
    )
    assert settings.starttls and settings.port == 2525 and "pw" not in repr(settings)


def test_starttls_from_the_environment_verifies_the_server(cli_env, tmp_path, monkeypatch):
    import shutil
    import ssl
    import subprocess

    if not shutil.which("openssl"):
        pytest.skip("openssl is needed to make a throw-away certificate")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", str(key), "-out", str(cert), "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    handler = Inbox()
    controller = serve(handler, tls_context=context, require_starttls=True)
    try:
        for name, value in (("HOST", "127.0.0.1"), ("PORT", str(controller.port))):
            monkeypatch.setenv(f"TRACKER_SMTP_{name}", value)
        monkeypatch.setenv("TRACKER_DIGEST_TO", "a@example.org")
        refused = cli_env("digest")  # the server requires STARTTLS: plain text is refused
        assert refused.exit_code == 1 and "530" in refused.output and not handler.messages
        monkeypatch.setenv("TRACKER_SMTP_STARTTLS", "true")
        untrusted = cli_env("digest")  # a certificate nobody vouches for is not accepted
        assert untrusted.exit_code == 1 and "CERTIFICATE_VERIFY_FAILED" in untrusted.output
        assert "attempts" not in untrusted.output  # not retried: it would fail the same way
        monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # now the client trusts it
        sent = cli_env("digest")
        assert sent.exit_code == 0, sent.output
        assert len(handler.messages) == 1
    finally:
        controller.stop()


def test_temporary_failures_are_retried_then_exit_1_with_the_reply(cli_env):
    handler = Inbox(reply="451 4.7.1 Greylisted, try again later")
    controller = serve(handler)
    try:
        result = cli_env(
            "digest",
            "--to",
            "a@example.org",
            "--smtp-host",
            "127.0.0.1",
            "--smtp-port",
            str(controller.port),
        )
    finally:
        controller.stop()
    assert result.exit_code == 1
    assert handler.attempts == 4  # the first try and 3 retries
    assert (
        "after 4 attempts" in result.output
        and "451 4.7.1 Greylisted, try again later" in result.output
    )


def test_quiet_week_sends_nothing_changed_unless_skip(sqlite_store, tmp_path, monkeypatch, inbox):
    handler, controller = inbox
    sources = tmp_path / "quiet.yaml"
    sources.write_text(
        SOURCES.replace(
            SOURCES[SOURCES.index("sources:") : SOURCES.index("coverage:")],
            "sources: []\n",
        )
    )
    fill(sqlite_store, quiet=True)
    monkeypatch.setenv("TRACKER_DATABASE_URL", sqlite_store.url)
    monkeypatch.setenv("TRACKER_SOURCES", str(sources))
    monkeypatch.setenv("TRACKER_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TRACKER_SMTP_PORT", str(controller.port))
    monkeypatch.setenv("TRACKER_DIGEST_TO", "a@example.org")
    runner = CliRunner()
    skipped = runner.invoke(cli, ["digest", "--week", "2025-W44", "--skip-if-quiet"])
    assert skipped.exit_code == 0 and "nothing changed, not sent" in skipped.output
    assert handler.messages == []
    sent = runner.invoke(cli, ["digest", "--week", "2025-W44"])
    assert sent.exit_code == 0, sent.output
    message = parse(handler.messages[0])
    assert (
        message["Subject"] == "Accelerator maturity 2025-W44: lag ROCm 28 d (too few artifacts), "
        "Neuron 20 d (too few artifacts); nothing changed"
    )
    assert "Nothing changed this week" in message.get_body(("plain",)).get_content()
    assert not [p for p in message.walk() if p.get_content_type() == "image/png"]
    # a week with news is sent with --skip-if-quiet too
    assert runner.invoke(cli, ["digest", "--week", "2025-W47", "--skip-if-quiet"]).exit_code == 0
    assert len(handler.messages) == 2


def test_dry_run_writes_the_eml(cli_env, tmp_path):
    out = tmp_path / "digest.eml"
    result = cli_env("digest", "--as-of", "2025-11-23", "--dry-run", str(out))
    assert result.exit_code == 0 and "digest 2025-W47 written to" in result.output
    message = parse(out.read_bytes())
    assert message["Subject"].startswith("Accelerator maturity 2025-W47:")
    printed = cli_env("digest", "--week", "2025-W47", "--dry-run")
    assert "Subject: Accelerator maturity 2025-W47:" in printed.output
    bad = cli_env("digest", "--week", "2025-W49", "--dry-run")
    assert bad.exit_code == 2 and "not complete yet" in bad.output


def test_cron_day_numbers_mean_what_cron_means():
    from tracker.jobs.schedule import cron_day_names

    # APScheduler alone would read "1" as Tuesday
    assert cron_day_names("0 7 * * 1") == "0 7 * * mon"
    assert cron_day_names("0 2 * * 0,7") == "0 2 * * sun,sun"
    assert cron_day_names("0 2 * * 1-5") == "0 2 * * mon,tue,wed,thu,fri"
    assert cron_day_names("0 2 * * 0-2") == "0 2 * * sun,mon,tue"
    assert cron_day_names("0 2 * * */2") == "0 2 * * sun,tue,thu,sat"
    assert cron_day_names("0 2 * * 1-5/2") == "0 2 * * mon,wed,fri"
    assert cron_day_names("0 2 * * mon-fri") == "0 2 * * mon-fri"
    assert cron_day_names("30 1 * * *") == "30 1 * * *"


def test_the_scheduler_sends_the_digest_with_the_same_code(setup, inbox, monkeypatch):
    from tracker.jobs.schedule import build_scheduler, digest_job

    config, store = setup
    handler, controller = inbox
    scheduler = build_scheduler(
        "0 2 * * *",
        store.url,
        config.path,
        config.path.parent / "out",
        digest_crontab="0 7 * * 1",
    )
    job = scheduler.get_job("digest")
    assert str(job.trigger) == "cron[month='*', day='*', day_of_week='mon', hour='7', minute='0']"
    sunday_night = datetime(2025, 11, 23, 20, tzinfo=UTC)
    assert job.trigger.get_next_fire_time(None, sunday_night) == datetime(
        2025, 11, 24, 7, tzinfo=UTC
    )
    assert job.func is digest_job
    with pytest.raises(ConfigError, match="--digest-cron 'mondays'"):
        build_scheduler("0 2 * * *", store.url, config.path, config.path, digest_crontab="mondays")
    monkeypatch.setattr(
        "tracker.digest.week.default_clock", lambda *_: datetime(2025, 11, 24, 7, tzinfo=UTC)
    )
    monkeypatch.setattr("tracker.digest.mail.RETRY_DELAY", 0.01)
    monkeypatch.setenv("TRACKER_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("TRACKER_SMTP_PORT", str(controller.port))
    monkeypatch.setenv("TRACKER_DIGEST_TO", "team@example.org")
    assert digest_job(store.url, config.path) == 0
    [raw] = handler.messages
    assert parse(raw)["Subject"].startswith(
        "Accelerator maturity 2025-W47: lag ROCm 35 d (too few artifacts)"
    )
    monkeypatch.setenv("TRACKER_SMTP_PORT", "1")
    assert digest_job(store.url, config.path) == 1  # logged, never raised into the scheduler


def test_rates_read_as_exact_only_when_exact():
    from tracker.present.formats import percent
    from tracker.report.writer import latest_weeks

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


def test_each_regime_block_carries_its_trend_verdict_and_model_line(setup):
    """Issue 13 and 10 in the digest: one 'is the gap closing?' line per regime (a verdict only
    from enough artifacts), and the model-family lag line where model rows exist."""
    from dataclasses import replace

    from tracker.digest.data import extra_lines
    from tracker.measure.lag.rows import LagSample

    config, store = setup
    data = digest_data(config, store, week_of(date(2025, 11, 17)))
    rocm = next(b for b in data["regimes"] if b["regime"] == "rocm")
    [trend] = [line for line in rocm["lag_lines"] if line["kind"] == "trend"]
    assert trend["text"].startswith("trend: lag gap too few artifacts")
    cuda = next(b for b in data["regimes"] if b["regime"] == "cuda")
    assert not [line for line in cuda["lag_lines"] if line["kind"] in ("trend", "model")]

    week = week_of(date(2025, 11, 17))
    family = LagSample(
        "models",
        "qwen3",
        "neuron",
        "nxd_inference",
        True,
        day(4, 29),
        "d",
        day(7, 31),
        93,
        "covered",
        "https://e",
        artifact="model",
        day0_definition="vllm_cuda",
    )
    still_open = replace(family, series="llama4", available=None, lag_days=200, status="open")
    lines = extra_lines([family, still_open], {}, "neuron", "cuda", week)
    assert [line["kind"] for line in lines] == ["model"]
    assert "1 covered, 1 open" in lines[0]["text"] and "llama4 (200+ d)" in lines[0]["text"]


def test_a_replayed_store_judges_source_health_by_its_replay_runs(tmp_path, monkeypatch):
    """The digest of a replay reports the snapshot's week, but the runs are dated when the
    replay ran: judged against that week, every source read "never run"."""
    repo = Path(__file__).resolve().parents[2]
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TRACKER_SOURCES", str(repo / "sources.yaml"))
    monkeypatch.delenv("TRACKER_DATABASE_URL", raising=False)
    runner = CliRunner()
    sources = ["pytorch-releases", "rocm-compat-matrix-historical", "torch-xla-releases"]
    args = [a for s in sources for a in ("--source", s)]
    assert runner.invoke(cli, ["init-db"]).exit_code == 0
    done = runner.invoke(cli, ["collect", "--replay", str(repo / "cassettes"), *args])
    assert done.exit_code == 0, done.output
    out = tmp_path / "d.eml"
    done = runner.invoke(cli, ["digest", "--dry-run", str(out)])
    assert done.exit_code == 0, done.output
    text = parse(out.read_bytes()).get_body(("plain",)).get_content()
    footer = text.split("DATA QUALITY", 1)[1]
    assert "Replayed snapshot (as of " in footer
    # the three replayed sources ran (now) and succeeded: not listed; only the sources that
    # were not replayed never ran (judged against the snapshot's week, all 45 were listed)
    assert not any(f"- {s}:" in footer for s in sources)
    enabled = [s for s in load_config(repo / "sources.yaml").sources if s.enabled]
    assert f"- {len(enabled) - 3} sources: never run" in footer


def test_thin_ci_and_friction_weeks_are_sentences_with_the_reports_rules(setup):
    """Issue 22: the digest's CI and friction charts follow the report's rules
    (tracker.present.share_chart): a regime with data in fewer than 3 of the charted weeks is a
    sentence with its counts, not a lone dot; the others keep each week's counts."""
    config, store = setup
    data = digest_data(config, store, week_of(date(2025, 11, 17)))
    history = data["history"]
    # vLLM's ROCm jobs: 9 of 10 in each of W43-W46, 2 of 10 in W47 (W48's 50 come later)
    assert [(t.period, t.hits, t.total) for t in history["ci"]["rocm"]] == [
        ("2025-W43", 9, 10),
        ("2025-W44", 9, 10),
        ("2025-W45", 9, 10),
        ("2025-W46", 9, 10),
        ("2025-W47", 2, 10),
    ]
    assert history["ci_notes"] == []
    # the tagged events of the fixture all fall in W47: one week, a sentence, no series
    assert history["friction"] == {}
    assert history["friction_notes"] == [
        "ROCm: friction / optimization events in 1 week(s) only (2025-W47) of the 12 charted: "
        "2 friction of 3 (too little for a chart)"
    ]
    # a week before, W46's window holds the same 4 CI weeks: still a chart
    before = digest_data(config, store, week_of(date(2025, 11, 10)))["history"]
    assert len(before["ci"]["rocm"]) == 4
    # three weeks back (W44) it holds 2: the chart gives way to the sentence
    early = digest_data(config, store, week_of(date(2025, 10, 27)))["history"]
    assert early["ci"] == {}
    assert early["ci_notes"] == [
        "ROCm: CI jobs in 2 week(s) only (2025-W43, 2025-W44) of the 12 charted: 18/20 jobs "
        "passed (too little for a chart)"
    ]
