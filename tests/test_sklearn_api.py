"""Every ranker as a scikit-learn citizen: check_estimator (with the checks that cannot apply documented),
Pipeline and GridSearchCV, pandas / sparse / MultiLabelDataset input, selection and bad input."""
import dataclasses
import warnings
import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.utils.multiclass import type_of_target
from sklearn.utils.estimator_checks import check_estimator
from relieffml.data import make_multilabel_relevance
from relieffml.reliefml import ReliefFML
from relieffml.rfml import RFML
from relieffml.relieff import ReliefF
from relieffml.rrelieff import RReliefF
from relieffml.lazy import MLkNN, BRkNN, DMLkNN, MLCWkNN
from relieffml.rfs import BRPlus, RFSClassifier
import relieffml.metrics as rm
from relieffml.metrics import hamming_loss

# Checks that cannot apply, and why:
NOT_APPLICABLE = {
    # SPEC §0: bad input raises ValueError; scikit-learn wants a TypeError for a dict inside X.
    "check_dtype_object",
    # relieffml needs the array itself (a dataset, pandas categories); the check passes an object whose
    # __array_function__ refuses every NumPy function.
    "check_transformer_data_not_an_array",
}
# RF-ML/RReliefF on the checks' blobs: the clusters are perfectly separated, so the target never varies
# among neighbours and RReliefF's estimate is undefined (SPEC §1: a ValueError, not NaN).
RREL_UNDEFINED = {"check_pipeline_consistency", "check_estimators_pickle", "check_transformer_general",
                  "check_transformer_preserve_dtypes"}


@pytest.mark.parametrize("est,allowed", [
    (ReliefFML(n_samples=None), NOT_APPLICABLE),
    (ReliefF(), NOT_APPLICABLE),
    (RFML(), NOT_APPLICABLE | RREL_UNDEFINED),
])
def test_check_estimator(est, allowed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, on_fail=None, on_skip=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed <= allowed, failed - allowed
    assert sum(r["status"] == "passed" for r in results) >= 35


@pytest.fixture(scope="module")
def ds():
    return make_multilabel_relevance(n_samples=200, n_features=12, n_labels=3, n_relevant=4, n_redundant=1, random_state=1)


@pytest.mark.parametrize("make", [lambda: ReliefFML(n_samples=None), lambda: RFML(), lambda: RFML(mutual=True), lambda: ReliefF()])
def test_input_forms_agree(ds, make):
    """numpy, pandas, sparse and MultiLabelDataset give the same weights - on data with missing values and
    zeros, so the sparse form stores explicit NaN and leaves zeros implicit (no fallback: every form is fitted)."""
    X = ds.X.copy(); X[::7, 3] = np.nan; X[::3, 5] = 0.0
    ds = dataclasses.replace(ds, X=X)
    w_np = make().fit(ds.X, ds.Y).weights_
    w_ds = make().fit(ds).weights_
    Xsp = sp.csr_matrix(ds.X)
    assert np.isnan(Xsp.data).sum() == np.isnan(X).sum() and Xsp.nnz < X.size
    w_sp = make().fit(Xsp, ds.Y).weights_
    frame = pd.DataFrame(ds.X, columns=ds.feature_names)
    est = make().fit(frame, pd.DataFrame(ds.Y))
    np.testing.assert_allclose(w_ds, w_np); np.testing.assert_allclose(w_sp, w_np); np.testing.assert_allclose(est.weights_, w_np)
    assert list(est.feature_names_in_) == ds.feature_names
    assert len(est.get_feature_names_out()) == len(ds.feature_names) // 2


def test_pandas_categorical_is_nominal():
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 3, 120)
    Y = np.stack([codes == 1, rng.random(120) < 0.5], 1).astype(int)
    frame = pd.DataFrame({"c": pd.Categorical.from_codes(codes, ["a", "b", "c"]), "x": rng.random(120)})
    w_cat = ReliefFML(n_samples=None).fit(frame, Y).raw_weights_
    w_nom = ReliefFML(n_samples=None, nominal=[0]).fit(np.c_[codes, frame.x], Y).raw_weights_
    np.testing.assert_allclose(w_cat, w_nom)
    w_num = ReliefFML(n_samples=None).fit(np.c_[codes, frame.x], Y).raw_weights_
    assert not np.allclose(w_cat, w_num)          # numeric codes 0,1,2 differ by 0.5, nominal by 1


def test_pipeline_and_grid_search(ds):
    pipe = make_pipeline(ReliefFML(n_samples=None), MLkNN(n_neighbors=5))
    grid = GridSearchCV(pipe, {"relieffml__n_features_to_select": [2, 6], "relieffml__n_neighbors": [5, 10]},
                        cv=KFold(3, shuffle=True, random_state=0), scoring=lambda est, X, Y: -hamming_loss(Y, est.predict(X)))
    grid.fit(ds.X, ds.Y)
    assert grid.best_params_["relieffml__n_features_to_select"] in (2, 6)
    assert grid.predict(ds.X[:5]).shape == (5, ds.Y.shape[1])


