"""Lazy multi-label learners (relieffml.lazy): scikit-multilearn parity (ML-kNN exact; BRkNN with its
documented differences), the naive transcriptions on random data with nominal features, missing values
and feature weights, weighted distances against scikit-learn, hand-computed DML-kNN / MLC-WkNN cases, the
simplex QP against scipy, scikit-learn integration and bad input."""
import warnings
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from hypothesis import given, settings, HealthCheck, strategies as st
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.model_selection import cross_val_score, KFold
from sklearn.neighbors import NearestNeighbors

from relieffml.data import load_dataset, MultiLabelDataset
from relieffml.distances import prepare
from relieffml.lazy import MLkNN, BRkNN, DMLkNN, MLCWkNN, _simplex_qp, label_counts
from naive import naive_mlknn, naive_brknn, naive_dmlknn, naive_mlcwknn, naive_simplex_qp

LEARNERS = [MLkNN, lambda **kw: BRkNN(variant='a', **kw), lambda **kw: BRkNN(variant='b', **kw), DMLkNN, MLCWkNN]


# ---------------------------------------------------------------- scikit-multilearn (patched for new scikit-learn)
@pytest.fixture
def skm(monkeypatch):
    """scikit-multilearn 0.2.0 calls `NearestNeighbors(k)` positionally, which scikit-learn >= 1.0 refuses:
    patch that call (only) to pass `n_neighbors` by keyword. No other incompatibility is hit on dense input."""
    adapt = pytest.importorskip("skmultilearn.adapt")
    import skmultilearn.adapt.mlknn as mlknn_mod, skmultilearn.adapt.brknn as brknn_mod
    knn = lambda k: NearestNeighbors(n_neighbors=k)
    monkeypatch.setattr(mlknn_mod, "NearestNeighbors", knn)
    monkeypatch.setattr(brknn_mod, "NearestNeighbors", knn)
    return adapt


def split(ds, dedupe=False, seed=0):
    "80/20 split of a data set (optionally without exact duplicate rows)."
    X, Y = ds.X, ds.Y
    if dedupe:
        keep = np.sort(np.unique(X, axis=0, return_index=True)[1])
        X, Y = X[keep], Y[keep]
    perm = np.random.default_rng(seed).permutation(len(X))
    tr, te = np.sort(perm[:int(0.8 * len(X))]), np.sort(perm[int(0.8 * len(X)):])
    return X[tr], Y[tr], X[te], Y[te]


@pytest.mark.data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene"])
def test_mlknn_equals_skmultilearn(name, data_home, skm):
    # scene has 9 pairs of identical rows: skmultilearn's "drop the first neighbour" may drop the twin
    Xtr, Ytr, Xte, Yte = split(load_dataset(name, data_home), dedupe=(name == "scene"))
    k, s = 10, 1.0
    ours = MLkNN(n_neighbors=k, s=s).fit(Xtr, Ytr)
    # HEOM on numeric data without missing values = Euclidean distance of the rows scaled by `prepare`
    ref = skm.MLkNN(k=k, s=s, ignore_first_neighbours=1).fit(ours.prep_.Xn, Ytr)
    assert np.array_equal(ours.prior_, ref._prior_prob_true)
    assert np.array_equal(ours.cond_true_, ref._cond_prob_true.toarray())
    assert np.array_equal(ours.cond_false_, ref._cond_prob_false.toarray())
    # skmultilearn drops the first neighbour at prediction time too, where the query is no training row
    ref.ignore_first_neighbours = 0
    Xs = ours.prep_.apply(Xte)
    assert np.array_equal(ours.predict(Xte), ref.predict(Xs).toarray())
    # its predict_proba is the unnormalised P(H1)P(E|H1); normalise with P(H0)P(E|H0) from its own tables
    p1 = ref.predict_proba(Xs).toarray()
    C = Ytr[ref.knn_.kneighbors(Xs, k, return_distance=False)].sum(1)
    q = np.arange(Ytr.shape[1])
    p0 = ref._prior_prob_false * ref._cond_prob_false.toarray()[q, C]
    np.testing.assert_allclose(ours.predict_proba(Xte), p1 / (p1 + p0), rtol=0, atol=1e-15)


@pytest.mark.data
def test_mlknn_duplicates_are_where_skmultilearn_differs(data_home, skm):
    "With duplicate rows skmultilearn may keep an instance as its own neighbour; ours never does."
    ds = load_dataset("scene", data_home)
    X, Y = ds.X, ds.Y
    ours = MLkNN().fit(X, Y)
    nb = ours._train_neighbors()
    assert not (nb == np.arange(len(X))[:, None]).any()
    ref = skm.MLkNN(k=10, ignore_first_neighbours=1)
    ref.fit(ours.prep_.Xn, Y)
    kept = ref.knn_.kneighbors(ours.prep_.Xn, 11, return_distance=False)[:, 1:]
    self_kept = np.flatnonzero((kept == np.arange(len(X))[:, None]).any(1))
    _, inv, cnt = np.unique(X, axis=0, return_inverse=True, return_counts=True)
    dup_rows = np.flatnonzero(cnt[inv.ravel()] > 1)
    assert len(self_kept) > 0 and set(self_kept) <= set(dup_rows)
    # everywhere else the neighbour sets agree
    others = np.setdiff1d(np.arange(len(X)), dup_rows)
    same = [set(a) == set(b) for a, b in zip(nb[others], kept[others])]
    assert np.mean(same) > 0.99


