"""HMC-ReliefF (SPEC §5; Slavkov et al. 2013). The hierarchy model and the Clus reader it uses are tested in
tests/test_hierarchy.py.

References are independent of the code under test: hand-built hierarchies, the naive transcription of
Algorithm 1 and a recursive weight definition.
"""
import functools, math, operator
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from relieffml.hierarchy import Hierarchy
from relieffml.data import load_hmc_arff
from test_hierarchy import random_trees          # the hypothesis strategy of the model's tests

W0 = 0.75


# ---------------------------------------------------------------- HMC-ReliefF
from sklearn.base import clone
from relieffml.base import resolve_samples
from relieffml.hmc import HMCReliefF, hmc_distance, hmc_target_diffs, _naive_hmc_relieff


def test_fig1_toy_distance():
    "Slavkov et al. 2013, Fig. 1: S1 = {c1, c2, c2.2}, S2 = {c2} are sqrt(w0 + w0²) apart."
    toy = Hierarchy.from_paths(["c1", "c2", "c2.1", "c2.2", "c3"])
    for w0 in (0.75, 0.5, 0.3):
        w = toy.class_weights(w0)
        s1, s2 = [1, 1, 0, 1, 0], [0, 1, 0, 0, 0]
        assert hmc_distance(s1, s2, w, normalize=False) == pytest.approx(np.sqrt(w0 + w0 ** 2))
        assert hmc_distance(s1, s2, w) == pytest.approx(np.sqrt(w0 + w0 ** 2) / np.sqrt(3 * w0 + 2 * w0 ** 2))
        assert hmc_distance([0] * 5, [1] * 5, w) == pytest.approx(1.0)


def _dag():
    return Hierarchy.from_edges([("root", "a"), ("root", "b"), ("a", "c"), ("b", "c"), ("c", "d"),
                                 ("root", "e"), ("e", "f"), ("a", "f"), ("f", "g")])


def _problem(seed, h, N=35, D=6, missing=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, D))
    X[:, 2] = rng.integers(0, 3, N)
    X[:, 4] = rng.integers(0, 2, N)
    X[rng.random((N, D)) < missing] = np.nan
    Y = h.close((rng.random((N, len(h))) < 0.25).astype(np.uint8))
    return X, Y, np.isin(np.arange(D), [2, 4])


def test_target_diff_kernel():
    h = _dag()
    rng = np.random.default_rng(1)
    Y = h.close((rng.random((20, len(h))) < 0.3).astype(np.uint8))
    w = h.class_weights(0.6)
    samples = np.array([0, 5, 19])
    idx = rng.integers(0, 20, (3, 4)); count = np.array([4, 2, 0])
    dC = hmc_target_diffs(Y, w, samples, idx, count)
    for i, s in enumerate(samples):
        for j in range(4):
            want = hmc_distance(Y[s], Y[idx[i, j]], w) if j < count[i] else 0.0
            assert dC[i, j] == pytest.approx(want, abs=1e-14)


def test_target_diffs_are_the_same_bits_on_every_thread_count():
    """Eq. (6') with 200 class weights, against sums in index order, on one thread and on two. The kernel was a numba
    prange loop until session 30, and numba ran its `w.sum()` as a parallel reduction: the norm's last bits, and
    with them most of the values, changed with n_jobs."""
    rng = np.random.default_rng(0)
    Y = (rng.random((300, 200)) < 0.2).astype(np.uint8)
    w = rng.random(200)
    samples, idx, count = np.arange(300), rng.integers(0, 300, (300, 100)), np.full(300, 100)
    one, two = (hmc_target_diffs(Y, w, samples, idx, count, n_jobs=j) for j in (1, 2))
    norm = math.sqrt(functools.reduce(operator.add, w.tolist()))
    for i in (0, 149, 299):
        for j in (0, 99):
            differ = np.flatnonzero(Y[i] != Y[idx[i, j]])
            assert one[i, j] == math.sqrt(functools.reduce(operator.add, w[differ].tolist(), 0.0)) / norm
    assert np.array_equal(one, two)


@pytest.mark.parametrize("seed,k,w0,n_samples,metric", [
    (0, 10, 0.75, None, "manhattan"), (1, 3, 0.5, None, "manhattan"), (2, 5, 0.9, 12, "manhattan"),
    (3, 40, 0.75, None, "manhattan"), (4, 4, 0.3, 0.5, "heom")])
