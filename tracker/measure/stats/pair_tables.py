"""The pairs of a group's artifacts behind the Theil-Sen bracket (tracker.measure.stats.trend) and
its bootstrap (tracker.measure.stats.bootstrap): each pair's slope bounds, formed a block of rows
at a
time (a group of thousands of artifacts has tens of millions of pairs: their index pairs are
never all formed at once), and one end's bounds sorted with the pair's two artifacts, whose
weighted medians are a resample's bracket ends.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from itertools import pairwise

import numpy as np
from numpy.typing import ArrayLike

CHUNK = 1 << 22  # elements per block: of index pairs formed, of (resamples x pairs) weights
COLUMNS = 256  # artifacts per column block of a threshold matrix, at least (EndTable.below)


def pair_bounds(x: ArrayLike, y: ArrayLike, observed: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """For every pair i < j with x_i != x_j (same-x pairs have no slope), the lowest and highest
    slope the pair can have. A covered lag is exact; an open one is a lower bound. Ordering
    each pair so that x_a < x_b: an open later lag raises the slope without limit (upper end
    +inf), an open earlier lag lowers it (lower end -inf), both open bound nothing."""
    xs, ys, obs = np.asarray(x, float), np.asarray(y, float), np.asarray(observed, bool)
    size = pair_count(xs)
    low, high = np.empty(size), np.empty(size)
    for at, i, j in pair_blocks(xs):
        low[at : at + len(i)], high[at : at + len(i)] = bounds(xs, ys, obs, i, j)
    return low, high


def pair_count(xs: np.ndarray) -> int:
    """How many pairs have two different x: n(n-1)/2 less the pairs within each x value."""
    same = np.unique(xs, return_counts=True)[1]
    return (len(xs) * (len(xs) - 1) - int((same * (same - 1)).sum())) // 2


def bounds(
    xs: np.ndarray, ys: np.ndarray, obs: np.ndarray, i: np.ndarray, j: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`pair_bounds` of the pairs (i[k], j[k])."""
    swap = xs[i] > xs[j]
    a, b = np.where(swap, j, i), np.where(swap, i, j)  # x[a] < x[b]
    slope = (ys[b] - ys[a]) / (xs[b] - xs[a])
    low = np.where(obs[a], slope, -np.inf)  # an open earlier lag may be longer: slope lower
    high = np.where(obs[b], slope, np.inf)  # an open later lag may be longer: slope higher
    return low, high


