"""What `nightly` runs after collection: tagging, then the report. Each stage reports lines."""

from __future__ import annotations

import logging
from pathlib import Path

from tracker.config import Config
from tracker.store import Store

log = logging.getLogger("tracker.pipeline")


def run_nightly(config: Config, store: Store, out_dir: Path, *, echo=print,
                only: list[str] | None = None, since=None, replay=None, record=None) -> int:
    """The nightly job, for cron (`tracker nightly`) and the scheduler alike: upgrade the
    schema, collect, tag, report. Returns the exit code (0 ok, 3 some sources failed).

    A `nightly` lock in the store keeps two of these (cron plus scheduler, or two hosts on one
    PostgreSQL) from running at once: the second says so and exits 0 without doing anything.
    """
    from tracker.runner import run_sources

    store.init_db()
    with store.lock("nightly") as acquired:
        if not acquired:
            echo("nightly: another nightly run holds the lock; nothing to do")
            return 0
        summary = run_sources(config, store, only=only, since=since, replay=replay,
                              record=record)
        for line in summary.lines():
            echo(line)
        for line in after_collect(config, store, out_dir):
            echo(line)
    return summary.exit_code


def after_collect(config: Config, store: Store, out_dir: Path) -> list[str]:
    """Tag untagged events and write the report; return summary lines for the console."""
    try:
        lines = [tag_store(store)]
    except Exception as exc:  # the report still runs on the tags already stored
        log.exception("tagging failed")
        lines = [f"tag: FAILED ({type(exc).__name__}: {exc}); report uses the tags stored before"]
    from tracker.report import write_report

    lines.extend(write_report(config, store, out_dir))
    return lines


def tag_store(store: Store, retag: bool = False, batch: int = 2000) -> str:
    """Tag every untagged event (all of them with `retag`); analyst overrides are separate rows
    and survive. Returns a one-line summary."""
    try:
        from tracker.tagger import load_tagger
    except ImportError as exc:
        return f"tag: skipped (tagger unavailable: {exc})"
    tagger = load_tagger()
    done = 0
    pending: list[dict] = []
    for item in store.events_to_tag(retag=retag):
        pending.append(item)
        if len(pending) >= batch:
            done += _tag_batch(tagger, store, pending)
            pending = []
    if pending:
        done += _tag_batch(tagger, store, pending)
    return f"tag: {done} events tagged"


def _tag_batch(tagger, store: Store, items: list[dict]) -> int:
    results = tagger.tag_many(items)
    rows = []
    for item, result in zip(items, results):
        # A regime-specific source (e.g. ROCm release notes) sets the regime; the tagger fills
        # it in where the source does not say.
        regime = item.get("source_regime") or result.regime
        rows.append({"event_id": item["id"], "tag": result.tag, "score": float(result.score),
                     "regime": regime, "mentions": list(result.mentions),
                     "tagger_version": result.version})
    store.save_tags(rows)
    return len(rows)
