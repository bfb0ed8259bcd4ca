"""ReliefF: Weka parity (through the Java API, 1e-9), the RF-BR fast path, properties and bad input."""
import numpy as np
import pytest
from weka_harness import weka_scores, write_arff
from relieffml.relieff import ReliefF, relieff_weights
from naive import naive_relieff, naive_relieff_br

RELIEFF = "weka.attributeSelection.ReliefFAttributeEval"


def random_problem(seed, n=60, d=6, n_classes=3, missing=0.1, decimals=None):
    "Numeric + nominal features, exact ties (nominal codes, a duplicate row) and missing values."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) if decimals is None else np.round(rng.random((n, d)), decimals)
    nominal = np.zeros(d, bool); nominal[[1, 4]] = True
    X[:, 1] = rng.integers(0, 3, n); X[:, 4] = rng.integers(0, 5, n)
    X[7] = X[3]
    X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, n_classes, n)
    return X, y, nominal


def weka_relieff(weka_jar, tmp_path, X, y, nominal, options, categories=None, name="p"):
    path = write_arff(tmp_path / f"{name}.arff", X, y, nominal=nominal, categories=categories)
    return weka_scores(weka_jar, path, RELIEFF, options, tmp_path)


@pytest.mark.weka
@pytest.mark.parametrize("seed,n_classes,k", [(0, 2, 10), (1, 3, 10), (2, 4, 3), (3, 3, 60)])
def test_weka_parity_random(weka_jar, tmp_path, seed, n_classes, k):
    X, y, nominal = random_problem(seed, n_classes=n_classes, decimals=1)     # rounded: many tied distances
    cats = [[str(v) for v in range(3)] if f == 1 else [str(v) for v in range(6)] if f == 4 else None for f in range(X.shape[1])]
    n_values = np.array([len(c) if c else 0 for c in cats])
    W = relieff_weights(X, y, nominal, n_values, k=k)
    ref = weka_relieff(weka_jar, tmp_path, X, y, nominal, f"-M -1 -K {k}", cats)
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


@pytest.mark.weka
def test_weka_parity_weight_by_distance(weka_jar, tmp_path):
    rng = np.random.default_rng(5)
    X = rng.random((80, 5)); y = (X[:, 0] + 0.3 * rng.random(80) > 0.6).astype(int)
    W = ReliefF(n_neighbors=7, weight_by_distance=True, sigma=2).fit(X, y).weights_
    ref = weka_relieff(weka_jar, tmp_path, X, y, None, "-M -1 -K 7 -W -A 2")
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


def _label_problem(ds, label, rows=None, missing=0.0, seed=0):
    X, y = ds.X.copy(), ds.Y[:, label].astype(int)
    if rows is not None: X, y = X[rows], y[rows]
    if missing:
        rng = np.random.default_rng(seed)
        X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.weka
