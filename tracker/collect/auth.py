"""API tokens: which environment variables hold each API's token, how it is sent, and the one
origin it may go to (a token goes only to its own origin; tracker.collect.http sends it)."""

from __future__ import annotations

import os

from tracker.names import GITHUB_API

# Which environment variables hold the token of each API, and how it is sent.
AUTH_SCHEMES: dict[str, tuple[tuple[str, ...], str]] = {
    "github": (("TRACKER_GITHUB_TOKEN", "GITHUB_TOKEN"), "Bearer {token}"),
    "buildkite": (("TRACKER_BUILDKITE_TOKEN",), "Bearer {token}"),
}
# Where each API's token may go when the source names no api_url of its own.
AUTH_ORIGINS = {"github": GITHUB_API, "buildkite": "https://api.buildkite.com"}


def token_for(auth: str | None) -> str | None:
    """The API token for an auth scheme from the environment, or None."""
    if not auth:
        return None
    names, _ = AUTH_SCHEMES[auth]
    for name in names:
        if os.environ.get(name):
            return os.environ[name]
    return None
