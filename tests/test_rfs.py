"""RFS and the stacking baselines: the ReliefF scores of every transformed problem against naive loops and Weka;
parent sets by hand; the two-level scheme seen through spy classifiers; DBR, CPS, BR+ on hand-checkable
toys; scikit-learn integration (clone, pipelines, cross-validation with a custom scorer); bad input."""
import math
import warnings
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression, SGDClassifier
from sklearn.metrics import make_scorer
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score
from sklearn.impute import SimpleImputer
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC
from weka_harness import weka_scores, write_arff
from relieffml.rfs import (RFSClassifier, DependentBinaryRelevance, CorrelationPrunedStacking, BRPlus,
                           ConstantLabelWarning, rfs_weights, rfs_parents, keep_count, top_indices, phi_matrix,
                           transform_label, STRATEGIES)
from naive import naive_rfs_weights
from relieffml.relieff import ReliefF

try:
    from relieffml.metrics import hamming_loss
except ImportError:                                   # pragma: no cover
    from sklearn.metrics import hamming_loss


def problem(seed, n=50, d=5, q=4, missing=0.05, decimals=None, nominal=True):
    "Numeric and nominal features, missing values, a duplicate row; labels partly tied to the features."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)) if decimals is None else np.round(rng.random((n, d)), decimals)
    nom = np.zeros(d, bool)
    if nominal: nom[1] = True; X[:, 1] = rng.integers(0, 3, n)
    X[4] = X[1]
    Y = (rng.random((n, q)) < 0.4).astype(np.uint8)
    Y[:, 0] = (X[:, 0] > 0.5) | Y[:, 0] * (rng.random(n) < 0.2)
    Y[4] = Y[1]
    X[rng.random(X.shape) < missing] = np.nan
    return X, Y, nom


def as_lists(parents):
    return [(p['features'].tolist(), p['labels'].tolist()) for p in parents]


# ---------------------------------------------------------------------------------------------- scores
@pytest.mark.parametrize("seed,decimals,k,n", [(0, None, 10, 30), (1, 2, 3, 25), (3, None, 1, 30), (4, None, 40, 30)])
def test_scores_equal_naive_loops(seed, decimals, k, n):
    X, Y, nom = problem(seed, n=n, d=3, q=3, decimals=decimals)
    Y[:, 2] = 0                                             # a label without misses: hits only
    for a, b in zip(rfs_weights(X, Y, nom, k=k), naive_rfs_weights(X, Y, nom, k=k)):
        np.testing.assert_allclose(a, b, rtol=0, atol=1e-12)


def test_scores_are_relieff_on_the_transformed_problem():
    X, Y, nom = problem(6, n=60, q=3)
    Wx, Wy = rfs_weights(X, Y, nom, k=7)
    for j in range(3):
        Z = transform_label(X, Y, j)
        ref = ReliefF(n_neighbors=7, nominal=np.r_[nom, True, True]).fit(Z, Y[:, j]).weights_
        np.testing.assert_array_equal(np.r_[Wx[j], np.delete(Wy[j], j)], ref)


def test_hand_computed_scores():
    # x = (0, .2, .8, 1), y0 = (0,0,1,1), y1 = (0,1,1,0), k = 1 (worked out in the chapter):
    # for y0, x differs by .2 from every hit and by 1, .6, .6, 1 from the misses; y1 differs from every hit only.
    X = np.array([[0.0], [0.2], [0.8], [1.0]]); Y = np.array([[0, 0], [0, 1], [1, 1], [1, 0]], np.uint8)
    Wx, Wy = rfs_weights(X, Y, [False], k=1)
    np.testing.assert_allclose(Wx, [[0.6], [-0.6]], atol=1e-12)
    np.testing.assert_allclose(Wy[[0, 1], [1, 0]], [-1.0, -1.0], atol=1e-12)
    assert np.isnan(np.diag(Wy)).all()


