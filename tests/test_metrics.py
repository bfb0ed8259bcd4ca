"""relieffml.metrics against scikit-learn and the chapter's naive transcription.

References are independent of the vectorised code: scikit-learn's `sklearn.metrics`, the loop-for-loop
`_naive_*` functions of nbs/30_metrics.ipynb, and values worked out by hand in the comments.
"""
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck
from hypothesis.extra.numpy import arrays
from sklearn import metrics as skm

from relieffml import metrics as M
from relieffml.metrics import (METRICS, accuracy, average_precision, coverage, evaluate_all, f1, hamming_loss,
                               macro_f1, micro_f1, one_error, pooled_auprc, precision, ranking_loss, recall,
                               subset_accuracy)

BIPARTITION = dict(hamming_loss=hamming_loss, subset_accuracy=subset_accuracy, accuracy=accuracy,
                   precision=precision, recall=recall, f1=f1, micro_f1=micro_f1, macro_f1=macro_f1)
RANKING = dict(one_error=one_error, coverage=coverage, ranking_loss=ranking_loss,
               average_precision=average_precision)


def sk_bipartition(Yt, Yp):
    "scikit-learn's values of the measures it shares (zero_division=1 where a division can be by zero)."
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dict(
            hamming_loss=skm.hamming_loss(Yt, Yp),
            subset_accuracy=skm.accuracy_score(Yt, Yp),
            accuracy=skm.jaccard_score(Yt, Yp, average="samples", zero_division=1),
            f1=skm.f1_score(Yt, Yp, average="samples", zero_division=1),
            micro_f1=skm.f1_score(Yt, Yp, average="micro", zero_division=1),
            macro_f1=skm.f1_score(Yt, Yp, average="macro", zero_division=1),
            precision_sklearn=skm.precision_score(Yt, Yp, average="samples", zero_division=1),
            recall_sklearn=skm.recall_score(Yt, Yp, average="samples", zero_division=1))


def sk_ranking(Yt, S):
    "scikit-learn ranking measures; coverage row by row with Mulan's 0 for rows without a relevant label."
    cov = np.mean([max(skm.coverage_error(Yt[i:i+1], S[i:i+1]) - 1, 0) for i in range(len(Yt))])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        auprc = skm.average_precision_score(Yt, S, average="micro")
    return dict(coverage=cov, ranking_loss=skm.label_ranking_loss(Yt, S),
                average_precision=skm.label_ranking_average_precision_score(Yt, S), pooled_auprc=auprc)


def mulan_row(tp, fp, fn, what):
    "Mulan's InformationRetrievalMeasures.precision / recall for one instance (transcribed from its Javadoc)."
    if tp + fp + fn == 0: return 1.
    if what == "precision": return 0. if tp + fp == 0 else tp / (tp + fp)
    return 0. if tp + fn == 0 else tp / (tp + fn)


def random_case(seed, n=None, q=None, density=None, levels=None):
    rng = np.random.default_rng(seed)
    n = n or int(rng.integers(1, 40)); q = q or int(rng.integers(1, 9))
    d = rng.uniform(.05, .8) if density is None else density
    Yt = (rng.random((n, q)) < d).astype(np.uint8)
    Yp = (rng.random((n, q)) < rng.uniform(.05, .8)).astype(np.uint8)
    levels = levels or int(rng.choice([2, 3, 5, 1000]))
    S = rng.integers(0, levels, (n, q)) / levels      # few levels -> many ties
    return Yt, Yp, S


# ---------------------------------------------------------------- parity sweeps

@pytest.mark.parametrize("seed", range(60))
def test_bipartition_equals_sklearn_and_naive(seed):
    Yt, Yp, _ = random_case(seed)
    # scikit-learn reads a one-column indicator matrix as a binary target: no sample-wise measures
    sk = sk_bipartition(Yt, Yp) if Yt.shape[1] > 1 else {}
    naive = {**M._naive_example_based(Yt, Yp), **M._naive_label_based(Yt, Yp)}
    for name, fn in BIPARTITION.items():
        assert fn(Yt, Yp) == pytest.approx(naive[name], abs=1e-12), name
        if name in sk: assert fn(Yt, Yp) == pytest.approx(sk[name], abs=1e-12), name
    if not sk: return
    assert precision(Yt, Yp, empty="sklearn") == pytest.approx(sk["precision_sklearn"], abs=1e-12)
    assert recall(Yt, Yp, empty="sklearn") == pytest.approx(sk["recall_sklearn"], abs=1e-12)


