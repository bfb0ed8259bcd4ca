"""MLRF and MML-RF: kernel vs naive loops, a hand-worked example, information measures vs scikit-learn,
the incremental search vs the from-scratch one, behaviour on data with known ground truth, and bad input."""
import matplotlib
matplotlib.use("Agg")
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import clone
from sklearn.metrics import mutual_info_score, normalized_mutual_info_score
from relieffml.mlrf import (MLRF, MMLRF, mlrf_weights, discretize, entropy, mutual_information,
                            symmetric_uncertainty, su_matrix, backward_search, positive_share_prefix)
from naive import naive_mlrf, naive_backward_search, naive_phi


def random_problem(seed, n=40, d=5, q=4):
    """Numeric + nominal features, ties (a rounded feature, a duplicated row), missing values, and label edge cases.

    Only feature 0 is rounded: with every feature rounded, distances that are mathematically equal become
    common, and the kernel's reassociated sums (fastmath) may order them differently from the naive sum."""
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)); X[:, 0] = np.round(X[:, 0], 1)
    nominal = np.zeros(d, bool); nominal[1] = True
    X[:, 1] = rng.integers(0, 3, n)
    X[7] = X[3]
    X[rng.random(X.shape) < 0.1] = np.nan
    Y = (rng.random((n, q)) < 0.4).astype(np.uint8)
    Y[:, q - 1] = 0                     # a label no instance has
    Y[0] = 0                            # an instance with no labels (ω = 0)
    Y[5, :q - 1] = 1                    # every label that occurs: P(y) = 1, no misses
    Y[9] = 0; Y[9, 0] = 1               # make sure label 0 exists
    return X, Y, nominal


# ---------------------------------------------------------------- MLRF kernel

@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_kernel_matches_naive(seed, metric):
    X, Y, nominal = random_problem(seed)
    for k in (1, 4, 50):                # 50 > every pool: k_eff = pool size
        np.testing.assert_allclose(mlrf_weights(X, Y, nominal, k=k, metric=metric),
                                   naive_mlrf(X, Y, nominal, k=k, metric=metric), rtol=0, atol=1e-12)


def test_kernel_matches_naive_sampled_and_declared_values():
    X, Y, nominal = random_problem(11, n=50)
    nv = np.zeros(X.shape[1], np.int64); nv[1] = 5            # declared values > observed: changes missing diff
    samples = np.array([0, 3, 5, 8, 21, 34, 49])
    np.testing.assert_allclose(mlrf_weights(X, Y, nominal, nv, k=3, samples=samples),
                               naive_mlrf(X, Y, nominal, nv, k=3, samples=samples), rtol=0, atol=1e-12)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(3, 25), q=st.integers(1, 5), k=st.integers(1, 6))
def test_kernel_matches_naive_fuzz(seed, n, q, k):
    rng = np.random.default_rng(seed)
    X = rng.random((n, 3)); X[:, 0] = np.round(X[:, 0], 1); X[:, 2] = rng.integers(0, 2, n)
    X[rng.random(X.shape) < 0.15] = np.nan
    Y = (rng.random((n, q)) < 0.5).astype(np.uint8); Y[0, 0] = 1
    nominal = np.array([False, False, True])
    np.testing.assert_allclose(mlrf_weights(X, Y, nominal, k=k), naive_mlrf(X, Y, nominal, k=k), rtol=0, atol=1e-12)


def test_hand_worked_example():
    """Five instances, k=1 (see the chapter). Hand computation: C=(3,2,0), LC=1, ω=(1,1,1,2,0);
    contributions (0.7,-0.2), (0.1,0), (0.7,-0.8), 2·(-0.36,-0.64), 0; sum (0.78,-2.28); /5."""
    X = np.array([[0.0, 0.2], [0.3, 0.6], [1.0, 0.0], [0.7, 1.0], [0.5, 0.4]])
    Y = np.array([[1, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0], [0, 0, 0]], np.uint8)
    np.testing.assert_allclose(MLRF(n_neighbors=1).fit(X, Y).weights_, [0.156, -0.456], rtol=0, atol=1e-12)
    np.testing.assert_allclose(naive_mlrf(X, Y, np.zeros(2, bool), k=1), [0.156, -0.456], rtol=0, atol=1e-12)


