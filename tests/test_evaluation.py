"""relieffml.evaluation: folds, no leakage, tidy output, FFA, stability, tests, General_B, plots.

References: the `iterative-stratification` package itself, scikit-learn metrics on hand-built pipelines,
scipy.stats, Demšar's (2006) Table 5 and values worked out by hand in the comments.
"""
import os
import uuid

import matplotlib
matplotlib.use("Agg")
import numpy as np
import scipy.sparse as sp
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, MultiOutputMixin, clone
from sklearn.metrics import f1_score, label_ranking_loss
from sklearn.multioutput import MultiOutputClassifier
from sklearn.neighbors import KNeighborsClassifier

from relieffml.base import BaseRanker
from relieffml.evaluation import (FRACTIONS, GeneralB, average_ranks, evaluate, ffa_curve, friedman_test,
                                  general_b, iterative_stratified_kfold, kuncheva_index, nemenyi_cd,
                                  plot_critical_difference, plot_ffa, plot_metric_vs_size, random_ffa_baseline,
                                  ranking_stability, wilcoxon_test, _label_scores, _n_top, _signed_rank_counts)

COLUMNS = ["dataset", "fold", "method", "fraction", "metric", "value"]


def make_data(n=80, d=6, q=3, seed=0):
    "Column 0 holds the row id, so whoever sees X can tell which rows it got; labels depend on columns 1-2."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d)); X[:, 0] = np.arange(n)
    Y = np.column_stack([X[:, 1] > .5, X[:, 2] > .4, rng.random(n) < .3]).astype(np.uint8)[:, :q]
    return X, Y


def knn(k=3): return MultiOutputClassifier(KNeighborsClassifier(k))


class RecordingRanker(BaseEstimator):
    "Writes the row ids (column 0) it is fitted on to `log_dir`; ranks features by index (row-id column first)."
    def __init__(self, log_dir=None): self.log_dir = log_dir
    def fit(self, X, Y):
        np.save(os.path.join(self.log_dir, f"rank-{uuid.uuid4().hex}.npy"), np.asarray(X)[:, 0])
        D = X.shape[1]
        self.ranking_ = np.arange(D)
        self.weights_ = np.linspace(1, .1, D)
        return self


class RecordingLearner(MultiOutputMixin, BaseEstimator):
    "A 1-NN that logs the rows and number of columns it is trained and queried on, and its feature weights."
    def __init__(self, log_dir=None, feature_weights=None): self.log_dir, self.feature_weights = log_dir, feature_weights
    def _log(self, kind, X):
        X = np.asarray(X)
        np.save(os.path.join(self.log_dir, f"{kind}-{uuid.uuid4().hex}.npy"), X[:, 0])   # row-id column is first in the ranking
        with open(os.path.join(self.log_dir, "shapes.txt"), "a") as fh: fh.write(f"{kind} {X.shape[1]}\n")
    def fit(self, X, Y):
        self._log("fit", X)
        if self.feature_weights is not None:
            np.save(os.path.join(self.log_dir, f"w-{uuid.uuid4().hex}.npy"), self.feature_weights)
        self.m_ = MultiOutputClassifier(KNeighborsClassifier(1)).fit(X, Y); return self
    def predict(self, X): self._log("predict", X); return self.m_.predict(X)
    def predict_proba(self, X): return self.m_.predict_proba(X)


def logged(log_dir, kind):
    return sorted((np.load(os.path.join(log_dir, f)) for f in os.listdir(log_dir) if f.startswith(kind + "-")),
                  key=lambda a: tuple(np.sort(a)))


# ---------------------------------------------------------------- folds

