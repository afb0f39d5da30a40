"""CI pass rates split by trigger (docs/methodology.md, CI pass rate: nightly vs per-merge).

A pipeline that builds on a schedule and on every merge gives two different numbers: the
scheduled (nightly) build runs every job, a per-merge build only the jobs its diff selects, so a
weekly rate that blends them measures the merge mix, not the regime's health. Every CI event
keeps its trigger in the upstream's word (``attrs.trigger``: Buildkite ``source``, Actions
``event``) and ``v_ci_pass_rate_weekly`` has one row per (project, regime, source, trigger, week).

The headline rate counts, per source, the triggers its ``trigger`` selector in sources.yaml
names (``trigger: [schedule]``); a source without one counts every trigger. Everything else is
reported beside it, per trigger and labelled, never added in:

- ``config.triggers`` (read once by tracker.config.triggers): source id -> frozenset of
  triggers, or None (every trigger).
- ``split_by_trigger(rows, selectors)``: (headline rows per project, regime and week, with the
  triggers they hold in ``triggers``; other rows per project, regime, trigger and week), counts
  summed and both rates recomputed from the sums. A source sources.yaml no longer lists counts
  every trigger, as before the split.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from tracker.config.triggers import Selectors

if TYPE_CHECKING:
    from tracker.config import Config

UNKNOWN_TRIGGER = "unknown"
COUNTS = ("runs_passed", "runs_failed", "jobs_passed", "jobs_failed")
EVERY_TRIGGER = "every trigger"


def split_by_trigger(
    rows: Iterable[Mapping[str, Any]], selectors: Selectors
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(headline, other) pass-rate rows from ``v_ci_pass_rate_weekly`` rows (see the module)."""
    headline: dict[tuple, dict[str, Any]] = {}
    other: dict[tuple, dict[str, Any]] = {}
    for row in rows:
        trigger = str(row.get("trigger") or UNKNOWN_TRIGGER)
        chosen = selectors.get(str(row.get("source_id")))
        project, regime, week = row.get("project"), row.get("regime"), row["week"]
        if chosen is None or trigger in chosen:
            key: tuple = (project, regime, week)
            entry = headline.setdefault(
                key,
                {"project": project, "regime": regime, "week": week, "_triggers": set()},
            )
            entry["_triggers"].add(trigger if chosen is not None else EVERY_TRIGGER)
        else:
            key = (project, regime, trigger, week)
            entry = other.setdefault(
                key, {"project": project, "regime": regime, "trigger": trigger, "week": week}
            )
        for name in COUNTS:
            entry[name] = entry.get(name, 0) + int(row.get(name) or 0)
    for entry in headline.values():
        entry["triggers"] = ", ".join(sorted(entry.pop("_triggers")))
    return _finish(headline), _finish(other)


def _finish(groups: dict[tuple, dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for key in sorted(groups, key=lambda k: tuple(str(part or "") for part in k)):
        entry = groups[key]
        entry["run_pass_rate"] = _rate(entry["runs_passed"], entry["runs_failed"])
        entry["job_pass_rate"] = _rate(entry["jobs_passed"], entry["jobs_failed"])
        out.append(entry)
    return out


def _rate(passed: int, failed: int) -> float | None:
    return passed / (passed + failed) if passed + failed else None


def ci_rate_rows(config, store) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(headline, other) rows of the store's ``v_ci_pass_rate_weekly`` under sources.yaml's
    trigger selectors: what the report, the digest and the trend read."""
    return split_by_trigger(store.view_rows("v_ci_pass_rate_weekly"), config.triggers)


NO_RECORD = "no public CI record"


def unrecorded(config: Config, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The (project, regime) pairs a CI source of sources.yaml is configured for (its own
    regime and its workflows' regimes) that no weekly CI row counts anything for, with the
    sources that have no record: what every output says instead of a rate ("no public CI
    record"; docs/methodology.md, CI pass rate). ``rows``: every trigger's rows."""
    counted = {
        (row.get("project"), row.get("regime"))
        for row in rows
        if any(int(row.get(name) or 0) for name in COUNTS)
    }
    missing: dict[tuple[str, str], list[str]] = {}
    for spec in config.sources:
        if spec.id not in config.triggers or not spec.enabled:
            continue
        regimes = {spec.regime} if spec.regime else set()
        for flow in spec.options.get("workflows") or ():
            if isinstance(flow, Mapping) and flow.get("regime"):
                regimes.add(str(flow["regime"]))
        for regime in regimes - {"none"}:
            if (spec.project, regime) not in counted:
                missing.setdefault((spec.project, regime), []).append(spec.id)
    return [
        {"project": project, "regime": regime, "sources": sorted(ids), "text": NO_RECORD}
        for (project, regime), ids in sorted(missing.items())
    ]


def sampled_sources(config: Config, rows: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The CI sources whose record is a sample (their ``sample`` key in sources.yaml says what
    it is and its bias) with the project, regime and ISO weeks their rows count anything in, and
    whether the headline job rate counts jobs of theirs:
    what the report, the digest and summary.json say beside the rates that rest on them
    (docs/methodology.md, CI runs from a dashboard's committed history)."""
    said = {s.id: str(s.options["sample"]) for s in config.sources if s.options.get("sample")}
    weeks: dict[tuple[str, str, str], list[str]] = {}
    headline: set[tuple[str, str, str]] = set()
    for row in rows:
        source = str(row.get("source_id"))
        if source in said and any(int(row.get(name) or 0) for name in COUNTS):
            key = (str(row.get("project")), str(row.get("regime")), source)
            weeks.setdefault(key, []).append(str(row["week"]))
            chosen = config.triggers.get(source)
            selected = chosen is None or str(row.get("trigger") or UNKNOWN_TRIGGER) in chosen
            if selected and int(row.get("jobs_passed") or 0) + int(row.get("jobs_failed") or 0):
                headline.add(key)
    return [
        {
            "project": project,
            "regime": regime,
            "source_id": source,
            "first_week": min(found),
            "last_week": max(found),
            "sample": said[source],
            # its jobs count in the headline job rate (the trend's CI figure)
            "headline_jobs": (project, regime, source) in headline,
        }
        for (project, regime, source), found in sorted(weeks.items())
        if regime != "none"
    ]
