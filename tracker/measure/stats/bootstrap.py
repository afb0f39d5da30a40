"""The percentile bootstrap of the Theil-Sen bracket (tracker.measure.stats.trend), computed without
finding every resample's medians.

A resample that picks artifact p c_p times holds c_p * c_q copies of the pair (p, q) and
nothing else (a repeated artifact pairs only with itself: same x, no slope). Its bracket ends
are therefore weighted medians of the original pairs' bounds with weights c_p * c_q
(:func:`resample_bracket`, the definition, O(pairs) per resample). The interval needs only two
order statistics of those medians over all resamples: the low end's (1-level)/2 quantile and the
high end's (1+level)/2 quantile. :func:`bootstrap_interval` finds each by quickselect on the
value: whether a resample's median lies below a threshold t follows from one number, the weight
of its pairs whose bound is below t, and that weight is a quadratic form c^T M_t c, computed for
all resamples at once with one matrix product (exact: small integers in floating point) or, for
a narrow range of t, from the pairs in that range. Only the few resamples left near the answer
get their medians computed. Same resamples, same values, same quantiles as the direct
computation (:func:`bootstrap_interval_direct`, kept as the reference the tests compare with):
the answer is always one of the resample medians, and every comparison is exact.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike

from tracker.measure.stats.pair_tables import EndTable, end_table, middle, pair_count

LEVEL = 0.90
BOOTSTRAP_SAMPLES = 2000
BOOTSTRAP_SEED = 13  # fixed: the same facts and as_of give the same report
FEW = 24  # candidates left: compute their medians and pick
PROBE = 128  # resamples whose medians are located first, to aim the first threshold
BAND = 4.0  # pairs sorted for the selection: BAND / sqrt(artifacts) either side of the middle


def median(values: np.ndarray) -> float:
    """The median of `values` (any order), infinities allowed; NaN when empty. Only the middle
    one or two order statistics are needed: a partition, not a sort (O(n) on a chart's
    millions of pairs instead of O(n log n))."""
    if values.size == 0:
        return math.nan
    mid = values.size // 2
    if values.size % 2:
        return float(np.partition(values, mid)[mid])
    ordered = np.partition(values, (mid - 1, mid))
    return middle(float(ordered[mid - 1]), float(ordered[mid]))


def _resample_counts(n: int, samples: int, seed: int) -> np.ndarray:
    """How often each resample picks each artifact. One call draws what the direct
    computation's one call per resample draws (the generator's stream does not depend on how
    the draws are split into calls; tests/measure/test_bootstrap.py checks it)."""
    picks = np.random.default_rng(seed).integers(0, n, (samples, n))
    picks += np.arange(samples)[:, None] * n
    return np.bincount(picks.ravel(), minlength=samples * n).reshape(samples, n)


def _pair_weights(
    xs: np.ndarray, obs: np.ndarray, counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per row of `counts`, O(artifacts) each: the weight of all pairs with two different x
    ((n^2 - sum over x values of picks^2) / 2), of those whose low end is -inf (the earlier
    artifact open) and of those whose high end is +inf (the later one open)."""
    order = np.argsort(xs, kind="stable")
    ordered = xs[order]
    c = counts.T[order]  # artifacts x rows, by x: cumulative sums down the columns
    cumulative = np.zeros((len(xs) + 1, c.shape[1]), np.int64)
    np.cumsum(c, axis=0, out=cumulative[1:])
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    per_x = np.diff(cumulative[np.r_[starts, len(xs)]], axis=0)
    total = cumulative[-1]
    sizes = (total * total - np.einsum("ij,ij->j", per_x, per_x)) // 2
    shut = np.flatnonzero(~obs[order])  # only open artifacts make infinite ends
    mine = c[shut]
    later = total - cumulative[np.searchsorted(ordered, ordered[shut], side="right")]
    earlier = cumulative[np.searchsorted(ordered, ordered[shut], side="left")]
    return sizes, np.einsum("ij,ij->j", mine, later), np.einsum("ij,ij->j", mine, earlier)


