"""Checks of the structured options of source kinds, for the ``KINDS`` table
(tracker.collect.sources) and the CI collectors.

Each function takes one option's value from sources.yaml and returns what is wrong with it
(None when nothing); ``tracker.config`` turns that into an error naming the file, the source
and the key. This module is imported whenever sources.yaml is checked, so it imports nothing
but the standard library and tracker.config.preview (bounded values in messages): no collector, no
parser.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from tracker.config.preview import PREVIEW_CHARS, preview


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


WORKFLOW_KEYS = ("file", "regime", "job_regimes")


def workflows_problem(value: Any) -> str | None:
    """A github_actions ``workflows`` option: workflow files, or {file, regime, job_regimes}
    (``file`` and ``regime`` text, ``job_regimes`` as the source-level key). The trigger
    selector is the source's: a ``trigger`` inside an entry is refused with where it goes."""
    if not isinstance(value, list) or not value:
        return "must be a list of workflow files or of {file, regime, job_regimes}"
    for number, entry in enumerate(value, 1):
        if isinstance(entry, str) and entry:
            continue
        if not isinstance(entry, Mapping) or not entry.get("file"):
            return f"entry {number} must be a workflow file or a mapping with a 'file'"
        if not isinstance(entry["file"], str):
            return (
                f"entry {number}: 'file' must be a non-empty string, not {preview(entry['file'])}"
            )
        where = f"entry {number} ({entry['file'][:PREVIEW_CHARS]})"
        for key, item in entry.items():
            if key == "trigger":
                return (
                    f"{where}: 'trigger' belongs to the source, not to a workflow (the source's "
                    "'trigger' selects the runs of all its workflows): give a workflow that "
                    "needs other triggers a source of its own"
                )
            if key not in WORKFLOW_KEYS:
                return f"{where}: unknown key {preview(key)} (known: {', '.join(WORKFLOW_KEYS)})"
            if key in ("file", "regime") and not (isinstance(item, str) and item):
                return f"{where}: {preview(key)} must be a non-empty string"
        problem = job_regimes_problem(entry.get("job_regimes"))
        if problem:
            return f"{where}: 'job_regimes' {problem}"
    return None


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


def hardware_problem(value: Any) -> str | None:
    """A config_history ``hardware`` option: {regime: [hardware name, ...]}, each name text and
    in one regime's list only (a runner is never two regimes')."""
    shape = "must be a mapping of regime ids to lists of hardware names, e.g. {rocm: [mi300x]}"
    if not isinstance(value, Mapping) or not value:
        return shape
    owner: dict[str, str] = {}
    for regime, names in value.items():
        if not isinstance(regime, str) or not isinstance(names, list) or not names:
            return shape
        for name in names:
            if not isinstance(name, str) or not name.strip():
                return f"{preview(regime)}: {preview(name)} is not a hardware name"
            low = name.strip().lower()
            if low in owner and owner[low] != regime:
                return (
                    f"{preview(name)} is listed under {preview(owner[low])} and {preview(regime)}"
                )
            owner[low] = regime
    return None


def version_paths_problem(value: Any) -> str | None:
    """A version_history ``paths`` option: as doc_history's, and an entry's optional
    ``frameworks`` is a list of framework ids (``[jax]``)."""
    problem = paths_problem(value)
    if problem:
        return problem
    for entry in value:
        chosen = entry.get("frameworks") if isinstance(entry, dict) else None
        if chosen is not None and not (
            isinstance(chosen, list) and chosen and all(isinstance(f, str) and f for f in chosen)
        ):
            return "an entry's 'frameworks' must be a non-empty list of framework ids"
    return None


def pages_problem(value: Any) -> str | None:
    """A model_list ``pages`` option: a list of {url, version, date}."""
    if isinstance(value, list) and all(
        isinstance(p, dict) and p.get("url") and p.get("version") and p.get("date") for p in value
    ):
        return None
    return "must be a list of {url, version, date}"