@pytest.mark.parametrize("seed", range(60))
def test_precision_recall_mulan_rule(seed):
    Yt, Yp, _ = random_case(seed)
    t, h = Yt.astype(bool), Yp.astype(bool)
    tp, fp, fn = (t & h).sum(1), (~t & h).sum(1), (t & ~h).sum(1)
    for what, fn_ in (("precision", precision), ("recall", recall)):
        ref = np.mean([mulan_row(a, b, c, what) for a, b, c in zip(tp, fp, fn)])
        assert fn_(Yt, Yp) == pytest.approx(ref, abs=1e-12)


@pytest.mark.parametrize("seed", range(60))
def test_ranking_equals_sklearn_and_naive(seed):
    Yt, _, S = random_case(seed)
    sk, naive = (sk_ranking(Yt, S) if Yt.shape[1] > 1 else {}), M._naive_ranking(Yt, S)
    for name, fn in RANKING.items():
        assert fn(Yt, S) == pytest.approx(naive[name], abs=1e-12), name
        if name in sk: assert fn(Yt, S) == pytest.approx(sk[name], abs=1e-12), name
    if sk: assert pooled_auprc(Yt, S) == pytest.approx(sk["pooled_auprc"], abs=1e-12)
    assert pooled_auprc(Yt, S) == pytest.approx(M._naive_pooled_auprc(Yt, S), abs=1e-12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 12).flatmap(lambda n: st.integers(2, 6).flatmap(lambda q: st.tuples(
    arrays(np.uint8, (n, q), elements=st.integers(0, 1)),
    arrays(np.uint8, (n, q), elements=st.integers(0, 1)),
    arrays(np.float64, (n, q), elements=st.sampled_from([0., .25, .5, 1., -3.]))))))
def test_fuzz_against_sklearn(case):
    Yt, Yp, S = case
    sk = sk_bipartition(Yt, Yp)
    for name in ("hamming_loss", "subset_accuracy", "accuracy", "f1", "micro_f1", "macro_f1"):
        assert BIPARTITION[name](Yt, Yp) == pytest.approx(sk[name], abs=1e-12), name
    skr = sk_ranking(Yt, S)
    for name in ("coverage", "ranking_loss", "average_precision"):
        assert RANKING[name](Yt, S) == pytest.approx(skr[name], abs=1e-12), name
    assert pooled_auprc(Yt, S) == pytest.approx(skr["pooled_auprc"], abs=1e-12)


def test_large_q_uses_blocks():
    "More labels than one block of the rank-count tensor holds: blocks must stitch correctly."
    Yt, _, S = random_case(7, n=40, q=400, density=.1, levels=7)
    assert ranking_loss(Yt, S) == pytest.approx(skm.label_ranking_loss(Yt, S), abs=1e-12)
    assert average_precision(Yt, S) == pytest.approx(skm.label_ranking_average_precision_score(Yt, S), abs=1e-12)
    assert coverage(Yt, S) == pytest.approx(sk_ranking(Yt, S)["coverage"], abs=1e-12)


def test_coverage_is_coverage_error_minus_one_without_empty_rows():
    Yt, _, S = random_case(3, n=50, q=6, density=.5)
    Yt[:, 0] = 1
    assert coverage(Yt, S) == pytest.approx(skm.coverage_error(Yt, S) - 1, abs=1e-12)


# ---------------------------------------------------------------- edge cases, by hand

def test_empty_true_and_empty_pred_row():
    Z = np.zeros((1, 4), np.uint8)
    for name in ("subset_accuracy", "accuracy", "precision", "recall", "f1", "micro_f1", "macro_f1"):
        assert BIPARTITION[name](Z, Z) == 1.0, name
    assert hamming_loss(Z, Z) == 0.0