def test_selection_rules(ds):
    est = ReliefFML(n_samples=None, n_features_to_select=0.25).fit(ds)
    assert est.get_support().sum() == 3 and set(est.get_support(indices=True)) == set(est.ranking_[:3])
    est.set_params(threshold=0.5)
    np.testing.assert_array_equal(est.get_support(), est.weights_ >= 0.5)
    sub = est.transform(ds)                          # a MultiLabelDataset stays one
    assert sub.X.shape[1] == est.get_support().sum() and sub.Y.shape == ds.Y.shape


def test_ranking_ties_go_to_lower_index():
    rng = np.random.default_rng(0)
    x = rng.random(40); y = (x > 0.5).astype(int)
    X = np.c_[rng.random(40), x, rng.random(40), x]                 # features 1 and 3 are identical
    r = ReliefF().fit(X, y)
    assert r.weights_[1] == r.weights_[3] and r.ranking_[:2].tolist() == [1, 3]


@pytest.mark.parametrize("make,fit_X,fit_Y,match", [
    (lambda: ReliefFML(n_neighbors=-1), None, None, "n_neighbors"),
    (lambda: ReliefFML(n_samples=5000), None, None, "n_samples"),
    (lambda: ReliefFML(metric="cosine"), None, None, "metric"),
    (lambda: RFML(label_distance="cosine"), None, None, "label_distance"),
    (lambda: ReliefFML(), "short", None, "rows"),
    (lambda: ReliefFML(), None, "nan", "NaN"),
    (lambda: ReliefFML(), None, "two", "only 0 and 1"),
    (lambda: ReliefFML(), "inf", None, "infinite"),
    (lambda: ReliefFML(nominal=[0]), "frac", None, "integer codes"),
    (lambda: ReliefFML(nominal=[99]), None, None, "indices"),
    (lambda: ReliefFML(), None, "none", "requires y"),
])
def test_bad_input(make, fit_X, fit_Y, match):
    rng = np.random.default_rng(0)
    X, Y = rng.random((30, 3)), (rng.random((30, 2)) < 0.5).astype(int)
    if fit_X == "short": X = X[:10]
    if fit_X == "inf": X[0, 0] = np.inf
    if fit_X == "frac": X[:, 0] = 0.5
    if fit_Y == "nan": Y = Y.astype(float); Y[0, 0] = np.nan
    if fit_Y == "two": Y[0, 0] = 2
    if fit_Y == "none": Y = None
    with pytest.raises(ValueError, match=match):
        make().fit(X, Y)


def test_documented_edge_cases():
    "Issue 3's list: each works as SPEC says or raises a ValueError that says what to change."
    rng = np.random.default_rng(1)
    X = rng.random((40, 4)); Y = (rng.random((40, 3)) < 0.4).astype(int)
    # k ≥ N: every pool member is used (k_eff), no error
    assert np.isfinite(ReliefFML(n_samples=None, n_neighbors=100).fit(X, Y).raw_weights_).all()
    # a label that no instance has: its pool is empty and contributes nothing
    Y0 = Y.copy(); Y0[:, 1] = 0
    assert np.isfinite(ReliefFML(n_samples=None).fit(X, Y0).raw_weights_).all()
    # all-constant features: every difference is 0, so every weight is 0 (scaled: all ones)
    est = ReliefFML(n_samples=None).fit(np.ones((40, 3)), Y)
    np.testing.assert_array_equal(est.raw_weights_, 0); np.testing.assert_array_equal(est.weights_, 1)
    # an empty label set for every instance: no hits, no misses, W = 0
    np.testing.assert_array_equal(ReliefFML(n_samples=None).fit(X, np.zeros((40, 3))).raw_weights_, 0)
    with pytest.raises(ValueError, match="does not vary"):
        RFML().fit(X, np.zeros((40, 3)))
    # Y with one column
    assert ReliefFML(n_samples=None).fit(X, Y[:, :1]).weights_.shape == (4,)
    # X with NaN only in one column
    Xn = X.copy(); Xn[::3, 2] = np.nan
    assert np.isfinite(ReliefFML(n_samples=None).fit(Xn, Y).raw_weights_).all()


@pytest.mark.parametrize("make", [lambda rs: ReliefFML(n_samples=50, random_state=rs), lambda rs: RFML(n_samples=50, random_state=rs),
                                  lambda rs: ReliefF(n_samples=50, random_state=rs)])