def test_folds_partition_and_match_iterstrat():
    from iterstrat.ml_stratifiers import MultilabelStratifiedKFold
    X, Y = make_data(90)
    folds = list(iterative_stratified_kfold(Y, 5, random_state=3))
    assert np.array_equal(np.sort(np.concatenate([te for _, te in folds])), np.arange(90))
    for tr, te in folds:
        assert np.intersect1d(tr, te).size == 0 and tr.size + te.size == 90
    ref = MultilabelStratifiedKFold(n_splits=5, shuffle=True, random_state=3).split(np.zeros((90, 1)), Y)
    for (tr, te), (rtr, rte) in zip(folds, ref):
        assert np.array_equal(tr, rtr) and np.array_equal(te, rte)
    other = [te for _, te in iterative_stratified_kfold(Y, 5, random_state=4)]
    assert any(not np.array_equal(a, b) for (_, a), b in zip(folds, other))


def test_folds_bad_input():
    X, Y = make_data(10)
    with pytest.raises(ValueError, match="n_splits"): list(iterative_stratified_kfold(Y, 11))
    with pytest.raises(ValueError, match="n_splits"): list(iterative_stratified_kfold(Y, 1))
    with pytest.raises(ValueError, match="Y must contain only 0 and 1"): list(iterative_stratified_kfold(Y * 2, 2))


# ---------------------------------------------------------------- evaluate: leakage, output, determinism

@pytest.mark.parametrize("n_jobs", [1, 2])
def test_no_leakage_subset_mode(tmp_path, n_jobs):
    X, Y = make_data(60)
    folds = list(iterative_stratified_kfold(Y, 4, random_state=0))
    df = evaluate(RecordingRanker(str(tmp_path)), RecordingLearner(str(tmp_path)), (X, Y), folds=4,
                  subset_fractions=(0.5, 1.0), metrics=("f1",), n_jobs=n_jobs)
    trains = sorted((tr for tr, _ in folds), key=lambda a: tuple(np.sort(a)))
    seen = logged(tmp_path, "rank")
    assert len(seen) == 4
    for rows, tr in zip(seen, trains): assert np.array_equal(np.sort(rows), np.sort(tr))
    # the learner is fitted on training rows only (twice per fold: two fractions) and predicts the test rows
    fit_rows = logged(tmp_path, "fit")
    assert len(fit_rows) == 8
    for rows in fit_rows: assert any(np.array_equal(np.sort(rows), np.sort(tr)) for tr in trains)
    for rows in logged(tmp_path, "predict"): assert any(np.array_equal(np.sort(rows), np.sort(te)) for _, te in folds)
    # top 50 % of 6 features = 3 columns, then all 6
    shapes = sorted(open(tmp_path / "shapes.txt").read().split("\n")[:-1])
    assert shapes.count("fit 3") == 4 and shapes.count("fit 6") == 4
    assert len(df) == 4 * 2 * 1


def test_no_leakage_weights_mode(tmp_path):
    X, Y = make_data(60)
    evaluate(RecordingRanker(str(tmp_path)), RecordingLearner(str(tmp_path)), (X, Y), folds=3, mode="weights",
             metrics=("f1",))
    assert len(logged(tmp_path, "rank")) == 3
    ws = logged(tmp_path, "w")
    assert len(ws) == 3
    for w in ws: assert np.allclose(w, np.linspace(1, .1, 6))


class RecordingBaseRanker(BaseRanker):
    "A relieffml BaseRanker: must receive the training rows as a MultiLabelDataset (metadata kept)."
    def __init__(self, log_dir=None, nominal="auto", n_features_to_select=None, threshold=None, n_jobs=None):
        self.log_dir, self.nominal, self.n_features_to_select, self.threshold, self.n_jobs = log_dir, nominal, n_features_to_select, threshold, n_jobs
    def _fit(self, X, Y, info):
        ds = info["dataset"]
        assert ds is not None and ds.feature_names[0] == "row_id"
        np.save(os.path.join(self.log_dir, f"rank-{uuid.uuid4().hex}.npy"), X[:, 0])
        return -np.arange(X.shape[1], dtype=float)


