"""Pooled k-NN kernel against the naive transcription of Weka's rule, on data large enough for the
sorted-candidate shortcut (`_fast_pool`) to be taken, and on tie-heavy data where it must give way."""
import numpy as np
import pytest
from relieffml.distances import prepare
from relieffml.neighbors import knn_pools, knn_query, naive_knn_pools
from relieffml.pools import pool_members


def _data(seed, n, d=6, decimals=None, dup=True, missing=0.0, nominal=False):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    if decimals is not None: X = np.round(X, decimals)
    nom = np.zeros(d, bool)
    if nominal:
        nom[1] = True; X[:, 1] = rng.integers(0, 3, n)
    if dup:
        X[11] = X[5]; X[12] = X[5]; X[40] = X[39]             # exact duplicates: tied distances
    if missing: X[rng.random(X.shape) < missing] = np.nan
    return prepare(X, nom)


def _pools(seed, n):
    "Pools of very different sizes: everyone, ~half, ~10 %, ~3 %, four rows, and one empty pool."
    rng = np.random.default_rng(seed + 100)
    return np.stack([np.ones(n), rng.random(n) < 0.5, rng.random(n) < 0.1, rng.random(n) < 0.03,
                     np.isin(np.arange(n), [2, 3, 500, 600]), np.zeros(n)], axis=1).astype(np.uint8)


def _check(pr, samples, pools, k, metric, w=None):
    got = knn_pools(pr, samples, pools, k, metric, weights=w)
    ref = naive_knn_pools(pr, samples, pools, k, metric, w)
    np.testing.assert_array_equal(got[2], ref[2])
    np.testing.assert_array_equal(got[0], ref[0])
    fin = np.isfinite(ref[1])
    np.testing.assert_allclose(got[1][fin], ref[1][fin], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed,decimals,metric,k", [
    (0, None, 'manhattan', 10), (1, None, 'heom', 10), (2, None, 'manhattan', 3),
    (3, 1, 'manhattan', 10), (4, 1, 'heom', 7), (5, 2, 'manhattan', 10)])
def test_kernel_matches_naive_large(seed, decimals, metric, k):
    "N = 800 > 4M: the threshold list is used; rounded values make boundary ties that force the scan."
    n = 800
    pr = _data(seed, n, decimals=decimals)
    samples = np.array([5, 11, 12, 39, 40, 0, 799, 2, 3] + list(np.random.default_rng(seed).choice(n, 12, replace=False)))
    _check(pr, samples, _pools(seed, n), k, metric)


def test_kernel_matches_naive_nominal_missing_weighted():
    n = 700
    pr = _data(7, n, nominal=True)
    _check(pr, np.arange(0, n, 37), _pools(7, n), 10, 'heom', w=np.random.default_rng(7).random(6))
    pr = _data(8, n, nominal=True, missing=0.05)                 # strict sums, exact arithmetic
    _check(pr, np.arange(0, n, 41), _pools(8, n), 10, 'manhattan')
    _check(pr, np.arange(3, n, 43), _pools(8, n), 10, 'heom')
    pr = _data(9, n, decimals=1, missing=0.05)                   # ... and tied
    _check(pr, np.arange(5, n, 47), _pools(9, n), 10, 'heom')


def test_all_tied_distances():
    "Every distance equal: Weka keeps the first k members of each pool, in its sort's order."
    n = 600
    pr = prepare(np.ones((n, 3)), np.zeros(3, bool))
    _check(pr, np.array([0, 1, 300, 599]), _pools(9, n), 10, 'manhattan')


def test_query_matches_naive_large():
    n = 900
    pr = _data(10, n)
    Xq = np.random.default_rng(10).random((7, 6))
    Xq[3] = pr.Xn[5]                                          # a query equal to training rows 5, 11, 12
    got = knn_query(pr, Xq, 10, 'heom')
    both = prepare(np.vstack([pr.Xn, Xq]), np.zeros(6, bool))  # already in [0, 1]: rescaling changes nothing here
    pool = np.r_[np.ones(n), np.zeros(7)].astype(np.uint8)[:, None]
    ref = naive_knn_pools(both, n + np.arange(7), pool, 10, 'heom')
    np.testing.assert_array_equal(got[0], ref[0])


def test_pool_members_layout():
    pools = np.array([[1, 0], [0, 0], [1, 1], [0, 1]], np.uint8)
    pptr, pids = pool_members(pools)
    assert list(pptr) == [0, 2, 4] and list(pids) == [0, 2, 2, 3]


def test_distance_spec_owns_read_only_arrays():
    # a fitted learner loaded from a memory-mapped pickle holds read-only arrays; numba would compile the whole
    # search stack a second time for them, so the spec takes writable copies (and the same neighbours follow)
    from relieffml.distances import distance_spec
    X = np.random.default_rng(0).random((30, 4)); X[:, 1] = np.round(X[:, 1] * 2)
    prep = prepare(X, [False, True, False, False])
    ro = prepare(X, [False, True, False, False])
    for a in (ro.Xn, ro.is_nominal, ro.missing_nominal): a.setflags(write=False)
    spec = distance_spec(ro)
    assert spec.Xn.flags.writeable and spec.is_nominal.flags.writeable and spec.missnom.flags.writeable
    np.testing.assert_array_equal(spec.Xn, prep.Xn)
    a, b = knn_query(prep, X[:5], 3)[0], knn_query(ro, X[:5], 3)[0]
    np.testing.assert_array_equal(a, b)
