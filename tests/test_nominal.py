"""Nominal features end to end (issue 46): evaluate's learner, DataFrames through Pipelines and scikit-learn's
model selection, and what nominal='auto' decides for bare arrays. References are fits done by hand on the data
set's own rows (`ds.subset(train)`), which carry the nominal mask."""
import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.metrics import hamming_loss, make_scorer
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.neighbors import KNeighborsClassifier
from sklearn.pipeline import make_pipeline

from relieffml.data import load_dataset, make_multilabel_relevance
from relieffml.evaluation import evaluate, ffa_curve, iterative_stratified_kfold
from relieffml.lazy import BRkNN, MLkNN
from relieffml.metrics import METRICS
from relieffml.reliefml import ReliefFML
from relieffml.relieff import ReliefF

HL = METRICS["hamming_loss"].func


def _sets():
    flags = load_dataset("flags")                                   # 9 nominal of 19 features
    food = make_multilabel_relevance(n_samples=200, n_features=21, n_labels=4, nominal_fraction=0.25, random_state=3)
    food.name = "foodtruck-like"                                    # 21 features, 4 nominal, as Mulan's foodtruck
    return [flags, food]


@pytest.fixture(scope="module", params=[0, 1], ids=["flags", "foodtruck-like"])
def ds(request): return _sets()[request.param]


def test_the_sets_have_nominal_features(ds):
    assert ds.nominal.sum() >= 4


def test_evaluate_learner_keeps_the_nominal_mask(ds):
    """Each fold of evaluate(None, MLkNN) equals ML-kNN fitted by hand on the fold's data set; the codes-as-numbers
    fit (what evaluate computed before) differs on at least one fold."""
    folds = list(iterative_stratified_kfold(ds.Y, 5, random_state=0))
    got = evaluate(None, MLkNN(), ds, folds, metrics="hamming_loss")["value"].to_numpy()
    hand = [HL(ds.Y[te], MLkNN().fit(ds.subset(tr)).predict(ds.subset(te))) for tr, te in folds]
    numeric = [HL(ds.Y[te], MLkNN(nominal=np.zeros(ds.X.shape[1], bool)).fit(ds.X[tr], ds.Y[tr]).predict(ds.X[te]))
               for tr, te in folds]
    np.testing.assert_array_equal(got, hand)
    assert not np.array_equal(got, numeric)


@pytest.mark.parametrize("mode", ["subset", "support", "weights"])
def test_evaluate_with_a_ranker_keeps_the_mask_through_the_selection(ds, mode):
    folds = list(iterative_stratified_kfold(ds.Y, 3, random_state=1))
    ranker = ReliefFML(n_samples=None, n_features_to_select=0.4)
    got = evaluate(ranker, BRkNN(), ds, folds, subset_fractions=(0.4,), mode=mode, metrics="hamming_loss")
    hand = []
    for tr, te in folds:
        r = clone(ranker).fit(ds.subset(tr))
        if mode == "weights":
            m = BRkNN(feature_weights=r.weights_).fit(ds.subset(tr))
            hand.append(HL(ds.Y[te], m.predict(ds.subset(te))))
            continue
        cols = r.get_support(indices=True) if mode == "support" else r.ranking_[:int(np.floor(0.4 * ds.X.shape[1] + 1e-9))]
        m = BRkNN().fit(ds.subset(tr).select_features(cols))
        hand.append(HL(ds.Y[te], m.predict(ds.subset(te).select_features(cols))))
    np.testing.assert_array_equal(got["value"].to_numpy(), hand)


def test_ffa_curve_with_cv_keeps_the_mask(ds):
    folds = list(iterative_stratified_kfold(ds.Y, 3, random_state=2))
    got = ffa_curve(ReliefF(), MLkNN(), ds, metric="hamming_loss", steps=[2, 5], cv=folds)
    per_fold = []
    for tr, te in folds:
        rk = ReliefF().fit(ds.subset(tr)).ranking_
        per_fold.append([HL(ds.Y[te], MLkNN().fit(ds.subset(tr).select_features(rk[:k]))
                            .predict(ds.subset(te).select_features(rk[:k]))) for k in (2, 5)])
    np.testing.assert_array_equal(got["value"].to_numpy(), np.mean(per_fold, 0))


def test_a_learner_without_a_mask_is_warned_about(ds):
    from sklearn.multioutput import MultiOutputClassifier
    with pytest.warns(UserWarning, match="nominal feature"):
        evaluate(None, MultiOutputClassifier(KNeighborsClassifier(3)), ds, 2, metrics="hamming_loss")


def test_a_learner_that_reads_no_feature_is_not_warned_about(ds):
    "GeneralB predicts from the training labels alone: the nominal codes it is handed are never measured."
    import warnings
    from relieffml.evaluation import GeneralB
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = evaluate(None, GeneralB(), ds, 2, metrics="hamming_loss")
    assert len(df) == 2 and np.isfinite(df["value"]).all()