@pytest.mark.data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene"])
def test_brknn_a_vs_skmultilearn(name, data_home, skm):
    """skmultilearn's BRkNNa predicts rint(conf): conf = 1/2 rounds to 0 and no fallback when nothing
    reaches 1/2. We follow the paper (>= 1/2, else the most confident label). Equal everywhere else."""
    Xtr, Ytr, Xte, Yte = split(load_dataset(name, data_home), dedupe=(name == "scene"))
    ours = BRkNN(n_neighbors=10, variant="a").fit(Xtr, Ytr)
    ref = skm.BRkNNaClassifier(k=10).fit(ours.prep_.Xn, Ytr)
    P_ref = ref.predict(ours.prep_.apply(Xte)).toarray()
    conf = ours.predict_proba(Xte)
    np.testing.assert_allclose(conf, np.asarray(ref.confidences_), rtol=0, atol=1e-15)
    P = ours.predict(Xte)
    clean = ~(conf == 0.5).any(1) & (conf > 0.5).any(1)
    assert clean.sum() > 0.3 * len(conf)
    assert np.array_equal(P[clean], P_ref[clean])
    # where they differ, it is exactly the documented rule
    assert np.array_equal(P_ref, (conf > 0.5).astype(np.uint8))
    expect = (conf >= 0.5)
    none = ~expect.any(1)
    expect[np.flatnonzero(none), conf[none].argmax(1)] = True
    assert np.array_equal(P, expect.astype(np.uint8))
    assert (P != P_ref).any()


@pytest.mark.data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene"])
def test_brknn_b_vs_skmultilearn(name, data_home, skm):
    """skmultilearn's BRkNNb selects with np.argpartition at the batch's smallest m, so a row's selection
    need not be its m most confident labels (and m = 0 selects all). Where its selection is a valid top-m
    set without a tie at the boundary, the predictions are equal; ours is always a top-m set."""
    Xtr, Ytr, Xte, Yte = split(load_dataset(name, data_home), dedupe=(name == "scene"))
    ours = BRkNN(n_neighbors=10, variant="b").fit(Xtr, Ytr)
    ref = skm.BRkNNbClassifier(k=10).fit(ours.prep_.Xn, Ytr)
    P_ref = ref.predict(ours.prep_.apply(Xte)).toarray()
    P, conf = ours.predict(Xte), ours.predict_proba(Xte)
    m = np.rint(np.rint(conf * 10).sum(1) / 10).astype(int)          # from integer counts, as eq. (5)
    assert np.array_equal(P.sum(1), m)
    srt = -np.sort(-conf, axis=1)
    top = lambda sel, i: np.isclose(conf[i][sel == 1].sum(), srt[i, :m[i]].sum())
    assert all(top(P[i], i) for i in range(len(P)))                       # ours: always the m most confident
    unambiguous = np.array([m[i] == 0 or m[i] == conf.shape[1] or srt[i, m[i] - 1] > srt[i, m[i]] for i in range(len(P))])
    valid_ref = np.array([m[i] > 0 and P_ref[i].sum() == m[i] and top(P_ref[i], i) for i in range(len(P))])
    rows = unambiguous & valid_ref
    assert rows.sum() > 0.5 * len(P)
    assert np.array_equal(P[rows], P_ref[rows])


def test_brknn_b_skmultilearn_many_labels(skm):
    """With more than 256 labels NumPy's argpartition leaves the labels after the partition point unsorted,
    so skmultilearn's BRkNNb often misses a row's most confident labels; ours always takes the top m."""
    rng = np.random.default_rng(0)
    X, Q = rng.random((200, 3)), 300
    Y = (rng.random((200, Q)) < rng.random(Q) * 0.2 * (1 + X[:, :1])).astype(np.uint8)
    Xq = rng.random((30, 3))
    ours = BRkNN(n_neighbors=10, variant="b").fit(X, Y)
    P, conf = ours.predict(Xq), ours.predict_proba(Xq)
    P_ref = skm.BRkNNbClassifier(k=10).fit(ours.prep_.Xn, Y).predict(ours.prep_.apply(Xq)).toarray()
    m = np.rint(np.rint(conf * 10).sum(1) / 10).astype(int)
    best = np.array([np.sort(c)[::-1][:mi].sum() for c, mi in zip(conf, m)])
    np.testing.assert_allclose((conf * P).sum(1), best)
    assert ((conf * P_ref).sum(1) < best - 1e-9).mean() > 0.5