def test_base_ranker_gets_training_dataset(tmp_path):
    from relieffml.data import MultiLabelDataset
    X, Y = make_data(50)
    ds = MultiLabelDataset(X, Y, ["row_id"] + [f"x{j}" for j in range(1, 6)], None, name="toy")
    df = evaluate(RecordingBaseRanker(str(tmp_path)), knn(), ds, folds=5, subset_fractions=(0.5,), metrics=("f1",))
    seen = logged(tmp_path, "rank")
    trains = sorted((tr for tr, _ in iterative_stratified_kfold(Y, 5, 0)), key=lambda a: tuple(np.sort(a)))
    assert len(seen) == 5
    for rows, tr in zip(seen, trains): assert np.array_equal(np.sort(rows), np.sort(tr))
    assert (df["dataset"] == "toy").all() and (df["method"] == "RecordingBaseRanker").all()


def test_tidy_output_and_manual_reference():
    X, Y = make_data(80)
    X[:, 0] = np.random.default_rng(1).random(80)          # no row-id feature here
    class ByVariance(BaseEstimator):
        def fit(self, X, Y):
            self.weights_ = X.var(0); self.ranking_ = np.argsort(-self.weights_, kind="mergesort"); return self
    df = evaluate(ByVariance(), knn(), (X, Y), folds=4, metrics=("f1", "ranking_loss", "hamming_loss"))
    assert list(df.columns) == COLUMNS
    assert len(df) == 4 * len(FRACTIONS) * 3
    assert sorted(df["fraction"].unique()) == list(FRACTIONS)
    assert df.dtypes["value"] == np.float64 and df.dtypes["fold"].kind == "i"
    assert (df["method"] == "ByVariance").all() and (df["dataset"] == "").all()
    # independent pipeline: same folds, top-k by variance, scikit-learn's k-NN and metrics
    for f, (tr, te) in enumerate(iterative_stratified_kfold(Y, 4, random_state=0)):
        rk = np.argsort(-X[tr].var(0), kind="mergesort")
        for p in (0.2, 0.5, 0.9):
            cols = rk[:max(1, int(np.floor(p * 6 + 1e-9)))]
            m = knn().fit(X[tr][:, cols], Y[tr])
            S = np.column_stack([P[:, 1] for P in m.predict_proba(X[te][:, cols])])
            got = df[(df.fold == f) & np.isclose(df.fraction, p)].set_index("metric")["value"]
            assert got["f1"] == pytest.approx(f1_score(Y[te], m.predict(X[te][:, cols]), average="samples", zero_division=1))
            assert got["ranking_loss"] == pytest.approx(label_ranking_loss(Y[te], S))


def test_determinism_and_parallel_equal():
    X, Y = make_data(70)
    class Noisy(BaseEstimator):
        def __init__(self, random_state=0): self.random_state = random_state
        def fit(self, X, Y):
            self.ranking_ = np.random.default_rng(self.random_state).permutation(X.shape[1]); self.weights_ = np.zeros(X.shape[1]); return self
    a = evaluate(Noisy(), knn(), (X, Y), folds=3, random_state=7, metrics=("f1", "accuracy"))
    b = evaluate(Noisy(), knn(), (X, Y), folds=3, random_state=7, metrics=("f1", "accuracy"), n_jobs=2)
    pd.testing.assert_frame_equal(a, b)
    c = evaluate(Noisy(), knn(), (X, Y), folds=3, random_state=8, metrics=("f1", "accuracy"))
    assert not np.allclose(a["value"], c["value"])


def test_explicit_folds_ranker_none_and_rankings():
    X, Y = make_data(40)
    folds = [(np.arange(20, 40), np.arange(20)), (np.arange(20), np.arange(20, 40))]
    df = evaluate(None, GeneralB(), (X, Y), folds=folds, metrics=("hamming_loss", "one_error"))
    assert len(df) == 4 and (df["fraction"] == 1.0).all() and (df["method"] == "none").all()
    g = GeneralB().fit(X[20:], Y[20:])
    hl = np.mean(g.predict(X[:20]) != Y[:20])
    assert df[(df.fold == 0) & (df.metric == "hamming_loss")]["value"].item() == pytest.approx(hl)
    _, rk = evaluate(_Fixed(), knn(), (X, Y), folds=folds,
                       subset_fractions=(0.5,), metrics=("f1",), return_rankings=True)
    assert len(rk) == 2 and all(np.array_equal(r, [5, 4, 3, 2, 1, 0]) for r in rk)


