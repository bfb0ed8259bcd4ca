"""The evaluation protocols of the papers: cross-validated FFA curves, selectors judged by their support,
exact and approximate Wilcoxon tests, and the Iman-Davenport variant of the Friedman test.

References: loops written out here with scikit-learn's metrics and splitters, the recording ranker and
learner of tests/test_evaluation.py (what each fitted object saw), every sign pattern of the signed-rank
statistic enumerated, scipy.stats, and Demšar's (2006) worked example.
"""
import itertools
import os
import uuid

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.metrics import f1_score
from sklearn.model_selection import KFold

from relieffml.evaluation import (evaluate, ffa_curve, friedman_test, iterative_stratified_kfold, random_ffa_baseline,
                                  wilcoxon_test)
from test_evaluation import RecordingLearner, RecordingRanker, knn, logged, make_data


def sample_f1(Y, P): return f1_score(Y, P, average="samples", zero_division=1)


def manual_ffa(rk, X, Y, tr, te, sizes):
    "Algorithm 2 by hand on one split: sample-F1 of a k-NN on the top-k columns."
    return [sample_f1(Y[te], knn().fit(X[tr][:, rk[:k]], Y[tr]).predict(X[te][:, rk[:k]])) for k in sizes]


class CorrRanker(BaseEstimator):
    "Absolute correlation with the first label."
    def fit(self, X, Y):
        c = [abs(np.corrcoef(x, Y[:, 0])[0, 1]) if x.std() > 0 else 0. for x in np.asarray(X).T]
        self.ranking_ = np.argsort(-np.asarray(c), kind="mergesort"); return self


# ---------------------------------------------------------------- FFA with cross-validation

def test_ffa_cv_no_leakage(tmp_path):
    X, Y = make_data(60)
    cur = ffa_curve(RecordingRanker(str(tmp_path)), RecordingLearner(str(tmp_path)), X, Y, metric="f1", steps=[1, 6], cv=4)
    folds = list(iterative_stratified_kfold(Y, 4, random_state=0))
    trains = sorted((tr for tr, _ in folds), key=lambda a: tuple(np.sort(a)))
    seen = logged(tmp_path, "rank")                 # one ranker fit per fold, on that fold's training rows only
    assert len(seen) == 4
    for rows, tr in zip(seen, trains): assert np.array_equal(np.sort(rows), np.sort(tr))
    fits = logged(tmp_path, "fit")                  # the learner: training rows only, two sizes per fold
    assert len(fits) == 8 and all(any(np.array_equal(np.sort(r), np.sort(tr)) for tr in trains) for r in fits)
    for rows in logged(tmp_path, "predict"): assert any(np.array_equal(np.sort(rows), np.sort(te)) for _, te in folds)
    assert list(cur.columns) == ["n_features", "value", "std"] and cur["n_features"].tolist() == [1, 6]


def test_ffa_cv_is_mean_over_folds_of_holdout_curves_any_splitter():
    X, Y = make_data(80)
    sizes = [1, 2, 4, 6]
    for cv, folds in ((5, list(iterative_stratified_kfold(Y, 5, random_state=3))),
                      (KFold(4, shuffle=True, random_state=1), list(KFold(4, shuffle=True, random_state=1).split(X)))):
        cur = ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", steps=sizes, cv=cv, random_state=3)
        by_fold = np.array([manual_ffa(CorrRanker().fit(X[tr], Y[tr]).ranking_, X, Y, tr, te, sizes) for tr, te in folds])
        assert cur["value"].to_numpy() == pytest.approx(by_fold.mean(0), abs=1e-12)
        assert cur["std"].to_numpy() == pytest.approx(by_fold.std(0, ddof=1), abs=1e-12)
        assert by_fold.std(0).max() > 0             # the folds really differ: the spread is not trivially 0


def test_ffa_cv_accepts_a_dataset():
    from relieffml.data import MultiLabelDataset
    X, Y = make_data(50)
    ds = MultiLabelDataset(X=X, Y=Y, feature_names=[f"f{i}" for i in range(6)], label_names=["a", "b", "c"], name="toy")
    a = ffa_curve(CorrRanker(), knn(), ds, metric="f1", steps=3, cv=3)
    b = ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", steps=3, cv=3)
    pd.testing.assert_frame_equal(a, b)


def test_random_baseline_cv_same_folds_and_permutations():
    X, Y = make_data(60)
    sizes = [1, 3, 6]
    base = random_ffa_baseline(knn(), X, Y, metric="f1", steps=sizes, n_random=3, random_state=5, cv=3)
    rng = np.random.default_rng(5)
    per_fold = np.array([np.mean([manual_ffa(rng.permutation(6), X, Y, tr, te, sizes) for _ in range(3)], 0)
                         for tr, te in iterative_stratified_kfold(Y, 3, random_state=5)])
    assert base["value"].to_numpy() == pytest.approx(per_fold.mean(0), abs=1e-12)
    assert base["std"].to_numpy() == pytest.approx(per_fold.std(0, ddof=1), abs=1e-12)
    # all features: every ranking gives the same model, so the baseline meets the ranker's curve there
    cur = ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", steps=sizes, cv=3, random_state=5)
    assert base["value"].iloc[-1] == pytest.approx(cur["value"].iloc[-1], abs=1e-12)


