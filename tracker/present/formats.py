"""Numbers and links as people read them, the same in the report and the digest."""

from __future__ import annotations


def percent(rate: float | None) -> str:
    """A pass rate for people: "-" when nothing counted; "100%" and "0%" only when exact, one
    decimal otherwise (299 of 300 jobs is 99.7%, not a green "100%")."""
    if rate is None:
        return "-"
    if rate in (0, 1):
        return f"{rate:.0%}"
    return f"{min(max(rate, 0.001), 0.999):.1%}"


def http_only(url: str | None) -> str:
    """Collected URLs become links only when they are http(s): no javascript: or data: links."""
    return url if url and url.lower().startswith(("https://", "http://")) else ""
