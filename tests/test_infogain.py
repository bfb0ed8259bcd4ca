"""Information gain: parity with Weka's InfoGainAttributeEval (1e-9 through the Java API), the naive MDL
scan as oracle of the vectorised one, independent checks (scikit-learn's mutual information), bad input."""
import warnings
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.metrics import mutual_info_score

from relieffml.infogain import info_gain, info_gain_labels, mdl_cut_points, _naive_cut_points, InfoGain
from relieffml.transform import BinaryRelevanceRanker, LabelPowersetRanker, LCFS
from weka_harness import weka_scores, write_arff

IG = "weka.attributeSelection.InfoGainAttributeEval"


def label_powerset(Y):
    "Class codes of the distinct rows of Y."
    return np.unique(Y, axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def with_missing(X, frac, seed):
    "Copy of X with a fraction `frac` of its cells set to NaN."
    X = X.copy()
    X[np.random.default_rng(seed).random(X.shape) < frac] = np.nan
    return X


# name -> (data set, class from Y, fraction of missing values injected)
CASES = {
    "emotions-label0": ("emotions", lambda Y: Y[:, 0].astype(np.int64), 0.0),
    "emotions-label1-missing": ("emotions", lambda Y: Y[:, 1].astype(np.int64), 0.05),
    "emotions-lp3": ("emotions", lambda Y: label_powerset(Y[:, :3]), 0.0),
    "emotions-lp3-missing": ("emotions", lambda Y: label_powerset(Y[:, :3]), 0.05),
    "flags-label2": ("flags", lambda Y: Y[:, 2].astype(np.int64), 0.0),
    "flags-label0-missing": ("flags", lambda Y: Y[:, 0].astype(np.int64), 0.05),
    "flags-lp-missing": ("flags", label_powerset, 0.05),
    "yeast-label0": ("yeast", lambda Y: Y[:, 0].astype(np.int64), 0.0),
    "yeast-lp": ("yeast", label_powerset, 0.0),      # 198 classes: MDL accepts no cut
    "scene-label3-missing": ("scene", lambda Y: Y[:, 3].astype(np.int64), 0.05),
}


@pytest.fixture(scope="module")
def weka_cases(weka_jar, data_home, tmp_path_factory):
    "Every case written as ARFF and scored by Weka in one JVM: name -> (X, y, dataset, Weka scores)."
    from relieffml.data import load_dataset
    tmp = tmp_path_factory.mktemp("infogain")
    cache, cases, paths = {}, {}, []
    for i, (name, (ds_name, make_y, frac)) in enumerate(CASES.items()):
        ds = cache.setdefault(ds_name, load_dataset(ds_name, data_home))
        X = with_missing(ds.X, frac, i) if frac else ds.X
        y = make_y(ds.Y)
        path = write_arff(tmp / f"{name}.arff", X, y, ds.nominal, ds.categories,
                          class_values=[f"c{c}" for c in range(y.max() + 1)])
        cases[name] = (X, y, ds); paths.append(path)
    scores = weka_scores(weka_jar, paths, IG, "", tmp)
    return {name: (*cases[name], w) for name, w in zip(CASES, scores)}


@pytest.mark.weka
@pytest.mark.data
@pytest.mark.parametrize("case", list(CASES))
def test_info_gain_equals_weka(weka_cases, case):
    X, y, ds, w = weka_cases[case]
    ours = info_gain(X, y, ds.nominal, ds.n_values)
    np.testing.assert_allclose(ours, w, rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_estimator_equals_weka(weka_cases):
    "The estimator with class names (not codes) and the dataset's nominal mask gives Weka's scores."
    X, y, ds, w = weka_cases["flags-lp-missing"]
    names = np.array([f"set{c:03d}" for c in y])
    est = InfoGain(nominal=ds.nominal).fit(X, names)
    np.testing.assert_allclose(est.weights_, w, rtol=0, atol=1e-9)
    test = InfoGain(nominal=ds.nominal, n_features_to_select=3).fit(X, names)
    assert set(test.get_support(indices=True)) == set(np.argsort(-w, kind="mergesort")[:3])


def random_problem(seed):
    "A small problem full of ties, missing values, constant / all-missing columns, unused classes."
    rng = np.random.default_rng(seed)
    n, C = int(rng.integers(3, 60)), int(rng.integers(2, 6))
    y = rng.integers(0, C, n)
    cols, nominal, cats = [], [], []
    for f in range(6):
        kind = f % 3
        if kind == 0:            # numeric, few distinct values, related to the class
            x = np.round(y + rng.normal(0, rng.uniform(0.2, 2), n), int(rng.integers(0, 2)))
        elif kind == 1:          # numeric, continuous
            x = rng.normal(size=n) + (y == 0) * rng.uniform(0, 3)
        else:                    # nominal with a declared but unused value
            x = ((y + rng.integers(0, 2, n)) % 3).astype(float)
        x[rng.random(n) < rng.uniform(0, 0.4)] = np.nan
        cols.append(x); nominal.append(kind == 2); cats.append(["a", "b", "c", "never"] if kind == 2 else None)
    cols.append(np.full(n, 1.5)); nominal.append(False); cats.append(None)      # constant
    cols.append(np.full(n, np.nan)); nominal.append(False); cats.append(None)   # all missing
    cols.append(np.full(n, np.nan)); nominal.append(True); cats.append(["a", "b"])
    return np.column_stack(cols), y, np.array(nominal), cats, C + int(rng.integers(0, 2))


@pytest.mark.weka
def test_random_problems_equal_weka(weka_jar, tmp_path):
    "Tie-heavy random problems (missing values everywhere, unused classes and values) against Weka."
    probs = [random_problem(s) for s in range(40)]
    paths = [write_arff(tmp_path / f"r{s}.arff", X, y, nom, cats, class_values=[f"c{c}" for c in range(C)])
             for s, (X, y, nom, cats, C) in enumerate(probs)]
    for (X, y, nom, cats, C), w in zip(probs, weka_scores(weka_jar, paths, IG, "", tmp_path)):
        nv = [len(c) if c else 0 for c in cats]
        np.testing.assert_allclose(info_gain(X, y, nom, nv, n_classes=C), w, rtol=0, atol=1e-9)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 120), st.integers(2, 5), st.integers(1, 15))
