"""The posting-list search of sparse rows (chapter 01b, eq. 3): its distances against the row merge and the
strict sums, and every search on it — rankers' pools, lazy learners' queries — against the dense path (the
oracle, itself checked against the naive reference and Weka). `POSTING_DENSITY` forces one path or the other.
"""
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, strategies as st
import relieffml.neighbors as nb
import relieffml.driver as drv
from relieffml.pools import pool_spec
from relieffml.distances import prepare, distance_spec, strict_sum, TILE
from relieffml.sparse import prepare_sparse, densify, sparse_tile, posting_lists, posting_tile
from test_sparse import sparse_problems, to_csr, _ranker_problem, _rankers, _no_densifying


@pytest.fixture
def postings(monkeypatch):
    "Every sparse search by posting lists, whatever the density."
    monkeypatch.setattr(drv, "POSTING_DENSITY", 1.0)


def _tiles(N):
    for i0 in range(0, N, TILE): yield np.minimum(np.arange(i0, i0 + TILE), N - 1)


# ------------------------------------------------------------------ distances
@settings(max_examples=120, deadline=None)
@given(problem=sparse_problems(), metric=st.sampled_from(["manhattan", "heom"]), weighted=st.booleans(), query=st.booleans())
def test_posting_tile_equals_the_row_merge(problem, metric, weighted, query):
    "Eq. (3) gives sparse_tile's distances (1e-12), for stored rows and for the same rows as queries."
    X, nominal, explicit = problem
    p = prepare_sparse(to_csr(X, explicit), nominal)
    w = np.linspace(0.5, 2, X.shape[1]) if weighted else None
    s = distance_spec(p, metric, w)
    ps, dn = posting_lists(s), densify(p)
    for rows in _tiles(X.shape[0]):
        got, want = np.empty((TILE, X.shape[0])), np.empty((TILE, X.shape[0]))
        posting_tile(dn[rows], np.full(TILE, -1) if query else rows, s, ps, got, not s.ints)
        sparse_tile(dn[rows], s, want)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_binary_distances_are_exact_integers():
    "On 0/1 data every bracket of eq. (3) is 2: the distances are the symmetric differences' sizes, exactly."
    rng = np.random.default_rng(0)
    X = (rng.random((30, 50)) < 0.1).astype(float)
    s = distance_spec(prepare_sparse(sp.csr_matrix(X), np.zeros(50, bool)))
    assert s.ints
    got = np.empty((TILE, 30))
    posting_tile(X[:TILE], np.arange(TILE), s, posting_lists(s), got, False)
    want = np.abs(X[:TILE, None, :] - X[None, :, :]).sum(-1)          # independent: |A Δ B| by brute force
    assert np.array_equal(got, want)


def test_frequent_columns_walk_their_complement():
    "Columns held by most rows: their complements are the rows lacking them, and walking those gives the brute-force distances."
    rng = np.random.default_rng(5)
    N, D = 41, 30
    X = (rng.random((N, D)) < np.r_[np.full(8, 0.8), np.full(D - 8, 0.1)]).astype(float)
    X[:, 0] = 1; X[:, 1] = 0; X[0, 1] = 1                      # one column every row holds, one only row 0 holds
    for metric, nominal in (("manhattan", np.zeros(D, bool)), ("heom", np.arange(D) % 2 == 0)):
        pr = prepare_sparse(sp.csr_matrix(X), nominal)
        s, dn = distance_spec(pr, metric), densify(pr)                 # column 0 scales to 0
        assert s.ints
        ps = posting_lists(s)
        kept = ~np.isnan(ps.kval)
        assert np.array_equal(kept, 2 * X.sum(0) > N)
        for f in np.flatnonzero(kept): assert np.array_equal(ps.krow[ps.kptr[f]:ps.kptr[f + 1]], np.flatnonzero(X[:, f] == 0))
        for i0 in range(0, N - TILE, TILE):
            got = np.empty((TILE, N))
            posting_tile(dn[i0:i0 + TILE], np.arange(i0, i0 + TILE), s, ps, got, False)
            assert np.array_equal(got, np.abs(X[i0:i0 + TILE, None, :] - X[None, :, :]).sum(-1))

