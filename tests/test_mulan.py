"""`ties="mulan"` against Mulan's own outputs (issue 30): Weka `LinearNNSearch`'s neighbour lists (ties at
the k-th distance included, in its order, distances bit for bit), MLkNN's tables, confidences and
bipartitions, BRkNN's confidences and its three decision rules (`java.util.Random(1)` carried across the
rows), and Mulan's Evaluator figures, on the six data sets of ../shared/references/mulan (README there:
the first ⌊2N/3⌋ rows of each ARFF train, the rest test, k = 10, labels in the ARFF's order)."""
import gzip, json, os
from pathlib import Path
import numpy as np
import pytest

from relieffml.data import load_arff
from relieffml.lazy import MLkNN, BRkNN, DMLkNN, MLCWkNN, JavaRandom, weka_neighbors
from relieffml.metrics import (hamming_loss, subset_accuracy, precision, recall, f1, accuracy, micro_f1, macro_f1,
                               average_precision, coverage, one_error, ranking_loss)

REFS = Path(os.environ.get("RELIEFFML_MULAN_REFS", Path(__file__).resolve().parents[2] / "shared" / "references" / "mulan"))
NAMES = ["emotions", "yeast", "scene", "genbase", "enron", "flags"]
EXACT = dict(rtol=0, atol=1e-12)


@pytest.fixture(scope="module", params=NAMES)
def case(request, data_home):
    "(reference, training X, training Y, test X, test Y, nominal mask) of one data set."
    path = REFS / f"{request.param}.json.gz"
    if not path.exists():
        if os.environ.get("CI", "").lower() == "true": pytest.fail(f"required in CI: Mulan references at {path}")
        pytest.skip(f"Mulan references not found at {path} (set RELIEFFML_MULAN_REFS)")
    ref = json.load(gzip.open(path, "rt"))
    ds = load_arff(Path(data_home) / f"{request.param}.arff")
    assert list(ds.label_names) == ref["meta"]["label_names"] and list(ds.feature_names) == ref["meta"]["feature_names"]
    n = ds.X.shape[0] * 2 // 3
    assert n == ref["meta"]["n_train"]
    return ref, ds.X[:n], ds.Y[:n], ds.X[n:], ds.Y[n:], ds.nominal


def unpad(idx, dist):
    return [(list(i[i >= 0]), d[i >= 0]) for i, d in zip(idx, dist)]


def test_neighbour_lists(case):
    ref, Xtr, Ytr, Xte, _, nom = case
    prep = MLkNN(ties="mulan", nominal=nom).fit(Xtr, Ytr).prep_
    Xs = prep.apply(Xte.toarray() if hasattr(Xte, "toarray") else Xte)
    for key, Xq in (("knn", Xs), ("knn_train", None)):
        got = unpad(*weka_neighbors(prep, Xq, 10))
        assert [i for i, _ in got] == ref[key]["indices"]                  # same rows, same order, ties included
        for (_, d), r in zip(got, ref[key]["distances"]): np.testing.assert_allclose(d, r, **EXACT)


def test_mlknn(case):
    ref, Xtr, Ytr, Xte, _, nom = case
    m, R = MLkNN(ties="mulan", nominal=nom).fit(Xtr, Ytr), ref["mlknn"]
    for ours, key in ((m.prior_, "prior"), (m.cond_true_, "cond"), (m.cond_false_, "cond_n")):
        np.testing.assert_allclose(ours, R[key], **EXACT)
    np.testing.assert_allclose(m.predict_proba(Xte), R["confidences"], **EXACT)
    np.testing.assert_array_equal(m.predict(Xte), R["bipartitions"])


@pytest.mark.parametrize("ext", ["NONE", "EXTA", "EXTB"])
def test_brknn(case, ext):
    ref, Xtr, Ytr, Xte, _, nom = case
    R = ref["brknn"][ext]
    assert not R["errors"]
    b = BRkNN(ties="mulan", variant="b" if ext == "EXTB" else "a", nominal=nom).fit(Xtr, Ytr)   # a fresh Random(1)
    conf = b.predict_proba(Xte)
    np.testing.assert_allclose(conf, R["confidences"], **EXACT)
    pred = (conf >= 0.5).astype(np.uint8) if ext == "NONE" else b.predict(Xte)
    np.testing.assert_array_equal(pred, R["bipartitions"])


def test_dml_and_mlcw_use_the_first_k(case):
    "DML-kNN and MLC-WkNN under ties='mulan' are fitted on the first k of each list."
    ref, Xtr, Ytr, Xte, _, nom = case
    first = np.array([r[:10] for r in ref["knn"]["indices"]])
    cw = MLCWkNN(ties="mulan", nominal=nom).fit(Xtr, Ytr)
    np.testing.assert_array_equal(cw.reconstruction_weights(Xte[:20])[0], first[:20])
    dm = DMLkNN(ties="mulan", nominal=nom).fit(Xtr, Ytr)
    train_first = np.array([r[:10] for r in ref["knn_train"]["indices"]])
    np.testing.assert_array_equal(dm._train_neighbors(), train_first)