def test_vectorised_cuts_equal_naive(seed, n, C, levels):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, C, n)
    x = np.floor(rng.integers(0, levels, n) + 2 * y * rng.random()).astype(float)
    x[rng.random(n) < 0.1] = np.nan
    np.testing.assert_array_equal(mdl_cut_points(x, y, C), _naive_cut_points(x, y, C))


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 80))
def test_nominal_gain_is_mutual_information(seed, n):
    "Without missing values, IG of a nominal feature = mutual information in bits (scikit-learn)."
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n); x = (y + rng.integers(0, 3, n) * rng.integers(0, 2)) % 4
    ours = info_gain(x[:, None].astype(float), y, [True])[0]
    assert abs(ours - mutual_info_score(x, y) / np.log(2)) < 1e-12


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_gain_does_not_depend_on_instance_order(seed):
    X, y, nom, cats, C = random_problem(seed)
    p = np.random.default_rng(seed).permutation(len(y))
    np.testing.assert_array_equal(info_gain(X, y, nom, n_classes=C), info_gain(X[p], y[p], nom, n_classes=C))


def test_hand_computed():
    x = np.arange(1.0, 9.0); y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert mdl_cut_points(x, y, 2).tolist() == [4.5]
    assert mdl_cut_points(x, np.array([0, 1] * 4), 2).tolist() == []
    # two instances, two classes: one boundary, gain 1 > (log2 1 + log2 7 − 2)/2 ≈ 0.40: accepted
    assert mdl_cut_points(np.array([0.0, 1.0]), np.array([0, 1]), 2).tolist() == [0.5]
    X = np.c_[x, np.r_[x[:7], np.nan], np.full(8, np.nan), np.ones(8)]
    g = info_gain(X, y, [False, False, False, False])
    p = np.array([4 + 4 / 7, 3 + 3 / 7]) / 8           # bins after merging the missing instance (class 1)
    h_bin0 = -(4 / (4 + 4 / 7) * np.log2(4 / (4 + 4 / 7)) + (4 / 7) / (4 + 4 / 7) * np.log2((4 / 7) / (4 + 4 / 7)))
    np.testing.assert_allclose(g, [1.0, 1 - p[0] * h_bin0, 0.0, 0.0], atol=1e-12)