def test_random_state_spellings(ds, make):
    "scikit-learn's random_state spellings: an int repeats, a RandomState moves on (reproducibly); others are refused."
    w0, w0b = make(0).fit(ds).weights_, make(0).fit(ds).weights_
    np.testing.assert_array_equal(w0, w0b)
    rs = np.random.RandomState(3)
    first, second = make(rs).fit(ds).weights_, make(rs).fit(ds).weights_
    assert not np.array_equal(first, second)                       # the RandomState's state moved on
    np.testing.assert_array_equal(make(np.random.RandomState(3)).fit(ds).weights_, first)
    for bad in (-1, "seed"):
        with pytest.raises(ValueError, match="random_state"):
            make(bad).fit(ds)


# ---------------------------------------------------------------- the lazy learners as scikit-learn classifiers
# scikit-learn's own checks run in tests/test_estimator_checks.py. Here: a 1-D y makes a learner a binary
# classifier in y's own classes, as KNeighborsClassifier is, computed on the same 0/1 label as a 2-D fit.
ONE_D = [MLkNN(n_neighbors=5), BRkNN(n_neighbors=5, variant="b"), DMLkNN(n_neighbors=5), MLCWkNN(n_neighbors=5),
         BRPlus(), RFSClassifier(n_neighbors=5)]


@pytest.mark.parametrize("est", ONE_D, ids=lambda e: type(e).__name__)
def test_one_d_target_is_a_binary_classifier(est):
    X, Y = learner_data(2)
    Y = Y[:, [1]]                                                 # (learner_data's first label is never empty)
    y = np.where(Y[:, 0] == 1, "spam", "ham")                   # the positive class is the greater one, "spam"
    one, two = clone(est).fit(X, y), clone(est).fit(X, Y)
    np.testing.assert_array_equal(one.classes_, ["ham", "spam"])
    P = two.predict(X)
    assert P.shape == (len(X), 1) and P.dtype == Y.dtype           # a 2-D Y: an N×1 matrix in Y's dtype
    np.testing.assert_array_equal(one.predict(X), np.where(P[:, 0] == 1, "spam", "ham"))
    if hasattr(two, "predict_proba"):
        S = two.predict_proba(X)
        np.testing.assert_array_equal(one.predict_proba(X), np.c_[1 - S[:, 0], S[:, 0]])
    if hasattr(two, "decision_function"):
        np.testing.assert_array_equal(one.decision_function(X), two.decision_function(X)[:, 0])
    Yi = Y.astype(np.int64)                                       # predictions keep the target's dtype
    assert clone(est).fit(X, Yi).predict(X).dtype == np.int64
    assert clone(est).fit(X, Yi[:, 0]).predict(X).dtype == np.int64


def test_one_d_target_one_class_and_refusals():
    X, _ = learner_data(2)
    np.testing.assert_array_equal(MLkNN(n_neighbors=5).fit(X, np.full(len(X), 7)).predict(X[:3]), [7, 7, 7])
    np.testing.assert_array_equal(MLkNN(n_neighbors=5).fit(X, np.full(len(X), 7)).predict_proba(X[:2]), [[1.0], [1.0]])
    for bad, words in (([0, 1, 2] * 40, "Only binary classification is supported"),
                       (np.linspace(0, 1, 120), "Unknown label type: continuous"), ([0, "a"] * 60, "cannot be ordered")):
        with pytest.raises(ValueError, match=words):
            MLkNN(n_neighbors=5).fit(X, np.asarray(bad, dtype=object if words == "cannot be ordered" else None))


def test_stacked_scorers_read_the_list_of_classes():
    "The stacked classifiers' classes_ is the list of Q arrays [0, 1]: a scorer scores each label's column."
    from sklearn.linear_model import LogisticRegression
    X, Y = learner_data(3)
    est = BRPlus(base_estimator=LogisticRegression(), meta_estimator=LogisticRegression())
    cv = KFold(3, shuffle=True, random_state=0)
    res = cross_validate(est, X, Y, cv=cv, scoring=["roc_auc"])["test_roc_auc"]
    mine = [np.mean([mannwhitney_auc(Y[te, l], S[:, l]) for l in range(3)])
            for tr, te in cv.split(X) for S in [clone(est).fit(X[tr], Y[tr]).predict_proba(X[te])]]
    np.testing.assert_allclose(res, mine, rtol=0, atol=1e-12)


def learner_data(Q, n=120, seed=0):
    "Every row has a label and every label is common, so scikit-learn's and Mulan's empty-set rules never differ."
    rng = np.random.default_rng(seed)
    X = rng.random((n, 5))
    Y = (rng.random((n, Q)) < 0.3 + 0.5 * (X[:, :Q] > 0.5)).astype(np.uint8)
    Y[Y.sum(1) == 0, 0] = 1
    return X, Y