def test_two_instance_misses():
    "Each instance is the other's only neighbour, a miss with factor 1 and ω = 1: W = diff."
    X = np.array([[0.0, 3.0, 1.0], [1.0, 3.0, 0.0]])
    Y = np.array([[1, 0], [0, 1]], np.uint8)
    np.testing.assert_allclose(mlrf_weights(X, Y, np.zeros(3, bool), k=1), [1.0, 0.0, 1.0])


def test_label_order_and_thread_count_do_not_matter():
    X, Y, nominal = random_problem(3, n=120)
    a = MLRF(nominal=nominal, n_jobs=1).fit(X, Y).weights_
    b = MLRF(nominal=nominal, n_jobs=2).fit(X, Y).weights_
    np.testing.assert_array_equal(a, b)
    perm = np.array([2, 0, 3, 1])
    np.testing.assert_allclose(MLRF(nominal=nominal).fit(X, Y[:, perm]).weights_, a, rtol=0, atol=1e-13)


def test_unlabelled_instances_only_rescale():
    """Appending instances without labels (inside the feature ranges) changes nothing but m and LC:
    W·m·LC (= Σ contributions / ω-scale) is unchanged."""
    X, Y, nominal = random_problem(5, n=30)
    X[~np.isnan(X)] = np.clip(X[~np.isnan(X)], 0.1, 0.9); X[1, :] = [0.0, 0, 0.0, 0.0, 0.0]; X[2, :] = [1.0, 2, 1.0, 1.0, 1.0]
    X2 = np.vstack([X, np.full((4, X.shape[1]), 0.5)]); X2[30:, 1] = 1
    Y2 = np.vstack([Y, np.zeros((4, Y.shape[1]), np.uint8)])
    w1 = mlrf_weights(X, Y, nominal, k=3) * len(X) * (Y.sum() / len(X))
    w2 = mlrf_weights(X2, Y2, nominal, k=3) * len(X2) * (Y2.sum() / len(X2))
    np.testing.assert_allclose(w1, w2, rtol=0, atol=1e-12)


def test_sampling_is_reproducible():
    X, Y, nominal = random_problem(2, n=60)
    a = MLRF(n_samples=20, random_state=1, nominal=nominal).fit(X, Y).weights_
    b = MLRF(n_samples=20, random_state=1, nominal=nominal).fit(X, Y).weights_
    np.testing.assert_array_equal(a, b)
    from relieffml.base import resolve_samples
    np.testing.assert_allclose(a, naive_mlrf(X, Y, nominal, k=10, samples=resolve_samples(20, 60, 1)), atol=1e-12)


# ---------------------------------------------------------------- information measures

def test_discretize_equal_frequency_distinct_values():
    "Distinct values: code = #{u in 1..B-1 : u(N-1) <= rank·B} (the linear-quantile edges, in integers)."
    rng = np.random.default_rng(0)
    N, B = 98, 10                                             # N-1 = 97 prime: no edge falls exactly on a value
    x = rng.permutation(rng.random(N))
    rank = np.argsort(np.argsort(x))
    expect = np.array([sum(u * (N - 1) <= r * B for u in range(1, B)) for r in rank])
    np.testing.assert_array_equal(discretize(x, n_bins=B)[:, 0], expect)
    # bin c holds ranks [9.7c, 9.7(c+1)): 0-9, 10-19, 20-29, 30-38, 39-48, 49-58, 59-67, 68-77, 78-87, 88-97
    np.testing.assert_array_equal(np.bincount(discretize(x, n_bins=B)[:, 0]), [10, 10, 10, 9, 10, 10, 9, 10, 10, 10])


def test_discretize_missing_ties_nominal_constant():
    X = np.array([[1.0, 0, 5.0], [1, 2, 5], [np.nan, np.nan, 5], [2, 1, 5], [3, 0, np.nan]])
    codes = discretize(X, nominal=[False, True, False], n_bins=4)
    np.testing.assert_array_equal(codes[:, 0], [1, 1, 4, 2, 3])   # known (1, 1, 2, 3): edges (1, 1, 1.5, 2.25, 3)
    np.testing.assert_array_equal(codes[:, 1], [0, 2, 3, 1, 0])   # nominal codes kept, NaN -> max + 1
    np.testing.assert_array_equal(codes[:, 2], [3, 3, 3, 3, 4])   # constant: one bin; NaN its own


