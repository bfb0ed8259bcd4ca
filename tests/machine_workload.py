"""A fixed workload whose every output must be the same bits on every machine (issue 29).

    python tests/machine_workload.py OUT.json

Runs every ranker and every lazy learner, the neighbour search, the metrics and the evaluation helpers
on small slices of the bundled data sets — dense numeric (emotions), nominal + numeric (flags), binary
nominal with many tied distances (genbase), sparse binary text (enron as loaded), sparse numeric
(emotions with its small values zeroed, as CSR), missing values (yeast with 5 % of X set missing,
flags with missing nominal codes) and a class hierarchy with missing values (cellcycle_FUN) — and
writes one SHA-256 digest per output (its dtype, shape and bytes) to OUT.json.

`tests/test_machines.py` runs it in subprocesses that differ the way machines differ (the CPU numba
compiles for, OpenBLAS's kernels, NumPy's SIMD dispatch, glibc's FMA variants, the thread count) and
asserts the digests are equal. Run by hand, `--values` also writes the first numbers of every output,
to see *where* two machines differ.
"""
import hashlib, json, sys, warnings
import numpy as np
import scipy.sparse as sp

warnings.simplefilter("ignore")


def digest(a) -> str:
    "SHA-256 of an output's dtype, shape and bytes (a float is a float64 array of one)."
    a = np.ascontiguousarray(np.asarray(a, dtype=np.float64) if np.isscalar(a) else np.asarray(a))
    h = hashlib.sha256(f"{a.dtype.str}{a.shape}".encode())
    h.update(a.tobytes())
    return h.hexdigest()


def data_sets():
    "name -> (X, Y) of the workload's slices; every slice fixed (no randomness but seeded)."
    from relieffml.data import load_dataset
    rng = np.random.default_rng(29)
    emo, flags, gen = load_dataset("emotions"), load_dataset("flags"), load_dataset("genbase")
    enron, yeast = load_dataset("enron"), load_dataset("yeast")
    Xe = emo.X[:240].copy()
    Xs = np.where(Xe > np.quantile(Xe, 0.7, axis=0), Xe, 0.0)          # 30 % non-zero, negatives kept
    Xy = yeast.X[:240].copy()
    Xy[rng.random(Xy.shape) < 0.05] = np.nan
    Xf = flags.X.copy()
    Xf[rng.random(Xf.shape) < 0.05] = np.nan                            # nominal and numeric codes missing
    return {"emotions": (emo.X[:240], emo.Y[:240], None), "flags": (flags.X, flags.Y, flags.nominal),
            "genbase": (gen.X[:200], gen.Y[:200], gen.nominal), "enron_csr": (enron.X[:240], enron.Y[:240], enron.nominal),
            "emotions_csr": (sp.csr_matrix(Xs), emo.Y[:240], None), "yeast_nan": (Xy, yeast.Y[:240], None),
            "flags_nan": (Xf, flags.Y, flags.nominal)}


def rankers(out, name, X, Y, nominal):
    from relieffml.relieff import ReliefF
    from relieffml.rrelieff import RReliefF
    from relieffml.reliefml import ReliefFML
    from relieffml.rfml import RFML
    from relieffml.mlrf import MLRF, MMLRF
    from relieffml.transform import BinaryRelevanceRanker, LabelPowersetRanker, LCFS
    from relieffml.infogain import InfoGain
    nom = "auto" if nominal is None else nominal
    made = {"ReliefF": ReliefF(nominal=nom), "ReliefF_rows_rank": ReliefF(weight_by_distance=True, metric="heom",
                                                                         store_label_weights=True, nominal=nom),
            "RReliefF": RReliefF(nominal=nom), "RReliefF_rank": RReliefF(weight_by_distance=True, nominal=nom),
            "ReliefFML": ReliefFML(nominal=nom, random_state=0), "RFML": RFML(nominal=nom),
            "RFML_jaccard_mutual": RFML(label_distance="jaccard", mutual=True, nominal=nom),
            "MLRF": MLRF(nominal=nom), "MMLRF": MMLRF(nominal=nom),
            "BR_IG": BinaryRelevanceRanker(scorer=InfoGain(), nominal=nom),
            "LP_ReliefF": LabelPowersetRanker(nominal=nom), "LP_IG": LabelPowersetRanker(scorer=InfoGain(), nominal=nom),
            "LCFS": LCFS(random_state=0, nominal=nom)}
    for meth, est in made.items():
        y = Y.sum(1).astype(float) if meth.startswith("RReliefF") else Y
        est.fit(X, y)
        for attr in ("weights_", "ranking_", "label_weights_", "selected_"):
            if getattr(est, attr, None) is not None: out[f"{name}/{meth}/{attr}"] = getattr(est, attr)


