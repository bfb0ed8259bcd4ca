"""Problem transformation (BR, LP) and LCFS: Weka parity of IG-BR, IG-LP, RF-BR, RF-LP and an LCFS setting,
the ReliefF fast path against the per-label loop, hand-computed pair selection, independent re-implementations
of the selection rules (fuzzed), generic scikit-learn scorers, and bad input."""
import dataclasses
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.feature_selection import SelectKBest, f_classif

from relieffml.infogain import InfoGain
from relieffml.relieff import ReliefF
from relieffml.transform import (BinaryRelevanceRanker, LabelPowersetRanker, LCFS, pair_counts, select_pairs,
                                 construct_labels, pair_operators)
from weka_harness import weka_scores, write_arff

IG = "weka.attributeSelection.InfoGainAttributeEval"
RF = "weka.attributeSelection.ReliefFAttributeEval"

# The 6×4 toy of the chapter: hand counts c_c (0,1)=0 (0,2)=2 (0,3)=1 (1,2)=3 (1,3)=2 (2,3)=3,
# c_d (0,1)=5 (0,2)=3 (0,3)=3 (1,2)=2 (1,3)=2 (2,3)=2.
Y6 = np.array([[0, 0, 0, 0], [0, 1, 1, 1], [1, 0, 1, 0], [0, 1, 1, 1], [0, 1, 1, 0], [1, 0, 1, 1]], np.uint8)


def lp_codes(Y):
    return np.unique(Y, axis=0, return_inverse=True)[1].ravel().astype(np.int64)


def with_missing(X, frac, seed):
    X = X.copy(); X[np.random.default_rng(seed).random(X.shape) < frac] = np.nan
    return X


# ---------------------------------------------------------------- independent selection rules (for fuzzing)
def naive_cs(Y, n):
    "CS: sort (−c_c, i, j) tuples, walk them, keep disjoint pairs."
    Y = Y.astype(int); q = Y.shape[1]
    cands = sorted((-int((Y[:, i] * Y[:, j]).sum()), i, j) for i in range(q) for j in range(i + 1, q))
    out, used = [], set()
    for _, i, j in cands:
        if len(out) < n and not {i, j} & used: out.append((i, j)); used |= {i, j}
    return out


def naive_ls(Y, n):
    "LS: two sorted tuple lists; pop the larger head (ties → agreement list), keep it if disjoint."
    Y = Y.astype(int); q, N = Y.shape[1], len(Y)
    agree = {(i, j): int((Y[:, i] == Y[:, j]).sum()) for i in range(q) for j in range(i + 1, q)}
    le = sorted(agree, key=lambda p: (-agree[p], p))
    ld = sorted(agree, key=lambda p: (-(N - agree[p]), p))
    out, used = [], set()
    while len(out) < n:
        if agree[le[0]] >= N - agree[ld[0]]: p, op = le.pop(0), "xnor"
        else: p, op = ld.pop(0), "xor"
        if not set(p) & used: out.append((p, op)); used |= set(p)
    return out