def test_brknn_b_skmultilearn_m_zero(skm):
    "m = 0 (neighbours mostly without labels): skmultilearn's slice [-0:] predicts every label, ours none."
    X = np.array([[0.0], [0.1], [0.2], [1.0]])
    Y = np.array([[0, 0, 0], [0, 0, 0], [1, 1, 0], [0, 1, 1]], np.uint8)
    ours = BRkNN(n_neighbors=3, variant="b").fit(X, Y)
    ref = skm.BRkNNbClassifier(k=3).fit(ours.prep_.Xn, Y)
    Xq = np.array([[0.05]])              # neighbours 0, 1, 2: label-set sizes 0, 0, 2 -> m = round(2/3) = 1
    assert ours.predict(Xq).tolist() == [[1, 0, 0]]
    Xq = np.array([[0.05], [0.06]])
    Y2 = np.array([[0, 0, 0], [0, 0, 0], [1, 0, 0], [0, 1, 1]], np.uint8)   # sizes 0, 0, 1 -> m = 0
    ours = BRkNN(n_neighbors=3, variant="b").fit(X, Y2)
    ref = skm.BRkNNbClassifier(k=3).fit(ours.prep_.Xn, Y2)
    assert ours.predict(Xq).tolist() == [[0, 0, 0]] * 2
    assert ref.predict(ours.prep_.apply(Xq)).toarray().tolist() == [[1, 1, 1]] * 2


def test_brknn_a_differences_by_hand(skm):
    "conf exactly 1/2 and all conf below 1/2: the two cases where BRkNN-a departs from skmultilearn."
    X = np.array([[0.0], [0.1], [0.9], [1.0]])
    Y = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]], np.uint8)
    ours = BRkNN(n_neighbors=2, variant="a").fit(X, Y)
    ref = skm.BRkNNaClassifier(k=2).fit(ours.prep_.Xn, Y)
    Xq = np.array([[0.04]])              # neighbours 0, 1: conf (1/2, 1/2, 0)
    assert ours.predict(Xq).tolist() == [[1, 1, 0]]
    assert ref.predict(ours.prep_.apply(Xq)).toarray().tolist() == [[0, 0, 0]]
    ours3 = BRkNN(n_neighbors=3, variant="a").fit(X, Y)
    Xq = np.array([[0.5]])               # neighbours 0.1 (0.4), 0.9 (0.4), 0.0 or 1.0: conf all 1/3 -> first label
    assert ours3.predict_proba(Xq).max() < 0.5 and ours3.predict(Xq).sum() == 1


# ---------------------------------------------------------------- naive transcriptions (random data)
def random_problem(seed, n=30, nq=8, D=4, Q=3, nominal=True, missing=0.1, dup=True):
    rng = np.random.default_rng(seed)
    def rows(m):
        X = rng.random((m, D))
        if nominal: X[:, 1] = rng.integers(0, 3, m)
        X[rng.random(X.shape) < missing] = np.nan
        return X
    X, Xq = rows(n), rows(nq)
    if dup: X[4] = X[1]
    nom = np.zeros(D, bool); nom[1] = nominal
    Y = (rng.random((n, Q)) < 0.4).astype(np.uint8)
    return X, Y, Xq, nom, rng.random(D) + 0.05


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(1, 6), weighted=st.booleans(), metric=st.sampled_from(["heom", "manhattan"]))
def test_learners_equal_naive(seed, k, weighted, metric):
    X, Y, Xq, nom, w = random_problem(seed)
    fw = w if (weighted and metric == "heom") else None   # naive_distance weights HEOM only
    kw = dict(feature_weights=fw, metric=metric, nominal=nom)
    p, r = naive_mlknn(X, Y, Xq, k, 1.0, nom, fw, metric)
    m = MLkNN(n_neighbors=k, **kw).fit(X, Y)
    assert np.array_equal(m.predict(Xq), p); np.testing.assert_allclose(m.predict_proba(Xq), r, atol=1e-12)
    for delta in (0, 1, k):
        p, r = naive_dmlknn(X, Y, Xq, k, 0.5, delta, nom, fw, metric)
        m = DMLkNN(n_neighbors=k, s=0.5, delta=delta, **kw).fit(X, Y)
        assert np.array_equal(m.predict(Xq), p); np.testing.assert_allclose(m.predict_proba(Xq), r, atol=1e-12)
    for v in "ab":
        p, r = naive_brknn(X, Y, Xq, k, v, nom, fw, metric)
        m = BRkNN(n_neighbors=k, variant=v, **kw).fit(X, Y)
        assert np.array_equal(m.predict(Xq), p); np.testing.assert_allclose(m.predict_proba(Xq), r, atol=1e-15)
    p, r = naive_mlcwknn(X, Y, Xq, min(k, 5), 1e-3, nom, fw, metric)
    m = MLCWkNN(n_neighbors=min(k, 5), **kw).fit(X, Y)
    np.testing.assert_allclose(m.predict_proba(Xq), r, atol=1e-9)
    assert np.array_equal(m.predict(Xq), p)


def test_predict_on_training_rows_uses_the_row_itself():
    "Prediction never excludes a query that happens to be a training row (only fit's statistics do)."
    X, Y, _, nom, _ = random_problem(1, nominal=False, missing=0.0, dup=False)
    br = BRkNN(n_neighbors=1).fit(X, Y)
    assert np.array_equal(br.predict_proba(X), Y)


