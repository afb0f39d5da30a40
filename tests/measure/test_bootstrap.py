"""The trend bootstrap found by selection (tracker.measure.stats.bootstrap.bootstrap_interval) gives
exactly what its definition gives (every resample's bracket, then the quantiles), on random
groups with ties in x and in lag, open artifacts, near-perfect lines (many equal slopes) and
groups too small to bracket."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tracker.measure.stats import bootstrap, pair_tables
from tracker.measure.stats.bootstrap import (
    FEW,
    _pair_weights,
    _resample_counts,
    bootstrap_interval,
    bootstrap_interval_direct,
    bracket_and_interval,
)
from tracker.measure.stats.trend import slope_bracket


def same(a: tuple[float, ...], b: tuple[float, ...]) -> bool:
    return all((math.isnan(p) and math.isnan(q)) or p == q for p, q in zip(a, b, strict=True))


def random_group(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n = int(rng.integers(2, 90))
    xs = rng.integers(0, max(2, n // int(rng.integers(1, 4))), n) / 7.3  # ties in x
    if rng.random() < 0.3:
        ys = np.round(xs * 3 + rng.normal(0, 1, n))  # near a line: many equal slopes
    else:
        ys = rng.integers(0, 30, n).astype(float)
    observed = rng.random(n) < rng.choice([0.0, 0.5, 0.9, 1.0])
    return xs, ys, observed


@pytest.mark.parametrize("seed", range(4))
def test_selection_equals_the_definition_on_random_groups(seed):
    rng = np.random.default_rng(seed)
    for case in range(25):
        xs, ys, observed = random_group(rng)
        samples = int(rng.choice([30, 400, 2000]))
        fast = bracket_and_interval(xs, ys, observed, samples=samples, seed=case)
        direct = bootstrap_interval_direct(xs, ys, observed, samples=samples, seed=case)
        assert same(fast, slope_bracket(xs, ys, observed) + direct)


def test_selection_equals_the_definition_on_a_larger_group():
    # large enough that the selection takes matrix products and thin slices before the last
    # few candidates (FEW) get their medians computed
    rng = np.random.default_rng(11)
    n = 260
    xs = np.sort(rng.uniform(55.6, 56.7, n))
    ys = np.round(np.maximum(0, 40 - 10 * (xs - 55.6) + rng.exponential(30, n)))
    observed = rng.random(n) < 0.6
    fast = bootstrap_interval(xs, ys, observed)
    assert same(fast, bootstrap_interval_direct(xs, ys, observed))
    assert math.isfinite(fast[0]) and 2000 > FEW


def test_no_slope_at_all_is_nan_both_ways():
    assert all(math.isnan(v) for v in bootstrap_interval([1, 1, 1], [2, 3, 4], [True] * 3))
    assert all(math.isnan(v) for v in bootstrap_interval_direct([1, 1], [2, 3], [True, True]))


@pytest.mark.parametrize("n", [2, 3, 7, 64, 101, 1283, 4099])
def test_one_draw_for_all_resamples_is_the_direct_computations_draws(n):
    # the direct computation calls the generator once per resample
    rng = np.random.default_rng(13)
    rows = [np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(37)]
    assert (_resample_counts(n, 37, 13) == np.array(rows)).all()


def test_pair_weights_count_the_pairs_and_their_infinite_ends():
    rng = np.random.default_rng(3)
    for _ in range(40):
        n = int(rng.integers(1, 30))
        xs = rng.integers(0, max(1, n // 2), n).astype(float)  # ties in x
        observed = rng.random(n) < rng.choice([0.0, 0.5, 1.0])
        counts = rng.integers(0, 4, (5, n))
        sizes, minus, plus = _pair_weights(xs, observed, counts)
        for r, c in enumerate(counts):
            pairs = [(p, q) for p in range(n) for q in range(n) if xs[p] < xs[q]]
            assert sizes[r] == sum(c[p] * c[q] for p, q in pairs)
            assert minus[r] == sum(c[p] * c[q] for p, q in pairs if not observed[p])
            assert plus[r] == sum(c[p] * c[q] for p, q in pairs if not observed[q])


def plain_bounds(xs, ys, observed):
    """Every pair i < j with two different x, in that order, by the definition (pair_bounds)."""
    low, high = [], []
    for i in range(len(xs)):
        for j in range(i + 1, len(xs)):
            if xs[i] != xs[j]:
                a, b = (i, j) if xs[i] < xs[j] else (j, i)
                slope = (ys[b] - ys[a]) / (xs[b] - xs[a])
                low.append(slope if observed[a] else -math.inf)
                high.append(slope if observed[b] else math.inf)
    return np.array(low), np.array(high)


@pytest.mark.parametrize("chunk", [1, 7, 64, 1 << 22])
def test_pairs_formed_in_blocks_are_every_pair_in_order(monkeypatch, chunk):
    # CHUNK index pairs per block: 1 and 7 put block boundaries inside and between rows
    monkeypatch.setattr(pair_tables, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for n in (0, 1, 2, 3, 5, 8, 9, 40):
        xs, ys, observed = random_group(rng)
        xs, ys, observed = xs[:n], ys[:n], observed[:n]
        n = len(xs)  # a random group may hold fewer
        low, high = pair_tables.pair_bounds(xs, ys, observed)
        plain = plain_bounds(xs, ys, observed)
        assert low.tolist() == plain[0].tolist() and high.tolist() == plain[1].tolist()
        for side in (0, 1):
            end = pair_tables.end_table(xs, ys, observed, side, len(low))
            assert end.values.tolist() == sorted(plain[side].tolist())
            formed = zip(end.values.tolist(), end.a.tolist(), end.b.tolist(), strict=True)
            pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if xs[i] != xs[j]]
            expected = zip(plain[side].tolist(), pairs, strict=True)
            assert sorted(formed) == sorted((v, i, j) for v, (i, j) in expected)
            if n < 2:
                break


@pytest.mark.parametrize("chunk", [5, 97])
def test_selection_equals_the_definition_with_small_pair_blocks(monkeypatch, chunk):
    # all open, one open, n = 2 .. small, ties: block boundaries everywhere
    monkeypatch.setattr(pair_tables, "CHUNK", chunk)
    rng = np.random.default_rng(chunk)
    for case in range(30):
        xs, ys, observed = random_group(rng)
        if case % 5 == 0:
            observed[:] = False
        elif case % 5 == 1:
            observed[:] = True
            observed[int(rng.integers(0, len(xs)))] = False
        fast = bracket_and_interval(xs, ys, observed, samples=300, seed=case)
        direct = bootstrap_interval_direct(xs, ys, observed, samples=300, seed=case)
        assert same(fast, tuple(map(bootstrap.median, plain_bounds(xs, ys, observed))) + direct)


def test_medians_found_from_the_last_band_of_pairs_equal_the_definition(monkeypatch):
    # the last candidates' medians come from the pairs between the final thresholds when
    # their middle ranks are there (EndTable.median_within), not from every pair
    rng = np.random.default_rng(17)
    n = 300
    xs = np.sort(rng.integers(0, 200, n)) / 3.0  # ties in x
    ys = np.round(np.maximum(0, 60 - 4 * xs / 3 + rng.exponential(20, n)))
    observed = rng.random(n) < 0.8
    calls = []
    within = pair_tables.EndTable.median_within

    def counted(self, *args):
        calls.append(args[1:3])
        return within(self, *args)

    monkeypatch.setattr(pair_tables.EndTable, "median_within", counted)
    fast = bootstrap_interval(xs, ys, observed)
    assert calls and any(hi - lo < n * n // 4 for lo, hi in calls)
    assert same(fast, bootstrap_interval_direct(xs, ys, observed))


@pytest.mark.parametrize("columns", [1, 3, 256])
def test_the_weight_below_a_position_counts_the_pairs_there(monkeypatch, columns):
    # EndTable.below by column blocks of the threshold matrix (1 and 3: many blocks, edges
    # inside every group) against counting the pairs one by one
    monkeypatch.setattr(pair_tables, "COLUMNS", columns)
    rng = np.random.default_rng(columns)
    for n in (2, 5, 17, 40):
        xs = rng.integers(0, n, n).astype(float)
        ys, observed = rng.integers(0, 20, n).astype(float), rng.random(n) < 0.7
        end = pair_tables.end_table(xs, ys, observed, 0, pair_tables.pair_count(xs))
        counts = rng.integers(0, 4, (6, n))
        for stop in sorted({0, 1, len(end.values) // 3, len(end.values)}):
            expected = [
                sum(c[a] * c[b] for a, b in zip(end.a[:stop], end.b[:stop], strict=True))
                for c in counts
            ]
            assert end.below(counts, stop).tolist() == expected


@pytest.mark.parametrize("band", [0.05, 0.5, 1.5, 4.0])
def test_selection_in_a_sorted_band_equals_the_definition(monkeypatch, band):
    # only the pairs near the middle are sorted (BAND); an answer outside them (a narrow band
    # makes that common) is found again over every pair sorted: both ways equal the definition
    monkeypatch.setattr(bootstrap, "BAND", band)
    outcomes = []
    select = bootstrap._select

    def recorded(end, *args):
        found = select(end, *args)
        outcomes.append((end.start > 0 or end.stop < len(end.values), found is None))
        return found

    monkeypatch.setattr(bootstrap, "_select", recorded)
    rng = np.random.default_rng(int(band * 100))
    for case in range(12):
        n = int(rng.integers(30, 160))
        xs = rng.integers(0, n, n) / 5.0  # ties in x
        ys = np.round(np.maximum(0, 50 - xs + rng.exponential(15, n)))
        observed = rng.random(n) < rng.choice([0.6, 0.95, 1.0])
        fast = bracket_and_interval(xs, ys, observed, samples=300, seed=case)
        direct = bootstrap_interval_direct(xs, ys, observed, samples=300, seed=case)
        assert same(fast, slope_bracket(xs, ys, observed) + direct)
    banded = [left for was_banded, left in outcomes if was_banded]
    assert banded  # the band was used
    if band <= 0.05:
        assert any(banded)  # and left, then every pair sorted
    if band >= 1.5:
        assert not all(banded)  # the answer found inside the band


def test_a_banded_tables_medians_are_the_weighted_medians_of_all_pairs():
    rng = np.random.default_rng(23)
    for _ in range(20):
        xs, ys, observed = random_group(rng)
        size = pair_tables.pair_count(xs)
        if size < 4:
            continue
        lo = int(rng.integers(1, size // 2 + 1))
        hi = int(rng.integers(lo, size))
        banded = pair_tables.end_table(xs, ys, observed, 0, size, (lo, hi))
        full = pair_tables.end_table(xs, ys, observed, 0, size)
        assert sorted(banded.values.tolist()) == full.values.tolist()
        run = banded.values[banded.start : banded.stop]
        assert (run[1:] >= run[:-1]).all() and (
            banded.values[: banded.start] < run.min(initial=np.inf)
        ).all()
        if banded.stop < size:
            assert banded.values[banded.stop] == banded.values[banded.stop :].min()
        for _ in range(5):
            counts = rng.integers(0, 3, len(xs))
            assert same((banded.median(counts),), (full.median(counts),))