# ---------------------------------------------------------------- Weka parity
@pytest.fixture(scope="module")
def weka_runs(weka_jar, data_home, tmp_path_factory):
    "All single-label ARFFs of the module, scored by Weka's IG and ReliefF (-M -1 -K 10) in two JVMs."
    from relieffml.data import load_dataset
    tmp = tmp_path_factory.mktemp("transform")
    emo, flags = load_dataset("emotions", data_home), load_dataset("flags", data_home)
    flags_m = with_missing(flags.X, 0.05, 7)
    pairs = naive_cs(emo.Y, 3)
    aug = np.hstack([emo.Y, np.column_stack([emo.Y[:, i] & emo.Y[:, j] for i, j in pairs])])
    problems = {}
    for l in range(emo.Y.shape[1]): problems[f"emo-l{l}"] = (emo, emo.X, emo.Y[:, l])
    problems["emo-lp"] = (emo, emo.X, lp_codes(emo.Y))
    problems["flags-lp-missing"] = (flags, flags_m, lp_codes(flags.Y))
    problems["flags-lp"] = (flags, flags.X, lp_codes(flags.Y))
    for l in range(flags.Y.shape[1]): problems[f"flags-l{l}"] = (flags, flags.X, flags.Y[:, l])
    flags_m2 = with_missing(flags.X, 0.05, 2)         # seed 2: tied distances that Weka breaks by index
    problems["flags-l6-missing"] = (flags, flags_m2, flags.Y[:, 6])
    for l in range(aug.shape[1]): problems[f"emo-csa-l{l}"] = (emo, emo.X, aug[:, l])
    paths = [write_arff(tmp / f"{k}.arff", X, y, ds.nominal, ds.categories,
                        class_values=[f"c{c}" for c in range(int(y.max()) + 1)])
             for k, (ds, X, y) in problems.items()]
    ig = dict(zip(problems, weka_scores(weka_jar, paths, IG, "", tmp)))
    rf_keys = [k for k in problems if not k.startswith("emo-csa")]
    rf = dict(zip(rf_keys, weka_scores(weka_jar, [p for k, p in zip(problems, paths) if k in rf_keys], RF, "-M -1 -K 10", tmp)))
    flags_ds = dataclasses.replace(flags, X=flags_m)      # keeps the declared values (ARFF header) for ReliefF
    flags_ds2 = dataclasses.replace(flags, X=flags_m2)
    return dict(emo=emo, flags=flags, flags_m=flags_m, flags_ds=flags_ds, flags_ds2=flags_ds2, ig=ig, rf=rf, cs_pairs=pairs)


