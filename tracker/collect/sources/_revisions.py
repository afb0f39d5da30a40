"""A document's git history read revision by revision (``doc_history`` with ``revisions:
true``): one ``commit`` event per revision, holding what it changed, so a build a vendor's page
names is dated by the first revision naming it, and a listing a later revision takes out again
can be told from one that stood (tracker.measure.lag.builds).

Per revision of each path (oldest first, the commit walk of doc_history): the lines it added,
each hunk with CONTEXT lines around it (a table row's version cell changes under the row's
name), as the body, and the lines it took out (those only: a context line is unchanged, never
removed) as ``attrs.revision.removed``; ``external_id`` ``revision:<sha>:<path>``, dated by
the commit, URL the document at that commit. The first revision read of a path holds the
whole document ("by then"); later runs diff against the last revision read
(``ctx.state["last"]``: path -> sha, fetched again once per run; the walk:
doc_history.collect_revisions), and read only the revisions newer than it
(``ctx.state["through"]``: path -> its commit date): a revision read before is never read
again, however many the page has, so each diff's base is the revision before it. A revision
that changed nothing the diff sees yields nothing.
"""

from __future__ import annotations

import difflib
from datetime import datetime

from tracker.collect.sources import CollectContext
from tracker.events import Event

CONTEXT = 3  # lines around each change (a row's name above its changed version cell)
TEXT_CHARS = 100_000  # of one revision's added or removed text: a bound on a hostile diff


def changes(before: str, after: str) -> tuple[str, str]:
    """(added, removed): each hunk's new side, context lines included (a row's name above its
    changed cell), and the lines each hunk took out, without context."""
    old, new = before.splitlines(), after.splitlines()
    added: list[str] = []
    removed: list[str] = []
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    for group in matcher.get_grouped_opcodes(CONTEXT):
        first, last = group[0], group[-1]
        if any(tag in ("replace", "insert") for tag, *_ in group):
            added.append("\n".join(new[first[3] : last[4]]))
        taken = [line for tag, i1, i2, *_ in group if tag in ("replace", "delete")
                 for line in old[i1:i2]]  # fmt: skip
        if taken:  # the lines taken out only: an unchanged context line was not removed
            removed.append("\n".join(taken))
    return "\n\n".join(added)[:TEXT_CHARS], "\n\n".join(removed)[:TEXT_CHARS]


def revision_event(
    ctx: CollectContext, sha: str, when: datetime, path: str, added: str, removed: str
) -> Event:
    return Event(
        source_id=ctx.spec.id,
        project=ctx.spec.project,
        kind="commit",
        external_id=f"revision:{sha}:{path}",
        occurred_at=when,
        title=f"{path} at {sha[:10]}",
        body=added,
        url=f"https://github.com/{ctx.option('repo')}/blob/{sha}/{path}",
        regime=ctx.spec.regime,
        attrs={"revision": {"path": path, "commit": sha, "removed": removed}},
    )