def test_entropy_mi_su_match_sklearn():
    rng = np.random.default_rng(1)
    for t in range(30):
        n = int(rng.integers(2, 60))
        a = rng.integers(0, int(rng.integers(1, 6)), n)
        b = np.where(rng.random(n) < 0.5, a, rng.integers(0, int(rng.integers(1, 6)), n))
        pa = np.bincount(a) / n; pa = pa[pa > 0]
        np.testing.assert_allclose(entropy(a), -(pa * np.log(pa)).sum(), atol=1e-12)
        np.testing.assert_allclose(mutual_information(a, b), mutual_info_score(a, b), atol=1e-12)
        if len(np.unique(a)) == 1 and len(np.unique(b)) == 1:
            assert symmetric_uncertainty(a, b) == 0.0          # SPEC: 0 (scikit-learn's NMI returns 1 here)
        else:
            np.testing.assert_allclose(symmetric_uncertainty(a, b),
                                       normalized_mutual_info_score(a, b, average_method="arithmetic"), atol=1e-12)


def test_su_matrix_matches_sklearn():
    rng = np.random.default_rng(2)
    X = rng.random((150, 7))
    X[:, 1] = X[:, 0] + 0.05 * rng.normal(size=150)              # a noisy copy
    X[:, 2] = rng.integers(0, 4, 150)                            # nominal
    X[:, 4] = np.round(X[:, 4], 1)                               # ties
    X[rng.random(X.shape) < 0.05] = np.nan                       # missing: a bin of its own
    X[:, 3] = 0.7                                                # constant (no missing values)
    nominal = np.zeros(7, bool); nominal[2] = True
    codes = discretize(X, nominal, n_bins=6)
    S = su_matrix(codes)
    for i in range(7):
        for j in range(7):
            ci, cj = codes[:, i], codes[:, j]
            if i == j: ref = 0.0 if len(np.unique(ci)) == 1 else 1.0
            elif len(np.unique(ci)) == 1 and len(np.unique(cj)) == 1: ref = 0.0
            else: ref = normalized_mutual_info_score(ci, cj, average_method="arithmetic")
            np.testing.assert_allclose(S[i, j], ref, atol=1e-12, err_msg=f"pair {i},{j}")
    np.testing.assert_array_equal(S, S.T)
    assert S[0, 1] > 0.5 and S[3, 0] == 0.0
    np.testing.assert_array_equal(su_matrix(codes, n_jobs=1), su_matrix(codes, n_jobs=2))


# ---------------------------------------------------------------- the search

def random_search_problem(seed, n=10):
    rng = np.random.default_rng(seed)
    w = rng.random(n) * rng.choice([0.05, 0.5, 3.0])
    su = rng.random((n, n)) * rng.choice([0.1, 0.5]); su = (su + su.T) / 2; np.fill_diagonal(su, 1.0)
    return w, su, rng.permutation(100)[:n]


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("tolerance,min_features", [(0.0, 1), (0.01, 1), (0.05, 3), (1.0, 1)])
def test_incremental_search_matches_naive(seed, tolerance, min_features):
    w, su, feats = random_search_problem(seed)
    rem, path, nb = backward_search(w, su, feats, tolerance, min_features)
    rem0, path0, nb0 = naive_backward_search(w, su, feats, tolerance, min_features)
    assert rem == rem0 and nb == nb0
    np.testing.assert_allclose(path, path0, rtol=0, atol=1e-12)


def test_search_rules_by_hand():
    "Φ by hand for 3 features; removal ties go to the lowest feature index; stop on a drop > tolerance."
    sig = lambda x: 1 / (1 + np.exp(-x))
    w = np.array([0.5, 0.5, 0.5]); su = np.array([[1, 1, 0], [1, 1, 0], [0, 0, 1.0]])
    rem, path, nb = backward_search(w, su, np.array([7, 3, 9]), tolerance=0.0)
    assert rem[0] == 1                                           # positions 0 and 1 tie; feature 3 < 7
    np.testing.assert_allclose(path, [sig(1.5) - 1 / 3, sig(1.0), sig(0.5)])
    assert nb == 1
    rem, path, nb = backward_search(w, su, np.array([7, 3, 9]), tolerance=0.5, min_features=1)
    assert len(path) == 3 and nb == 1                            # dip within tolerance: path goes on, best kept


