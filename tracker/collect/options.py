"""Checks of the structured options of source kinds, for the ``KINDS`` table
(tracker.collect.sources) and the CI collectors.

Each function takes one option's value from sources.yaml and returns what is wrong with it
(None when nothing); ``tracker.config`` turns that into an error naming the file, the source
and the key. This module is imported whenever sources.yaml is checked, so it imports nothing
but the standard library: no collector, no parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def job_regimes_problem(value: Any) -> str | None:
    """A ``job_regimes`` option (buildkite, github_actions, and each ``workflows`` entry): a
    list of {match: glob, regime: id}; unset is fine."""
    if value is None:
        return None
    if isinstance(value, list) and all(
        isinstance(r, Mapping) and r.get("match") and r.get("regime") for r in value
    ):
        return None
    return "must be a list of {match: glob, regime: id}"


def workflows_problem(value: Any) -> str | None:
    """A github_actions ``workflows`` option: workflow files, or {file, regime, job_regimes}."""
    if (
        isinstance(value, list)
        and value
        and all(isinstance(w, str) and w or isinstance(w, Mapping) and w.get("file") for w in value)
    ):
        return None
    return "must be a list of workflow files or of {file, regime, job_regimes}"


def paths_problem(value: Any) -> str | None:
    """A doc_history ``paths`` option: each entry a path, or a mapping with a ``path`` (and
    optionally its own ``section``)."""
    if (
        isinstance(value, list)
        and value
        and all(
            isinstance(p, str) and p or isinstance(p, dict) and isinstance(p.get("path"), str)
            for p in value
        )
    ):
        return None
    return "must be a list of paths or of {path, section}"


def pages_problem(value: Any) -> str | None:
    """A model_list ``pages`` option: a list of {url, version, date}."""
    if isinstance(value, list) and all(
        isinstance(p, dict) and p.get("url") and p.get("version") and p.get("date") for p in value
    ):
        return None
    return "must be a list of {url, version, date}"