class _Fixed(BaseEstimator):
    def fit(self, X, Y): self.ranking_ = np.arange(X.shape[1])[::-1]; self.weights_ = np.arange(X.shape[1]) * 1.; return self


def test_progress_bar_runs(capsys):
    "progress=True draws a tqdm bar over the folds (on stderr) and changes no result; progress=False draws none."
    X, Y = make_data(40)
    kw = dict(folds=2, subset_fractions=(0.5,), metrics=("f1",))
    quiet = evaluate(_Fixed(), knn(), (X, Y), **kw)
    assert "2/2" not in capsys.readouterr().err
    df = evaluate(_Fixed(), knn(), (X, Y), progress=True, **kw)
    err = capsys.readouterr().err
    assert "data / _Fixed" in err and "2/2" in err and "100%" in err, err
    pd.testing.assert_frame_equal(df, quiet)


def test_evaluate_bad_input():
    X, Y = make_data(40)
    with pytest.raises(ValueError, match="mode must be"): evaluate(_Fixed(), knn(), (X, Y), folds=2, mode="both")
    with pytest.raises(ValueError, match="feature_weights"): evaluate(_Fixed(), knn(), (X, Y), folds=2, mode="weights")
    with pytest.raises(ValueError, match="subset_fractions"): evaluate(_Fixed(), knn(), (X, Y), folds=2, subset_fractions=(0, .5))
    with pytest.raises(ValueError, match="subset_fractions"): evaluate(_Fixed(), knn(), (X, Y), folds=2, subset_fractions=(1.5,))
    with pytest.raises(ValueError, match="metrics: unknown"): evaluate(_Fixed(), knn(), (X, Y), folds=2, metrics=("auc",))
    with pytest.raises(ValueError, match="dataset must be"): evaluate(_Fixed(), knn(), X, folds=2)
    with pytest.raises(ValueError, match="one row per row of Y"): evaluate(_Fixed(), knn(), (X[:30], Y), folds=2)
    with pytest.raises(ValueError, match="n_splits"): evaluate(_Fixed(), knn(), (X, Y), folds=1)
    class NoProba(MultiOutputMixin, BaseEstimator):
        def fit(self, X, Y): self.Y_ = Y[0]; return self
        def predict(self, X): return np.tile(self.Y_, (len(X), 1))
    with pytest.raises(ValueError, match="predict_proba"): evaluate(_Fixed(), NoProba(), (X, Y), folds=2, metrics=("coverage",))
    assert len(evaluate(_Fixed(), NoProba(), (X, Y), folds=2, subset_fractions=(.5,), metrics=("f1",))) == 2


def test_n_top_rule():
    assert [_n_top(p, 72) for p in FRACTIONS] == [int(np.floor(p * 72 + 1e-9)) for p in FRACTIONS]
    assert [_n_top(p, 10) for p in FRACTIONS] == list(range(1, 10))
    assert _n_top(0.01, 10) == 1 and _n_top(1.0, 10) == 10


def test_label_scores_from_multioutput_list():
    X, Y = make_data(30)
    Y[:, 2] = 1                                              # constant label: single-column predict_proba
    m = knn().fit(X, Y)
    S = _label_scores(m, m.predict_proba(X[:5]))
    assert S.shape == (5, 3) and np.all(S[:, 2] == 1.0)
    assert np.allclose(S[:, 0], m.estimators_[0].predict_proba(X[:5])[:, 1])
    assert np.array_equal(_label_scores(None, np.ones((2, 3))), np.ones((2, 3)))