def learners(out, name, X, Y, nominal, ranker_weights):
    from relieffml.lazy import MLkNN, BRkNN, DMLkNN, MLCWkNN
    from relieffml.metrics import evaluate_all
    nom = "auto" if nominal is None else nominal
    n = X.shape[0] * 2 // 3
    made = {"MLkNN": MLkNN(nominal=nom), "BRkNN_a": BRkNN(nominal=nom), "BRkNN_b": BRkNN(variant="b", nominal=nom),
            "DMLkNN": DMLkNN(nominal=nom), "MLCWkNN": MLCWkNN(nominal=nom),
            "MLCWkNN_WF": MLCWkNN(feature_weights=np.maximum(ranker_weights, 0), nominal=nom),
            "MLkNN_WF_manhattan": MLkNN(feature_weights=np.maximum(ranker_weights, 0), metric="manhattan", nominal=nom),
            "MLkNN_mulan": MLkNN(ties="mulan", nominal=nom), "BRkNN_a_mulan": BRkNN(ties="mulan", nominal=nom),
            "MLCWkNN_WF_mulan": MLCWkNN(feature_weights=np.maximum(ranker_weights, 0), ties="mulan", nominal=nom)}
    for meth, est in made.items():
        est.fit(X[:n], Y[:n])
        P, S = est.predict(X[n:]), est.predict_proba(X[n:])
        out[f"{name}/{meth}/predict"], out[f"{name}/{meth}/predict_proba"] = P, S
        for m, v in evaluate_all(Y[n:], P, S).items(): out[f"{name}/{meth}/metric/{m}"] = v
        if meth == "MLCWkNN_WF": out[f"{name}/{meth}/alpha"] = est.reconstruction_weights(X[n:])


def neighbours(out, name, X, nominal):
    from relieffml.neighbors import prepare_data, knn_query, neighbors_all
    prep = prepare_data(X, np.zeros(X.shape[1], bool) if nominal is None else nominal)
    Xq = prep.apply(X[:40].toarray() if sp.issparse(X) else X[:40])       # query rows scaled as the training rows
    for metric in ("manhattan", "heom"):
        res = knn_query(prep, Xq, 10, metric=metric)
        for i, r in enumerate(res if isinstance(res, tuple) else (res,)): out[f"{name}/knn_query/{metric}/{i}"] = r
    from relieffml.lazy import weka_neighbors                            # ties="mulan": Weka's lists, screened
    for i, r in enumerate(weka_neighbors(prep, Xq, 10)): out[f"{name}/weka_neighbors/{i}"] = r
    for i, r in enumerate(weka_neighbors(prep, None, 10)): out[f"{name}/weka_neighbors_train/{i}"] = r
    res = neighbors_all(prep, np.arange(0, X.shape[0], 7), 10)
    for i, r in enumerate(res if isinstance(res, tuple) else (res,)): out[f"{name}/neighbors_all/{i}"] = r


def hierarchy(out):
    from relieffml.data import load_dataset
    from relieffml.hmc import HMCReliefF
    ds = load_dataset("hmc/cellcycle_FUN.train").subset(np.arange(200))
    for w0 in (0.75, 0.5):
        est = HMCReliefF(w0=w0, hierarchy=ds.hierarchy).fit(ds.X, ds.Y)
        out[f"cellcycle/HMCReliefF/{w0}/weights_"], out[f"cellcycle/HMCReliefF/{w0}/ranking_"] = est.weights_, est.ranking_


def evaluation(out):
    from relieffml.data import load_dataset
    from relieffml.evaluation import (evaluate, ffa_curve, kuncheva_index, wilcoxon_test, average_ranks,
                                      friedman_test, nemenyi_cd, GeneralB)
    from relieffml.reliefml import ReliefFML
    from relieffml.rfs import RFSClassifier
    from relieffml.lazy import MLkNN
    import pandas as pd
    ds = load_dataset("emotions").subset(np.arange(300))
    df = evaluate(ReliefFML(random_state=0), MLkNN(), ds, folds=3, subset_fractions=(0.2, 0.5), random_state=0)
    out["evaluate/values"] = df["value"].to_numpy()
    df = evaluate(ReliefFML(random_state=0), MLkNN(), ds, folds=3, mode="weights", random_state=0)
    out["evaluate/weights_mode"] = df["value"].to_numpy()
    rfs = RFSClassifier(random_state=0).fit(ds.X[:200], ds.Y[:200])
    out["RFS/predict"] = rfs.predict(ds.X[200:])
    out["GeneralB/predict"] = GeneralB().fit(ds.X[:200], ds.Y[:200]).predict(ds.X[200:])
    out["kuncheva"] = kuncheva_index([np.arange(10), np.arange(5, 15), np.arange(3, 13)], 72)
    a, b = np.linspace(0.3, 0.6, 12), np.linspace(0.3, 0.6, 12) + np.sin(np.arange(12)) / 50
    for meth in ("exact", "approx"):
        out[f"wilcoxon/{meth}"] = wilcoxon_test(a, b, method=meth).select_dtypes("number").to_numpy(np.float64)
    t = pd.DataFrame(np.abs(np.sin(np.arange(24.0) * 1.7)).reshape(6, 4), columns=list("abcd"))
    out["average_ranks"] = average_ranks(t).to_numpy()
    out["friedman"] = friedman_test(t).select_dtypes("number").to_numpy(np.float64)
    out["nemenyi_cd"] = nemenyi_cd(4, 6)


def workload() -> dict:
    out = {}
    sets = data_sets()
    for name, (X, Y, nominal) in sets.items():
        rankers(out, name, X, Y, nominal)
        learners(out, name, X, Y, nominal, out[f"{name}/ReliefF/weights_"])
        neighbours(out, name, X, nominal)
    hierarchy(out)
    evaluation(out)
    return out


if __name__ == "__main__":
    res = workload()
    rec = {k: digest(v) for k, v in res.items()}
    if "--values" in sys.argv:
        rec = {k: [rec[k], np.asarray(res[k], dtype=np.float64).ravel()[:6].tolist()] for k in rec}
    with open(sys.argv[1], "w") as f: json.dump(rec, f, indent=0, sort_keys=True)
    print(f"{len(rec)} outputs")