def test_best_phi_tie_prefers_smaller_subset():
    "Saturated sigmoid (Σw > 40 ⇒ σ = 1.0 exactly) and zero redundancy: Φ = 1 all along; the smallest subset wins."
    w = np.full(4, 50.0); su = np.eye(4)
    rem, path, nb = backward_search(w, su, np.arange(4), tolerance=0.01, min_features=2)
    assert path == [1.0, 1.0, 1.0] and nb == 2 and rem == [0, 1]


def test_search_crosses_a_dip_within_tolerance():
    """Three equally redundant features (s = 0.2): removing one keeps R = 0.2 and costs relevance (a dip of
    0.025), removing a second drops R to 0. tolerance 0 stops in the dip and keeps S0; 0.05 crosses it."""
    sig = lambda x: 1 / (1 + np.exp(-x))
    w = np.full(3, 0.1); su = np.full((3, 3), 0.2); np.fill_diagonal(su, 1.0)
    expect = [sig(0.3) - 0.2, sig(0.2) - 0.2, sig(0.1)]
    for tol, nb_expect, n_path in ((0.0, 0, 2), (0.05, 2, 3)):
        rem, path, nb = backward_search(w, su, np.arange(3), tol)
        assert (rem, nb) == (naive_backward_search(w, su, np.arange(3), tol)[::2])
        assert nb == nb_expect and rem == [0, 1][:n_path - 1]
        np.testing.assert_allclose(path, expect[:n_path], atol=1e-12)


def test_positive_share_prefix():
    w = np.array([0.2, -0.5, 0.4, 0.0, 0.1, 0.3])
    ranking = np.argsort(-w, kind="mergesort")                  # 2, 5, 0, 4, 3, 1
    # positive total 1.0: shares 0.4, 0.7, 0.9, 1.0
    np.testing.assert_array_equal(positive_share_prefix(w, ranking, 0.4), [2])
    np.testing.assert_array_equal(positive_share_prefix(w, ranking, 0.41), [2, 5])
    np.testing.assert_array_equal(positive_share_prefix(w, ranking, 0.85), [2, 5, 0])
    np.testing.assert_array_equal(positive_share_prefix(w, ranking, 1.0), [2, 5, 0, 4])   # never the 0 or negative
    with pytest.raises(ValueError, match="positive MLRF weight"):
        positive_share_prefix(-np.abs(w), ranking, 0.85)


# ---------------------------------------------------------------- estimators

@pytest.fixture(scope="module")
def relevance():
    from relieffml.data import make_multilabel_relevance
    return make_multilabel_relevance(n_samples=1000, n_features=12, n_labels=5, n_relevant=6, n_redundant=3, random_state=0)


