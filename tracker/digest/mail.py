"""The digest as an email, and its delivery.

Structure: multipart/alternative of a plain-text part and a multipart/related holding the HTML
part and its charts as inline PNGs, referenced from the HTML by `cid:`. The HTML is rendered
with autoescape (collected titles are untrusted) and the subject is built from regime ids and
numbers only, so nothing collected ever reaches a header.

`run_digest` is what both `tracker digest` and `tracker schedule` call.
"""

from __future__ import annotations

import email.policy
import logging
import re
import smtplib
import ssl
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from tracker.config import Config
from tracker.digest.data import DigestError, DigestWeek, digest_data
from tracker.digest.settings import SmtpSettings
from tracker.events import now_utc
from tracker.store import Store

log = logging.getLogger("tracker.digest")
RETRIES = 3  # attempts after the first, on temporary failures (4xx replies, lost connections)
MAX_BYTES = 1_000_000  # the whole message, charts included
RETRY_DELAY = 5.0  # seconds before the first retry; doubled each time
CHART_ALT = {
    "lag": "Median day-0 coverage lag per regime, week by week, with the same weeks a year before",
    "ci": "CI job pass rate per regime, week by week, with the jobs counted",
    "friction": "Friction share per regime, week by week, with the events counted",
}


def _oneline(value: Any) -> str:
    """Collected text on one line: a CR/LF in a title must not break the plain-text layout."""
    return re.sub(r"\s+", " ", str(value)).strip()


def _environment(autoescape: bool) -> Environment:
    from tracker.present.formats import percent, visible_controls

    env = Environment(
        loader=PackageLoader("tracker.digest", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True)
        if autoescape
        else False,
        trim_blocks=True,
        lstrip_blocks=True,
        # every {{ }} of both parts: collected titles, names, versions, labels and URLs show
        # their bidi controls instead of being reordered by them (the templates hold none)
        finalize=visible_controls,
    )
    env.filters["percent"] = percent
    env.filters["oneline"] = _oneline
    return env


def render(data: dict[str, Any], charts: dict[str, str]) -> tuple[str, str]:
    """(plain text, HTML); `charts` maps a chart name to its content id (no brackets)."""
    context = {**data, "charts": charts, "chart_alt": CHART_ALT}
    text = _environment(False).get_template("digest.txt.j2").render(**context)
    html = _environment(True).get_template("digest.html.j2").render(**context)
    return text, html


def build_message(
    data: dict[str, Any], settings: SmtpSettings, charts: bool = True
) -> EmailMessage:
    """The digest email: text + (HTML with inline chart PNGs), headers from settings and
    numbers only. A quiet week's digest is short and carries no charts; so does one that
    would exceed MAX_BYTES with them (many mail systems refuse or clip larger messages)."""
    from tracker.digest.charts import digest_charts

    history = data["history"]
    pngs = (
        digest_charts(
            history["weeks"],
            history["lag"],
            history["ci"],
            history["friction"],
            history.get("lag_points"),
            history.get("lag_year_ago"),
        )
        if charts and not data["quiet"]
        else {}
    )
    cids = {name: make_msgid(idstring=f"chart-{name}", domain="digest.tracker") for name in pngs}
    text, html = render(data, {name: cid[1:-1] for name, cid in cids.items()})
    # Headers unfolded up to RFC 5322's 998: Python folds a long Subject right after the colon,
    # which some readers show as a leading space.
    message = EmailMessage(policy=email.policy.SMTP.clone(max_line_length=998))
    message["Subject"] = data["subject"]
    message["From"] = settings.sender
    message["To"] = ", ".join(settings.recipients) or "undisclosed-recipients:;"
    message["Date"] = format_datetime(now_utc())
    message["Message-ID"] = make_msgid(domain="digest.tracker")
    message.set_content(text)
    message.add_alternative(html, subtype="html")
    html_part = next(p for p in message.iter_parts() if p.get_content_type() == "text/html")
    for name, png in pngs.items():
        html_part.add_related(
            png, "image", "png", cid=cids[name], filename=f"{data['week']}-{name}.png"
        )
    size = len(message.as_bytes())
    if pngs and size > MAX_BYTES:
        log.warning("digest: %d bytes with charts (limit %d): sent without them", size, MAX_BYTES)
        return build_message(data, settings, charts=False)
    return message


