"""What the store holds, as facts for the lag: release facts and vendor notes with their
mentions (``load_facts``), and the lag samples of every coverage rule of sources.yaml
(``compute_lag``), the one entry point the report, the digest and the CLI share."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from tracker.config import Config
from tracker.measure.coverage import parse_coverage
from tracker.measure.lag import LagSample, NoteFact, ReleaseFact, is_prerelease, lag_samples
from tracker.measure.model_lag import model_lag_samples, note_context, parse_model_coverage
from tracker.store import Store
from tracker.tagger.families import load_families


def load_facts(store: Store, projects: Iterable[str]) -> tuple[list[ReleaseFact], list[NoteFact]]:
    """Release facts and notes with their mentions (structured ones from the parsers plus the
    tagger's). Notes naming nothing are kept too: they show how far back a vendor's notes were
    collected. Draft releases are left out (github_releases does not store them; an imported
    one is still no release). Stored values are untrusted (`import-events` takes any JSON): a
    mention whose fields are not strings is ignored. Evidence without a URL is referred to by
    its event id."""
    releases, notes = [], []
    for row in store.coverage_events(projects):
        attrs = row["attrs"] if isinstance(row["attrs"], dict) else {}
        url = row["url"] or f"event:{row['id']}"
        if row["kind"] == "release":
            # A draft (unpublished) release is no release: it never sets day 0 nor covers one.
            if attrs.get("draft") is True:
                continue
            if isinstance(row["version"], str) and row["version"]:
                releases.append(
                    ReleaseFact(
                        row["project"],
                        row["version"],
                        row["occurred_at"],
                        url,
                        bool(attrs.get("prerelease")),
                    )
                )
            continue
        found = {
            (m["framework"], m["version"], m["status"])
            for m in _as_list(attrs.get("mentions")) + _as_list(row["mentions"])
            if isinstance(m, dict)
            and all(
                isinstance(m.get(k), str) and m.get(k) for k in ("framework", "version", "status")
            )
        }
        # Model mentions a collector read off a list's structure win over the tagger's reading
        # of the same line (a matrix row "gpt-oss-120b, Untested" names no status in words).
        structured = [m for m in _as_list(attrs.get("mentions")) if isinstance(m, dict)]
        # A release candidate's notes say what a release will serve, not what one does.
        candidate = isinstance(row["version"], str) and is_prerelease(row["version"])
        models = set() if candidate else {
            (m["model"], m["status"], note_context(attrs))
            for m in (
                structured if any("model" in m for m in structured) else _as_list(row["mentions"])
            )
            if isinstance(m, dict) and isinstance(m.get("model"), str) and m.get("model")
            and isinstance(m.get("status"), str)
        }  # fmt: skip
        notes.append(
            NoteFact(
                row["project"],
                row["occurred_at"],
                url,
                tuple(sorted(found)),
                tuple(sorted(models)),
                row.get("regime"),
            )
        )
    return releases, notes


def _as_list(value) -> list:
    return list(value) if isinstance(value, (list, tuple)) else []


def compute_lag(
    config: Config,
    store: Store,
    as_of: datetime,
    unknown: list | None = None,
    spans: dict | None = None,
) -> list[LagSample]:
    """Lag samples for every coverage rule of sources.yaml, from what the store holds
    (artifacts the evidence does not reach back to go to `unknown`, see metrics.lag_samples)."""
    reference = config.reference_regime
    rules = parse_coverage(config.coverage, str(config.path), reference)
    model_rules = parse_model_coverage(config.coverage, str(config.path))
    projects = {r.project for r in rules} | {e.project for r in rules for e in r.evidence}
    projects |= {e.project for r in model_rules for e in r.evidence} | (
        {"vllm"} if model_rules else set()
    )
    releases, notes = load_facts(store, projects)
    samples = lag_samples(rules, releases, notes, as_of, unknown, spans)
    if model_rules:
        samples += model_lag_samples(
            model_rules, load_families(), releases, notes, as_of, unknown, spans
        )
    return samples