# ---------------------------------------------------------------- FFA

def test_ffa_curve_matches_manual_loop():
    X, Y = make_data(80)
    tr, te = np.arange(60), np.arange(60, 80)
    rk = np.array([2, 1, 5, 0, 3, 4])
    cur = ffa_curve(rk, knn(), X[tr], Y[tr], X[te], Y[te], metric="f1")
    assert list(cur.columns) == ["n_features", "value"] and cur["n_features"].tolist() == [1, 2, 3, 4, 5, 6]
    for k, v in zip(cur["n_features"], cur["value"]):
        m = knn().fit(X[tr][:, rk[:k]], Y[tr])
        assert v == pytest.approx(f1_score(Y[te], m.predict(X[te][:, rk[:k]]), average="samples", zero_division=1))
    assert ffa_curve(rk, knn(), X[tr], Y[tr], X[te], Y[te], "f1", steps=[2, 6])["value"].tolist() == cur["value"].iloc[[1, 5]].tolist()
    assert ffa_curve(rk, knn(), X[tr], Y[tr], X[te], Y[te], "f1", steps=3)["n_features"].tolist() == [1, 4, 6]


def test_random_baseline_is_mean_of_random_curves():
    X, Y = make_data(60)
    split = (X[:45], Y[:45], X[45:], Y[45:])
    base = random_ffa_baseline(knn(), *split, metric="pooled_auprc", steps=[1, 3, 6], n_random=5, random_state=2)
    rng = np.random.default_rng(2)
    curves = np.stack([ffa_curve(rng.permutation(6), knn(), *split, "pooled_auprc", [1, 3, 6])["value"] for _ in range(5)])
    assert np.allclose(base["value"], curves.mean(0)) and np.allclose(base["std"], curves.std(0))
    assert base["value"].iloc[-1] == pytest.approx(curves[0, -1])   # all features: same model for any ranking


def test_ffa_bad_input():
    X, Y = make_data(40)
    split = (X[:30], Y[:30], X[30:], Y[30:])
    with pytest.raises(ValueError, match="ranking must be"): ffa_curve([0, 0, 1], knn(), *split, "f1")
    with pytest.raises(ValueError, match="ranking must be"): ffa_curve([0, 9], knn(), *split, "f1")
    with pytest.raises(ValueError, match="metric: unknown"): ffa_curve([0, 1], knn(), *split, "auc")
    with pytest.raises(ValueError, match="steps must be"): ffa_curve([0, 1], knn(), *split, "f1", steps=[3])
    with pytest.raises(ValueError, match="X_test"): ffa_curve([0, 1], knn(), X[:30], Y[:30], X[30:, :3], Y[30:], "f1")
    with pytest.raises(ValueError, match="n_random"): random_ffa_baseline(knn(), *split, "f1", n_random=0)


# ---------------------------------------------------------------- stability

def test_kuncheva_hand_values():
    # n=10, k=3: r=2 -> (20-9)/21; r=0 -> -9/21; r=3 -> 1
    assert kuncheva_index([[0, 1, 2], [0, 1, 3]], 10) == pytest.approx(11 / 21)
    assert kuncheva_index([[0, 1, 2], [7, 8, 9]], 10) == pytest.approx(-9 / 21)
    assert kuncheva_index([[0, 1, 2], [2, 1, 0]], 10) == pytest.approx(1.0)
    # three subsets: pairs r = 2, 0, 0 -> (11 - 9 - 9) / 63
    assert kuncheva_index([[0, 1, 2], [0, 1, 3], [7, 8, 9]], 10) == pytest.approx(-7 / 63)
    # n=6, k=2, r=1: (6 - 4) / (2 * 4) = 1/4
    assert kuncheva_index([np.array([0, 5]), np.array([5, 3])], 6) == pytest.approx(.25)


