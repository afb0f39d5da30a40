"""The digest's share charts (issue 22): drawn as the report draws its shares, in the regimes'
colours, with each week's count beside its point, hollow and unjoined under a few events."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from tracker.digest import charts  # noqa: E402
from tracker.present import palette  # noqa: E402
from tracker.present.share_chart import Tally  # noqa: E402

WEEKS = [f"2026-W{n:02d}" for n in range(22, 34)]


def test_ci_chart_draws_counts_in_regime_colours(monkeypatch):
    drawn = []
    monkeypatch.setattr(charts, "_png", lambda fig: drawn.append(fig) or b"png")
    tallies = {
        "rocm": [
            Tally("2026-W22", 40, 50),
            Tally("2026-W23", 30, 50),
            Tally("2026-W24", 1, 2),  # hollow: not joined to its neighbours
            Tally("2026-W25", 45, 50),
            Tally("2021-W01", 1, 1),  # outside the charted weeks: not drawn
        ],
        "xla": [Tally(w, 9, 10) for w in ("2026-W30", "2026-W31", "2026-W32")],
    }
    assert charts.ci_chart(WEEKS, tallies) == b"png"
    ax = drawn[0].axes[0]
    assert sorted(t.get_text() for t in ax.texts) == sorted(
        ["50", "50", "2", "50", "10", "10", "10"]
    )
    joined = [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 1]
    # rocm: W22-W23 only (W24 is hollow, so W25 stands alone); xla: W30-W32
    assert sorted(len(ln.get_xdata()) for ln in joined) == [2, 3]
    assert {ln.get_color() for ln in joined} == {palette.colour("rocm"), palette.colour("xla")}
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert legend == [palette.name("rocm"), palette.name("xla")]
    plt.close(drawn[0])


def test_no_tallies_no_chart():
    assert charts.friction_chart(WEEKS, {}) is None
    assert charts.digest_charts(WEEKS, {}, {}, {}) == {}
