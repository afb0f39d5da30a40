"""Point labels kept inside their panel: a label placed beside its point by an offset (the
charts' `annotate(..., textcoords="offset points")`) can run past the panel's edge when the
point sits near it, through the y axis or into the title. Once laid out, such a label is moved
back inside by exactly its overflow, staying as near its point as the panel allows."""

from __future__ import annotations

from matplotlib.text import Annotation

MARGIN_PX = 2.0  # the gap kept between a moved label and the panel's edge


def keep_labels_inside(fig) -> int:
    """Move every offset point label of `fig` that crosses its panel's edge back inside (by
    the overflow, in the points its offset is given in); the number moved."""
    renderer = fig.canvas.get_renderer()
    moved = 0
    for ax in fig.axes:
        if not ax.get_visible():
            continue
        panel = ax.get_window_extent(renderer)
        for label in ax.texts:
            if not isinstance(label, Annotation) or label.anncoords != "offset points":
                continue
            box = label.get_window_extent(renderer)
            dx = _overflow(box.x0, box.x1, panel.x0, panel.x1)
            dy = _overflow(box.y0, box.y1, panel.y0, panel.y1)
            if dx or dy:
                to_points = 72.0 / fig.dpi
                x, y = label.xyann
                label.xyann = (x + dx * to_points, y + dy * to_points)
                moved += 1
    return moved


def _overflow(low: float, high: float, start: float, end: float) -> float:
    """How far (pixels) a box from `low` to `high` must move to lie within `start`..`end`
    with MARGIN_PX to spare; 0 when it does, or when it is too large to fit either way."""
    if high - low > end - start - 2 * MARGIN_PX:
        return 0.0
    if low < start + MARGIN_PX:
        return start + MARGIN_PX - low
    if high > end - MARGIN_PX:
        return end - MARGIN_PX - high
    return 0.0