def test_kuncheva_random_subsets_near_zero():
    rng = np.random.default_rng(0)
    subs = [rng.choice(50, 10, replace=False) for _ in range(60)]
    assert abs(kuncheva_index(subs, 50)) < 0.03


def test_kuncheva_bad_input():
    with pytest.raises(ValueError, match="undefined"): kuncheva_index([[], []], 5)
    with pytest.raises(ValueError, match="undefined"): kuncheva_index([[0, 1, 2], [2, 0, 1]], 3)
    with pytest.raises(ValueError, match="same size"): kuncheva_index([[0, 1], [0]], 5)
    with pytest.raises(ValueError, match="at least 2"): kuncheva_index([[0, 1]], 5)
    with pytest.raises(ValueError, match="distinct"): kuncheva_index([[0, 0], [0, 1]], 5)
    with pytest.raises(ValueError, match="distinct"): kuncheva_index([[0, 7], [0, 1]], 5)
    with pytest.raises(ValueError, match="n_features"): kuncheva_index([[0], [1]], 0)


def test_ranking_stability():
    rks = [np.array([0, 1, 2, 3, 4]), np.array([0, 2, 1, 4, 3]), np.array([1, 0, 2, 3, 4])]
    st = ranking_stability(rks, 5, fractions=(0.2, 0.4, 1.0))
    assert list(st.columns) == ["fraction", "n_features", "kuncheva"] and st["n_features"].tolist() == [1, 2]
    # k=1: subsets {0},{0},{1}: pairs r=1,0,0 -> (1*5-1)/4=1, (0-1)/4 twice -> mean 1/6
    assert st["kuncheva"].iloc[0] == pytest.approx((1 - .25 - .25) / 3)
    assert st["kuncheva"].iloc[1] == pytest.approx(kuncheva_index([[0, 1], [0, 2], [1, 0]], 5))


# ---------------------------------------------------------------- statistical tests

def test_wilcoxon_wrapper():
    rng = np.random.default_rng(0)
    a, b = rng.random(12), rng.random(12)
    w = wilcoxon_test(a, b)
    ref = stats.wilcoxon(a, b)
    assert list(w.columns) == ["n", "mean_a", "mean_b", "median_difference", "statistic", "pvalue"] and len(w) == 1
    assert w["statistic"][0] == ref.statistic and w["pvalue"][0] == pytest.approx(ref.pvalue)
    assert w["pvalue"][0] == pytest.approx(stats.wilcoxon(a - b).pvalue)
    with pytest.raises(ValueError, match="paired"): wilcoxon_test(a, b[:5])
    with pytest.raises(ValueError, match="NaN"): wilcoxon_test(np.r_[a[:-1], np.nan], b)


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_wilcoxon_tied_exact_equals_enumeration(alternative, zero_method):
    # tied |differences| (and zeros): the counted null must give scipy's enumeration of all 2^n sign patterns, bit for bit
    rng = np.random.default_rng(hash((alternative, zero_method)) % 2**32)
    for n in range(2, 13):
        d = rng.integers(-3, 4, n).astype(np.float64)
        if not np.any(d != 0) or np.unique(np.abs(d[d != 0])).size == np.count_nonzero(d): d[:2] = [2.0, -2.0]
        if zero_method != "wilcox" and not np.any(d == 0): d[-1] = 0.0
        if zero_method == "zsplit" and np.count_nonzero(d) == 0: continue
        ref = stats.wilcoxon(d, alternative=alternative, zero_method=zero_method,
                             method=stats.PermutationMethod(n_resamples=np.inf))
        w = wilcoxon_test(d, np.zeros(n), alternative=alternative, zero_method=zero_method)
        assert w["pvalue"][0] == ref.pvalue and w["statistic"][0] == ref.statistic, (n, d)