def test_ffa_cv_bad_input():
    X, Y = make_data(40)
    with pytest.raises(ValueError, match="unfitted ranker"): ffa_curve(np.arange(6), knn(), X, Y, metric="f1", cv=3)
    with pytest.raises(ValueError, match="no X_test"): ffa_curve(CorrRanker(), knn(), X[:30], Y[:30], X[30:], Y[30:], "f1", cv=3)
    with pytest.raises(ValueError, match="no X_test"): random_ffa_baseline(knn(), X[:30], Y[:30], X[30:], Y[30:], "f1", cv=3)
    with pytest.raises(ValueError, match="without cv"): ffa_curve(np.arange(6), knn(), X, Y, metric="f1")
    with pytest.raises(ValueError, match="n_splits"): ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", cv=1)
    with pytest.raises(ValueError, match="metric: unknown"): random_ffa_baseline(knn(), X, Y, metric="auc", cv=3)


# ---------------------------------------------------------------- evaluate(mode="support")

class RecordingSelector(BaseEstimator):
    "Logs the rows it is fitted on; keeps columns 0, 2 and 5 (not a prefix of any ranking it has)."
    def __init__(self, log_dir=None): self.log_dir = log_dir
    def fit(self, X, Y):
        np.save(os.path.join(self.log_dir, f"rank-{uuid.uuid4().hex}.npy"), np.asarray(X)[:, 0]); return self
    def get_support(self): return np.isin(np.arange(6), [0, 2, 5])


def test_support_mode_no_leakage_and_columns(tmp_path):
    X, Y = make_data(60)
    df, kept = evaluate(RecordingSelector(str(tmp_path)), RecordingLearner(str(tmp_path)), (X, Y), folds=3,
                        mode="support", metrics=("f1",), return_rankings=True)
    folds = list(iterative_stratified_kfold(Y, 3, random_state=0))
    trains = sorted((tr for tr, _ in folds), key=lambda a: tuple(np.sort(a)))
    for rows, tr in zip(logged(tmp_path, "rank"), trains): assert np.array_equal(np.sort(rows), np.sort(tr))
    assert open(tmp_path / "shapes.txt").read().split("\n")[:-1] == ["fit 3", "predict 3"] * 3
    assert [k.tolist() for k in kept] == [[0, 2, 5]] * 3 and df["fraction"].tolist() == [0.5] * 3


def test_support_mode_equals_manual_selectkbest():
    X, Y = make_data(90, d=8)

    class KBestFirstLabel(SelectKBest):
        def fit(self, X, Y): return super().fit(X, np.asarray(Y)[:, 0])

    df, sels = evaluate(KBestFirstLabel(f_classif, k=3), knn(), (X, Y), folds=3, mode="support", metrics=("f1",),
                        return_estimators=True)
    ref = []
    for tr, te in iterative_stratified_kfold(Y, 3, random_state=0):
        cols = np.flatnonzero(SelectKBest(f_classif, k=3).fit(X[tr], Y[tr, 0]).get_support())
        ref.append(sample_f1(Y[te], knn().fit(X[tr][:, cols], Y[tr]).predict(X[te][:, cols])))
    assert df["value"].to_numpy() == pytest.approx(ref, abs=1e-12)
    assert len(sels) == 3 and all(s.get_support().sum() == 3 for s in sels)


def test_support_mode_bad_selectors():
    X, Y = make_data(30)

    class NoneKept(BaseEstimator):
        def fit(self, X, Y): return self
        def get_support(self): return np.zeros(6, bool)

    class WrongLength(NoneKept):
        def get_support(self): return np.ones(4, bool)

    with pytest.raises(ValueError, match="kept no feature"): evaluate(NoneKept(), knn(), (X, Y), folds=2, mode="support")
    with pytest.raises(ValueError, match="boolean mask of 6"): evaluate(WrongLength(), knn(), (X, Y), folds=2, mode="support")
    with pytest.raises(ValueError, match="get_support"): evaluate(CorrRanker(), knn(), (X, Y), folds=2, mode="support")
    with pytest.raises(ValueError, match="mode must be"): evaluate(CorrRanker(), knn(), (X, Y), folds=2, mode="mask")


# ---------------------------------------------------------------- Wilcoxon: exact and approximate

