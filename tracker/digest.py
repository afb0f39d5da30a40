"""The weekly maturity digest: a short email (plain text + escaped HTML) built from the same
numbers as the report, sent over SMTP.

It answers the two questions users pay for: how far behind CUDA is each regime (primary-
definition lag, with open artifacts counted), and is the gap closing (the lags of the latest
series in release order, the last two quarters' Kaplan-Meier medians, CI job pass rate and
friction ratio this week against last week).
"""

from __future__ import annotations

import smtplib
from collections import defaultdict
from collections.abc import Sequence
from datetime import datetime, timedelta
from email.message import EmailMessage
from typing import Any

from jinja2 import Environment, PackageLoader, select_autoescape

from tracker.config import Config
from tracker.errors import TrackerError
from tracker.metrics import quarter, summarize
from tracker.records import now_utc  # noqa: F401  (the CLI takes the digest's clock from here)
from tracker.store import Store

LATEST_SERIES = 5  # series per lag row in "latest series", newest last


class DigestError(TrackerError):
    """The digest could not be sent (SMTP refused or unreachable)."""


def iso_week(when: datetime) -> str:
    year, week, _ = when.isocalendar()
    return f"{year}-W{week:02d}"


def digest_data(config: Config, store: Store, as_of: datetime) -> dict[str, Any]:
    """Everything the digest shows, as plain data (also what tests check)."""
    from tracker.report import compute_lag

    samples = compute_lag(config, store, as_of)
    summaries = summarize(samples, as_of)
    this_q = quarter(as_of)
    last_q = quarter(as_of.replace(day=1) - timedelta(days=80))
    lag_rows = []
    for s in summaries:
        if s.period != "all" or not s.primary or s.regime == _reference(config):
            continue
        by_q = {
            q.period: q
            for q in summaries
            if (q.project, q.regime, q.definition) == (s.project, s.regime, s.definition)
        }
        mine = sorted(
            (
                x
                for x in samples
                if (x.project, x.regime, x.definition) == (s.project, s.regime, s.definition)
                and x.status in ("covered", "open")
            ),
            key=lambda x: x.day0,
        )
        lag_rows.append(
            {
                "project": s.project,
                "regime": s.regime,
                "definition": s.definition,
                "artifacts": s.artifacts,
                "open": s.open,
                "median": s.km_median_days,
                "median_prev_q": by_q[last_q].km_median_days if last_q in by_q else None,
                "median_this_q": by_q[this_q].km_median_days if this_q in by_q else None,
                "open_now": [f"{x.series} ({x.lag_days} d)" for x in mine if x.status == "open"][
                    -3:
                ],
                # The trend, read off the series themselves (oldest first); an open one is a floor.
                "latest": [
                    f"{x.series}: {x.lag_days}{'+ d open' if x.status == 'open' else ' d'}"
                    for x in mine[-LATEST_SERIES:]
                ],
            }
        )
    # Rates compare the last two *complete* ISO weeks: sent on Monday morning (the README's
    # cron), the current week holds a few hours and would read as an empty week.
    last_sunday = as_of - timedelta(days=as_of.weekday() + 1)
    week, prev = iso_week(last_sunday), iso_week(last_sunday - timedelta(days=7))
    ci = _two_weeks(
        store.view_rows("v_ci_pass_rate_weekly"),
        week,
        prev,
        ("jobs_passed", "jobs_failed"),
        ("project", "regime"),
    )
    friction = _two_weeks(
        store.view_rows("v_friction_weekly"), week, prev, ("friction", "optimization"), ("regime",)
    )
    return {
        "as_of": as_of,
        "digest_week": iso_week(as_of),
        "week": week,
        "prev_week": prev,
        "this_quarter": this_q,
        "prev_quarter": last_q,
        "lag": lag_rows,
        "ci": ci,
        "friction": friction,
    }


def _reference(config: Config) -> str:
    return next((r.id for r in config.regimes if r.reference), "cuda")


def _two_weeks(
    rows: Sequence[dict], week: str, prev: str, counts: tuple[str, str], keys: tuple[str, ...]
) -> list[dict]:
    """Per key: the rate good / (good + bad) this week and last week, with both counts."""
    table: dict[tuple, dict] = defaultdict(dict)
    for row in rows:
        if row["week"] in (week, prev):
            key = tuple(row.get(k) or "none" for k in keys)
            good, bad = int(row[counts[0]] or 0), int(row[counts[1]] or 0)
            table[key]["now" if row["week"] == week else "prev"] = (good, bad)
    out = []
    for key, weeks in sorted(table.items()):
        entry = dict(zip(keys, key, strict=True))
        for when in ("now", "prev"):
            good, bad = weeks.get(when, (0, 0))
            entry[f"{when}_counts"] = f"{good}/{good + bad}"
            entry[f"{when}_rate"] = good / (good + bad) if good + bad else None
        out.append(entry)
    return out


def build_message(data: dict[str, Any], sender: str, recipients: Sequence[str]) -> EmailMessage:
    """The digest as a multipart email; the HTML part is autoescaped (collected text is
    untrusted)."""
    from tracker.report import percent

    env = Environment(
        loader=PackageLoader("tracker", "templates"),
        autoescape=select_autoescape(default=True, default_for_string=True),
    )
    text_env = Environment(loader=PackageLoader("tracker", "templates"), autoescape=False)
    env.filters["percent"] = text_env.filters["percent"] = percent
    message = EmailMessage()
    message["Subject"] = f"tracker weekly digest {data['digest_week']}: how far behind CUDA?"
    message["From"] = sender
    message["To"] = ", ".join(recipients)
    message.set_content(text_env.get_template("digest.txt.j2").render(**data))
    message.add_alternative(env.get_template("digest.html.j2").render(**data), subtype="html")
    return message


def send(
    message: EmailMessage,
    host: str,
    port: int,
    *,
    starttls: bool = False,
    user: str | None = None,
    password: str | None = None,
    timeout: float = 30,
) -> None:
    """Send over SMTP; DigestError with the server and cause on failure (password never shown)."""
    try:
        with smtplib.SMTP(host, port, timeout=timeout) as smtp:
            if starttls:
                smtp.starttls()
            if user:
                smtp.login(user, password or "")
            smtp.send_message(message)
    except (OSError, smtplib.SMTPException) as exc:
        raise DigestError(
            f"could not send the digest through {host}:{port}: {type(exc).__name__}: {exc}"
        ) from None