@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_cancellation_is_caught_by_the_rounding_guard(metric):
    "Rows repeating the sample to 1e-9 with 90 % stored: every distance within a quarter of the near-tie bound of the strict sum."
    rng = np.random.default_rng(3)
    D = 300
    X = rng.random((24, D)) * (rng.random((24, D)) < 0.9); X[1::2] = X[::2] * (1 + 1e-9 * rng.random((12, D)))
    X[2] = X[0]                                                        # an exact duplicate
    p = prepare_sparse(sp.csr_matrix(X), np.zeros(D, bool))
    s = distance_spec(p, metric); ps, dn = posting_lists(s), densify(p)
    tol = 4e-15 * D
    for rows in _tiles(24):
        got = np.empty((TILE, 24)); posting_tile(dn[rows], rows, s, ps, got, True)
        ex = np.array([[strict_sum(dn[r], dn[j], s.is_nominal, s.missnom, s.w, s.pw) for j in range(24)] for r in rows])
        if s.pw == 2: got, ex = np.sqrt(got), np.sqrt(ex)
        assert (np.abs(got - ex) <= tol * (1 + ex) / 4).all()


# ------------------------------------------------------------------ the search
def _problem(kind, N=160, D=50, seed=0):
    rng = np.random.default_rng(seed)
    X = (rng.random((N, D)) < 0.1).astype(float)
    nominal = np.zeros(D, bool)
    if kind == "numeric": X *= np.round(rng.normal(size=(N, D)), 2)
    if kind == "nominal":
        nominal[::3] = True; X[:, ::3] *= rng.integers(1, 4, (N, len(range(0, D, 3))))
        X[:, 1::3] *= np.round(rng.random((N, len(range(1, D, 3)))), 1)
    if kind == "missing":
        X *= np.round(rng.random((N, D)), 1); X[rng.random((N, D)) < 0.03] = np.nan
    X[3] = X[4]; X[7] = 0                                              # a duplicate and an empty row
    return X, nominal


@pytest.mark.parametrize("kind", ["binary", "numeric", "nominal", "missing"])
@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_pooled_search_and_queries_equal_the_dense_ones(kind, metric, monkeypatch):
    "Neighbours, exact distances and counts in 3 pools (Weka's tie rule), and k-NN queries: posting = row merge = dense, bitwise."
    X, nominal = _problem(kind)
    rng = np.random.default_rng(1)
    pools = (rng.random((len(X), 3)) < 0.5).astype(np.uint8); pools[:, 0] = 1
    Xq = X[::5].copy(); Xq[0, 1] = 0.37; Xq[1, 2] = -5                # off the training values and range
    got = {}
    for path, density in [("dense", None), ("merge", 0.0), ("posting", 1.0)]:
        if density is not None: monkeypatch.setattr(drv, "POSTING_DENSITY", density)
        p = prepare(X, nominal) if path == "dense" else prepare_sparse(sp.csr_matrix(X), nominal)
        got[path] = nb.knn_pools(p, np.arange(len(X)), pools, 5, metric) + nb.knn_query(p, p.apply(Xq), 5, metric)
    for path in ("merge", "posting"):
        for a, b in zip(got["dense"], got[path]): assert np.array_equal(a, b), path


def test_search_postings_chooses_by_density(monkeypatch):
    "Posting lists up to POSTING_DENSITY, the row merge above it; dense specs and row maps are left alone."
    X = np.eye(8)                                                      # 12.5 % non-zero, posting_share 1/8
    p = prepare_sparse(sp.csr_matrix(X), np.zeros(8, bool))
    monkeypatch.setattr(drv, "POSTING_DENSITY", 0.2)
    assert drv.search_postings(distance_spec(p)).cptr.shape == (9,)
    monkeypatch.setattr(drv, "POSTING_DENSITY", 0.1)
    assert drv.search_postings(distance_spec(p)).cptr.shape == (0,)
    monkeypatch.setattr(drv, "POSTING_DENSITY", 1.0)
    assert drv.search_postings(distance_spec(p, rows=[1, 2])).cptr.shape == (0,)
    assert drv.search_postings(distance_spec(prepare(X, np.zeros(8, bool)))).cptr.shape == (0,)
    with pytest.raises(ValueError, match="row map"): posting_lists(distance_spec(p, rows=[1, 2]))