@pytest.mark.weka
def test_scores_equal_weka_on_each_transformed_problem(weka_jar, tmp_path):
    X, Y, nom = problem(11, n=60, d=4, q=4, decimals=2)
    cats = [[str(v) for v in range(3)] if nom[f] else None for f in range(4)]
    n_values = np.array([3 if nom[f] else 0 for f in range(4)])
    paths = []
    for j in range(4):
        Z = transform_label(X, Y, j)
        nomZ = np.r_[nom, np.ones(3, bool)]
        path = write_arff(tmp_path / f"s{j}.arff", Z, Y[:, j].astype(int), nominal=nomZ,
                          categories=cats + [["0", "1"]] * 3, class_values=["0", "1"])
        paths.append(path)
    ref = weka_scores(weka_jar, paths, "weka.attributeSelection.ReliefFAttributeEval", "-M -1 -K 10", tmp_path)
    Wx, Wy = rfs_weights(X, Y, nom, n_values, k=10)
    for j in range(4):
        ours = np.r_[Wx[j], np.delete(Wy[j], j)]
        np.testing.assert_allclose(ours, ref[j], rtol=0, atol=1e-9)


@pytest.mark.data
@pytest.mark.weka
def test_emotions_scores_equal_weka(data_home, weka_jar, tmp_path):
    data = pytest.importorskip("relieffml.data")
    ds = data.load_dataset("emotions", data_home=data_home)
    X, Y = ds.X[:200], ds.Y[:200]
    Q = Y.shape[1]
    paths = [write_arff(tmp_path / f"e{j}.arff", transform_label(X, Y, j), Y[:, j].astype(int),
                        nominal=np.r_[ds.nominal, np.ones(Q - 1, bool)], class_values=["0", "1"],
                        categories=[None] * X.shape[1] + [["0", "1"]] * (Q - 1)) for j in range(Q)]
    ref = weka_scores(weka_jar, paths, "weka.attributeSelection.ReliefFAttributeEval", "-M -1 -K 10", tmp_path)
    Wx, Wy = rfs_weights(X, Y, ds.nominal, ds.n_values)
    for j in range(Q):
        np.testing.assert_allclose(np.r_[Wx[j], np.delete(Wy[j], j)], ref[j], rtol=0, atol=1e-9)
    m = RFSClassifier().fit(ds)
    assert all(len(p['labels']) == 4 for p in m.parents_)          # floor(0.7 * 6) = 4 of 5
    assert m.label_names_ == list(ds.label_names)


# ------------------------------------------------------------------------------------------- selection
def test_keep_count_and_ties():
    assert [keep_count(0.7, 10, 10), keep_count(0.3, 10, 10), keep_count(0.7, 3, 2), keep_count(1.0, 6, 5),
            keep_count(0.1, 5, 4), keep_count(0.29, 7, 6)] == [7, 3, 2, 5, 0, 2]
    assert top_indices([1.0, 3.0, 3.0, 3.0, 0.0], 2).tolist() == [1, 2]
    assert top_indices([np.nan, 1.0, 2.0], 2).tolist() == [1, 2]