def test_one_sided_empty_rows():
    T, E = np.array([[1, 0, 1]]), np.zeros((1, 3), int)
    # empty prediction, non-empty truth: Mulan precision 0 (sklearn zero_division=1: 1), recall 0
    assert (precision(T, E), precision(T, E, empty="sklearn"), recall(T, E)) == (0., 1., 0.)
    # empty truth, non-empty prediction: Mulan recall 0 (sklearn 1), precision 0
    assert (recall(E, T), recall(E, T, empty="sklearn"), precision(E, T)) == (0., 1., 0.)
    assert (f1(T, E), accuracy(T, E), f1(E, T), accuracy(E, T)) == (0., 0., 0., 0.)


def test_all_zero_columns_macro_f1():
    # label 2 never true, never predicted -> F = 1; label 0: tp=1, fp=1 -> 2/3; label 1: tp=0, fn=1 -> 0
    Yt = np.array([[1, 1, 0], [0, 0, 0]]); Yp = np.array([[1, 0, 0], [1, 0, 0]])
    assert macro_f1(Yt, Yp) == pytest.approx((2/3 + 0 + 1) / 3)
    assert micro_f1(Yt, Yp) == pytest.approx(2 * 1 / (2 * 1 + 1 + 1))


def test_ranking_by_hand_with_ties():
    Yt = np.array([[1, 0, 0], [1, 0, 0], [0, 0, 0], [1, 1, 1], [0, 1, 1]])
    S = np.array([[.5, .5, .1], [.2, .2, .2], [.1, .9, .3], [.3, .3, .3], [.1, .4, .4]])
    # one-error: tie at top with an irrelevant label -> 1; all tied -> 1; no relevant -> 0; all relevant -> 0;
    # top tie of two relevant labels -> 0
    assert one_error(Yt, S) == pytest.approx(2 / 5)
    # coverage (pessimistic ranks): 2-1, 3-1, 0, 3-1, 2-1
    assert coverage(Yt, S) == pytest.approx((1 + 2 + 0 + 2 + 1) / 5)
    # ranking loss: 1/2, 2/2, 0, 0, 0
    assert ranking_loss(Yt, S) == pytest.approx(1.5 / 5)
    # average precision: 1/2, 1/3, 1, 1, 1 (both relevant at pessimistic rank 2, 2 relevant within)
    assert average_precision(Yt, S) == pytest.approx((1/2 + 1/3 + 1 + 1 + 1) / 5)


def test_pooled_auprc_by_hand():
    # pooled scores .9(+) .8(-) .7(+) .1(-): P=(1, 1/2, 2/3, 1/2), R=(1/2, 1/2, 1, 1)
    Yt, S = np.array([[1, 0], [1, 0]]), np.array([[.9, .8], [.7, .1]])
    assert pooled_auprc(Yt, S) == pytest.approx(.5 * 1 + .5 * 2 / 3)
    # a tie of a positive and a negative at the top: one threshold, P=1/2 R=1/2; then .7(+): P=2/3, R=1
    S2 = np.array([[.9, .9], [.7, .1]])
    assert pooled_auprc(Yt, S2) == pytest.approx(.5 * .5 + .5 * 2 / 3)
    assert pooled_auprc(np.zeros((2, 2)), S) == 0.0


def test_bool_pandas_sparse_inputs():
    import pandas as pd
    from scipy import sparse
    Yt, Yp, S = random_case(11, n=20, q=4)
    ref = f1(Yt, Yp)
    assert f1(Yt.astype(bool), Yp.astype(bool)) == ref
    assert f1(pd.DataFrame(Yt), sparse.csr_matrix(Yp)) == ref
    assert ranking_loss(pd.DataFrame(Yt), pd.DataFrame(S)) == ranking_loss(Yt, S)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("fn", list(BIPARTITION.values()))
def test_bipartition_bad_input(fn):
    Y = np.array([[0, 1], [1, 0]])
    with pytest.raises(ValueError, match="Y_pred must have the shape"): fn(Y, Y[:, :1])
    with pytest.raises(ValueError, match="Y_pred must contain only 0 and 1"): fn(Y, Y * .5)
    with pytest.raises(ValueError, match="Y_pred must contain only 0 and 1"): fn(Y, np.where(Y, np.nan, 0))
    with pytest.raises(ValueError, match="Y_true must contain only 0 and 1"): fn(Y * 2, Y)
    with pytest.raises(ValueError, match="Y_true must be 2-D"): fn(Y[0], Y[0])
    with pytest.raises(ValueError, match="Y_true is empty"): fn(Y[:0], Y[:0])