def _select(end: EndTable, counts: np.ndarray, sizes: np.ndarray, k: int) -> float | None:
    """The k-th smallest (0-based) of the resamples' medians of `end`, all sizes > 0; None
    when `end` is sorted only in a band (EndTable) and the answer lies outside it.

    Invariant: the answer is the k-th smallest median among `rows`, whose medians all lie in
    [values[lo], values[hi]) (values[len] meaning +inf); `weight_lo` is each row's weight of
    the pairs below position lo. A threshold t = values[p] (p the first position of its value)
    splits the rows exactly: with B the weight below t and mid = size // 2, the median is below
    t when rank mid is (B > mid); at or above when rank mid - 1 (odd size: mid) is not; the
    rest (even size, B == mid exactly) have their median computed and compared. The band's
    edges are the first thresholds; then [lo, hi) stays inside the sorted run. The rows left
    at the end whose ranks both fall in [lo, hi) where every value is the same (a block of
    ties, or of infinities) have that value as their median; the others are computed."""
    values, total = end.values, len(end.values)
    rows = np.arange(len(counts))
    mid, even = sizes // 2, sizes % 2 == 0
    lo, hi = 0, total
    weight_lo, weight_hi = np.zeros(len(rows), np.int64), sizes.copy()
    estimate: np.ndarray | None = None  # each row's guessed median position

    def median_of(n: int, row: int) -> float:
        """Row `row`'s median (n: its place in `rows`); from the pairs in [lo, hi) alone when
        its middle ranks are there (O(hi - lo), not O(pairs))."""
        first = mid[row] - even[row]
        sorted_run = end.start <= lo and hi <= end.stop
        if sorted_run and weight_lo[n] <= first and mid[row] < weight_hi[n]:
            return end.median_within(counts[row], lo, hi, int(weight_lo[n]), int(sizes[row]))
        return end.median(counts[row])

    def split(p: int) -> None:
        """Keep the rows on the answer's side of values[p]."""
        nonlocal rows, lo, hi, k, weight_lo, weight_hi, estimate
        if p - lo < end.n * end.n // 64:  # a thin slice costs less than the product
            columns = np.ascontiguousarray(counts[rows].T, dtype=np.int32)
            weight = weight_lo + end.between(columns, lo, p)
        else:
            weight = end.below(counts[rows], p)
        below = mid[rows] < weight
        unsure = ~below & even[rows] & (mid[rows] - 1 < weight)
        for n in np.flatnonzero(unsure):
            below[n] = median_of(int(n), int(rows[n])) < values[p]
        spread = np.maximum(sizes[rows], 1) / max(1, total)
        guess = p + (mid[rows] - weight) / spread  # positions if weight were uniform
        taken = int(below.sum())
        if k < taken:  # the answer is below values[p]
            keep = below
            hi, weight_lo, weight_hi = p, weight_lo[keep], weight[keep]
        else:
            keep = ~below
            k, lo, weight_lo, weight_hi = k - taken, p, weight[keep], weight_hi[keep]
        rows, estimate = rows[keep], guess[keep]

    run = (end.start, end.stop)
    # the first guesses from a probe of PROBE rows
    if len(rows) > 4 * PROBE:
        p = _pivot(values, lo, hi, k, None, len(rows), run)
        if p is not None:
            probe = rows[:PROBE]
            weight = end.below(counts[probe], p)
            estimate = p + (mid[probe] - weight) / (np.maximum(sizes[probe], 1) / max(1, total))
    for _ in range(64):
        if len(rows) <= FEW or hi - lo <= 1:
            break
        pivot = _pivot(values, lo, hi, k, estimate, len(rows), run)
        if pivot is None:
            break
        split(pivot)
    for edge in run:  # by now few rows are left to place against the sorted run's edges
        if lo < edge < hi:
            split(edge)
    if lo < end.start or hi > end.stop:
        return None  # outside the sorted run
    tied = values[lo] == values[hi - 1]
    inside = (weight_lo <= mid[rows] - even[rows]) & (mid[rows] < weight_hi)
    medians = sorted(
        float(values[lo]) if tied and inside[n] else median_of(n, int(r))
        for n, r in enumerate(rows)
    )
    return medians[k]