def test_rfs_parents_by_hand():
    # D = 3 features, Q = 4 labels, t = 0.5: rfs keeps 3 features + floor(2) = 2 labels;
    # rfs-s floor(1.5) = 1 feature + 2 labels; rfs-j floor(3.5) = 3 of the 6 joint inputs.
    F = np.array([[0.1, 0.3, 0.2], [0.0, 0.0, 0.0], [0.5, -0.1, 0.5], [0.2, 0.2, 0.9]])
    L = np.array([[np.nan, 0.4, 0.25, 0.05],
                  [0.1, np.nan, 0.1, 0.1],           # all tied: labels 0 and 2
                  [0.6, 0.0, np.nan, 0.7],
                  [-0.2, -0.1, -0.3, np.nan]])
    assert as_lists(rfs_parents(F, L, 'rfs', 0.5)) == [([0, 1, 2], [1, 2]), ([0, 1, 2], [0, 2]),
                                                      ([0, 1, 2], [0, 3]), ([0, 1, 2], [0, 1])]
    assert as_lists(rfs_parents(F, L, 'rfs-s', 0.5)) == [([1], [1, 2]), ([0], [0, 2]), ([0], [0, 3]), ([2], [0, 1])]
    # joint lists [x0 x1 x2 | others]: label 0: .1 .3 .2 | .4 .25 .05 -> x1, y1, y2
    # label 1: 0 0 0 | .1 .1 .1 -> y0, y2, y3 ; label 2: .5 -.1 .5 | .6 0 .7 -> y3, y0, then x0 (tie with x2)
    # label 3: .2 .2 .9 | -.2 -.1 -.3 -> x2, x0, x1
    assert as_lists(rfs_parents(F, L, 'rfs-j', 0.5)) == [([1], [1, 2]), ([], [0, 2, 3]), ([0], [0, 3]), ([0, 1, 2], [])]
    assert as_lists(rfs_parents(F, L, 'rfs', 1.0))[0] == ([0, 1, 2], [1, 2, 3])
    assert [len(p['features']) + len(p['labels']) for p in rfs_parents(F, L, 'rfs-j', 1.0)] == [6] * 4
    with pytest.raises(ValueError, match="strategy"):
        rfs_parents(F, L, 'joint', 0.5)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(1, 6), st.floats(0.01, 1.0), st.sampled_from(STRATEGIES), st.integers(0, 10**6))
def test_parent_counts_and_top_property(D, Q, t, strategy, seed):
    rng = np.random.default_rng(seed)
    F = np.round(rng.normal(size=(Q, D)), 1); L = np.round(rng.normal(size=(Q, Q)), 1); np.fill_diagonal(L, np.nan)
    cnt = lambda n, cand: min(math.floor(t * n + 1e-9), cand)
    for j, p in enumerate(rfs_parents(F, L, strategy, t)):
        f, l = p['features'], p['labels']
        assert j not in l and np.all(np.diff(f) > 0) and np.all(np.diff(l) > 0)
        if strategy == 'rfs': assert len(f) == D and len(l) == cnt(Q, Q - 1)
        if strategy == 'rfs-s': assert len(f) == cnt(D, D) and len(l) == cnt(Q, Q - 1)
        if strategy == 'rfs-j': assert len(f) + len(l) == cnt(D + Q, D + Q - 1)
        # every kept candidate scores at least as high as every pruned one of the same ranking
        others = [o for o in range(Q) if o != j]
        kept_l, drop_l = L[j, l], L[j, [o for o in others if o not in l]]
        if strategy == 'rfs-j':
            kept = np.r_[F[j, f], kept_l]; drop = np.r_[F[j, np.setdiff1d(np.arange(D), f)], drop_l]
        else:
            kept, drop = kept_l, drop_l
        if len(kept) and len(drop): assert kept.min() >= drop.max()


@pytest.mark.parametrize("strategy,t,sizes", [("rfs", 0.5, (5, 2)), ("rfs-s", 0.5, (2, 2)), ("rfs-s", 0.7, (3, 2)),
                                              ("rfs", 1.0, (5, 3)), ("rfs-j", 0.5, 4), ("rfs-j", 1.0, 8)])
def test_estimator_parent_counts(strategy, t, sizes):
    X, Y, nom = problem(5, n=60, d=5, q=4, missing=0)
    m = RFSClassifier(strategy=strategy, t=t, nominal=nom).fit(X, Y)
    got = [(len(p['features']), len(p['labels'])) for p in m.parents_]
    if isinstance(sizes, tuple): assert set(got) == {sizes}
    else: assert {a + b for a, b in got} == {sizes}
    assert as_lists(m.parents_) == as_lists(rfs_parents(*naive_rfs_weights(X, Y, nom), strategy, t))
    assert m.feature_scores_.shape == (4, 5) and m.label_scores_.shape == (4, 4)


