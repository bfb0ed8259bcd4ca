"""`ties="mulan"`'s neighbour lists (relieffml.lazy.weka_neighbors, issue 44 item 1): the screened scan equals
Weka's `LinearNNSearch` by brute force (tests/naive.py, `naive_weka_neighbors`: every sum strict, the heap
in plain Python) bit for bit — the rows, their order (the heap's sift order and the tie list's arrival
order) and the distances — on data built to tie: binary rows, duplicated rows, values on a coarse grid,
nominal features with missing values, feature weights, both metrics, dense and sparse rows, queries and
leave-one-out, lists longer than the kernel's first buffer, any thread count. Mulan's own outputs are
tests/test_mulan.py's."""
import zlib
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck, strategies as st

from relieffml.lazy import weka_neighbors, BRkNN, MLkNN, mulan_brknn_scores
from relieffml.neighbors import prepare_data
from relieffml.sparse import scale_rows
from naive import naive_weka_neighbors


def assert_lists(prep, Xs, k, metric="heom", w=None, n_jobs=None):
    "weka_neighbors == the brute-force reference, row for row, bit for bit; whole=False is the first k."
    idx, dist = weka_neighbors(prep, Xs, k, metric, w, n_jobs)
    want = naive_weka_neighbors(prep, None if Xs is None else (Xs.toarray() if hasattr(Xs, "toarray") else Xs), k, metric, w)
    assert idx.shape[0] == len(want) and idx.shape[1] == max(len(r) for r, _ in want)
    for i, (rows, d) in enumerate(want):
        got = idx[i][idx[i] >= 0]
        assert got.tolist() == rows, (i, got, rows)
        assert np.array_equal(dist[i][: len(rows)], d), (i, dist[i][: len(rows)], d)
        assert (idx[i][len(rows):] == -1).all() and np.isinf(dist[i][len(rows):]).all()
    first = weka_neighbors(prep, Xs, k, metric, w, n_jobs, whole=False)[0]
    assert np.array_equal(first, idx[:, : first.shape[1]]) and first.shape[1] == min(k, idx.shape[1])
    return idx


def tie_data(rng, N, D, kind):
    "Rows that tie: binary, a coarse grid with duplicates, or mixed with a nominal column and missing values."
    if kind == "binary": X = (rng.random((N, D)) < 0.3).astype(float)
    else: X = np.round(rng.random((N, D)) * 4) / 4
    X[N // 3: N // 3 + 4] = X[1]                          # duplicates of row 1
    nom = np.zeros(D, bool)
    if kind == "mixed":
        nom[0] = True; X[:, 0] = rng.integers(0, 3, N)
        X[rng.random((N, D)) < 0.05] = np.nan
    return X, nom


@pytest.mark.parametrize("kind", ["binary", "grid", "mixed"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("metric,weighted", [("heom", False), ("manhattan", False), ("heom", True)])
def test_equals_brute_force(kind, sparse, metric, weighted):
    rng = np.random.default_rng(zlib.crc32(f"{kind}{sparse}{metric}{weighted}".encode()))
    X, nom = tie_data(rng, 70, 9, kind)
    Xq, _ = tie_data(rng, 12, 9, kind)
    if sparse: X, Xq = sp.csr_matrix(np.nan_to_num(X)), sp.csr_matrix(np.nan_to_num(Xq))
    prep = prepare_data(X, nom)
    w = rng.random(9) if weighted else None
    for k in (1, 3, 10):
        assert_lists(prep, None, k, metric, w)
        assert_lists(prep, scale_rows(prep, Xq) if sparse else prep.apply(Xq), k, metric, w)


def test_lists_longer_than_the_first_buffer():
    "Every row the same: each list holds all N − 1 others (2k + 8 slots first, then again with room for N − 1)."
    X = np.zeros((50, 4)); X[:, 1] = 1.0; X[-1] = [1, 0, 1, 1]
    for Xin in (X, sp.csr_matrix(X)):
        prep = prepare_data(Xin, np.zeros(4, bool))
        idx = assert_lists(prep, None, 3)
        assert ((idx[:-1] >= 0).sum(1) == 48).all()        # a copy: the 48 other copies (the odd row is farther)
        assert (idx[-1] >= 0).sum() == 49                  # the odd row: all 49 copies, at one distance
        assert_lists(prep, prep.apply(X[:2]) if not sp.issparse(Xin) else scale_rows(prep, X[:2]), 3)


def test_k_at_least_the_rows():
    "k ≥ N: the heap never fills, the list is every row, nearest first."
    X = np.random.default_rng(1).random((6, 3))
    prep = prepare_data(X, np.zeros(3, bool))
    idx = assert_lists(prep, None, 8)
    assert (np.sort(idx, 1) == np.array([[j for j in range(6) if j != i] for i in range(6)])).all()


def test_threads_give_the_same_bits():
    rng = np.random.default_rng(3)
    X, nom = tie_data(rng, 300, 12, "grid")
    prep = prepare_data(X, nom)
    a = weka_neighbors(prep, None, 5, n_jobs=1)
    b = weka_neighbors(prep, None, 5, n_jobs=2)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 40), st.integers(1, 6), st.integers(1, 12), st.sampled_from(["binary", "grid", "mixed"]),
       st.booleans(), st.integers(0, 2**32 - 1))
def test_fuzz(N, D, k, kind, sparse, seed):
    rng = np.random.default_rng(seed)
    X, nom = tie_data(rng, N, D, kind)
    if sparse: X = sp.csr_matrix(np.nan_to_num(X))
    assert_lists(prepare_data(X, nom), None, k)


def test_learners_read_the_lists():
    "BRkNN under ties='mulan' scores the whole lists (Mulan's eq. 4′), ML-kNN counts their first k."
    rng = np.random.default_rng(7)
    X, _ = tie_data(rng, 80, 10, "binary")
    Y = (rng.random((80, 4)) < 0.4).astype(np.uint8)
    Xq, _ = tie_data(rng, 15, 10, "binary")
    br = BRkNN(n_neighbors=5, ties="mulan").fit(X, Y)
    lists = naive_weka_neighbors(br.prep_, br.prep_.apply(Xq), 5)
    L = max(len(r) for r, _ in lists)
    idx = np.array([r + [-1] * (L - len(r)) for r, _ in lists])
    assert np.array_equal(br.predict_proba(Xq), mulan_brknn_scores(Y, idx)[0])
    ml = MLkNN(n_neighbors=5, ties="mulan").fit(X, Y)
    first = idx[:, :5]
    assert ml.predict_proba(Xq).shape == (15, 4) and (first >= 0).all()
    assert np.array_equal(ml._query_neighbors(ml._query(Xq)), first)
