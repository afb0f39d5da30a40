"""Typed errors. Only the CLI prints them and chooses exit codes."""


def first_line(exc: Exception) -> str:
    """The first line of a (driver) exception's message, for one-line error reports."""
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class TrackerError(Exception):
    """Base of every error tracker raises on purpose."""

    exit_code = 1


class ConfigError(TrackerError):
    """sources.yaml or the environment is wrong; the message names file, source and key."""


class StoreError(TrackerError):
    """The database is unreachable, locked or at the wrong schema revision."""


class SourceError(TrackerError):
    """One source failed; the run goes on with the others."""


class FatalHTTPError(SourceError):
    """A response that retrying will not fix (404, 401, a body that is not what was expected).

    `status` is the HTTP status when there was one (None for a body that failed to parse)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(SourceError):
    """The API's rate limit is spent and the reset is too far away to wait for."""


class ReplayMissing(SourceError):
    """--replay was given but the source has no cassette."""


class SourceSkipped(SourceError):
    """The source cannot run here and says why (e.g. no API token); not counted as a failure."""


class ListingStopped(SourceError):
    """A paged listing was ended before its end: its page cap, a page or cursor read twice, a
    page that adds nothing new, or a next link to another origin. What was read is kept."""


class OutOfTime(SourceError):
    """The source spent its wall-clock budget (``time_budget_seconds``); what it read is kept
    and the next run goes on from the saved cursor."""
