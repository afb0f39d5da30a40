"""The digest's SMTP settings, from the environment (command-line flags win). Its thresholds,
the `digest:` section of sources.yaml, are read with the rest of the file:
tracker.config.digest."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tracker.config.preview import preview
from tracker.errors import ConfigError


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


def address_problem(value: str) -> str | None:
    """What is wrong with a sender or recipient address, or None. A line break would end the
    From / To header and start another one (a Bcc: of the writer's choosing): refused, as is
    any other control character."""
    if not value.strip():
        return "an empty address"
    bad = next((c for c in value if ord(c) < 32 or ord(c) == 127), None)
    if bad is not None:
        return f"{value!r} holds a control character ({bad!r}), not allowed in a mail header"
    return None


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
        raise ConfigError(
            f"TRACKER_SMTP_PORT: expected a port number, got {preview(port_text)}"
        ) from None
    starttls_text = (env.get("TRACKER_SMTP_STARTTLS") or "").strip().lower()
    if starttls_text not in _TRUE | _FALSE:
        raise ConfigError(
            f"TRACKER_SMTP_STARTTLS: expected true or false, got {preview(starttls_text)}"
        )
    to = (env.get("TRACKER_DIGEST_TO") or "").replace(",", " ").split()
    # The addresses from the environment are checked here; the flags' by the command line,
    # which names them. (TRACKER_DIGEST_TO is split at any white space, line breaks too.)
    named = [("TRACKER_DIGEST_TO", address) for address in to]
    if env.get("TRACKER_DIGEST_FROM"):
        named.append(("TRACKER_DIGEST_FROM", env["TRACKER_DIGEST_FROM"]))
    for name, address in named:
        problem = address_problem(address)
        if problem:
            raise ConfigError(f"{name}: {problem}")
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