@pytest.mark.parametrize("fn", list(RANKING.values()) + [pooled_auprc])
def test_ranking_bad_input(fn):
    Y, S = np.array([[0, 1], [1, 0]]), np.array([[.1, .2], [.3, .4]])
    with pytest.raises(ValueError, match="scores must have the shape"): fn(Y, S[:1])
    with pytest.raises(ValueError, match="scores must be finite"): fn(Y, np.where(Y, np.nan, S))
    with pytest.raises(ValueError, match="scores must be finite"): fn(Y, np.where(Y, np.inf, S))
    with pytest.raises(ValueError, match="scores must be real"): fn(Y, np.array([["a", "b"], ["c", "d"]]))
    with pytest.raises(ValueError, match="Y_true must contain only 0 and 1"): fn(Y + 1, S)


def test_registry_and_evaluate_all():
    assert set(METRICS) == set(BIPARTITION) | set(RANKING) | {"pooled_auprc"}
    for name, m in METRICS.items():
        assert m.kind in ("bipartition", "ranking")
        assert m.greater_is_better == (name not in ("hamming_loss", "one_error", "coverage", "ranking_loss"))
        assert (m.kind == "bipartition") == (name in BIPARTITION)
    Yt, Yp, S = random_case(5, n=30, q=5)
    res = evaluate_all(Yt, Yp, S)
    assert list(res) == list(METRICS)
    assert all(res[k] == METRICS[k].func(Yt, Yp if METRICS[k].kind == "bipartition" else S) for k in res)
    assert set(evaluate_all(Yt, scores=S)) == set(RANKING) | {"pooled_auprc"}
    assert list(evaluate_all(Yt, Yp, metrics=["f1", "hamming_loss"])) == ["f1", "hamming_loss"]
    with pytest.raises(ValueError, match="need scores"): evaluate_all(Yt, Yp, metrics=["one_error"])
    with pytest.raises(ValueError, match="need Y_pred"): evaluate_all(Yt, scores=S, metrics=["f1"])
    with pytest.raises(ValueError, match="unknown"): evaluate_all(Yt, Yp, metrics=["auc"])


# ---------------------------------------------------------------- tie conventions (issue: ties=)

def tie_breakings(t, s):
    "Every strict order of the labels consistent with the scores `s` (ties broken every possible way), best first."
    from itertools import permutations
    for perm in permutations(range(len(s))):
        if all(s[perm[i]] >= s[perm[i + 1]] for i in range(len(s) - 1)): yield list(perm)


def strict_row(t, order):
    "one-error, coverage and ranking loss of one instance under the strict order `order` (best first), by definition."
    pos = {y: i + 1 for i, y in enumerate(order)}
    rel, irr = [y for y in order if t[y]], [y for y in order if not t[y]]
    one = float(not t[order[0]]) if rel else 0.
    cov = max(pos[y] for y in rel) - 1 if rel else 0
    rl = sum(pos[a] > pos[b] for a in rel for b in irr) / (len(rel) * len(irr)) if rel and irr else 0.
    return np.array([one, cov, rl])


@pytest.mark.parametrize("seed", range(25))
def test_ties_bound_and_average_every_tie_breaking(seed):
    # pessimistic / optimistic = worst / best over all tie-breakings; average = their mean for one-error and
    # ranking loss (random tie-breaking); coverage's "average" is the midpoint rule, between the two bounds
    Yt, _, S = random_case(seed, n=6, q=int(np.random.default_rng(seed).integers(2, 6)), levels=2)
    per_row = [np.array([strict_row(t, o) for o in tie_breakings(t, s)]) for t, s in zip(Yt, S)]
    worst = np.mean([r.max(0) for r in per_row], 0)
    best = np.mean([r.min(0) for r in per_row], 0)
    mean = np.mean([r.mean(0) for r in per_row], 0)
    fns = (one_error, coverage, ranking_loss)
    assert [f(Yt, S) for f in fns] == pytest.approx(worst.tolist(), abs=1e-12)
    assert [f(Yt, S, ties="optimistic") for f in fns] == pytest.approx(best.tolist(), abs=1e-12)
    assert one_error(Yt, S, ties="average") == pytest.approx(mean[0], abs=1e-12)
    assert ranking_loss(Yt, S, ties="average") == pytest.approx(mean[2], abs=1e-12)
    assert best[1] - 1e-12 <= coverage(Yt, S, ties="average") <= worst[1] + 1e-12