# scikit-learn scorer -> the same measure computed independently on the fold's predictions
SCORERS = {
    "accuracy": lambda Yt, P, S: rm.subset_accuracy(Yt, P),
    "f1_samples": lambda Yt, P, S: rm.f1(Yt, P),
    "jaccard_samples": lambda Yt, P, S: rm.accuracy(Yt, P),
    "precision_samples": lambda Yt, P, S: rm.precision(Yt, P),        # empty prediction: 0 in both
    "recall_samples": lambda Yt, P, S: rm.recall(Yt, P),
    "f1_micro": lambda Yt, P, S: rm.micro_f1(Yt, P),
    "f1_macro": lambda Yt, P, S: rm.macro_f1(Yt, P),
    "roc_auc": lambda Yt, P, S: np.mean([mannwhitney_auc(Yt[:, l], S[:, l]) for l in range(Yt.shape[1])]),
    "average_precision": lambda Yt, P, S: np.mean([rm.pooled_auprc(Yt[:, [l]], S[:, [l]]) for l in range(Yt.shape[1])]),
}


def mannwhitney_auc(y, s):
    "ROC AUC as the Mann-Whitney U statistic (ties count 1/2), from scipy."
    return stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic / ((y == 1).sum() * (y == 0).sum())


@pytest.mark.parametrize("Q", [2, 4])
@pytest.mark.parametrize("make", [lambda: MLkNN(n_neighbors=5), lambda: BRkNN(n_neighbors=5), lambda: BRkNN(n_neighbors=5, variant="b"),
                                  lambda: DMLkNN(n_neighbors=5), lambda: MLCWkNN(n_neighbors=5)],
                         ids=["MLkNN", "BRkNN-a", "BRkNN-b", "DMLkNN", "MLCWkNN"])
def test_learner_scorers_equal_independent_measures(make, Q):
    """Every scikit-learn multi-label scorer works in cross_validate (error_score='raise') and gives, fold by
    fold, the value of relieffml.metrics (bipartitions) or of scipy's Mann-Whitney AUC / our AUPRC per label
    (scores). Q = 2 matters: a classes_ of [0, 1] would make scikit-learn treat the target as binary."""
    X, Y = learner_data(Q)
    est = make().fit(X, Y)
    assert len(est.classes_) == Q and all(np.array_equal(c, [0, 1]) for c in est.classes_)
    assert type_of_target(est.classes_) == "multilabel-indicator"
    cv = KFold(3, shuffle=True, random_state=0)
    res = cross_validate(make(), X, Y, cv=cv, scoring=list(SCORERS), error_score="raise")
    for f, (tr, te) in enumerate(cv.split(X)):
        m = make().fit(X[tr], Y[tr])
        P, S = m.predict(X[te]), m.predict_proba(X[te])
        assert S.shape == (len(te), Q) and P.shape == (len(te), Q)
        for name, ref in SCORERS.items():
            np.testing.assert_allclose(res[f"test_{name}"][f], ref(Y[te], P, S), rtol=1e-12, err_msg=name)


def test_cross_val_score_f1_samples_on_a_learner():
    "The call that raised AttributeError (no classes_) before."
    X, Y = learner_data(3)
    sc = cross_val_score(MLkNN(), X, Y, scoring="f1_samples", cv=KFold(3), error_score="raise")
    assert sc.shape == (3,) and np.isfinite(sc).all()


def test_grid_search_pipeline_f1_samples():
    "GridSearchCV over ReliefF-ML + ML-kNN picks from real scores, each equal to relieffml.metrics.f1 on its fold."
    X, Y = learner_data(3, n=150)
    X = np.c_[X, np.random.default_rng(1).random((150, 5))]             # five irrelevant features
    pipe = Pipeline([("relieffml", ReliefFML(n_samples=None)), ("mlknn", MLkNN())])
    grid = {"relieffml__n_features_to_select": [3, 10], "mlknn__n_neighbors": [5, 10]}
    cv = KFold(3, shuffle=True, random_state=0)
    gs = GridSearchCV(pipe, grid, scoring="f1_samples", cv=cv, error_score="raise").fit(X, Y)
    scores = gs.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all() and len(set(np.round(scores, 12))) > 1
    assert gs.best_index_ == int(np.argmax(scores))
    for i, params in enumerate(gs.cv_results_["params"]):
        for f, (tr, te) in enumerate(cv.split(X)):
            P = clone(pipe).set_params(**params).fit(X[tr], Y[tr]).predict(X[te])
            np.testing.assert_allclose(gs.cv_results_[f"split{f}_test_score"][i], rm.f1(Y[te], P), rtol=1e-12)
