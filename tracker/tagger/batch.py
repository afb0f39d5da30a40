"""Tagging what the store holds: untagged events (or all, on --retag) in batches through the
tagger, tag rows written beside the events. Used by `tracker nightly` and `tracker tag`."""

from __future__ import annotations

import itertools

from tracker.errors import TrackerError
from tracker.progress import Progress
from tracker.store import Store


def tag_store(store: Store, retag: bool = False, batch: int = 2000, tagger=None) -> str:
    """Tag every untagged event (all of them with `retag`) in batches; analyst overrides are
    separate rows and survive. The tag row holds what the tagger read in the text; the
    effective regime (the source's, when it is regime-specific) is applied by v_event_tags.
    Returns a one-line summary. The tagger (spaCy and the model) is loaded only when there is
    something to tag."""
    import time

    started = time.perf_counter()
    todo = store.events_to_tag(retag=retag)
    first = next(todo, None)
    if first is None:  # a nightly with nothing new: spaCy and the model stay unloaded
        return f"tag: 0 events tagged in {time.perf_counter() - started:.1f} s (none untagged)"
    if tagger is None:
        try:
            from tracker.tagger import load_tagger
        except ImportError as exc:  # events left untagged would make a wrong report
            raise TrackerError(
                f"the tagger cannot be loaded ({exc}): reinstall tracker with its dependencies"
            ) from None
        tagger = load_tagger()
    done = 0
    pending: list[dict] = []
    # A first tagging or a --retag of a large store takes a while: a bar on a terminal, a log
    # line every 30 s under cron.
    with Progress("tag: events", unit="event") as progress:
        for item in itertools.chain([first], todo):
            pending.append(item)
            if len(pending) >= batch:
                progress.update(_tag_batch(tagger, store, pending))
                pending = []
        if pending:
            progress.update(_tag_batch(tagger, store, pending))
        done = progress.count
    return (
        f"tag: {done} events tagged in {time.perf_counter() - started:.1f} s "
        f"(tagger {tagger.version})"
    )


def _tag_batch(tagger, store: Store, items: list[dict]) -> int:
    results = tagger.tag_many(items)
    store.save_tags(
        [
            {
                "event_id": item["id"],
                "tag": result.tag,
                "score": float(result.score),
                "regime": result.regime,
                "mentions": list(result.mentions),
                "tagger_version": result.version,
            }
            for item, result in zip(items, results, strict=True)
        ]
    )
    return len(items)