def pair_blocks(xs: np.ndarray) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
    """The pairs i < j with x_i != x_j in row-major order (np.triu_indices's), a few rows at
    a time (about CHUNK index pairs each): (position of the block's first pair, i, j). Never
    every index pair of a large group at once (tens of millions at 5M events)."""
    n, at = len(xs), 0
    columns = np.arange(n)
    rows = max(1, CHUNK // max(1, n))
    for start in range(0, n, rows):
        stop = min(n, start + rows)
        keep = (columns > columns[start:stop, None]) & (xs != xs[start:stop, None])
        i, j = np.nonzero(keep)
        yield at, i + start, j
        at += len(i)


def end_table(
    xs: np.ndarray,
    ys: np.ndarray,
    obs: np.ndarray,
    side: int,
    size: int,
    band: tuple[int, int] | None = None,
) -> EndTable:
    """One end's table (side 0: low, 1: high) of the `size` pairs, formed block by block:
    the other end is never held at the same time. `band`: sorted only between those ranks."""
    index = np.int32 if len(xs) < 2**31 else np.int64  # half the memory of a pair list
    values = np.empty(size)
    i, j = np.empty(size, index), np.empty(size, index)
    for at, block_i, block_j in pair_blocks(xs):
        stop = at + len(block_i)
        values[at:stop] = bounds(xs, ys, obs, block_i, block_j)[side]
        i[at:stop], j[at:stop] = block_i, block_j
    return EndTable(values, i, j, len(xs), band)


class EndTable:
    """One end's bounds (low or high) of every pair, sorted, with the pair's two artifacts.
    Given a band of ranks (lo, hi), only positions start .. stop-1 are sorted (the values from
    the lo-th smallest to before the hi-th smallest): every value before start is lower, every
    one from stop on is at least values[stop] (a sort of all pairs costs more than the rest of
    the bootstrap at thousands of artifacts, and the quantiles lie near the middle)."""

    def __init__(
        self, values: np.ndarray, i: np.ndarray, j: np.ndarray, n: int, band: tuple | None = None
    ) -> None:
        if band is None:
            order = np.argsort(values)  # the order within ties changes no value
            self.start, self.stop = 0, len(values)
        else:
            order, self.start, self.stop = _banded_order(values, *band)
        self.values = values[order]
        self.a: np.ndarray = i[order]
        self.b: np.ndarray = j[order]
        self.n = n

    def median(self, counts: np.ndarray) -> float:
        """The weighted median of this end for the resample holding artifact p counts[p] times
        (the definition; O(pairs)); an unsorted run is sorted only when a middle rank is in it."""
        weights = counts[self.a] * counts[self.b]
        if self.start == 0 and self.stop == len(self.values):
            return weighted_median(self.values, weights)
        edges = (0, self.start, self.stop, len(self.values))
        sums = np.cumsum([0] + [int(weights[a:b].sum()) for a, b in pairwise(edges)])
        size = int(sums[-1])
        if size == 0:
            return math.nan

        def at(rank: int) -> float:
            run = int(np.searchsorted(sums, rank, side="right")) - 1
            values, w = (
                self.values[edges[run] : edges[run + 1]],
                weights[edges[run] : edges[run + 1]],
            )
            if run != 1:
                order = np.argsort(values)
                values, w = values[order], w[order]
            return float(values[np.searchsorted(np.cumsum(w) + sums[run], rank, side="right")])

        mid = size // 2
        return at(mid) if size % 2 else middle(at(mid - 1), at(mid))

    def median_within(self, counts: np.ndarray, lo: int, hi: int, below: int, size: int) -> float:
        """:meth:`median` of a resample of `size` pairs whose middle ranks both fall among the
        pairs at positions lo .. hi-1, `below` its weight before lo: from those pairs alone."""
        weights = counts[self.a[lo:hi]] * counts[self.b[lo:hi]]
        return weighted_median(self.values[lo:hi], weights, below, size)

    def below(self, counts: np.ndarray, stop: int) -> np.ndarray:
        """Per resample (rows of `counts`), the weight of the pairs at positions < stop: c^T M c
        with M counting those pairs. M is strictly upper triangular (a pair's artifacts a < b),
        so it is taken a block of columns at a time, each times only the rows that can hold
        a pair (about half the products of a full n x n matrix, never held whole). Exact:
        every entry of counts @ M is at most the resample size (< 2**24, float32 holds it);
        the sums, below 2**53, are taken in float64."""
        total = np.zeros(len(counts))
        if stop == 0 or len(counts) == 0:
            return total.astype(np.int64)
        a, b = self.a[:stop], self.b[:stop]
        width = max(COLUMNS, -(-self.n // 8))
        block = b // width
        single = counts.astype(np.float32)
        for start in range(0, self.n, width):
            end = min(self.n, start + width)
            picked = np.flatnonzero(block == start // width)
            if picked.size == 0:
                continue
            matrix = np.zeros((end, end - start), np.float32)  # rows a < b < end
            matrix[a[picked], b[picked] - start] = 1  # each pair once: no counting needed
            product = single[:, :end] @ matrix
            total += np.einsum("ij,ij->i", product, single[:, start:end], dtype=np.float64)
        return total.astype(np.int64)

    def between(self, columns: np.ndarray, start: int, stop: int) -> np.ndarray:
        """Per resample, the weight of the pairs at positions start .. stop-1; `columns` holds
        the resamples' counts one column each (artifacts x resamples, so a pair's two rows are
        read whole)."""
        total = np.zeros(columns.shape[1], np.int64)
        step = max(1, CHUNK // max(1, columns.shape[1]))
        for lo in range(start, stop, step):
            hi = min(stop, lo + step)
            a, b = columns[self.a[lo:hi]], columns[self.b[lo:hi]]
            total += np.einsum("kr,kr->r", a, b, dtype=np.int64)
        return total


def _banded_order(values: np.ndarray, lo: int, hi: int) -> tuple[np.ndarray, int, int]:
    """An order of `values`: those below the lo-th smallest (any order), then up to before the
    hi-th smallest sorted, then the rest with their lowest first; and where the sorted run
    starts and stops. O(pairs) but for the run's sort."""
    cut = np.partition(values, [r for r in (lo, hi) if r < len(values)])
    under = values < cut[lo] if lo > 0 else np.zeros(len(values), bool)
    over = values >= cut[hi] if hi < len(values) else np.zeros(len(values), bool)
    inner = np.flatnonzero(~(under | over))
    inner = inner[np.argsort(values[inner])]
    rest = np.flatnonzero(over)
    if rest.size:
        first = int(np.argmin(values[rest]))
        rest[[0, first]] = rest[[first, 0]]
    start = int(under.sum())
    return np.concatenate([np.flatnonzero(under), inner, rest]), start, start + len(inner)


def middle(lo: float, hi: float) -> float:
    """The median of an even count from its two middle values, infinities allowed (inf / 2 is
    inf; -inf and +inf never meet, see pair_bounds)."""
    return lo if lo == hi else lo / 2 + hi / 2


def weighted_median(
    ordered: np.ndarray, weights: np.ndarray, below: int = 0, size: int | None = None
) -> float:
    """The median of the multiset holding ordered[k] weights[k] times (`ordered` sorted); or,
    given `below` and `size`, of a multiset of `size` values whose `below` lowest come before
    `ordered` and whose middle ranks are among `ordered`."""
    cumulative = np.cumsum(weights) + below
    if size is None:
        size = int(cumulative[-1]) if cumulative.size else 0
    if size == 0:
        return math.nan

    def at(rank: int) -> float:
        return float(ordered[np.searchsorted(cumulative, rank, side="right")])

    mid = size // 2
    return at(mid) if size % 2 else middle(at(mid - 1), at(mid))