def exact_two_sided_p(d):
    "P(T <= t) doubled over all 2^n equally likely sign patterns of the ranks of |d| (zeros dropped), by enumeration."
    d = np.asarray(d, float); d = d[d != 0]
    r = stats.rankdata(np.abs(d))
    t_plus = r[d > 0].sum()
    t = min(t_plus, r.sum() - t_plus)
    sums = np.array([np.dot(s, r) for s in itertools.product([0, 1], repeat=d.size)])
    return min(1., np.mean(np.minimum(sums, r.sum() - sums) <= t + 1e-9))


@pytest.mark.parametrize("seed", range(8))
def test_wilcoxon_exact_equals_enumeration_with_ties(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 11))
    a = rng.integers(0, 5, n) / 4.                       # coarse values: tied |differences|, some zeros
    b = rng.integers(0, 5, n) / 4.
    if not np.any(a != b): return
    w = wilcoxon_test(a, b)
    assert w["pvalue"][0] == pytest.approx(exact_two_sided_p(a - b), abs=1e-12)
    perm = stats.wilcoxon(a, b, method=stats.PermutationMethod(n_resamples=np.inf)).pvalue
    assert w["pvalue"][0] == pytest.approx(perm, abs=1e-12)


def test_wilcoxon_exact_untied_is_scipy_exact_and_tied_differs_from_it():
    rng = np.random.default_rng(7)
    a, b = rng.random(15), rng.random(15)
    assert wilcoxon_test(a, b)["pvalue"][0] == pytest.approx(stats.wilcoxon(a, b, method="exact").pvalue, abs=1e-12)
    # seed 0 of the sweep above: scipy's method="exact" ignores the ties (0.0547); all sign patterns give 0.0469
    rng = np.random.default_rng(0); n = int(rng.integers(4, 11))
    a, b = rng.integers(0, 5, n) / 4., rng.integers(0, 5, n) / 4.
    assert wilcoxon_test(a, b)["pvalue"][0] == pytest.approx(exact_two_sided_p(a - b)) == pytest.approx(0.046875)
    assert stats.wilcoxon(a, b, method="exact").pvalue == pytest.approx(0.0546875)


def test_wilcoxon_five_datasets_exact_floor_and_paper_approximation():
    # one method better on all five data sets: exact two-sided p = 2 / 2^5; the normal approximation without
    # continuity correction (Reyes et al. 2013, Table 5) gives z = (15 - 7.5) / sqrt(5*6*11/24) -> p = 0.0431
    a, b = np.array([.81, .72, .93, .64, .55]), np.array([.80, .70, .90, .60, .50])
    assert wilcoxon_test(a, b)["pvalue"][0] == pytest.approx(0.0625)
    z = 7.5 / np.sqrt(5 * 6 * 11 / 24)
    assert wilcoxon_test(a, b, method="approx")["pvalue"][0] == pytest.approx(2 * stats.norm.sf(z))
    assert wilcoxon_test(a, b, method="approx")["pvalue"][0] == pytest.approx(0.0431, abs=1e-4)
    # with continuity correction: |T - mean| - 1/2
    assert wilcoxon_test(a, b, method="approx", correction=True)["pvalue"][0] == pytest.approx(2 * stats.norm.sf((7.5 - .5) / np.sqrt(13.75)))
    # the exact test can never go below 0.0625 on five pairs
    rng = np.random.default_rng(0)
    assert min(wilcoxon_test(rng.random(5), rng.random(5))["pvalue"][0] for _ in range(50)) >= 0.0625 - 1e-12


@pytest.mark.parametrize("correction", [False, True])
def test_wilcoxon_approx_equals_scipy(correction):
    rng = np.random.default_rng(1)
    a, b = rng.random(20), rng.random(20)
    ref = stats.wilcoxon(a, b, method="approx", correction=correction)
    w = wilcoxon_test(a, b, method="approx", correction=correction)
    assert w["pvalue"][0] == pytest.approx(ref.pvalue) and w["statistic"][0] == ref.statistic


def test_wilcoxon_bad_input():
    with pytest.raises(ValueError, match="method must be"): wilcoxon_test([1, 2, 3], [0, 0, 0], method="auto")
    with pytest.raises(ValueError, match="correction applies"): wilcoxon_test([1, 2, 3], [0, 0, 0], correction=True)
    with pytest.raises(ValueError, match="equal everywhere"): wilcoxon_test([1, 2, 3], [1, 2, 3])
    # 25 tied wins (2^25 sign patterns, too many to enumerate): exact by counting; only "all positive" is as extreme
    assert wilcoxon_test(np.arange(25) % 3 + 1., np.zeros(25))["pvalue"][0] == 2 / 2**25


# ---------------------------------------------------------------- Friedman: Iman-Davenport