def _pivot(
    values: np.ndarray,
    lo: int,
    hi: int,
    k: int,
    estimate: np.ndarray | None,
    rows: int,
    run: tuple[int, int],
) -> int | None:
    """A position strictly inside (lo, hi) and inside the sorted run [start, stop) that starts
    a value: near the k-th of `rows` rows' estimated median positions (`estimate` may hold a
    sample of them), overshooting so that few rows stay on the kept side; the middle without
    estimates. lo starts its value, and every value before the run is below it."""
    start, stop = max(lo, run[0]), min(hi, run[1])
    if stop - start < 1:
        return None
    if estimate is None or len(estimate) == 0:
        p = (lo + hi) // 2
    else:
        order = np.sort(estimate)
        margin = max(2, rows // 40)
        near = (k + margin if k < rows / 2 else k - margin) * len(order) / rows
        p = int(order[int(np.clip(near, 0, len(order) - 1))])
    p = int(np.clip(p, max(lo + 1, start), stop - 1))
    within = values[start:stop]
    p = start + int(np.searchsorted(within, values[p], side="left"))
    if p <= lo:
        p = start + int(np.searchsorted(within, values[lo], side="right"))
    return p if lo < p < hi else None


def _band(n: int, size: int) -> tuple[int, int] | None:
    """The ranks of the pairs sorted for the selection: BAND / sqrt(n) of them either side of
    the middle (a resample's median moves about 1 / sqrt(n) of the pairs from the full data's,
    its 5% and 95% quantiles about 1.6 times that); None: all of them."""
    half = int(size * BAND / math.sqrt(max(1, n)))
    lo, hi = size // 2 - half, size // 2 + half + 1
    return (lo, hi) if lo > 0 and hi < size else None


def _quantile_index(n: int, q: float) -> int:
    """The index np.quantile(..., method="inverted_cdf") picks from n sorted values."""
    return int(np.quantile(np.arange(n), q, method="inverted_cdf"))


def bootstrap_interval(
    x: ArrayLike,
    y: ArrayLike,
    observed: ArrayLike,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = LEVEL,
) -> tuple[float, float]:
    """Percentile bootstrap over artifacts (resampled with replacement, open ones with their
    flag): the (1-level)/2 quantile of the bracket's low end and the (1+level)/2 quantile of its
    high end ("inverted_cdf": an observed value, so an infinite upper end stays infinite).
    Resamples with a single distinct x give no slope and are left out. Equal to
    :func:`bootstrap_interval_direct` (see the module)."""
    return bracket_and_interval(x, y, observed, samples, seed, level)[2:]


def bracket_and_interval(
    x: ArrayLike,
    y: ArrayLike,
    observed: ArrayLike,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = LEVEL,
) -> tuple[float, float, float, float]:
    """(low, high, ci_low, ci_high): trend.slope_bracket and :func:`bootstrap_interval` of
    the same artifacts, each end's pair bounds formed and sorted once for both, one end at a
    time. An end that is infinite (open artifacts bound nothing) is known from counts alone
    (:func:`_infinite`): its pairs are then not formed at all."""
    xs, ys, obs = np.asarray(x, float), np.asarray(y, float), np.asarray(observed, bool)
    # the original artifacts' pairs, as a one-row resample
    all_pairs, *weights = _pair_weights(xs, obs, np.ones((1, len(xs)), np.int64))
    infinite = _infinite(all_pairs, *weights)
    counts = _resample_counts(len(xs), samples, seed)
    sizes, minus, plus = _pair_weights(xs, obs, counts)
    valid = sizes > 0
    counts, sizes, minus, plus = counts[valid], sizes[valid], minus[valid], plus[valid]
    tail = (1 - level) / 2
    ks = (
        (_quantile_index(len(sizes), tail), _quantile_index(len(sizes), 1 - tail))
        if len(sizes)
        else (0, 0)
    )
    resampled = _infinite(sizes, minus, plus)
    brackets, intervals = [], []
    size = int(all_pairs[0])
    for side, sign in ((0, -1), (1, 1)):
        end = None  # one end's table at a time (built only if needed), then dropped
        if size == 0:
            brackets.append(math.nan)
        elif infinite[side][0]:
            brackets.append(sign * math.inf)
        else:
            end = end_table(xs, ys, obs, side, size, _band(len(xs), size))
            brackets.append(median(end.values))
        # the k-th smallest median is infinite when enough medians are: -inf sort first
        flagged = int(resampled[side].sum())
        if not valid.any():
            intervals.append(math.nan)
        elif (ks[0] < flagged) if side == 0 else (ks[1] >= len(sizes) - flagged):
            intervals.append(sign * math.inf)
        else:
            end = end or end_table(xs, ys, obs, side, size, _band(len(xs), size))
            found = _select(end, counts, sizes, ks[side])
            if found is None:  # outside the band: sort every pair
                end = end_table(xs, ys, obs, side, size)
                found = _select(end, counts, sizes, ks[side])
            assert found is not None  # a table sorted whole has no band to leave
            intervals.append(found)
        del end
    out = brackets + intervals
    return out[0], out[1], out[2], out[3]


def _infinite(
    sizes: np.ndarray, minus: np.ndarray, plus: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Whose medians are infinite: the low end's is -inf when its rank mid - 1 (odd size:
    mid) falls among the `minus` lowest (-inf / 2 + a finite value is -inf); the high end's
    is +inf when rank mid falls among the `plus` highest."""
    mid, even = sizes // 2, (sizes % 2 == 0).astype(np.int64)
    return (sizes > 0) & (mid - even < minus), (sizes > 0) & (mid >= sizes - plus)


def bootstrap_interval_direct(
    x: ArrayLike,
    y: ArrayLike,
    observed: ArrayLike,
    samples: int = BOOTSTRAP_SAMPLES,
    seed: int = BOOTSTRAP_SEED,
    level: float = LEVEL,
) -> tuple[float, float]:
    """bootstrap_interval by its definition: every resample's bracket, then the quantiles."""
    xs, ys, obs = np.asarray(x, float), np.asarray(y, float), np.asarray(observed, bool)
    rng = np.random.default_rng(seed)
    size = pair_count(xs)
    low_end, high_end = end_table(xs, ys, obs, 0, size), end_table(xs, ys, obs, 1, size)
    lows, highs = [], []
    for _ in range(samples):
        counts = np.bincount(rng.integers(0, len(xs), len(xs)), minlength=len(xs))
        low = low_end.median(counts)
        if not math.isnan(low):
            lows.append(low)
            highs.append(high_end.median(counts))
    if not lows:
        return math.nan, math.nan
    tail = (1 - level) / 2
    return (
        float(np.quantile(lows, tail, method="inverted_cdf")),
        float(np.quantile(highs, 1 - tail, method="inverted_cdf")),
    )