def test_matches_naive_dag(seed, k, w0, n_samples, metric):
    h = _dag()
    X, Y, nom = _problem(seed, h)
    est = HMCReliefF(w0=w0, n_neighbors=k, n_samples=n_samples, random_state=seed, metric=metric,
                     hierarchy=h, nominal=nom).fit(X, Y)
    samples = resolve_samples(n_samples, len(X), seed)
    want = _naive_hmc_relieff(X, Y, h, nom, None, w0, k, samples, metric)
    np.testing.assert_allclose(est.weights_, want, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(est.class_weights_, h.class_weights(w0))


@settings(max_examples=15, deadline=None)
@given(random_trees(), st.integers(0, 2**31 - 1), st.integers(1, 8))
def test_matches_naive_random_trees(tree, seed, k):
    _, _, listed = tree
    h = Hierarchy.from_paths(listed)
    X, Y, nom = _problem(seed, h, N=20, D=5)
    with np.errstate(all="ignore"): want = _naive_hmc_relieff(X, Y, h, nom, None, 0.75, k)
    est = HMCReliefF(n_neighbors=k, hierarchy=h, nominal=nom)
    if not np.all(np.isfinite(want)):                                 # the target does not vary among neighbours
        with pytest.raises(ValueError, match="does not vary"): est.fit(X, Y)
        return
    np.testing.assert_allclose(est.fit(X, Y).weights_, want, rtol=1e-9, atol=1e-12)


def test_threads_do_not_change_the_result():
    h = _dag()
    X, Y, nom = _problem(5, h, N=120)
    a = HMCReliefF(hierarchy=h, nominal=nom, n_jobs=1).fit(X, Y).weights_
    b = HMCReliefF(hierarchy=h, nominal=nom, n_jobs=2).fit(X, Y).weights_
    assert np.array_equal(a, b)


def _synthetic(seed, N=400, D=10):
    "x0 picks the top class, x1 the child under A, x2 the child under B; the rest is noise."
    rng = np.random.default_rng(seed)
    X = rng.random((N, D))
    h = Hierarchy.from_paths(["A/1", "A/2", "B/1", "B/2", "C"])
    names = np.where(X[:, 0] < 0.5, np.where(X[:, 1] < 0.5, "A/1", "A/2"), np.where(X[:, 2] < 0.5, "B/1", "B/2"))
    Y = np.array([[c == n for c in h.classes] for n in names], dtype=np.uint8)
    Y[:, h.index("C")] = rng.random(N) < 0.2                       # an irrelevant, unpredictable class
    return X, h.close(Y), h


def test_synthetic_relevant_features_first():
    X, Y, h = _synthetic(0)
    est = HMCReliefF(hierarchy=h).fit(X, Y)
    assert set(est.ranking_[:3]) == {0, 1, 2}
    assert est.ranking_[0] == 0                                    # the top-level split weighs most
    assert est.weights_[3:].max() < est.weights_[[1, 2]].min()
    assert est.transform(X).shape == (400, 5)
    sel = HMCReliefF(hierarchy=h, n_features_to_select=3).fit(X, Y)
    assert sel.get_support().nonzero()[0].tolist() == [0, 1, 2]


def test_dataset_input_and_clone():
    from relieffml.data import MultiLabelDataset
    X, Y, h = _synthetic(1, N=150)
    ds = MultiLabelDataset(X, Y, label_names=h.classes, hierarchy=h)
    a = HMCReliefF().fit(ds).weights_
    b = HMCReliefF(hierarchy=h).fit(X, Y).weights_
    assert np.array_equal(a, b)
    est = HMCReliefF(w0=0.5, hierarchy=h)
    c = clone(est)
    assert c.get_params()["w0"] == 0.5 and c.get_params()["hierarchy"].classes == h.classes
    assert np.array_equal(c.fit(X, Y).weights_, HMCReliefF(w0=0.5).fit(ds).weights_)


def test_estimator_errors():
    X, Y, h = _synthetic(2, N=60)
    with pytest.raises(ValueError, match="needs a class hierarchy"):
        HMCReliefF().fit(X, Y)
    with pytest.raises(ValueError, match="Y has 7 columns but the hierarchy has 2 classes"):
        HMCReliefF(hierarchy=Hierarchy.from_paths(["a/b"])).fit(X, Y)
    Yb = Y.copy(); Yb[3] = 0; Yb[3, h.index("A/1")] = 1
    with pytest.raises(ValueError, match=r"hierarchy constraint in 1 instances \(first rows \[3\]\)"):
        HMCReliefF(hierarchy=h).fit(X, Yb)
    with pytest.raises(ValueError, match="must be a relieffml.hierarchy.Hierarchy"):
        HMCReliefF(hierarchy=["A", "B"]).fit(X, Y)
    for w0 in (0, 1, -0.5, 2):
        with pytest.raises(ValueError, match="w0"):
            HMCReliefF(w0=w0, hierarchy=h).fit(X, Y)
    with pytest.raises(ValueError, match="n_neighbors"):
        HMCReliefF(n_neighbors=0, hierarchy=h).fit(X, Y)
    with pytest.raises(ValueError, match="does not vary"):
        HMCReliefF(hierarchy=h).fit(X, h.close(np.zeros_like(Y)))


@pytest.mark.data
def test_matches_naive_on_funcat(data_home):
    ds = load_hmc_arff(data_home / "hmc" / "cellcycle_FUN.train.arff")
    sub = ds.subset(np.arange(100))
    est = HMCReliefF(n_neighbors=10).fit(sub)
    want = _naive_hmc_relieff(sub.X, sub.Y, ds.hierarchy, sub.nominal, sub.n_values, 0.75, 10)
    np.testing.assert_allclose(est.weights_, want, rtol=1e-9, atol=1e-12)