def test_iman_davenport_demsar_example():
    # Demšar (2006), §3.2.2: average ranks 3.143, 2.000, 2.893, 1.964 on N = 14 -> chi2_F = 9.28, F_F = 3.69
    R, N, k = np.array([44, 28, 40.5, 27.5]) / 14, 14, 4
    chi2 = 12 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4)
    assert chi2 == pytest.approx(9.28, abs=5e-3) and (N - 1) * chi2 / (N * (k - 1) - chi2) == pytest.approx(3.69, abs=5e-3)
    # a table with exactly those average ranks: F_F from scipy's chi2 (tie-corrected, so slightly above 9.28)
    rows = ([[1, 2, 4, 3]] + [[2, 1, 4, 3]] * 2 + [[2, 4, 1, 3], [3, 1, 4, 2], [3, 2, 4, 1]] + [[4, 1, 3, 2]] * 3
            + [[4, 2, 3, 1]] * 2 + [[4, 3, 1, 2], [4, 3, 2, 1], [3, 4, 1.5, 1.5]])
    assert np.array(rows).mean(0) == pytest.approx(R)         # Demšar's average ranks (one tied row)
    f = friedman_test(np.array(rows, float), greater_is_better=False)
    chi2_t = f["statistic"][0]
    assert f["iman_davenport"][0] == pytest.approx((N - 1) * chi2_t / (N * (k - 1) - chi2_t))
    assert f["pvalue_iman_davenport"][0] == pytest.approx(stats.f.sf(f["iman_davenport"][0], k - 1, (k - 1) * (N - 1)))
    assert f["pvalue_iman_davenport"][0] < f["pvalue"][0]     # F_F is less conservative than chi2_F


def test_iman_davenport_random_tables_and_perfect_agreement():
    rng = np.random.default_rng(3)
    for _ in range(5):
        T = rng.random((8, 5))
        N, k = T.shape
        chi2 = stats.friedmanchisquare(*T.T).statistic
        f = friedman_test(T)
        assert f["iman_davenport"][0] == pytest.approx((N - 1) * chi2 / (N * (k - 1) - chi2))
    perfect = friedman_test(pd.DataFrame({"A": [3, 3, 3.], "B": [2, 2, 2.], "C": [1, 1, 1.]}))
    assert perfect["iman_davenport"][0] == np.inf and perfect["pvalue_iman_davenport"][0] == 0.


def test_ffa_cv_label_columns_ranker_sees_all_classes(tmp_path):
    X, Y = make_data(60)

    class LabelCount(BaseEstimator):
        "Records how many labels it was fitted with."
        def fit(self, X, Y):
            open(tmp_path / "q.txt", "a").write(f"{np.asarray(Y).shape[1]}\n"); self.ranking_ = np.arange(X.shape[1]); return self

    cur = ffa_curve(LabelCount(), knn(), X, Y, metric="f1", steps=[2, 6], cv=3, label_columns=[0, 2])
    assert open(tmp_path / "q.txt").read().split() == ["3"] * 3
    folds = list(iterative_stratified_kfold(Y, 3, random_state=0))                      # folds stratify on all labels
    by_fold = [manual_ffa(np.arange(6), X, Y[:, [0, 2]], tr, te, [2, 6]) for tr, te in folds]
    assert cur["value"].to_numpy() == pytest.approx(np.mean(by_fold, 0), abs=1e-12)
    base = random_ffa_baseline(knn(), X, Y, metric="f1", steps=[2, 6], n_random=2, cv=3, label_columns=[0, 2])
    assert base["value"].iloc[-1] == pytest.approx(cur["value"].iloc[-1], abs=1e-12)
    with pytest.raises(ValueError, match="label_columns"): ffa_curve(LabelCount(), knn(), X, Y, metric="f1", cv=3, label_columns=[5])


def test_ffa_and_random_baseline_in_parallel_give_the_same_bits():
    # folds (ffa_curve) and (fold, permutation) pairs (random_ffa_baseline) in two worker processes: the
    # permutations are drawn before the work is shared out, so every value equals the serial run's exactly
    X, Y = make_data(80)
    serial = ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", steps=[1, 3, 6], cv=4, random_state=3)
    pd.testing.assert_frame_equal(serial, ffa_curve(CorrRanker(), knn(), X, Y, metric="f1", steps=[1, 3, 6], cv=4,
                                                    random_state=3, n_jobs=2), check_exact=True)
    for kw in (dict(cv=3), dict()):
        args = (X, Y) if kw else (X[:60], Y[:60], X[60:], Y[60:])
        one = random_ffa_baseline(knn(), *args, metric="f1", steps=[1, 3, 6], n_random=4, random_state=5, **kw)
        two = random_ffa_baseline(knn(), *args, metric="f1", steps=[1, 3, 6], n_random=4, random_state=5, n_jobs=2, **kw)
        pd.testing.assert_frame_equal(one, two, check_exact=True)