def test_mlrf_ranks_informative_first(relevance):
    ds = relevance
    r = MLRF().fit(ds)
    informative = set(ds.relevant_) | set(ds.redundant_)
    assert set(r.ranking_[:len(informative)]) == informative
    assert r.transform(ds.X).shape == (1000, 6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mmlrf_drops_copies_keeps_relevant(seed):
    from relieffml.data import make_multilabel_relevance
    ds = make_multilabel_relevance(n_samples=1000, n_features=12, n_labels=5, n_relevant=6, n_redundant=3, random_state=seed)
    m = MMLRF().fit(ds)
    sel = set(m.selected_.tolist())
    threshold_features = set(ds.relevant_) - set(ds.interacting_[0])
    assert threshold_features <= sel
    assert not sel & set(ds.redundant_)
    for copy, orig in zip(ds.redundant_, ds.redundant_of_):
        assert (copy in sel) + (orig in sel) <= 1


def test_mmlrf_attributes_consistent(relevance):
    ds = relevance
    m = MMLRF(tolerance=0.02).fit(ds)
    W, S0 = m.weights_, m.prefiltered_
    np.testing.assert_allclose(W, MLRF().fit(ds).weights_)
    np.testing.assert_array_equal(m.ranking_, np.argsort(-W, kind="mergesort"))
    np.testing.assert_array_equal(S0, m.ranking_[:len(S0)])
    assert W[S0].sum() >= 0.85 * W[W > 0].sum() > W[S0[:-1]].sum()
    assert len(m.phi_path_) == len(m.removed_) + 1
    assert m.phi_path_[m.best_step_] == m.phi_path_.max()
    kept = [f for f in S0 if f not in set(m.removed_[:m.best_step_].tolist())]
    np.testing.assert_array_equal(m.selected_, kept)                       # ranking order
    pos = {f: i for i, f in enumerate(S0)}
    rest = [pos[f] for f in m.selected_]
    np.testing.assert_allclose(m.phi_path_[m.best_step_], naive_phi(W[S0], m.su_, rest), atol=1e-12)
    codes = discretize(ds.X[:, S0], ds.nominal[S0], 10)
    np.testing.assert_allclose(m.su_[0, 1], normalized_mutual_info_score(codes[:, 0], codes[:, 1]), atol=1e-12)
    mask = m.get_support()
    assert mask.sum() == len(m.selected_) and mask[m.selected_].all()
    np.testing.assert_array_equal(m.transform(ds.X), ds.X[:, np.sort(m.selected_)])
    ax = m.plot_path()
    assert len(ax.lines) == 2
    assert clone(m).get_params()["tolerance"] == 0.02


def test_mmlrf_pandas_input(relevance):
    import pandas as pd
    ds = relevance
    df = pd.DataFrame(ds.X, columns=ds.feature_names)
    m = MMLRF().fit(df, ds.Y)
    assert list(m.get_feature_names_out()) == [ds.feature_names[f] for f in np.sort(m.selected_)]


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("kwargs,match", [
    (dict(theta=0), "theta"), (dict(theta=-0.2), "theta"), (dict(theta=1.01), "theta"),
    (dict(tolerance=-0.01), "tolerance"), (dict(n_bins=1), "n_bins"), (dict(n_bins=0), "n_bins"),
    (dict(min_features=0), "min_features"), (dict(n_neighbors=0), "n_neighbors"), (dict(metric="euclid"), "metric"),
])
def test_mmlrf_bad_parameters(kwargs, match):
    X, Y, _ = random_problem(0)
    with pytest.raises(ValueError, match=match):
        MMLRF(**kwargs).fit(np.nan_to_num(X), Y)


def test_all_constant_features_raise():
    Y = (np.random.default_rng(0).random((30, 3)) < 0.3).astype(np.uint8)
    np.testing.assert_array_equal(MLRF().fit(np.ones((30, 4)), Y).weights_, 0.0)
    with pytest.raises(ValueError, match="positive MLRF weight"):
        MMLRF().fit(np.ones((30, 4)), Y)


def test_min_features_above_prefilter_returns_s0(relevance):
    m = MMLRF(min_features=100).fit(relevance)
    np.testing.assert_array_equal(m.selected_, m.prefiltered_)
    assert m.removed_.size == 0 and m.phi_path_.size == 1 and m.best_step_ == 0


@pytest.mark.parametrize("Y,match", [
    (np.zeros((20, 3)), "no relevant labels"),
    (np.full((20, 2), 2), "only 0 and 1"),
    (np.ones((19, 2)), "rows"),
])
def test_mlrf_bad_targets(Y, match):
    X = np.random.default_rng(0).random((20, 3))
    for est in (MLRF(), MMLRF()):
        with pytest.raises(ValueError, match=match):
            est.fit(X, Y)


def test_discretize_bad_bins():
    with pytest.raises(ValueError, match="n_bins"):
        discretize(np.arange(5.0), n_bins=1)


@pytest.mark.parametrize("bad", [1.5, -1.0, np.inf])
def test_discretize_refuses_nominal_values_that_are_not_codes(bad):
    # a non-integer code would be truncated into another category, a negative or infinite one into garbage
    X = np.array([[0.0, 0.1], [1.0, 0.2], [bad, 0.3], [np.nan, 0.4]])
    with pytest.raises(ValueError, match="nominal column 0 of X must hold non-negative integer codes"):
        discretize(X, nominal=[True, False])
    with pytest.raises(ValueError, match="nominal must be a bool mask of X's 1 columns"):
        discretize(X[:, 1:], nominal=[True, False])
    np.testing.assert_array_equal(discretize(X[[0, 1, 3]], nominal=[True, False], n_bins=2)[:, 0], [0, 1, 2])  # NaN: max + 1
