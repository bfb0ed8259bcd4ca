"""RReliefF: Weka parity with a numeric class (Java API, 1e-9), naive equivalence and bad input."""
import numpy as np
import pytest
from weka_harness import weka_scores, write_arff
from relieffml.rrelieff import RReliefF, rrelieff_from_neighbors
from naive import naive_rrelieff

RELIEFF = "weka.attributeSelection.ReliefFAttributeEval"


def problem(seed, n=70, missing=0.1):
    rng = np.random.default_rng(seed)
    X = np.round(rng.random((n, 5)), 1)
    nominal = np.array([False, True, False, False, True])
    X[:, 1] = rng.integers(0, 3, n); X[:, 4] = rng.integers(0, 4, n)
    X[9] = X[2]
    X[rng.random(X.shape) < missing] = np.nan
    y = np.nan_to_num(X[:, 0]) + 0.5 * (np.nan_to_num(X[:, 1]) == 1) + 0.2 * rng.random(n)
    return X, y, nominal


@pytest.mark.weka
@pytest.mark.parametrize("seed,k,extra", [(0, 10, ""), (1, 4, ""), (2, 10, "-W -A 2")])
def test_weka_parity_numeric_class(weka_jar, tmp_path, seed, k, extra):
    X, y, nominal = problem(seed)
    cats = [[str(v) for v in range(3)] if f == 1 else [str(v) for v in range(4)] if f == 4 else None for f in range(5)]
    W = RReliefF(n_neighbors=k, nominal=nominal, weight_by_distance=bool(extra)).fit(X, y).weights_
    path = write_arff(tmp_path / "r.arff", X, y, nominal=nominal, categories=cats, class_values="numeric")
    ref = weka_scores(weka_jar, path, RELIEFF, f"-M -1 -K {k} {extra}", tmp_path)
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_weka_parity_numeric_class_mulan(weka_jar, data_home, tmp_path):
    "emotions' features, the number of labels of each instance as a numeric target."
    from relieffml.data import load_dataset
    ds = load_dataset("emotions", data_home=data_home)
    y = ds.Y.sum(1).astype(float)
    W = RReliefF().fit(ds.X, y).weights_
    path = write_arff(tmp_path / "e.arff", ds.X, y, class_values="numeric")
    ref = weka_scores(weka_jar, path, RELIEFF, "-M -1 -K 10", tmp_path)
    np.testing.assert_allclose(W, ref, rtol=0, atol=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_matches_naive(seed):
    X, y, nominal = problem(seed, n=30)
    yn = (y - y.min()) / (y.max() - y.min())
    np.testing.assert_allclose(RReliefF(n_neighbors=6, nominal=nominal).fit(X, y).weights_,
                               naive_rrelieff(X, lambda i, j: abs(yn[i] - yn[j]), nominal, k=6), atol=1e-12)


def test_constant_target_is_an_error():
    X, _, nominal = problem(0)
    with pytest.raises(ValueError, match="does not vary"):
        RReliefF(nominal=nominal).fit(X, np.full(len(X), 3.0))


def test_bad_target():
    X, y, _ = problem(0)
    with pytest.raises(ValueError, match="NaN"):
        RReliefF().fit(X, np.where(np.arange(len(y)) == 0, np.nan, y))
    with pytest.raises(ValueError, match="1-D"):
        RReliefF().fit(X, np.c_[y, y])