def test_and_toy_keeps_the_right_label():
    import itertools
    base = np.array(list(itertools.product([0, 1], repeat=3)) * 2, float)          # x0, y0, y1
    X = np.c_[base[:, 0], np.round(np.random.default_rng(1).random(16), 2)]
    Y = np.c_[base[:, 1], base[:, 2], base[:, 1] * base[:, 0]].astype(np.uint8)   # y2 = y0 AND x0
    m = RFSClassifier(t=0.5, n_neighbors=3).fit(X, Y)
    assert m.parents_[2]['labels'].tolist() == [0] and m.parents_[0]['labels'].tolist() == [2]
    assert m.label_scores_[2, 0] > 0 > m.label_scores_[2, 1]


# ---------------------------------------------------------------------------- the two-level scheme
def parity(X):
    "The 'parity' rule: round(7·x0) mod 2 (0, 1, 0, 1, ... on x0 = 0, 1, 2, ...; mixed on [0, 1))."
    return np.round(np.asarray(X)[:, 0] * 7).astype(int) % 2


class Spy(ClassifierMixin, BaseEstimator):
    "Records what it is fitted on and asked about; predicts by `rule`: 'parity' of column 0, 'ones' or 'zeros'."
    def __init__(self, rule="parity"):
        self.rule = rule

    def fit(self, X, y):
        self.fit_X_, self.fit_y_, self.classes_, self.seen_ = np.array(X), np.array(y), np.array([0, 1]), []
        return self

    def predict(self, X):
        self.seen_.append(np.array(X))
        if self.rule == "ones": return np.ones(len(X), int)
        if self.rule == "zeros": return np.zeros(len(X), int)
        return parity(X)


XT = np.arange(6.0)[:, None]
YT = np.array([[1, 0, 1], [1, 0, 0], [1, 1, 1], [0, 0, 1], [0, 0, 0], [1, 1, 0]], np.uint8)   # frequencies 4, 2, 3


def test_dbr_trains_on_true_labels_and_predicts_on_br_predictions():
    m = DependentBinaryRelevance(base_estimator=Spy(), meta_estimator=Spy("ones")).fit(XT, YT)
    for j in range(3):
        others = [l for l in range(3) if l != j]
        np.testing.assert_array_equal(m.base_estimators_[j].fit_X_, XT)
        np.testing.assert_array_equal(m.meta_estimators_[j].fit_X_, np.c_[XT, YT[:, others]])
        np.testing.assert_array_equal(m.meta_estimators_[j].fit_y_, YT[:, j])
    assert (m.predict(XT) == 1).all() and m.predict(XT).dtype == np.uint8
    L0 = np.arange(6) % 2                                          # what every base Spy predicts
    for j in range(3):
        np.testing.assert_array_equal(m.meta_estimators_[j].seen_[-1], np.c_[XT, L0, L0])
    assert m.label_dependence_.tolist() == [[0, 1, 1], [1, 0, 1], [1, 1, 0]]


def test_brplus_static_order_updates_and_nu_equals_dbr():
    m = BRPlus(base_estimator=Spy("zeros"), meta_estimator=Spy("ones")).fit(XT, YT)
    assert m.order_.tolist() == [1, 2, 0]                          # least frequent first
    m.predict(XT)
    seen = {j: m.meta_estimators_[j].seen_[-1][:, 1:] for j in range(3)}
    # label 1 first: sees the base values of labels 0, 2; label 2 then sees label 1 updated to 1;
    # label 0 last sees labels 1 and 2 both updated
    assert (seen[1] == [0, 0]).all() and (seen[2] == [0, 1]).all() and (seen[0] == [1, 1]).all()
    nu = BRPlus(update="nu", base_estimator=Spy("zeros"), meta_estimator=Spy("ones")).fit(XT, YT)
    nu.predict(XT)
    assert all((nu.meta_estimators_[j].seen_[-1][:, 1:] == 0).all() for j in range(3))
    X, Y, _ = problem(3, missing=0)
    a = BRPlus(update="nu", random_state=0).fit(X, Y).predict(X)
    b = DependentBinaryRelevance(random_state=0).fit(X, Y).predict(X)
    np.testing.assert_array_equal(a, b)