def test_many_classes_no_overflow_warning():
    "3^k overflows beyond ~646 classes; like Java the criterion becomes +inf and rejects, silently."
    y = np.arange(1400) % 700
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mdl_cut_points(y.astype(float), y, 700).size == 0


def test_bad_input():
    X = np.random.default_rng(0).random((6, 2)); y = np.array([0, 1, 0, 1, 0, 1])
    with pytest.raises(ValueError, match="y must hold integer class codes"): info_gain(X, y.astype(float), [False, False])
    with pytest.raises(ValueError, match="y must hold integer class codes"): info_gain(X, y - 1, [False, False])
    with pytest.raises(ValueError, match="y must be 1-D"): info_gain(X, y[:5], [False, False])
    with pytest.raises(ValueError, match="nominal must be a bool mask"): info_gain(X, y, [False])
    with pytest.raises(ValueError, match="X must be 2-D"): info_gain(X[:, 0], y, [False])
    with pytest.raises(ValueError, match="n_classes"): info_gain(X, y, [False, False], n_classes=1)
    with pytest.raises(ValueError, match="BinaryRelevanceRanker"): InfoGain().fit(X, np.c_[y, y])
    with pytest.raises(ValueError, match="NaN"): InfoGain().fit(X, np.where(y == 1, np.nan, 0.0))


def extreme_problem(seed=0, n=120):
    "A feature in (−1, 1) with three labels cut near ±0.85 and 0 (near the ends of the column), and a noise feature."
    rng = np.random.default_rng(seed)
    u = rng.uniform(-1, 1, n)
    Y = np.c_[u > 0.85, u < -0.9, (u > 0) ^ (rng.random(n) < 0.1)].astype(np.int64)
    return np.c_[u, rng.random(n)], Y


@pytest.mark.parametrize("make", [
    lambda: InfoGain(), lambda: BinaryRelevanceRanker(), lambda: LabelPowersetRanker(),
    lambda: LCFS(random_state=0, n_new_labels=1)], ids=["InfoGain", "BR", "LP", "LCFS"])
def test_huge_column_scores_as_scaled_down(make):
    "Cuts between two values beyond half the largest double: (a+b)/2 overflowed to inf, one bin, weight 0."
    X, Y = extreme_problem()
    huge = X.copy(); huge[:, 0] *= 1.7e308                 # spans ±1.7e308
    small = huge.copy(); small[:, 0] *= 2.0**-1000          # exact scaling, values stay normal (~1.6e7)
    y = Y[:, 0] if make().__class__ is InfoGain else Y
    w_huge, w_small = make().fit(huge, y).weights_, make().fit(small, y).weights_
    assert w_small[0] > 0.05
    np.testing.assert_array_equal(w_huge, w_small)


def test_huge_and_tiny_cut_points_scale_exactly():
    "Cut points scale with the column, also where (a+b)/2 overflows or (subnormal, adjacent values) rounds onto b."
    X, Y = extreme_problem()
    for j in range(Y.shape[1]):
        c = mdl_cut_points(X[:, 0] * 2.0**20, Y[:, j], 2)
        assert c.size and np.isfinite(c).all()
        for s in (2.0**1004, -(2.0**1004)):                # the column spans ±2**1024 (±1.8e308)
            c_s = mdl_cut_points(X[:, 0] * 2.0**20 * s, Y[:, j], 2)
            np.testing.assert_array_equal(np.sort(c * s), c_s)
    k = np.round(X[:, 0] * 20)                              # integers −20..20; times 2**-1074 = 5e-324 they are subnormal
    for j in range(Y.shape[1]):
        g = info_gain(k[:, None], Y[:, j], [False])
        np.testing.assert_array_equal(info_gain(k[:, None] * 2.0**-1074, Y[:, j], [False]), g)
    # 0..7 times 5e-324, classes change between 3 and 4: (3 + 4)/2 · 5e-324 rounds to 4 · 5e-324 (ties to even)
    x = np.arange(8.0) * 2.0**-1074; y = np.array([0, 0, 0, 0, 1, 1, 1, 1])
    assert mdl_cut_points(x, y, 2).tolist() == [3 * 2.0**-1074]
    assert info_gain(x[:, None], y, [False])[0] == pytest.approx(1.0, abs=1e-12)   # was 0.55: 4·5e-324 binned low


