"""Tag rows for a benchmark store without running the tagger (which benchmarks/retag.py times).

    python benchmarks/fill_tags.py DB.sqlite TAGGER_VERSION

Gives every untagged release / note / issue (the kinds `tracker tag` tags) a `tags` row, as a
tagged store has: a class drawn from the event id (friction 30 %, optimization 20 %, neutral
50 %), the event's regime (else "none"), framework mentions read from note titles by regex in the
tagger's JSON shape, and TAGGER_VERSION (read from a real `tracker tag` run), so `tracker tag`
in the nightly finds nothing to do. Plain sqlite3, one INSERT ... SELECT plus one pass for notes.
"""

from __future__ import annotations

import json
import re
import sqlite3
import sys
from datetime import UTC, datetime

MENTION = re.compile(r"\b(PyTorch|JAX|vLLM) (\d+\.\d+(?:\.\d+)?)")


def main() -> None:
    db, version = sys.argv[1], sys.argv[2]
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S.%f")
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    # hex digit 0-4 friction, 5-7 optimization, 8-f neutral (by the id's last digit)
    conn.execute(
        """
        INSERT INTO tags (event_id, tag, score, regime, mentions, tagger_version, tagged_at)
        SELECT e.id,
               CASE WHEN substr(e.id, 32, 1) IN ('0','1','2','3','4') THEN 'friction'
                    WHEN substr(e.id, 32, 1) IN ('5','6','7') THEN 'optimization'
                    ELSE 'neutral' END,
               0.9, COALESCE(e.regime, 'none'), '[]', ?, ?
        FROM events e LEFT JOIN tags t ON t.event_id = e.id
        WHERE e.kind IN ('release', 'note', 'issue') AND t.event_id IS NULL
        """,
        (version, now),
    )
    updates = []
    for event_id, title in conn.execute("SELECT id, title FROM events WHERE kind = 'note'"):
        found = [
            {"framework": fw.lower(), "version": ver, "status": "supported"}
            for fw, ver in MENTION.findall(title)
        ]
        if found:
            updates.append((json.dumps(found), event_id))
    conn.executemany("UPDATE tags SET mentions = ? WHERE event_id = ?", updates)
    conn.execute("COMMIT")
    conn.close()


if __name__ == "__main__":
    main()