def test_rfs_meta_level_inputs():
    X, Y, nom = problem(8, missing=0)
    m = RFSClassifier(strategy="rfs-s", t=0.5, base_estimator=Spy(), meta_estimator=Spy("ones"), nominal=nom).fit(X, Y)
    L0 = parity(X)                                                 # every base Spy predicts this
    assert 0 < L0.mean() < 1
    m.predict(X)
    for j, p in enumerate(m.parents_):
        est = m.meta_estimators_[j]
        np.testing.assert_array_equal(est.fit_X_, np.c_[X[:, p['features']], Y[:, p['labels']]])
        np.testing.assert_array_equal(est.seen_[-1], np.c_[X[:, p['features']], np.tile(L0[:, None], len(p['labels']))])


def test_cps_phi_and_parents_by_hand():
    Y = np.array([[1, 1, 0, 1, 0], [1, 1, 0, 1, 0], [1, 1, 0, 0, 0], [1, 0, 0, 0, 0],
                  [0, 0, 1, 1, 0], [0, 0, 1, 1, 0], [0, 0, 1, 0, 0], [0, 0, 1, 0, 0]], np.uint8)
    P = phi_matrix(Y)
    # y0 vs y1: n11 = 3, n0 = 4, n1 = 3: (8*3 - 12) / sqrt(4*4*3*5); y3 vs y1: (8*2 - 12) / sqrt(4*4*3*5)
    np.testing.assert_allclose(P[0], [1, 12 / np.sqrt(240), -1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(P[3, 1], 4 / np.sqrt(240), atol=1e-12)
    np.testing.assert_allclose(P[:4, :4], np.corrcoef(Y[:, :4].T), atol=1e-12)
    assert (P[4] == 0).all() and (P[:, 4] == 0).all()
    X = np.arange(16.0).reshape(8, 2)
    with pytest.warns(ConstantLabelWarning, match="'y4'"):
        m = CorrelationPrunedStacking(t=0.5, base_estimator=Spy(), meta_estimator=Spy()).fit(X, Y)
    # label 1: |phi| with labels 0 and 2 is 12/sqrt(240) for both (y2 = 1 - y0); label 3: 4/sqrt(240) with
    # label 1, then a three-way tie at 0 (labels 0, 2, 4) that goes to label 0
    assert [p['labels'].tolist() for p in m.parents_] == [[1, 2], [0, 2], [0, 1], [0, 1], []]
    assert all(p['features'].tolist() == [0, 1] for p in m.parents_[:4])
    np.testing.assert_array_equal(m.meta_estimators_[0].fit_X_, np.c_[X, Y[:, [1, 2]]])


# --------------------------------------------------------------------------- constant labels, outputs
def test_constant_label_is_predicted_as_constant_with_warning():
    X, Y, nom = problem(9, missing=0)
    Y[:, 1] = 1; Y[:, 3] = 0
    with pytest.warns(ConstantLabelWarning, match=r"'y1' \(always 1\), 'y3' \(always 0\)"):
        m = RFSClassifier(nominal=nom).fit(X, Y)
    P = m.predict(X)
    assert (P[:, 1] == 1).all() and (P[:, 3] == 0).all()
    assert m.parents_[1]['labels'].size == 0 and m.parents_[1]['features'].size == 0
    D = m.decision_function(X)
    assert (D[:, 1] == 1).all() and (D[:, 3] == -1).all()


def test_constant_label_in_cross_validation_folds():
    X, Y, nom = problem(10, n=40, missing=0)
    Y[:, 2] = 0; Y[:2, 2] = 1                                     # rare: absent from the training folds that hold out rows 0-1
    scorer = make_scorer(hamming_loss, greater_is_better=False)
    with pytest.warns(ConstantLabelWarning):
        s = cross_val_score(RFSClassifier(), X, Y, cv=KFold(4), scoring=scorer)
    assert s.shape == (4,) and np.all(np.isfinite(s))


def test_empty_parent_set_uses_the_prior():
    X, Y, nom = problem(12, n=40, d=2, q=2, missing=0)
    m = RFSClassifier(strategy="rfs-s", t=0.3).fit(X, Y)           # floor(0.6) = 0 features, 0 labels
    assert all(p['features'].size == 0 and p['labels'].size == 0 for p in m.parents_)
    np.testing.assert_array_equal(m.predict(X), np.tile((Y.mean(0) > 0.5).astype(np.uint8), (40, 1)))


def test_predict_proba_and_decision_function_availability():
    X, Y, nom = problem(13, missing=0)
    svc = RFSClassifier().fit(X, Y)
    assert not hasattr(svc, "predict_proba") and svc.decision_function(X).shape == Y.shape
    lr = RFSClassifier(meta_estimator=LogisticRegression()).fit(X, Y)
    P = lr.predict_proba(X)
    assert P.shape == Y.shape and ((P >= 0) & (P <= 1)).all()
    np.testing.assert_array_equal(lr.predict(X), (lr.decision_function(X) > 0).astype(np.uint8))
    nb = DependentBinaryRelevance(meta_estimator=GaussianNB()).fit(X, Y)
    assert hasattr(nb, "predict_proba") and not hasattr(nb, "decision_function")


def test_pandas_names_and_plot():
    X, Y, nom = problem(14, missing=0)
    Xf = pd.DataFrame(X, columns=[f"f{i}" for i in range(5)]); Yf = pd.DataFrame(Y, columns=list("abcd"))
    m = RFSClassifier(strategy="rfs-j").fit(Xf, Yf)
    assert m.feature_names_in_.tolist() == list(Xf.columns) and m.label_names_ == list("abcd")
    names = m.parent_names("c")
    assert names["labels"] == [m.label_names_[l] for l in m.parents_[2]['labels']]
    assert names["features"] == [f"f{f}" for f in m.parents_[2]['features']]
    with pytest.raises(ValueError, match="'z' does not exist"):
        m.parent_names("z")
    for bad in (7, 4, -1, True, 1.0, None):                     # 4 labels: only 0..3 and the names
        with pytest.raises(ValueError, match="label must be a label name or an index in 0..3"):
            m.parent_names(bad)
    assert m.predict(Xf.iloc[:1]).shape == (1, 4)
    import matplotlib
    matplotlib.use("Agg")
    ax = m.plot_dependence()
    A = np.ma.filled(ax.images[0].get_array().astype(float), np.nan)
    np.testing.assert_array_equal(A, np.where(np.eye(4, dtype=bool), np.nan, m.label_dependence_))


# ---------------------------------------------------------------------------------- scikit-learn
@pytest.mark.parametrize("est", [RFSClassifier(strategy="rfs-s"), DependentBinaryRelevance(),
                                 CorrelationPrunedStacking(t=0.5), BRPlus()])
def test_pipeline_cross_validation_with_custom_scorer(est):
    X, Y, _ = problem(15, n=60, missing=0)
    scorer = make_scorer(hamming_loss, greater_is_better=False)
    s = cross_val_score(make_pipeline(StandardScaler(), est), X, Y, cv=KFold(3, shuffle=True, random_state=0), scoring=scorer)
    assert s.shape == (3,) and np.all((s <= 0) & (s >= -1))
    c = clone(est)
    assert c.get_params() == est.get_params() and not hasattr(c, "parents_")


def test_grid_search_over_t_and_nested_params():
    X, Y, _ = problem(16, n=60, missing=0)
    pipe = make_pipeline(StandardScaler(), RFSClassifier())
    gs = GridSearchCV(pipe, {"rfsclassifier__t": [0.3, 1.0], "rfsclassifier__meta_estimator": [LinearSVC(C=0.1)]},
                      cv=3, scoring=make_scorer(hamming_loss, greater_is_better=False)).fit(X, Y)
    assert gs.best_params_["rfsclassifier__t"] in (0.3, 1.0)
    assert gs.predict(X).shape == Y.shape
    assert RFSClassifier(base_estimator=LinearSVC()).set_params(base_estimator__C=2.0).base_estimator.C == 2.0


def test_determinism():
    X, Y, nom = problem(17, missing=0.05)
    Xc = np.nan_to_num(X)
    imputed = make_pipeline(SimpleImputer(), LinearSVC())             # ReliefF handles NaN, LinearSVC does not
    a = RFSClassifier(base_estimator=imputed, meta_estimator=imputed, nominal=nom).fit(X, Y)
    b = RFSClassifier(base_estimator=imputed, meta_estimator=imputed, nominal=nom, n_jobs=1).fit(X, Y)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))         # thread count does not change anything
    np.testing.assert_array_equal(a.feature_scores_, b.feature_scores_)
    assert as_lists(a.parents_) == as_lists(b.parents_)
    sgd = SGDClassifier(max_iter=20, tol=None)                         # stochastic: seeded through random_state
    p1 = RFSClassifier(base_estimator=sgd, meta_estimator=sgd, random_state=3).fit(Xc, Y).predict(Xc)
    p2 = RFSClassifier(base_estimator=sgd, meta_estimator=sgd, random_state=3).fit(Xc, Y).predict(Xc)
    np.testing.assert_array_equal(p1, p2)
    m = RFSClassifier(base_estimator=sgd, random_state=3).fit(Xc, Y)
    assert all(e.random_state == 3 for e in m.base_estimators_) and sgd.random_state is None