# ---------------------------------------------------------------- weighted distances vs scikit-learn
@pytest.mark.parametrize("metric,sk_metric,root", [("heom", "euclidean", 0.5), ("manhattan", "manhattan", 1.0)])
def test_weighted_neighbours_equal_sklearn(metric, sk_metric, root):
    "Weighted HEOM = Euclidean of sqrt(w)-scaled rows; weighted Manhattan = L1 of w-scaled rows (numeric data)."
    rng = np.random.default_rng(5)
    X, Xq = rng.random((80, 6)) * 10, rng.random((20, 6)) * 10
    Y = (rng.random((80, 4)) < 0.5).astype(np.uint8)
    w = rng.random(6)
    k = 7
    br = BRkNN(n_neighbors=k, feature_weights=w, metric=metric).fit(X, Y)
    s = w ** root
    nn = NearestNeighbors(n_neighbors=k, metric=sk_metric).fit(br.prep_.Xn * s)
    nb = nn.kneighbors(br.prep_.apply(Xq) * s, return_distance=False)
    np.testing.assert_allclose(br.predict_proba(Xq), Y[nb].sum(1) / k, atol=1e-15)
    # and the leave-one-out neighbours of the training rows
    ml = MLkNN(n_neighbors=k, feature_weights=w, metric=metric).fit(X, Y)
    loo = nn.kneighbors(br.prep_.Xn * s, k + 1, return_distance=False)[:, 1:]
    assert all(set(a) == set(b) for a, b in zip(ml._train_neighbors(), loo))


def test_feature_weights_change_neighbours():
    "A zero weight removes a feature from the search: equal to fitting without that column."
    X, Y, Xq, nom, _ = random_problem(2, nominal=False, missing=0.0)
    w = np.array([1.0, 0.0, 1.0, 1.0])
    for Est in (MLkNN, DMLkNN, MLCWkNN):
        a = Est(n_neighbors=4, feature_weights=w).fit(X, Y).predict_proba(Xq)
        b = Est(n_neighbors=4).fit(X[:, w > 0], Y).predict_proba(Xq[:, w > 0])
        np.testing.assert_allclose(a, b, atol=1e-12)


# ---------------------------------------------------------------- DML-kNN and MLC-WkNN by hand
LINE_X = np.array([[0.0], [0.1], [0.25], [0.6], [0.8], [1.0]])
LINE_Y = np.array([[1, 0], [1, 0], [1, 1], [0, 1], [0, 1], [0, 1]], np.uint8)


def test_dmlknn_hand():
    # leave-one-out counting vectors (k=2): (2,1) (2,1) (2,0) (1,2) (0,2) (0,2); query 0.4 -> (1,2)
    m = DMLkNN(n_neighbors=2, delta=0).fit(LINE_X, LINE_Y)
    assert sorted(map(tuple, m.patterns_.tolist())) == [(0, 2), (1, 2), (2, 0), (2, 1)]
    # delta = 0: only instance 3 matches; V = (0, 1), V' = (1, 0); sQ = 2, n = (3, 4), priors (1/2, 5/8)
    p_in = np.array([0.5 * 1 / 5, 5 / 8 * 2 / 6]); p_out = np.array([0.5 * 2 / 5, 3 / 8 * 1 / 4])
    np.testing.assert_allclose(m.predict_proba([[0.4]])[0], p_in / (p_in + p_out))
    assert m.predict([[0.4]]).tolist() == [[0, 1]]
    # delta = 2 >= k: every instance is in M; V = c[l][C_t(l)] of ML-kNN: A: c[A][1] = 0, c'[A][1] = 1;
    # B: c[B][2] = 3, c'[B][2] = 0
    m2 = DMLkNN(n_neighbors=2, delta=2).fit(LINE_X, LINE_Y)
    p_in = np.array([0.5 * 1 / 5, 5 / 8 * 4 / 6]); p_out = np.array([0.5 * 2 / 5, 3 / 8 * 1 / 4])
    np.testing.assert_allclose(m2.predict_proba([[0.4]])[0], p_in / (p_in + p_out))


def test_dmlknn_large_delta_is_mlknn_counts():
    "delta >= k: V_l = c[l][C_t(l)], so DML-kNN's likelihood numerators are ML-kNN's counts (s·Q denominators)."
    X, Y, Xq, nom, _ = random_problem(7, n=60, Q=4, nominal=False, missing=0.0)
    k, s = 5, 1.0
    dml = DMLkNN(n_neighbors=k, delta=k, s=s).fit(X, Y)
    ml = MLkNN(n_neighbors=k, s=s).fit(X, Y)
    N, Q = Y.shape
    n1 = Y.sum(0)
    c1 = np.rint(ml.cond_true_ * (s * (k + 1) + n1[:, None]) - s)
    c0 = np.rint(ml.cond_false_ * (s * (k + 1) + (N - n1)[:, None]) - s)
    C = label_counts(Y, ml._query_neighbors(ml._query(Xq)))
    q = np.arange(Q)
    p_in = ml.prior_ * (s + c1[q, C]) / (s * Q + n1)
    p_out = (1 - ml.prior_) * (s + c0[q, C]) / (s * Q + N - n1)
    np.testing.assert_allclose(dml.predict_proba(Xq), p_in / (p_in + p_out), atol=1e-13)