@pytest.mark.data
@pytest.mark.parametrize("name,label,rows,missing", [
    ("emotions", 0, None, 0.0),
    ("emotions", 3, slice(0, 300), 0.05),
    ("flags", 0, None, 0.0),
    ("flags", 2, None, 0.05),
    ("genbase", 0, slice(0, 300), 0.0),
])
def test_weka_parity_mulan(weka_jar, data_home, tmp_path, name, label, rows, missing):
    from relieffml.data import load_dataset
    ds = load_dataset(name, data_home=data_home)
    X, y = _label_problem(ds, label, rows, missing)
    W = relieff_weights(X, y, ds.nominal, ds.n_values, k=10)
    ref = weka_relieff(weka_jar, tmp_path, X, y, ds.nominal, "-M -1 -K 10", ds.categories, name)
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_weka_parity_label_powerset_multiclass(weka_jar, data_home, tmp_path):
    "A multi-class problem (label sets of flags' first three labels): the prior-weighted miss term."
    from relieffml.data import load_dataset
    ds = load_dataset("flags", data_home=data_home)
    _, y = np.unique(ds.Y[:, :3], axis=0, return_inverse=True)
    y = y.ravel()
    W = relieff_weights(ds.X, y, ds.nominal, ds.n_values, k=10)
    ref = weka_relieff(weka_jar, tmp_path, ds.X, y, ds.nominal, "-M -1 -K 10", ds.categories, "lp")
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_rf_br_equals_weka_per_label(weka_jar, data_home, tmp_path):
    "ReliefF on a label matrix (one pass) equals Weka run on each label's binary problem."
    from relieffml.data import load_dataset
    ds = load_dataset("flags", data_home=data_home)
    rf = ReliefF(n_neighbors=10, store_label_weights=True).fit(ds)
    refs = []
    for l in range(ds.Y.shape[1]):
        refs.append(weka_relieff(weka_jar, tmp_path, ds.X, ds.Y[:, l].astype(int), ds.nominal, "-M -1 -K 10", ds.categories, f"l{l}"))
        np.testing.assert_allclose(rf.label_weights_[l], refs[-1], rtol=0, atol=1e-9)
    np.testing.assert_allclose(rf.weights_, np.mean(refs, 0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ReliefF(n_neighbors=10).fit(ds).weights_, np.mean(refs, 0), rtol=0, atol=1e-9)   # one sum, eq. (5)


@pytest.mark.parametrize("seed", range(4))
def test_kernel_matches_naive(seed):
    X, y, nominal = random_problem(seed, n=35, n_classes=2 + seed % 3)
    for wbd in (False, True):
        np.testing.assert_allclose(relieff_weights(X, y, nominal, k=4, weight_by_distance=wbd),
                                   naive_relieff(X, y, nominal, k=4, weight_by_distance=wbd), atol=1e-12)


def test_multilabel_fast_path_matches_loop():
    X, _, nominal = random_problem(9, n=40)
    rng = np.random.default_rng(9)
    Y = (rng.random((40, 4)) < 0.3).astype(np.uint8); Y[:, 3] = 0          # a label nobody has
    np.testing.assert_allclose(relieff_weights(X, Y, nominal, k=5), naive_relieff_br(X, Y, nominal, k=5), atol=1e-12)


def test_thread_count_does_not_change_result():
    X, y, nominal = random_problem(4, n=100)
    a = ReliefF(nominal=nominal, n_jobs=1).fit(X, y).weights_
    b = ReliefF(nominal=nominal, n_jobs=2).fit(X, y).weights_
    np.testing.assert_array_equal(a, b)


def test_irrelevant_feature_weights_and_interaction():
    "An XOR of two features is found by ReliefF (univariate filters score both ~0)."
    rng = np.random.default_rng(0)
    X = rng.random((300, 6)); y = ((X[:, 1] > 0.5) ^ (X[:, 4] > 0.5)).astype(int)
    r = ReliefF().fit(X, y)
    assert set(r.ranking_[:2]) == {1, 4}


def test_sampling_and_k_larger_than_pool():
    X, y, nominal = random_problem(1, n=30)
    r = ReliefF(n_neighbors=100, nominal=nominal).fit(X, y)      # k ≥ N: every pool member is used
    np.testing.assert_allclose(r.weights_, naive_relieff(X, y, nominal, k=100), atol=1e-12)
    s = ReliefF(n_samples=10, random_state=0, nominal=nominal).fit(X, y)
    assert np.isfinite(s.weights_).all()
    np.testing.assert_array_equal(s.weights_, ReliefF(n_samples=10, random_state=0, nominal=nominal).fit(X, y).weights_)


@pytest.mark.parametrize("kwargs,fit_args,match", [
    (dict(n_neighbors=0), None, "n_neighbors"),
    (dict(n_neighbors=-3), None, "n_neighbors"),
    (dict(n_samples=1000), None, "n_samples"),
    (dict(metric="euclid"), None, "metric"),
    (dict(store_label_weights="yes"), None, "store_label_weights"),
    ({}, "one_class", "single class"),
    ({}, "nan_y", "NaN"),
    ({}, "short_y", "entries"),
    ({}, "empty", "at least 2"),
])
def test_bad_input(kwargs, fit_args, match):
    X = np.random.default_rng(0).random((20, 3)); y = np.arange(20) % 2
    if fit_args == "one_class": y = np.zeros(20)
    if fit_args == "nan_y": y = np.where(np.arange(20) == 3, np.nan, y)
    if fit_args == "short_y": y = y[:5]
    if fit_args == "empty": X, y = X[:0], y[:0]
    with pytest.raises(ValueError, match=match):
        ReliefF(**kwargs).fit(X, y)


def test_constant_and_all_missing_column():
    rng = np.random.default_rng(3)
    X = rng.random((50, 3)); X[:, 1] = 7.0; X[:, 2] = np.nan
    y = (X[:, 0] > 0.5).astype(int)
    W = ReliefF().fit(X, y).weights_
    assert W[1] == 0.0                       # a constant feature never differs
    assert abs(W[2]) < 1e-12                 # all missing: diff 1 for hits and misses alike (binary: cancels)
    assert W[0] > 0