def test_wilcoxon_exact_beyond_enumeration():
    # 60 tied differences, 2^60 sign patterns: the counts sum to 2^60 and have the null's exact mean Σr/2 and variance Σr²/4
    d = np.repeat([1.0, 2.0, 3.0, -1.0, -2.0, 4.0], 10)
    r2 = np.rint(2 * stats.rankdata(np.abs(d))).astype(np.int64)
    c = _signed_rank_counts(r2)
    s = np.arange(c.size, dtype=object)
    assert sum(c) == 2**60
    assert sum(c * s) * 2 == int(r2.sum()) * 2**60                       # mean Σ r2 / 2, in integers
    assert sum(c * s * s) * 4 == (int(r2.sum())**2 + int((r2**2).sum())) * 2**60   # E[S²] = (Σr)²/4 + Σr²/4
    w = wilcoxon_test(d, np.zeros_like(d))
    assert 0 < w["pvalue"][0] < 1e-3 and w["statistic"][0] == stats.wilcoxon(d).statistic


def test_friedman_hand_example_and_ties():
    # A always best, C always worst on 4 data sets: ranks 1,2,3; chi2 = 12*4/(3*4) * (1+4+9 - 12) = 8
    t = pd.DataFrame({"A": [.9, .8, .7, .95], "B": [.8, .7, .6, .9], "C": [.1, .2, .3, .4]})
    f = friedman_test(t)
    assert list(f.columns) == ["method", "average_rank", "statistic", "pvalue", "iman_davenport", "pvalue_iman_davenport", "n_datasets"]
    assert f["method"].tolist() == ["A", "B", "C"] and f["average_rank"].tolist() == [1, 2, 3]
    assert f["statistic"][0] == pytest.approx(8.0) and f["pvalue"][0] == pytest.approx(np.exp(-4))
    # lower is better (e.g. Hamming loss): the order flips
    assert friedman_test(t, greater_is_better=False)["method"].tolist() == ["C", "B", "A"]
    # ties share the mean rank: data set 0 has A = B
    t2 = t.copy(); t2.loc[0, "B"] = .9
    assert average_ranks(t2).tolist() == pytest.approx([(1.5 + 1 + 1 + 1) / 4, (1.5 + 2 + 2 + 2) / 4, 3.0])


def test_friedman_equals_formula_without_ties():
    rng = np.random.default_rng(5)
    T = rng.random((10, 4))
    N, k = T.shape
    R = stats.rankdata(-T, axis=1).mean(0)
    chi2 = 12 * N / (k * (k + 1)) * (np.sum(R ** 2) - k * (k + 1) ** 2 / 4)
    f = friedman_test(T)
    assert f["statistic"][0] == pytest.approx(chi2)
    assert f["pvalue"][0] == pytest.approx(stats.chi2.sf(chi2, k - 1))
    assert sorted(f["average_rank"]) == pytest.approx(sorted(R))


def test_friedman_bad_input():
    with pytest.raises(ValueError, match="at least 3 methods"): friedman_test(np.random.rand(5, 2))
    with pytest.raises(ValueError, match="table must have"): friedman_test(np.random.rand(1, 3))
    with pytest.raises(ValueError, match="NaN"): friedman_test(np.array([[1, 2, np.nan], [1, 2, 3]]))


def test_nemenyi_against_demsar_table():
    # Demšar (2006), Table 5(a) (Nemenyi), rows alpha=0.05 and alpha=0.10, k = 2..10
    q05 = [1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164]
    q10 = [1.645, 2.052, 2.291, 2.459, 2.589, 2.693, 2.780, 2.855, 2.920]
    for k, a, b in zip(range(2, 11), q05, q10):
        scale = np.sqrt(k * (k + 1) / 6)
        assert nemenyi_cd(k, 1) / scale == pytest.approx(a, abs=1.5e-3)
        assert nemenyi_cd(k, 1, alpha=.10) / scale == pytest.approx(b, abs=1.5e-3)
    assert nemenyi_cd(4, 14) == pytest.approx(2.569 * np.sqrt(20 / 84), abs=1e-3)   # Demšar's example: 1.25
    with pytest.raises(ValueError, match="n_methods"): nemenyi_cd(1, 5)
    with pytest.raises(ValueError, match="n_datasets"): nemenyi_cd(3, 0)
    with pytest.raises(ValueError, match="alpha"): nemenyi_cd(3, 5, alpha=1.5)


