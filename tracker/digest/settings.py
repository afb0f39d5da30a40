"""The digest's settings: thresholds from the `digest:` section of sources.yaml and SMTP
settings from the environment (command-line flags win over both).

Thresholds are validated like the rest of sources.yaml: an unknown key or a value of the wrong
type is a ConfigError naming the file and the key, raised when the file is loaded.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from tracker.errors import ConfigError


@dataclass(frozen=True)
class Thresholds:
    """When a number "crossed a threshold" in the digest's week (all configurable)."""

    # CI job pass rate this week more than this many percentage points below the previous 4 weeks
    pass_rate_drop_points: float = 10.0
    # an open artifact whose age passed this many days during the week
    open_age_days: int = 30
    # a regime's median lag (primary definitions) grew by more than this many days in the week
    median_growth_days: float = 0.0
    # data quality: a source that has not succeeded for this many days is listed
    stale_source_days: float = 3.0
    # friction / optimization events linked per regime and class
    top_events: int = 3
    # weeks of history in the charts
    chart_weeks: int = 12
    # a CI job broke when it failed this many nightly builds in a row (measure.ci_jobs)
    ci_broken_nights: int = 3


_INTEGERS = {"open_age_days", "top_events", "chart_weeks", "ci_broken_nights"}


def parse_thresholds(raw: Any, file: str = "sources.yaml") -> Thresholds:
    """The `digest:` section as Thresholds; ConfigError naming file and key when it is wrong."""
    if raw is None:
        return Thresholds()
    if not isinstance(raw, Mapping):
        raise ConfigError(f"{file}: 'digest' must be a mapping of threshold settings")
    known = {f.name for f in fields(Thresholds)}
    values: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in known:
            raise ConfigError(
                f"{file}: digest: unknown key {key!r} (allowed: {', '.join(sorted(known))})"
            )
        integer = key in _INTEGERS
        wrong_type = isinstance(value, bool) or not isinstance(
            value, int if integer else (int, float)
        )
        if wrong_type or value < 0:
            kind = "a whole number" if integer else "a number"
            raise ConfigError(f"{file}: digest: key {key!r}: expected {kind} >= 0, got {value!r}")
        values[key] = value
    return Thresholds(**values)


@dataclass(frozen=True)
class SmtpSettings:
    """Where and how to send. `password` is never logged or shown (see __repr__)."""

    host: str = "localhost"
    port: int = 25
    starttls: bool = False
    user: str | None = None
    password: str | None = None
    sender: str = "tracker@localhost"
    recipients: tuple[str, ...] = ()

    def __repr__(self) -> str:
        hidden = "***" if self.password else None
        return (
            f"SmtpSettings(host={self.host!r}, port={self.port}, starttls={self.starttls}, "
            f"user={self.user!r}, password={hidden!r}, sender={self.sender!r}, "
            f"recipients={self.recipients!r})"
        )


_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def smtp_settings(environ: Mapping[str, str] | None = None, **flags: Any) -> SmtpSettings:
    """TRACKER_SMTP_HOST, _PORT, _USER, _PASSWORD, _STARTTLS, TRACKER_DIGEST_FROM and
    TRACKER_DIGEST_TO (space- or comma-separated), overridden by any flag given (not None;
    an empty recipient tuple counts as not given)."""
    env = os.environ if environ is None else environ
    port_text = env.get("TRACKER_SMTP_PORT") or "25"
    try:
        port = int(port_text)
    except ValueError:
        raise ConfigError(f"TRACKER_SMTP_PORT: expected a port number, got {port_text!r}") from None
    starttls_text = (env.get("TRACKER_SMTP_STARTTLS") or "").strip().lower()
    if starttls_text not in _TRUE | _FALSE:
        raise ConfigError(f"TRACKER_SMTP_STARTTLS: expected true or false, got {starttls_text!r}")
    to = (env.get("TRACKER_DIGEST_TO") or "").replace(",", " ").split()
    settings: dict[str, Any] = {
        "host": env.get("TRACKER_SMTP_HOST") or "localhost",
        "port": port,
        "starttls": starttls_text in _TRUE,
        "user": env.get("TRACKER_SMTP_USER") or None,
        "password": env.get("TRACKER_SMTP_PASSWORD") or None,
        "sender": env.get("TRACKER_DIGEST_FROM") or "tracker@localhost",
        "recipients": tuple(to),
    }
    for key, value in flags.items():
        if key not in settings:
            raise TypeError(f"unknown SMTP setting {key!r}")
        if value is not None and value != ():
            settings[key] = tuple(value) if key == "recipients" else value
    return SmtpSettings(**settings)