def _string_frame(ds):
    "X with the nominal columns as plain strings (object dtype), as a CSV reader would give them."
    X, Y = ds.to_sklearn()
    return X.astype({c: object for c, nom in zip(X.columns, ds.nominal) if nom}), Y


def test_a_dataframe_pipeline_equals_the_data_set_fit():
    ds = load_dataset("flags")
    Xs, Y = _string_frame(ds)
    sel = ReliefFML(n_samples=None, n_features_to_select=8)
    pipe = make_pipeline(clone(sel), MLkNN()).fit(Xs, Y)
    kept = pipe[0].transform(Xs)
    assert isinstance(kept, pd.DataFrame)
    assert all(kept.dtypes[c] == object for c in kept.columns if ds.nominal[ds.feature_names.index(c)])
    ref_sel = clone(sel).fit(ds)
    ref = MLkNN().fit(ref_sel.transform(ds))
    np.testing.assert_array_equal(pipe[0].ranking_, ref_sel.ranking_)
    np.testing.assert_array_equal(pipe.predict_proba(Xs), ref.predict_proba(ref_sel.transform(ds)))
    bare = make_pipeline(clone(sel), MLkNN()).fit(ds.X, ds.Y)     # codes as numbers: another selection
    assert not np.array_equal(np.sort(bare[0].ranking_[:8]), np.sort(ref_sel.ranking_[:8]))


def test_cross_val_score_and_grid_search_on_string_categories_equal_evaluate():
    ds = load_dataset("flags")
    Xs, Y = _string_frame(ds)
    folds = list(iterative_stratified_kfold(ds.Y, 4, random_state=0))
    pipe = make_pipeline(ReliefFML(n_samples=None, n_features_to_select=8), MLkNN())
    cv = -cross_val_score(pipe, Xs, Y, cv=folds, scoring=make_scorer(hamming_loss, greater_is_better=False))
    ev = evaluate(ReliefFML(n_samples=None, n_features_to_select=8), MLkNN(), ds, folds, mode="support",
                  metrics="hamming_loss")["value"].to_numpy()
    np.testing.assert_array_equal(cv, ev)
    gs = GridSearchCV(pipe, {"mlknn__n_neighbors": [5, 10]}, cv=folds,
                      scoring=make_scorer(hamming_loss, greater_is_better=False)).fit(Xs, Y)
    np.testing.assert_array_equal(-gs.cv_results_["split0_test_score"][1], cv[0])


def test_new_rows_are_coded_by_the_fit_categories():
    ds = load_dataset("flags")
    Xs, Y = _string_frame(ds)
    m = MLkNN().fit(Xs.iloc[:150], Y.iloc[:150])
    test = Xs.iloc[150:]
    np.testing.assert_array_equal(m.predict_proba(test), m.predict_proba(test.iloc[::-1])[::-1])
    ref = MLkNN().fit(ds.subset(np.arange(150)))
    np.testing.assert_array_equal(m.predict_proba(test), ref.predict_proba(ds.subset(np.arange(150, 194))))
    c = next(c for c, nom in zip(Xs.columns, ds.nominal) if nom)
    unseen = test.copy(); unseen[c] = "a value no row had"
    assert np.isfinite(m.predict_proba(unseen)).all()                # a code of its own, unequal to all


def test_auto_on_bare_arrays_is_numeric_as_documented():
    "The documented rule: nominal='auto' on a NumPy array makes every column numeric (no guessing from values)."
    ds = load_dataset("flags")
    auto = MLkNN().fit(ds.X, ds.Y).predict_proba(ds.X)
    numeric = MLkNN(nominal=np.zeros(ds.X.shape[1], bool)).fit(ds.X, ds.Y).predict_proba(ds.X)
    np.testing.assert_array_equal(auto, numeric)
    assert not np.array_equal(auto, MLkNN().fit(ds).predict_proba(ds))
    assert "bare NumPy or scipy array has none" in " ".join(MLkNN.__doc__.split())


def test_a_mask_that_cannot_follow_a_selection_says_how():
    ds = load_dataset("flags")
    pipe = make_pipeline(ReliefFML(n_samples=None, n_features_to_select=8), MLkNN(nominal=ds.nominal))
    with pytest.raises(ValueError, match="cannot follow a feature selection.*to_sklearn"):
        pipe.fit(ds.X, ds.Y)


def test_an_explicit_mask_may_not_drop_a_string_column():
    Xs, Y = _string_frame(load_dataset("flags"))
    with pytest.raises(ValueError, match="is categorical"):
        MLkNN(nominal=[0]).fit(Xs, Y)