@pytest.mark.parametrize("seed", range(25))
def test_pessimistic_is_sklearn_and_untied_scores_ignore_ties(seed):
    Yt, _, S = random_case(seed, levels=3)
    if Yt.shape[1] < 2: return
    sk = sk_ranking(Yt, S)
    for name in ("coverage", "ranking_loss", "average_precision"):
        assert RANKING[name](Yt, S, ties="pessimistic") == pytest.approx(sk[name], abs=1e-12)
    Su = S + np.random.default_rng(seed).permutation(S.size).reshape(S.shape) * 1e-6   # no ties left
    for fn in RANKING.values():
        vals = [fn(Yt, Su, ties=t) for t in ("pessimistic", "average", "optimistic", "mulan")]
        if not Yt.any(1).all(): vals = vals[:3]        # "mulan" also takes Mulan's rules for rows without a relevant label
        assert vals == pytest.approx([vals[0]] * len(vals), abs=1e-12)


def test_ties_by_hand():
    # one instance, labels (relevant, irrelevant, irrelevant, relevant), scores (.6, .6, .6, .2)
    Yt, S = np.array([[1, 0, 0, 1]]), np.array([[.6, .6, .6, .2]])
    # average precision: label 3 has all 4 at or above it, 2 relevant -> 2/4 under every convention;
    # label 0: 1 relevant at or above; above = 1 + w * 2 -> pessimistic 1/3, average 1/2, optimistic 1
    assert average_precision(Yt, S) == pytest.approx((1/3 + 1/2) / 2)
    assert average_precision(Yt, S, ties="average") == pytest.approx((1/2 + 1/2) / 2)
    assert average_precision(Yt, S, ties="optimistic") == pytest.approx((1 + 1/2) / 2)
    # ranking loss: pairs (0,1), (0,2) tied, (3,1), (3,2) wrong -> (2w + 2) / 4
    assert [ranking_loss(Yt, S, ties=t) for t in ("pessimistic", "average", "optimistic")] == pytest.approx([1, .75, .5])
    # one-error: top group {0, 1, 2}, two of three irrelevant
    assert [one_error(Yt, S, ties=t) for t in ("pessimistic", "average", "optimistic")] == pytest.approx([1, 2/3, 0])
    # coverage: last relevant label (3) is 4th whatever the ties -> 3
    assert [coverage(Yt, S, ties=t) for t in ("pessimistic", "average", "optimistic")] == [3, 3, 3]


def test_mulan_tie_order_by_hand():
    # Mulan's ranksFromValues: Weka's stable ascending sort, ranks counted from the end -> of equal scores the
    # later label is ranked higher. Scores (.5, .5): label 1 first.
    S = np.array([[.5, .5]])
    assert one_error(np.array([[0, 1]]), S, ties="mulan") == 0. and one_error(np.array([[1, 0]]), S, ties="mulan") == 1.
    assert ranking_loss(np.array([[0, 1]]), S, ties="mulan") == 0. and ranking_loss(np.array([[1, 0]]), S, ties="mulan") == 1.
    assert average_precision(np.array([[1, 0]]), S, ties="mulan") == .5
    # three labels (.3, .7, .3), relevant {0}: Mulan's order 1, 2, 0 -> coverage 2, AP 1/3
    assert coverage([[1, 0, 0]], [[.3, .7, .3]], ties="mulan") == 2.
    assert average_precision([[1, 0, 0]], [[.3, .7, .3]], ties="mulan") == pytest.approx(1 / 3)


@pytest.mark.parametrize("fn", list(RANKING.values()))
def test_ties_bad_value(fn):
    with pytest.raises(ValueError, match="ties must be one of"): fn([[1, 0]], [[.1, .2]], ties="random")