# ------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("params,match", [({"t": 0}, "'t' parameter"), ({"t": 1.01}, "'t' parameter"),
                                          ({"t": -0.5}, "'t' parameter"), ({"strategy": "RFS"}, "'strategy' parameter"),
                                          ({"n_neighbors": 0}, "'n_neighbors' parameter"),
                                          ({"base_estimator": object()}, "'base_estimator' parameter"),
                                          ({"meta_estimator": "svm"}, "'meta_estimator' parameter")])
def test_bad_parameters(params, match):
    X, Y, _ = problem(18, missing=0)
    with pytest.raises(ValueError, match=match):
        RFSClassifier(**params).fit(X, Y)


def test_bad_estimators_and_data():
    X, Y, _ = problem(19, missing=0)

    class FitOnly:
        def fit(self, X, y): return self
    for cls in (RFSClassifier, DependentBinaryRelevance, CorrelationPrunedStacking, BRPlus):
        with pytest.raises(ValueError, match="'base_estimator' parameter"):
            cls(base_estimator=FitOnly()).fit(X, Y)
    with pytest.raises(ValueError, match="'t' parameter"):
        CorrelationPrunedStacking(t=0).fit(X, Y)
    with pytest.raises(ValueError, match="'update' parameter"):
        BRPlus(update="dyn").fit(X, Y)
    with pytest.raises(ValueError, match="only 0 and 1"):
        RFSClassifier().fit(X, Y * 2)
    with pytest.raises(ValueError, match="rows but X has"):
        RFSClassifier().fit(X, Y[:-1])
    with pytest.raises(ValueError, match="requires y to be passed"):
        RFSClassifier().fit(X)
    m = RFSClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="is expecting 5 features"):
        m.predict(X[:, :4])