# ---------------------------------------------------------------- General_B

def test_general_b_order_and_ties():
    # frequencies: 3, 2, 2, 1; labels 1 and 2 tie; label 2 co-occurs with label 0 twice, label 1 once
    Y = np.array([[1, 0, 1, 0], [1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 0, 1]])
    assert general_b(Y).tolist() == [0, 2, 1, 3]
    # full tie at the top: lower index first; then co-occurrence with the chosen label decides
    Y2 = np.array([[1, 0, 0], [0, 1, 1], [0, 1, 1], [1, 0, 0]])
    assert general_b(Y2).tolist() == [0, 1, 2]
    Y3 = np.array([[0, 1, 0], [0, 1, 1], [1, 0, 1], [1, 0, 0]])   # all frequency 2; label 2 co-occurs with 0 and 1
    assert general_b(Y3).tolist() == [0, 2, 1]


def test_general_b_classifier():
    Y = np.array([[1, 0, 1, 0], [1, 0, 1, 0], [1, 1, 0, 0], [0, 1, 0, 1]])  # cardinality 8/4 = 2 -> sigma 2
    g = GeneralB().fit(np.zeros((4, 1)), Y)
    assert g.n_labels_ == 2 and g.predict(np.zeros((3, 1))).tolist() == [[1, 0, 1, 0]] * 3
    assert np.allclose(g.predict_proba(np.zeros((2, 1))), [[.75, .5, .5, .25]] * 2)
    # cardinality 1.5 rounds half up to 2; 1.25 to 1
    assert GeneralB().fit(None, np.array([[1, 1], [1, 0]])).n_labels_ == 2
    assert GeneralB().fit(None, np.array([[1, 1], [1, 0], [1, 0], [0, 1]])).n_labels_ == 1
    assert clone(g).get_params() == {}
    with pytest.raises(ValueError, match="Y must contain only 0 and 1"): GeneralB().fit(None, Y * 3)
    sparse = sp.csr_matrix(np.zeros((3, 1)))                   # a sparse set's rows (corel5k kept sparse)
    assert g.predict(sparse).shape == (3, 4) and g.predict_proba(sparse).shape == (3, 4)


# ---------------------------------------------------------------- plots

def test_plots_return_axes():
    import matplotlib.pyplot as plt
    X, Y = make_data(40)
    df = pd.concat([evaluate(_Fixed(), knn(), (X, Y), folds=2, subset_fractions=(.5, 1.), metrics=("f1",), method=m)
                    for m in ("a", "b")])
    ax = plot_metric_vs_size(df, "f1")
    assert isinstance(ax, matplotlib.axes.Axes) and len(ax.containers) == 2
    with pytest.raises(ValueError, match="no rows"): plot_metric_vs_size(df, "coverage")
    two = pd.concat([df, df.assign(dataset="other")])
    with pytest.raises(ValueError, match="several data sets"): plot_metric_vs_size(two, "f1")
    assert isinstance(plot_metric_vs_size(two, "f1", dataset="other"), matplotlib.axes.Axes)
    cur = pd.DataFrame({"n_features": [1, 2, 3], "value": [.5, .6, .7]})
    ax = plot_ffa(cur, cur.assign(std=.1))
    assert len(ax.lines) == 2
    f = friedman_test(pd.DataFrame(np.random.default_rng(0).random((5, 4)), columns=list("abcd")))
    ax = plot_critical_difference(f, nemenyi_cd(4, 5))
    assert {t.get_text().split(" ")[0] for t in ax.texts} >= set("abcd")
    assert isinstance(plot_critical_difference({"x": 1.2, "y": 1.8}, 1.0), matplotlib.axes.Axes)
    plt.close("all")