@pytest.mark.weka
@pytest.mark.data
def test_ig_br_equals_weka(weka_runs):
    emo, ig = weka_runs["emo"], weka_runs["ig"]
    br = BinaryRelevanceRanker(store_label_weights=True).fit(emo)
    ref = np.stack([ig[f"emo-l{l}"] for l in range(6)])
    np.testing.assert_allclose(br.label_weights_, ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(br.weights_, ref.mean(0), rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_ig_lp_equals_weka(weka_runs):
    emo, flags = weka_runs["emo"], weka_runs["flags"]
    lp = LabelPowersetRanker().fit(emo)
    assert len(lp.label_sets_) == 27 and (lp.label_set_counts_ == 1).sum() == 4    # singleton classes
    np.testing.assert_allclose(lp.weights_, weka_runs["ig"]["emo-lp"], rtol=0, atol=1e-9)
    lpf = LabelPowersetRanker(nominal=flags.nominal).fit(weka_runs["flags_m"], flags.Y)
    np.testing.assert_allclose(lpf.weights_, weka_runs["ig"]["flags-lp-missing"], rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_rf_lp_equals_weka_with_singleton_classes(weka_runs):
    "RF-LP on emotions (4 label sets of one instance: empty hit pools) and flags (nominal, 54 label sets)."
    emo, flags = weka_runs["emo"], weka_runs["flags"]
    np.testing.assert_allclose(LabelPowersetRanker(ReliefF()).fit(emo).weights_, weka_runs["rf"]["emo-lp"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(LabelPowersetRanker(ReliefF()).fit(flags).weights_, weka_runs["rf"]["flags-lp"], rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_rf_br_equals_weka(weka_runs):
    emo, rf = weka_runs["emo"], weka_runs["rf"]
    br = BinaryRelevanceRanker(ReliefF(), store_label_weights=True).fit(emo)
    ref = np.stack([rf[f"emo-l{l}"] for l in range(6)])
    np.testing.assert_allclose(br.label_weights_, ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(br.weights_, ref.mean(0), rtol=0, atol=1e-9)
    one = BinaryRelevanceRanker(ReliefF()).fit(emo)          # the default: every label into one accumulator
    assert not hasattr(one, "label_weights_")
    np.testing.assert_allclose(one.weights_, ref.mean(0), rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_rf_br_flags_equals_weka(weka_runs):
    """RF-BR / RF-LP on flags: integer-valued numeric and nominal features give many tied distances, with and
    without missing values (seed 2, sample 59: instances 6 and 71 tie; Weka keeps the first)."""
    flags, rf = weka_runs["flags"], weka_runs["rf"]
    ref = np.stack([rf[f"flags-l{l}"] for l in range(flags.Y.shape[1])])
    np.testing.assert_allclose(BinaryRelevanceRanker(ReliefF(), store_label_weights=True).fit(flags).label_weights_, ref,
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(BinaryRelevanceRanker(ReliefF()).fit(flags).weights_, ref.mean(0), rtol=0, atol=1e-9)
    np.testing.assert_allclose(ReliefF().fit(weka_runs["flags_ds2"], flags.Y[:, 6]).weights_,
                               rf["flags-l6-missing"], rtol=0, atol=1e-9)
    np.testing.assert_allclose(LabelPowersetRanker(ReliefF()).fit(weka_runs["flags_ds"]).weights_,
                               rf["flags-lp-missing"], rtol=0, atol=1e-9)


@pytest.mark.weka
@pytest.mark.data
def test_lcfs_cs_a_equals_weka(weka_runs):
    "CS-A with IG: pairs from the independent rule, each augmented label scored by Weka, averaged."
    emo, ig = weka_runs["emo"], weka_runs["ig"]
    m = LCFS.preset("CS-A", store_label_weights=True).fit(emo)
    assert [tuple(p) for p in m.pairs_] == weka_runs["cs_pairs"] and m.operators_ == ["and"] * 3
    ref = np.stack([ig[f"emo-csa-l{l}"] for l in range(9)])
    np.testing.assert_allclose(m.label_weights_, ref, rtol=0, atol=1e-9)
    np.testing.assert_allclose(m.weights_, ref.mean(0), rtol=0, atol=1e-9)
    assert m.new_label_names_[0] == f"{emo.label_names[m.pairs_[0][0]]} AND {emo.label_names[m.pairs_[0][1]]}"


# ---------------------------------------------------------------- BR / LP without Weka
def test_relieff_fast_path_equals_per_label_loop():
    "Delegation to ReliefF's multi-label path = fitting ReliefF label by label (numeric, nominal, missing)."
    rng = np.random.default_rng(3)
    X = np.c_[rng.random((80, 4)), rng.integers(0, 3, (80, 2))].astype(float)
    X[rng.random(X.shape) < 0.05] = np.nan
    Y = (np.nan_to_num(X[:, :3]) + 0.4 * rng.random((80, 3)) > 0.6).astype(np.uint8)
    for est in (ReliefF(), ReliefF(n_neighbors=3, weight_by_distance=True)):
        br = BinaryRelevanceRanker(est, store_label_weights=True, nominal=[4, 5]).fit(X, Y)
        loop = np.stack([est.set_params(nominal=[4, 5]).fit(X, Y[:, l]).weights_ for l in range(3)])
        np.testing.assert_allclose(br.label_weights_, loop, rtol=0, atol=1e-12)
        np.testing.assert_allclose(BinaryRelevanceRanker(est, nominal=[4, 5]).fit(X, Y).weights_, loop.mean(0), rtol=0, atol=1e-12)


def test_generic_scorer_in_parallel():
    "Any estimator with scores_ works; joblib with 2 workers gives the per-label f_classif scores."
    rng = np.random.default_rng(1)
    X = rng.random((60, 5)); Y = (X[:, :3] + 0.5 * rng.random((60, 3)) > 0.7).astype(np.uint8)
    br = BinaryRelevanceRanker(SelectKBest(f_classif, k=2), store_label_weights=True, n_jobs=2).fit(X, Y)
    ref = np.stack([f_classif(X, Y[:, l])[0] for l in range(3)])
    np.testing.assert_allclose(br.label_weights_, ref, rtol=1e-12)
    np.testing.assert_allclose(br.weights_, ref.mean(0), rtol=1e-12)


def test_declared_values_reach_the_scorer():
    "The wrapper's nominal mask and declared value counts (pandas categories) reach ReliefF unchanged."
    import pandas as pd
    rng = np.random.default_rng(2)
    Y = rng.integers(0, 2, (50, 3)).astype(np.uint8)
    a = rng.integers(0, 2, 50).astype(float); a[:8] = np.nan          # 2 observed values, 4 declared
    df = pd.DataFrame({"a": pd.Categorical.from_codes(np.nan_to_num(a, nan=-1).astype(int), categories=list("wxyz")),
                       "b": rng.random(50) + Y[:, 0]})
    br = BinaryRelevanceRanker(ReliefF(n_neighbors=5), store_label_weights=True).fit(df, Y)
    ref = np.stack([ReliefF(n_neighbors=5).fit(df, Y[:, l]).weights_ for l in range(3)])
    np.testing.assert_allclose(br.label_weights_, ref, rtol=0, atol=1e-12)
    inferred = BinaryRelevanceRanker(ReliefF(n_neighbors=5), store_label_weights=True, nominal=[0]).fit(np.c_[a, df["b"]], Y)
    assert np.abs(inferred.label_weights_[:, 0] - ref[:, 0]).max() > 1e-3   # 1 − 1/2 ≠ 1 − 1/4: the test has teeth
    np.testing.assert_array_equal(BinaryRelevanceRanker(store_label_weights=True).fit(df, Y).label_weights_,
                                  np.stack([InfoGain().fit(df, Y[:, l]).weights_ for l in range(3)]))


def test_lp_singleton_and_constant_labels():
    X = np.arange(12, dtype=float).reshape(6, 2)
    lp = LabelPowersetRanker().fit(X, Y6)
    assert lp.label_set_counts_.tolist() == [1, 1, 2, 1, 1]     # 0000 0110 0111 1010 1011
    assert LabelPowersetRanker(ReliefF(n_neighbors=2)).fit(X, Y6).weights_.shape == (2,)
    with pytest.raises(ValueError, match="single distinct label set"):
        LabelPowersetRanker().fit(X, np.ones((6, 3)))


# ---------------------------------------------------------------- LCFS by hand
def test_pair_counts_by_hand():
    cc, ce, cd = pair_counts(Y6)
    iu = np.triu_indices(4, 1)
    assert cc[iu].tolist() == [0, 2, 1, 3, 2, 3]
    assert cd[iu].tolist() == [5, 3, 3, 2, 2, 2]
    assert ce[iu].tolist() == [1, 3, 3, 4, 4, 4]


def test_selection_by_hand():
    p, ops = select_pairs(Y6, "cooccurrence")
    assert p.tolist() == [[1, 2], [0, 3]] and ops is None
    p, ops = select_pairs(Y6, "related")
    assert p.tolist() == [[0, 1], [2, 3]] and ops == ["xor", "xnor"]
    assert select_pairs(Y6, "related", 1)[0].tolist() == [[0, 1]]


def test_generation_by_hand():
    new = construct_labels(Y6, [(0, 1), (2, 3), (1, 2)], ["xor", "xnor", "and"])
    assert new.T.tolist() == [[0, 1, 1, 1, 1, 1], [1, 1, 0, 1, 0, 1], [0, 1, 0, 1, 1, 0]]
    m = LCFS.preset("LS-X", store_label_weights=True).fit(np.c_[np.arange(6.0), Y6[:, 0]], Y6)
    assert m.operators_ == ["xor", "xnor"] and m.new_label_names_ == ["y0 XOR y1", "y2 XNOR y3"]
    assert m.augment(Y6).shape == (6, 6) and m.label_weights_.shape == (6, 2)
    np.testing.assert_array_equal(m.augment(Y6)[:, 4:], new[:, :2])


def test_presets():
    for name, (sel, gen) in {"LS-X": ("related", "x"), "CS-A": ("cooccurrence", "and"),
                             "RS-A": ("random", "and"), "RS-X": ("random", "x")}.items():
        m = LCFS.preset(name, ReliefF(), random_state=3)
        assert (m.selection, m.generation, m.random_state) == (sel, gen, 3) and isinstance(m.scorer, ReliefF)


def test_random_selection():
    Y = np.random.default_rng(0).integers(0, 2, (30, 9)).astype(np.uint8)
    a = LCFS(random_state=5).fit(np.random.default_rng(1).random((30, 3)), Y)
    b = LCFS(random_state=5).fit(np.random.default_rng(1).random((30, 3)), Y)
    assert a.pairs_.tolist() == b.pairs_.tolist() and a.operators_ == b.operators_
    assert len(a.pairs_) == 4 and len(set(a.pairs_.ravel())) == 8 and (a.pairs_[:, 0] < a.pairs_[:, 1]).all()
    seen_pairs, seen_ops = set(), set()
    for s in range(40):
        p, _ = select_pairs(Y, "random", 4, np.random.default_rng(s))
        seen_pairs |= {tuple(x) for x in p}
        seen_ops |= set(pair_operators("x", 4, None, np.random.default_rng(s)))
    assert len(seen_pairs) > 20 and seen_ops == {"xor", "xnor"}


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 40), st.integers(2, 9))
def test_cs_and_ls_equal_independent_rules(seed, n, q):
    rng = np.random.default_rng(seed)
    Y = (rng.random((n, q)) < rng.uniform(0.1, 0.9)).astype(np.uint8)
    for k in range(1, q // 2 + 1):
        assert [tuple(p) for p in select_pairs(Y, "cooccurrence", k)[0]] == naive_cs(Y, k)
        p, ops = select_pairs(Y, "related", k)
        assert list(zip([tuple(x) for x in p], ops)) == naive_ls(Y, k)


# ---------------------------------------------------------------- bad input
class _WrongShape(InfoGain):
    "An InfoGain that returns one weight too many."
    def _fit(self, X, y, info): return np.r_[super()._fit(X, y, info), 0.0]


class _NoWeights:
    def get_params(self, deep=True): return {}
    def set_params(self, **p): return self
    def fit(self, X, y): return self


def test_bad_input():
    X = np.random.default_rng(0).random((6, 2))
    with pytest.raises(ValueError, match=r"_WrongShape returned weights_ of shape \(3,\).*expected \(2,\)"):
        BinaryRelevanceRanker(_WrongShape()).fit(X, Y6)
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        LabelPowersetRanker(_WrongShape()).fit(X, Y6)
    with pytest.raises(ValueError, match="none of weights_"):
        BinaryRelevanceRanker(_NoWeights()).fit(X, Y6)
    with pytest.raises(ValueError, match="at least 2 labels"): LCFS().fit(X, Y6[:, :1])
    with pytest.raises(ValueError, match=r"n_new_labels=3 must lie in \[1, 2\]"): LCFS(n_new_labels=3).fit(X, Y6)
    with pytest.raises(ValueError, match="n_new_labels"): LCFS(n_new_labels=0).fit(X, Y6)
    with pytest.raises(ValueError, match="selection"): LCFS(selection="best").fit(X, Y6)
    with pytest.raises(ValueError, match="generation"): LCFS(generation="or").fit(X, Y6)
    with pytest.raises(ValueError, match="unknown LCFS preset"): LCFS.preset("RS-B")
    with pytest.raises(ValueError, match="scorer"): BinaryRelevanceRanker(scorer="relieff").fit(X, Y6)
    with pytest.raises(ValueError, match="store_label_weights"): BinaryRelevanceRanker(store_label_weights=1.5).fit(X, Y6)
    with pytest.raises(ValueError, match="store_label_weights"): LCFS(store_label_weights="no").fit(X, Y6)
    with pytest.raises(ValueError, match="only 0 and 1"): BinaryRelevanceRanker().fit(X, Y6 * 2)
    with pytest.raises(ValueError, match="BinaryRelevanceRanker"): InfoGain().fit(X, Y6)


def test_label_weights_follow_the_last_fit():
    "label_weights_ exists after a fit that keeps them and is gone after a refit that does not (no stale rows)."
    rng = np.random.default_rng(7)
    X = rng.random((40, 4)); Y = (X[:, :3] + 0.3 * rng.random((40, 3)) > 0.6).astype(np.uint8)
    for est in (BinaryRelevanceRanker(ReliefF(n_neighbors=5), store_label_weights=True), ReliefF(n_neighbors=5, store_label_weights=True)):
        kept = est.fit(X, Y).label_weights_.copy()
        assert kept.shape == (3, 4)
        w = est.set_params(store_label_weights=False).fit(X, Y).weights_
        assert not hasattr(est, "label_weights_")
        np.testing.assert_allclose(w, kept.mean(0), rtol=0, atol=1e-12)