# ------------------------------------------------------------------ estimators
@pytest.mark.parametrize("i", range(8))
def test_every_ranker_gives_the_dense_weights_by_posting_lists(i, postings, monkeypatch):
    "ReliefF (both metrics), RReliefF, ReliefF-ML, RF-ML (and mutual/Jaccard), HMC-ReliefF, MLRF: weights of CSR = dense (1e-12)."
    kind, est = _rankers()[i]
    X, Y, y, t = _ranker_problem()
    target = {"class": y, "numeric": t, "labels": Y}[kind]
    nominal = np.arange(X.shape[1]) == 2
    dense = est.set_params(nominal=nominal).fit(X, target).weights_.copy()
    _no_densifying(monkeypatch)
    np.testing.assert_allclose(est.fit(sp.csr_matrix(X), target).weights_, dense, rtol=1e-12, atol=1e-12)


def _column_rankers():
    "ReliefF's uses, whose rule carries a `ColumnShare`, and whether each takes the path: one accumulator a sample."
    from relieffml.relieff import ReliefF
    return {"ReliefF class": (lambda j: ReliefF(n_neighbors=4, n_jobs=j), "class", True),
            "RF-BR one sum": (lambda j: ReliefF(n_neighbors=4, n_jobs=j), "labels", True),
            "RF-BR label rows": (lambda j: ReliefF(n_neighbors=4, store_label_weights=True, n_jobs=j), "labels", False),
            "ReliefF heom": (lambda j: ReliefF(n_neighbors=4, metric="heom", n_jobs=j), "labels", True)}


@pytest.mark.parametrize("name", list(_column_rankers()))
def test_updates_by_columns_as_dense(name, postings, monkeypatch):
    """0/1 words and a column storing -2.5 (one value per column): the updates go by columns (chapter 02,
    `flush_columns`) and give the dense weights (1e-12), the same bits with one thread and two. Zeroing the rule's
    δ_f changes them (the path ran), except for RF-BR's label rows: a sample's updates then go to many
    accumulators, and `_by_columns` declines."""
    est, target, taken = _column_rankers()[name]
    rng = np.random.default_rng(4)
    X = (rng.random((90, 40)) < 0.12).astype(float); X[:, 5] *= -2.5; X[7] = 0
    Y = (rng.random((90, 6)) < 0.2).astype(np.uint8); Y[:, 0] |= X[:, 1].astype(np.uint8)
    y = rng.integers(0, 3, 90) if target == "class" else Y
    dense = est(1).fit(X, y).weights_.copy()
    spec = distance_spec(prepare_sparse(sp.csr_matrix(X), np.zeros(40, bool)))
    post = drv.search_postings(spec)
    assert spec.cone.shape[0] == 40 and post.cptr.shape[0] > 0           # `_by_columns`' conditions: one value a
    walk = (X != 0) @ np.diff(post.cptr)                                  # column, posting lists, and a sample's walk
    assert np.median(walk) * 90 < 12 * spec.indices.shape[0]             # shorter than 12 rows' entries (every fit
                                                                          # here pushes more neighbours a sample)
    _no_densifying(monkeypatch)
    one, two = (est(j).fit(sp.csr_matrix(X), y).weights_ for j in (1, 2))
    np.testing.assert_allclose(one, dense, rtol=1e-12, atol=1e-12)
    assert np.array_equal(one, two)
    share = drv.column_share
    monkeypatch.setattr(drv, "column_share", lambda *a: share(*a)._replace(cs_dz=np.zeros(40)))
    moved = np.abs(est(1).fit(sp.csr_matrix(X), y).weights_ - dense).max()
    assert moved > 1e-3 if taken else moved < 1e-12


@pytest.mark.parametrize("name", ["MLkNN", "BRkNN", "DMLkNN", "MLCWkNN"])
@pytest.mark.parametrize("weighted", [False, True])
def test_lazy_learners_give_the_dense_answer_by_posting_lists(name, weighted, postings):
    "The lazy learners' training and query searches on CSR by posting lists: the dense scores (1e-12)."
    from relieffml import lazy
    X, Y, _, _ = _ranker_problem()
    w = np.linspace(0.5, 1.5, X.shape[1]) if weighted else None
    est = getattr(lazy, name)(n_neighbors=5, feature_weights=w, nominal=np.arange(X.shape[1]) == 2)
    want = est.fit(X[:36], Y[:36]).predict_proba(X[36:])
    got = est.fit(sp.csr_matrix(X[:36]), Y[:36]).predict_proba(sp.csr_matrix(X[36:]))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ------------------------------------------------------------------ bad input