def test_extreme_finite_values_no_nan_no_warning():
    "Columns of ±max double, ±1e308 and subnormals: finite gains, no RuntimeWarning, as the unit-scaled column."
    X, Y = extreme_problem()
    u = X[:, 0]; big = np.finfo(np.float64).max
    cols = np.c_[u, u * big, u * 1e308, np.where(u > 0.85, big, u), np.where(u < -0.9, -big, u), u * 1e-308]
    for j in range(Y.shape[1]):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            g = info_gain(cols, Y[:, j], np.zeros(cols.shape[1], bool))
        assert np.isfinite(g).all()
        np.testing.assert_allclose(g, g[0], rtol=0, atol=1e-12)


def test_unsigned_class_codes():
    "uint8/uint64 codes (e.g. a column of a Y matrix) raised OverflowError from y.max(initial=-1)."
    X, Y = extreme_problem()
    g = info_gain(X, Y[:, 2], [False, False])
    for dt in (np.uint8, np.uint64):
        np.testing.assert_array_equal(info_gain(X, Y[:, 2].astype(dt), [False, False]), g)


def test_huge_nominal_codes():
    "A nominal code of 1e308 (accepted by the estimators' check) overflowed the int64 cast, counted as missing: gain 0."
    X, Y = extreme_problem()
    codes = (X[:, 0] > 0).astype(float) + (X[:, 0] > 0.85)          # 0, 1, 2
    g = InfoGain(nominal=[0]).fit(codes[:, None], Y[:, 2]).weights_
    assert g[0] > 0.3
    for big in (1e308, 1e9, 2.0**63):
        huge = np.where(codes == 2, big, codes)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            np.testing.assert_array_equal(InfoGain(nominal=[0]).fit(huge[:, None], Y[:, 2]).weights_, g)
            np.testing.assert_array_equal(info_gain(huge[:, None], Y[:, 2], [True]), g)


def _mixed_problem(rng, n, D):
    "Numeric and nominal features (some codes huge or absent), missing values, an all-missing column."
    X = rng.integers(0, int(rng.integers(1, 6)), (n, D)).astype(float)
    X[:, ::2] += rng.normal(size=(n, (D + 1) // 2)).round(int(rng.integers(0, 3)))
    nominal = np.zeros(D, bool)
    nominal[1::2] = True
    X[rng.random((n, D)) < rng.choice([0, .1, .5])] = np.nan
    if rng.random() < .3: X[:, -1] = np.nan
    if D > 1 and rng.random() < .2: X[:, 1] *= 1e300           # huge codes: renumbered column by column
    return X, nominal, rng.integers(0, 6, D)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(1, 70), st.integers(1, 7), st.integers(1, 6))
def test_all_labels_at_once_equal_label_by_label(seed, n, D, Q):
    "info_gain_labels gives each label's info_gain to the bit, constant labels (one class) included."
    rng = np.random.default_rng(seed)
    X, nominal, n_values = _mixed_problem(rng, n, D)
    Y = (rng.random((n, Q)) < rng.random(Q)).astype(np.uint8)
    Y[:, 0] = rng.integers(0, 2)                                 # a constant label
    each = [info_gain(X, np.unique(y, return_inverse=True)[1], nominal, n_values) for y in Y.T]
    assert np.stack(each).tobytes() == info_gain_labels(X, Y, nominal, n_values).tobytes()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 150), st.integers(2, 40))
def test_kernel_cuts_with_absent_classes_equal_naive(seed, n, C):
    "The compiled scan skips classes absent from a slice; the naive scan sums their zeros: the same cuts."
    rng = np.random.default_rng(seed)
    y = rng.choice(rng.integers(0, C, 5), n)                    # at most 5 of C classes occur
    x = np.floor(rng.integers(0, 12, n) + 3 * (y % 3) * rng.random()).astype(float)
    np.testing.assert_array_equal(mdl_cut_points(x, y, C), _naive_cut_points(x, y, C))
