"""Data quality the report shows beside the numbers: what collectors saw but could not read.

``unread_tags``: per ``docker_tags`` source of sources.yaml, the image tags whose names no name
pattern read at the last full read of the listing (``source_state.state["unmatched_tags"]``,
written by tracker.collect.sources.docker_tags). They are no evidence, but never silently
lost: a new AMD naming scheme shows up here before it shows up as a missing lag.
"""

from __future__ import annotations

from typing import Any


def unread_tags(store, config) -> list[dict[str, Any]]:
    """[{source_id, repository, count, tags}] for docker_tags sources with unread tags, in
    sources.yaml order. Stored state is untrusted: anything not shaped as written is ignored."""
    specs = [s for s in config.sources if s.kind == "docker_tags"]
    if not specs:
        return []
    states = {row["source_id"]: row.get("state") for row in store.status()}
    out = []
    for spec in specs:
        state = states.get(spec.id)
        found = state.get("unmatched_tags") if isinstance(state, dict) else None
        if not isinstance(found, dict):
            continue
        count = found.get("count")
        tags = [str(t) for t in found.get("tags") or () if isinstance(t, str)]
        if isinstance(count, int) and not isinstance(count, bool) and count > 0:
            out.append(
                {
                    "source_id": spec.id,
                    "repository": spec.options.get("repository", ""),
                    "count": count,
                    "tags": tags,
                }
            )
    return out