def test_mlcwknn_hand():
    # 2-D: query at the centroid of three neighbours -> equal weights; the posterior is the label mean
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [5.0, 5.0]])
    Y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]], np.uint8)
    m = MLCWkNN(n_neighbors=3, reg=1e-12).fit(X, Y)
    idx, alpha = m.reconstruction_weights([[1 / 3, 1 / 3]])
    assert sorted(idx[0]) == [0, 1, 2]
    np.testing.assert_allclose(alpha, [[1 / 3] * 3], atol=1e-9)
    np.testing.assert_allclose(m.predict_proba([[1 / 3, 1 / 3]]), [[2 / 3, 2 / 3]], atol=1e-9)
    # a query beyond an edge is reconstructed by its projection on that edge: (0.5, -0.2) -> half/half of 0 and 1
    idx, alpha = m.reconstruction_weights([[0.5, -0.2]])
    wt = dict(zip(idx[0], alpha[0]))
    np.testing.assert_allclose([wt[0], wt[1], wt[2]], [0.5, 0.5, 0.0], atol=1e-9)
    assert m.predict([[0.5, -0.2]]).tolist() == [[1, 1]]          # p = (1, 1/2): a tie predicts the label
    # coinciding neighbours share their weight equally (the ridge makes the solution unique)
    Xd = np.array([[0.0], [0.0], [1.0]]); Yd = np.array([[1], [0], [0]], np.uint8)
    idx, alpha = MLCWkNN(n_neighbors=2).fit(Xd, Yd).reconstruction_weights([[0.0]])
    np.testing.assert_allclose(alpha, [[0.5, 0.5]], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), k=st.integers(1, 8), D=st.integers(1, 6))
def test_simplex_qp_equals_scipy_and_brute_force(seed, k, D):
    rng = np.random.default_rng(seed)
    P, x = rng.random((k, D)), rng.random(D) * 1.6 - 0.3
    G = (x - P) @ (x - P).T
    A = G + (1e-3 * np.trace(G) + 1e-12) * np.eye(k)
    a = np.empty(k); _simplex_qp(A, a, np.empty((k, k)))
    assert a.min() >= 0 and abs(a.sum() - 1) < 1e-12
    if k <= 6: np.testing.assert_allclose(a, naive_simplex_qp(A), atol=1e-9)
    res = minimize(lambda z: z @ A @ z, np.full(k, 1 / k), jac=lambda z: 2 * A @ z, method="SLSQP",
                   bounds=[(0, 1)] * k, constraints=[{"type": "eq", "fun": lambda z: z.sum() - 1}],
                   options=dict(ftol=1e-15, maxiter=500))
    assert a @ A @ a <= res.fun + 1e-12


def test_mlcwknn_missing_values_weights_on_simplex():
    "With missing values the HEOM Gram matrix may be indefinite: it is shifted, the weights stay on the simplex."
    X, Y, Xq, nom, _ = random_problem(11, n=50, nq=20, missing=0.3)
    idx, alpha = MLCWkNN(n_neighbors=6, nominal=nom).fit(X, Y).reconstruction_weights(Xq)
    assert (alpha >= 0).all() and np.allclose(alpha.sum(1), 1)


# ---------------------------------------------------------------- inputs and scikit-learn integration
def test_inputs_pandas_sparse_dataset_single_row():
    X, Y, Xq, nom, _ = random_problem(3, missing=0.0)
    df = pd.DataFrame(X, columns=list("abcd")); df["b"] = pd.Categorical.from_codes(X[:, 1].astype(int), ["x", "y", "z"])
    dfq = pd.DataFrame(Xq, columns=list("abcd")); dfq["b"] = pd.Categorical.from_codes(Xq[:, 1].astype(int), ["x", "y", "z"])
    ds = MultiLabelDataset(X, Y, list("abcd"), ["p", "q", "r"], nom, [None, ["x", "y", "z"], None, None])
    for Est in LEARNERS:
        ref = Est(n_neighbors=4, nominal=nom).fit(X, Y)
        P = ref.predict_proba(Xq)
        m = Est(n_neighbors=4).fit(df, Y)
        np.testing.assert_allclose(m.predict_proba(dfq), P)
        assert list(m.feature_names_in_) == list("abcd")
        with pytest.raises(ValueError, match="fitted with"): m.predict(dfq.rename(columns={"a": "z"}))
        np.testing.assert_allclose(Est(n_neighbors=4).fit(ds).predict_proba(Xq), P)
        np.testing.assert_allclose(Est(n_neighbors=4, nominal=nom).fit(sp.csr_matrix(X), Y).predict_proba(sp.csr_matrix(Xq)), P)
        np.testing.assert_allclose(ref.predict_proba(Xq[:1]), P[:1])
        out = ref.predict(Xq)
        assert out.dtype == np.uint8 and out.shape == (len(Xq), 3) and set(np.unique(out)) <= {0, 1}



@pytest.mark.parametrize("ties", ["relieff", "mulan"])
def test_predict_on_a_sparse_dataset(ties):
    "Issue 30: predict / predict_proba on a MultiLabelDataset whose X is sparse (enron, medical, bibtex as loaded)."
    X, Y, Xq, nom, _ = random_problem(4, missing=0.0)
    X[X[:, 0] < 0.5, 0] = 0.0; Xq[Xq[:, 0] < 0.5, 0] = 0.0
    train = MultiLabelDataset(sp.csr_matrix(X), Y, nominal=nom)
    query = MultiLabelDataset(sp.csr_matrix(Xq), np.zeros((len(Xq), Y.shape[1]), np.uint8), nominal=nom)
    for Est in LEARNERS:
        ref = Est(n_neighbors=4, nominal=nom, ties=ties).fit(X, Y)
        m = Est(n_neighbors=4, ties=ties).fit(train)
        np.testing.assert_allclose(m.predict_proba(query), ref.predict_proba(Xq), rtol=0, atol=1e-12)
        if ties == "mulan" and hasattr(m, "java_random_"): m.fit(train); ref.fit(X, Y)   # a fresh Random(1) each
        np.testing.assert_array_equal(m.predict(query), ref.predict(Xq))