def _temporary(exc: BaseException) -> bool:
    """A failure worth retrying: a 4xx reply or a connection that failed or dropped."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(400 <= code < 500 for code, _ in exc.recipients.values())
    if isinstance(exc, smtplib.SMTPResponseException):
        return 400 <= exc.smtp_code < 500
    if isinstance(exc, ssl.SSLError):  # a certificate or TLS mismatch: retrying will not fix it
        return False
    return isinstance(exc, smtplib.SMTPServerDisconnected | OSError)


def _reply(exc: BaseException) -> str:
    """The server's reply (code and text) or the connection error; never a credential."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return "; ".join(
            f"{who}: {code} {msg.decode(errors='replace')}"
            for who, (code, msg) in exc.recipients.items()
        )
    if isinstance(exc, smtplib.SMTPResponseException):
        error = exc.smtp_error
        text = error.decode(errors="replace") if isinstance(error, bytes) else str(error)
        return f"{exc.smtp_code} {text}"
    return f"{type(exc).__name__}: {exc}"


def send(
    message: EmailMessage,
    settings: SmtpSettings,
    *,
    retries: int = RETRIES,
    delay: float | None = None,
    timeout: float = 30,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Send over SMTP (STARTTLS when set, login when a user is set); retry temporary failures
    `retries` times, waiting `delay` (default RETRY_DELAY) seconds, doubled each time.
    Returns the attempts used; DigestError with the server's last reply when it gives up or
    on a permanent failure."""
    where = f"{settings.host}:{settings.port}"
    first_wait = RETRY_DELAY if delay is None else delay
    for attempt in range(1, retries + 2):
        try:
            with smtplib.SMTP(settings.host, settings.port, timeout=timeout) as smtp:
                if settings.starttls:
                    # verified against the system's CAs (smtplib's default would not verify)
                    smtp.starttls(context=ssl.create_default_context())
                if settings.user:
                    smtp.login(settings.user, settings.password or "")
                smtp.send_message(message)
            return attempt
        except (OSError, smtplib.SMTPException) as exc:
            reply = _reply(exc)
            if not _temporary(exc) or attempt > retries:
                tried = f" after {attempt} attempts" if attempt > 1 else ""
                raise DigestError(
                    f"could not send the digest through {where}{tried}: {reply}"
                ) from None
            wait = first_wait * 2 ** (attempt - 1)
            log.warning(
                "digest: temporary SMTP failure at %s (attempt %d of %d): %s; retrying in %g s",
                where,
                attempt,
                retries + 1,
                reply,
                wait,
            )
            sleep(wait)
    raise AssertionError("unreachable")  # the loop returns or raises


def run_digest(
    config: Config,
    store: Store,
    week: DigestWeek,
    settings: SmtpSettings,
    *,
    dry_run: str | None = None,
    skip_if_quiet: bool = False,
    echo: Callable[[str], None] = print,
    **send_options: Any,
) -> dict[str, Any]:
    """Build the week's digest and send it (or, with `dry_run`, write the .eml to that path,
    "-" for stdout). One line goes to `echo` naming the same week as the subject. Returns the
    digest data."""
    data = digest_data(config, store, week)
    if data["quiet"] and skip_if_quiet:
        echo(f"digest {data['week']}: nothing changed, not sent (--skip-if-quiet)")
        return data
    message = build_message(data, settings)
    if dry_run is not None:
        raw = message.as_bytes()
        if dry_run == "-":
            sys.stdout.buffer.write(raw)
            sys.stdout.flush()
        else:
            Path(dry_run).write_bytes(raw)
            echo(f"digest {data['week']} written to {dry_run} ({len(raw)} bytes), not sent")
        return data
    if not settings.recipients:
        raise DigestError("no recipients: give --to ADDRESS or set TRACKER_DIGEST_TO")
    attempts = send(message, settings, **send_options)
    size = len(message.as_bytes())
    retried = f" after {attempts} attempts" if attempts > 1 else ""
    echo(
        f"digest {data['week']} sent to {', '.join(settings.recipients)} via "
        f"{settings.host}:{settings.port} ({size} bytes){retried}"
    )
    return data