MEASURES = {"Hamming Loss": (hamming_loss, "bip"), "Subset Accuracy": (subset_accuracy, "bip"),
            "Example-Based Precision": (precision, "bip"), "Example-Based Recall": (recall, "bip"),
            "Example-Based F Measure": (f1, "bip"), "Example-Based Accuracy": (accuracy, "bip"),
            "Micro-averaged F-Measure": (micro_f1, "bip"), "Macro-averaged F-Measure": (macro_f1, "bip"),
            "Average Precision": (average_precision, "rank"), "Coverage": (coverage, "rank"),
            "OneError": (one_error, "rank"), "Ranking Loss": (ranking_loss, "rank")}


@pytest.mark.parametrize("learner", ["mlknn", "brknn-EXTA"])
def test_evaluator_figures(case, learner):
    "relieffml.metrics (ties='mulan' for the rankings) on our predictions = Mulan's Evaluator."
    ref, Xtr, Ytr, Xte, Yte, nom = case
    est = (MLkNN if learner == "mlknn" else BRkNN)(ties="mulan", nominal=nom).fit(Xtr, Ytr)
    got = {"bip": est.predict(Xte), "rank": est.predict_proba(Xte)}
    for name, (fn, kind) in MEASURES.items():
        kw = {"ties": "mulan"} if kind == "rank" else {}
        assert fn(Yte, got[kind], **kw) == pytest.approx(ref["measures"][learner][name], rel=0, abs=1e-12), name


def test_java_random():
    assert JavaRandom(0).next(32) == -1155484576 and JavaRandom(42).next(32) == -1170105035
    r = JavaRandom(7)
    draws = [r.next_int(b) for b in (1, 2, 3, 7, 8, 1000, 2**30 + 1) for _ in range(50)]
    assert all(0 <= d < b for d, b in zip(draws, [b for b in (1, 2, 3, 7, 8, 1000, 2**30 + 1) for _ in range(50)]))
    with pytest.raises(ValueError, match="bound"): r.next_int(0)


def test_random_state_carries_across_calls():
    "BRkNN-a under ties='mulan': predicting the rows one by one = all at once; refitting starts the generator again."
    rng = np.random.default_rng(0)
    X, Y = (rng.random((80, 6)) < 0.3).astype(float), (rng.random((80, 5)) < 0.2).astype(np.uint8)
    Xq = (rng.random((30, 6)) < 0.3).astype(float)
    b = BRkNN(ties="mulan", n_neighbors=4).fit(X, Y)
    whole = b.predict(Xq)
    b.fit(X, Y)
    np.testing.assert_array_equal(np.vstack([b.predict(Xq[i:i + 1]) for i in range(len(Xq))]), whole)


def test_mulan_empty_row_rules():
    "Mulan's one-error counts a row without relevant labels as 1; its average precision leaves it out."
    Yt, S = np.array([[0, 0, 0], [1, 0, 0]]), np.array([[.2, .5, .1], [.9, .5, .1]])
    assert one_error(Yt, S) == 0. and one_error(Yt, S, ties="mulan") == .5
    assert average_precision(Yt, S) == 1. and average_precision(Yt, S, ties="mulan") == 1.
    Yh = np.array([[1, 0, 0], [0, 0, 0]])                                       # row 0: its label second
    assert average_precision(Yh, S) == .75 and average_precision(Yh, S, ties="mulan") == .5
    assert np.isnan(average_precision(np.zeros((2, 3)), S, ties="mulan"))   # Mulan's 0/0


def test_blocks_and_sparse_rows_give_the_same_lists(monkeypatch):
    "weka_neighbors in blocks of queries and of (sparse, expanded) training rows = in one block of dense rows."
    import scipy.sparse as sp
    import relieffml.lazy as L
    from relieffml.neighbors import prepare_data
    rng = np.random.default_rng(1)
    X, Xq = (rng.random((70, 12)) < 0.2) * 1.0, (rng.random((15, 12)) < 0.2) * 1.0
    nom = np.zeros(12, bool)
    dense = prepare_data(X, nom)
    want = [weka_neighbors(dense, dense.apply(Xq), 5), weka_neighbors(dense, None, 5)]
    monkeypatch.setattr(L, "QUERY_BYTES", 24 * 70 * 2)               # 2 queries, 2 training rows a block
    sparse = prepare_data(sp.csr_matrix(X), nom)
    for prep in (dense, sparse):
        got = [weka_neighbors(prep, dense.apply(Xq), 5), weka_neighbors(prep, None, 5)]
        for (gi, gd), (wi, wd) in zip(got, want):
            np.testing.assert_array_equal(gi, wi); np.testing.assert_array_equal(gd, wd)
    assert want[1][0].shape[1] > 5                                   # binary rows: lists longer than k
