"""Reference for `tracker report`: three weekly group-bys and three charts, same database.

    python benchmarks/report_reference.py DB.sqlite OUT_DIR

Runs the store's own weekly views and one group-by on events (friction vs optimization per
regime and week from v_friction_weekly; CI runs passed / failed per regime and week from
v_ci_pass_rate_weekly; releases per project and week from events, with the views' ISO-week
expression) and draws one matplotlib (Agg) line chart per query into OUT_DIR. The floor a
report of those series costs: `tracker report` does more (lag, trends, HTML), the issue's
target is <= 1.5x of this.
"""

from __future__ import annotations

import sqlite3
import sys
from collections import defaultdict
from pathlib import Path

# The ISO week of occurred_at, as migrations/versions/0002_ci_pass_rate_view.py spells it.
_THURSDAY = (
    "date(occurred_at, '-' || ((CAST(strftime('%w', occurred_at) AS INTEGER) "
    "+ 6) % 7) || ' days', '+3 days')"
)
WEEK = (
    f"strftime('%Y', {_THURSDAY}) || '-W' || "
    f"printf('%02d', (CAST(strftime('%j', {_THURSDAY}) AS INTEGER) - 1) / 7 + 1)"
)
QUERIES = {
    "friction": (
        "SELECT regime, week, SUM(friction), SUM(optimization) FROM v_friction_weekly "
        "GROUP BY regime, week ORDER BY week"
    ),
    "ci_pass": (
        "SELECT regime, week, SUM(runs_passed), SUM(runs_failed) FROM v_ci_pass_rate_weekly "
        "GROUP BY regime, week ORDER BY week"
    ),
    "releases": (
        f"SELECT project, {WEEK} AS week, COUNT(*), 0 FROM events WHERE kind = 'release' "
        "GROUP BY project, week ORDER BY week"
    ),
}


def main() -> None:
    db, out = Path(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    for name, sql in QUERIES.items():
        series: dict[str, tuple[list[str], list[float]]] = defaultdict(lambda: ([], []))
        for group, week, a, b in conn.execute(sql):
            weeks, values = series[str(group)]
            weeks.append(week)
            # friction share, pass rate, or a count
            values.append(a / (a + b) if name != "releases" and (a + b) else float(a))
        fig, ax = plt.subplots(figsize=(10, 4))
        for group, (weeks, values) in sorted(series.items()):
            ax.plot(weeks, values, label=group)
        ax.set_title(name)
        ax.legend(loc="upper left", fontsize="small")
        ax.tick_params(axis="x", labelrotation=90, labelsize=6)
        fig.tight_layout()
        fig.savefig(out / f"{name}.png", dpi=100)
        plt.close(fig)
    conn.close()


if __name__ == "__main__":
    main()