def _awkward_csr(X, how):
    "CSR of X stored awkwardly: unsorted indices, duplicate entries (summing to X), explicit zeros, or another dtype."
    r, c = np.nonzero(np.isnan(X) | (X != 0))
    v = X[r, c]
    if how == "unsorted":
        o = np.lexsort((-c, r)); return sp.csr_matrix((v[o], c[o], np.r_[0, np.cumsum(np.bincount(r, minlength=len(X)))]), shape=X.shape)
    if how == "duplicates":                                            # each value split in two halves
        return sp.csr_matrix((np.r_[v / 2, v / 2], (np.r_[r, r], np.r_[c, c])), shape=X.shape)
    if how == "explicit zeros":
        z = np.flatnonzero(X[0] == 0)
        return sp.csr_matrix((np.r_[v, np.zeros(len(z))], (np.r_[r, np.zeros(len(z), int)], np.r_[c, z])), shape=X.shape)
    return sp.csr_matrix(X.astype(how))


@pytest.mark.parametrize("how", ["unsorted", "duplicates", "explicit zeros", "float32", "int64", "int8"])
def test_awkward_csr_gives_the_dense_weights_by_posting_lists(how, postings):
    "RF-ML and ReliefF on CSR with unsorted indices, duplicates, explicit zeros, NaN, negative values, an all-zero row and column, other dtypes: the dense weights."
    from relieffml.rfml import RFML
    from relieffml.relieff import ReliefF
    X, Y, y, _ = _ranker_problem()
    X = np.round(X * 4) / 4                                            # halves and float32 are exact
    X[:, 8] = 0; X[5] = 0; X[6, 0] = -3.0                              # an all-zero column and row, a negative value
    if how.startswith("int"): X = np.nan_to_num(X).astype(how).astype(float)
    S = _awkward_csr(X, how)
    if how == "unsorted": assert not S.has_sorted_indices
    nominal = np.arange(X.shape[1]) == 2
    for est, target in [(RFML(n_neighbors=5, nominal=nominal), Y), (ReliefF(n_neighbors=5, nominal=nominal), y)]:
        want = est.fit(X, target).weights_.copy()
        np.testing.assert_allclose(est.fit(S, target).weights_, want, rtol=1e-12, atol=1e-12)


def test_infinite_values_are_refused_as_on_dense_input():
    "±inf in a CSR: the dense input's ValueError, naming X."
    from relieffml.rfml import RFML
    X, Y, _, _ = _ranker_problem()
    X[2, 3] = np.inf
    with pytest.raises(ValueError, match="X"): RFML().fit(X, Y)
    with pytest.raises(ValueError, match="X"): RFML().fit(sp.csr_matrix(X), Y)


# ------------------------------------------------------------------ pools scanned row by row
def _store(spec, ps, N):
    P = ps.pptr.shape[0] - 1
    out = drv.StoreNeighbors(np.full((N, P, ps.k), -1, np.int64), np.full((N, P, ps.k), np.inf), np.zeros((N, P), np.int64))
    drv.run_blocks(np.arange(N, dtype=np.int64), spec, ps, out)
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**31), k=st.integers(1, 6), csr=st.booleans(), split=st.booleans())
def test_row_scan_gives_weka_scans_sets(seed, k, csr, split):
    "`_scan_rows` (pools of k+1 to N/6 members, exact sums) keeps the very sets of each pool's own Weka scan (unordered: the set is all that counts)."
    rng = np.random.default_rng(seed)
    N, D, Q = int(rng.integers(60, 200)), int(rng.integers(3, 12)), int(rng.integers(2, 8))
    X = (rng.random((N, D)) < rng.uniform(0.05, 0.5)).astype(float)        # integer distances: ties everywhere
    Y = (rng.random((N, Q)) < rng.uniform(0.03, 0.2, Q)).astype(np.uint8)
    Y[:, 0] = 0; Y[rng.choice(N, k + 1 + int(rng.integers(0, 3)), replace=False), 0] = 1   # one pool surely row-scanned
    if split: Y = np.column_stack([Y, 1 - Y, np.ones(N, np.uint8)])         # RF-BR's pools: small, large, everyone
    pr = prepare_sparse(sp.csr_matrix(X), np.zeros(D, bool)) if csr else prepare(X, np.zeros(D, bool))
    spec = distance_spec(pr, "heom")
    assert spec.ints
    ps = pool_spec(Y, k, ordered=False)
    assert ps.rsmall[0] == 1
    old = ps._replace(rptr=np.zeros(0, np.int64))
    got, want = _store(spec, ps, N), _store(spec, old, N)
    assert np.array_equal(got.cnt, want.cnt) and np.array_equal(np.sort(got.idx, -1), np.sort(want.idx, -1))