def sparse_problem(seed, n=150, d=40, q=4):
    "A 12 % dense X with negative values, a nominal column (code 0 implicit), stored NaNs and an explicit stored 0."
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((n, d)) < 0.12, rng.normal(size=(n, d)), 0.0)
    X[:, 2] = np.where(rng.random(n) < 0.3, rng.integers(1, 3, n), 0)            # nominal codes 0..2
    X[rng.random((n, d)) < 0.01] = np.nan
    Y = (rng.random((n, q)) < 0.35).astype(np.uint8)
    csr = sp.csr_matrix(np.nan_to_num(X, nan=7.0)); csr.data[csr.data == 7.0] = np.nan
    csr = sp.csr_matrix((np.append(csr.data, 0.0), np.append(csr.indices, 5), np.r_[csr.indptr[:-1], csr.indptr[-1] + 1]), shape=X.shape)
    nom = np.zeros(d, bool); nom[2] = True
    return X, csr, Y, nom


@pytest.mark.parametrize("Est", LEARNERS)
@pytest.mark.parametrize("metric", ["heom", "manhattan"])
def test_sparse_training_rows_stay_sparse(Est, metric):
    "Every learner keeps a CSR X as CSR (no N×D copy; MLC-WkNN expands only query neighbours) and gives the dense fit's scores."
    X, csr, Y, nom = sparse_problem(1)
    assert csr.nnz < 0.15 * X.size and np.isnan(csr.data).any() and (csr.data == 0).sum() == 1
    Xq = X[:30] + np.where(X[:30] != 0, 0.1, 0.0)                                # queries near training rows
    Xq[:, 2] = X[:30, 2]
    for w in (None, np.linspace(0.5, 1.5, X.shape[1])):
        dense = Est(n_neighbors=5, nominal=nom, metric=metric, feature_weights=w).fit(X, Y)
        est = Est(n_neighbors=5, nominal=nom, metric=metric, feature_weights=w).fit(csr, Y)
        assert est.prep_.csr is not None and est.prep_.Xn.shape[0] == 0
        np.testing.assert_allclose(est.predict_proba(sp.csr_matrix(np.nan_to_num(Xq))), dense.predict_proba(np.nan_to_num(Xq)), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(est.predict(Xq), dense.predict(Xq))



@pytest.mark.parametrize("Est", LEARNERS)
def test_sparse_queries_in_blocks(Est, monkeypatch):
    "A sparse query X is taken a few rows at a time: the same labels and scores as the whole dense X at once."
    import relieffml.lazy as lazy
    X, csr, Y, nom = sparse_problem(2)
    est = Est(n_neighbors=4, nominal=nom).fit(csr, Y)
    P, L = est.predict_proba(X[:40]), est.predict(X[:40])
    monkeypatch.setattr(lazy, "QUERY_BYTES", 8 * X.shape[1] * 3)           # blocks of 3 rows: 14 blocks
    q = sp.coo_matrix(csr[:40])                                              # any sparse format
    np.testing.assert_array_equal(est.predict_proba(q), P)
    np.testing.assert_array_equal(est.predict(q), L)
    assert len(np.unique(P.round(9))) > 2                                    # the scores say something
    with pytest.raises(ValueError, match="features"): est.predict(sp.csr_matrix(np.zeros((40, X.shape[1] + 1))))
    with pytest.raises(ValueError, match="at least 1 instance"): est.predict(sp.csr_matrix((0, X.shape[1])))

def _stored_anyhow(X):
    "CSR of X with every stored entry split in two halves (duplicates), each row's entries in reverse column order, and an explicit 0 in column 0."
    S = sp.csr_matrix(X)
    data, ind, ptr = [], [], [0]
    for i in range(S.shape[0]):
        a, b = S.indptr[i], S.indptr[i + 1]
        cols, vals = S.indices[a:b][::-1], S.data[a:b][::-1]
        extra = [] if 0 in cols else [(0, 0.0)]
        row = [(c, v / 2) for c, v in zip(cols, vals)] * 2 + extra           # v/2 + v/2 is v, to the bit
        ind += [c for c, _ in row]; data += [v for _, v in row]; ptr.append(len(ind))
    return sp.csr_matrix((np.array(data), np.array(ind), np.array(ptr)), shape=S.shape)


@pytest.mark.parametrize("Est", LEARNERS)
@pytest.mark.parametrize("train", ["csr", "dense"])
def test_sparse_queries_stay_sparse(Est, train, monkeypatch):
    """Issue 31: a sparse query X is scaled and searched as sparse rows, never expanded (only MLC-WkNN's
    reconstruction expands its own rows); its scores equal the dense query's to the bit, whatever the CSR holds:
    duplicates, unsorted indices, explicit zeros, NaN, int and float32 values."""
    import relieffml.lazy as lazy
    X, csr, Y, nom = sparse_problem(3)
    est = Est(n_neighbors=4, nominal=nom).fit(csr if train == "csr" else X, Y)
    mlcw = isinstance(est, MLCWkNN)
    Xq = X[:40] + np.where(np.nan_to_num(X[:40]) != 0, 0.25, 0.0)             # NaN kept; queries off the training rows
    Xq[:, 2] = X[:40, 2]
    forms = [(sp.csr_matrix(Xq), Xq), (_stored_anyhow(np.nan_to_num(Xq, nan=-3.0)), np.nan_to_num(Xq, nan=-3.0)),
             (sp.csr_matrix(np.round(np.nan_to_num(Xq)).astype(np.int64)), np.round(np.nan_to_num(Xq))),
             (sp.csr_matrix(Xq.astype(np.float32)), Xq.astype(np.float32).astype(np.float64))]
    want = [(est.predict_proba(D), est.predict(D)) for _, D in forms]
    def refuse(*a, **k): raise AssertionError("a sparse query was expanded")
    for cls in (sp.csr_matrix, sp.coo_matrix): monkeypatch.setattr(cls, "toarray", refuse)
    if not mlcw: monkeypatch.setattr(lazy.ScaledRows, "toarray", refuse)
    for (S, _), (P, L) in zip(forms, want):
        assert np.array_equal(est.predict_proba(S), P, equal_nan=True)
        np.testing.assert_array_equal(est.predict(S), L)
    assert forms[1][0].has_canonical_format is False and np.isnan(forms[0][0].data).any()


def test_sparse_query_errors_name_what_dense_ones_name():
    "A sparse query's bad entries are named as a dense query's: infinite values, and a value whose scaled form overflows."
    est = MLkNN(n_neighbors=2).fit(np.array([[0.0, 1], [1e-5, 0], [5e-6, 1]]), np.array([[1], [0], [1]]))
    for bad, msg in ((np.array([[0.0, 1], [np.inf, 0]]), "infinite"), (np.array([[0.0, 1], [0, 0], [1e308, 1]]), r"X\[2, 0\] = 1e\+308")):
        for form in (bad, sp.csr_matrix(bad)):
            with pytest.raises(ValueError, match=msg): est.predict(form)


def test_sparse_enron_as_loaded():
    "enron's sparse ARFF loads as CSR; ML-kNN, BRkNN and MLC-WkNN fitted on it predict what they predict on its dense copy."
    ds = load_dataset("enron")
    assert sp.issparse(ds.X)
    tr, te = np.arange(0, 1702, 3) % 1702, np.arange(1, 1702, 5)
    for Est in (MLkNN, BRkNN, MLCWkNN):
        a = Est(n_neighbors=10).fit(ds.X[tr], ds.Y[tr])
        b = Est(n_neighbors=10).fit(ds.X[tr].toarray(), ds.Y[tr])
        assert a.prep_.csr is not None
        np.testing.assert_array_equal(a.predict(ds.X[te]), b.predict(ds.X[te].toarray()))
        np.testing.assert_allclose(a.predict_proba(ds.X[te]), b.predict_proba(ds.X[te].toarray()), rtol=0, atol=1e-12)

def test_sklearn_integration():
    X, Y, _, nom, _ = random_problem(4, n=60, nominal=False, missing=0.0)
    for Est in (MLkNN, BRkNN, DMLkNN, MLCWkNN):
        est = Est(n_neighbors=3)
        c = clone(est).set_params(n_neighbors=5)
        assert c.get_params()["n_neighbors"] == 5 and est.n_neighbors == 3
        sc = cross_val_score(est, X, Y, cv=KFold(3))
        assert sc.shape == (3,) and np.all((0 <= sc) & (sc <= 1))
        assert est.__sklearn_tags__().target_tags.multi_output


def test_n_jobs_does_not_change_results():
    X, Y, Xq, nom, w = random_problem(6, n=60, nq=30)
    for Est in (MLkNN, DMLkNN, MLCWkNN):
        a = Est(n_neighbors=5, nominal=nom, feature_weights=w, n_jobs=1).fit(X, Y).predict_proba(Xq)
        b = Est(n_neighbors=5, nominal=nom, feature_weights=w).fit(X, Y).predict_proba(Xq)
        assert np.array_equal(a, b)


@pytest.mark.parametrize("Est", [MLkNN, BRkNN, DMLkNN, MLCWkNN])
def test_bad_input(Est):
    X, Y, Xq, nom, _ = random_problem(8, n=12, nominal=False, missing=0.0)
    with pytest.raises(ValueError, match="rows but X has"): Est(n_neighbors=2).fit(X, Y[:-1])
    with pytest.raises(ValueError, match="'n_neighbors' parameter"): Est(n_neighbors=0).fit(X, Y)
    with pytest.raises(ValueError, match="exceeds the"): Est(n_neighbors=13).fit(X, Y)
    with pytest.raises(ValueError, match="feature_weights must have shape"): Est(n_neighbors=2, feature_weights=[1, 2]).fit(X, Y)
    with pytest.raises(ValueError, match="non-negative"): Est(n_neighbors=2, feature_weights=[1, -1, 1, 1]).fit(X, Y)
    with pytest.raises(ValueError, match="all zero"): Est(n_neighbors=2, feature_weights=np.zeros(4)).fit(X, Y)
    with pytest.raises(ValueError, match="only 0 and 1"): Est(n_neighbors=2).fit(X, Y * 2)
    with pytest.raises(ValueError, match="metric"): Est(n_neighbors=2, metric="cosine").fit(X, Y)
    with pytest.raises(NotFittedError): Est(n_neighbors=2).predict(Xq)
    m = Est(n_neighbors=2).fit(X, Y)
    with pytest.raises(ValueError, match="X has 3 features, but .*kNN is expecting 4 features"): m.predict(Xq[:, :3])
    with pytest.raises(ValueError, match="2-D"): m.predict_proba(Xq[0])
    with pytest.raises(ValueError, match="infinite"): m.predict(np.full((1, 4), np.inf))


def test_bad_parameters_specific():
    X, Y, *_ = random_problem(9, n=12, nominal=False, missing=0.0)
    with pytest.raises(ValueError, match="'s' parameter"): MLkNN(s=0).fit(X, Y)
    with pytest.raises(ValueError, match="'variant' parameter"): BRkNN(n_neighbors=2, variant="c").fit(X, Y)
    with pytest.raises(ValueError, match="'delta' parameter"): DMLkNN(n_neighbors=2, delta=-1).fit(X, Y)
    with pytest.raises(ValueError, match="'reg' parameter"): MLCWkNN(n_neighbors=2, reg=0).fit(X, Y)
    # the leave-one-out learners need k <= N - 1; the others k <= N
    with pytest.raises(ValueError, match="not its own neighbour"): MLkNN(n_neighbors=12).fit(X, Y)
    BRkNN(n_neighbors=12).fit(X, Y); MLCWkNN(n_neighbors=12).fit(X, Y)
    with pytest.raises(ValueError, match="requires y to be passed"): MLkNN(n_neighbors=2).fit(X)


# ---------------------------------------------------------------- n_neighbors, and the deprecated k
@pytest.mark.parametrize("Est", [MLkNN, BRkNN, DMLkNN, MLCWkNN])
def test_k_is_a_deprecated_alias_of_n_neighbors(Est):
    "n_neighbors is the name (no warning); k still works for one release, wins when set, and warns."
    X, Y, Xq, nom, _ = random_problem(10, n=40, nominal=False, missing=0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = Est(n_neighbors=4).fit(X, Y)
        default = Est().fit(X, Y)
    with pytest.warns(FutureWarning, match="use n_neighbors=4"):
        old = Est(k=4).fit(X, Y)
    assert Est().n_neighbors == 10 and default.n_neighbors_ == 10
    assert old.n_neighbors_ == new.n_neighbors_ == 4 and old.n_neighbors == 10     # fit overwrites no parameter
    np.testing.assert_array_equal(old.predict_proba(Xq), new.predict_proba(Xq))
    assert not np.array_equal(old.predict_proba(Xq), default.predict_proba(Xq))     # so k was not ignored
    with pytest.warns(FutureWarning):
        assert Est(n_neighbors=7, k=4).fit(X, Y).n_neighbors_ == 4
    assert clone(Est(k=4)).get_params()["k"] == 4 and Est(5).n_neighbors == 5       # positional: n_neighbors
    with pytest.raises(ValueError, match="'k' parameter"): Est(k=0).fit(X, Y)
    with pytest.raises(ValueError, match="n_neighbors=41 exceeds"): Est(n_neighbors=41).fit(X, Y)


@pytest.mark.parametrize("Est", [MLkNN, BRkNN, DMLkNN, MLCWkNN])
def test_query_scaling_beyond_float64_is_refused(Est):
    "A finite query whose scaled value overflows (1e308 against a 1e-5 range) is a ValueError, not inf distances."
    rng = np.random.default_rng(0)
    X, Y = rng.random((20, 2)) * 1e-5, (rng.random((20, 2)) < 0.5).astype(np.uint8)
    m = Est(n_neighbors=3).fit(X, Y)
    with pytest.raises(ValueError, match=r"X\[1, 0\] = 1e\+308 lies so far outside the training range of feature 0"):
        m.predict_proba([[0.0, 0.0], [1e308, 0.0]])
    if Est is MLCWkNN:                                       # squares distances, eq. (10): refused earlier
        assert np.isfinite(m.predict_proba([[1e140, 0.0]])).all()
        with pytest.raises(ValueError, match="X row 0 lies so far outside the training range that MLC-WkNN"):
            m.predict_proba([[1e300, 0.0]])
    else:                                                    # far outside, but representable: scores as usual
        assert np.isfinite(m.predict_proba([[1e300, 0.0]])).all()


def test_mlcwknn_tiny_gram_is_finite():
    "Neighbours at distances ~1e-153 make a Gram matrix ~1e-306, whose ridge reg·tr(G) underflowed: NaN scores (hypothesis found it)."
    X = np.array([[1.69865698e14], [0.0], [4.00634098e-139]]); Y = np.array([[1], [0], [0]], np.uint8)
    est = MLCWkNN(n_neighbors=2).fit(X, Y)
    Xq = np.r_[X, X[::-1] / 2 + X / 2]
    S = est.predict_proba(Xq)
    assert np.isfinite(S).all() and (S >= 0).all() and (S <= 1 + 1e-12).all(), S
    np.testing.assert_allclose(est.reconstruction_weights(Xq)[1].sum(1), 1.0, atol=1e-12)
