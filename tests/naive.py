"""Naive references of the estimator chapters, loop for loop, the oracles of the kernel tests.

Generated from the chapters by tools/make_naive.py: edit the chapter named above each block, not this file.
"""
import dataclasses, itertools
import numpy as np
from relieffml.distances import Prepared, prepare, naive_diff, naive_distance
from relieffml.neighbors import naive_knn_pools
from relieffml.sparse import densify
from relieffml.reliefml import label_priors
from relieffml.mlrf import mean_pair_redundancy, PHI_TIE


# %% nbs/03_relieff.ipynb
def naive_relieff(X, y, nominal, n_values=None, k=10, samples=None, weight_by_distance=False, sigma=2.0):
    "Eqs. (1)–(3) for class codes `y` (plain Python loops)."
    pr = prepare(X, nominal, n_values)
    N, D = pr.Xn.shape
    C = int(y.max()) + 1
    samples = np.arange(N) if samples is None else np.asarray(samples)
    prior = np.bincount(y, minlength=C) / N
    pools = np.eye(C, dtype=np.uint8)[y]
    idx, _, cnt = naive_knn_pools(pr, samples, pools, k)
    rank = np.exp(-(np.arange(k) / sigma) ** 2)
    W = np.zeros(D)
    for i, s in enumerate(samples):
        c = y[s]
        for p in range(C):
            n = cnt[i, p]
            if n == 0: continue
            coef = -1.0 if p == c else (prior[p] / (1 - prior[c]) if C > 2 else 1.0)
            for r in range(n):
                share = rank[r] / rank[:n].sum() if weight_by_distance else 1.0 / n
                for f in range(D):
                    W[f] += coef * share * naive_diff(f, pr.Xn[s, f], pr.Xn[idx[i, p, r], f], pr.is_nominal, pr.missing_nominal)
    return W / len(samples)

def naive_relieff_br(X, Y, nominal, n_values=None, k=10, samples=None, weight_by_distance=False, sigma=2.0):
    "Eq. (4): the Q×D matrix of per-label binary ReliefF weights."
    return np.stack([naive_relieff(X, Y[:, l].astype(np.int64), nominal, n_values, k, samples, weight_by_distance, sigma)
                     if Y[:, l].any() else _naive_one_class(X, nominal, n_values, k, samples, weight_by_distance, sigma)
                     for l in range(Y.shape[1])])

def _naive_one_class(X, nominal, n_values, k, samples, wbd, sigma):
    "A label nobody has: one binary problem whose positive class is empty (hits only)."
    y = np.zeros(len(X), np.int64)
    pr = prepare(X, nominal, n_values)
    samples = np.arange(len(X)) if samples is None else np.asarray(samples)
    idx, _, cnt = naive_knn_pools(pr, samples, np.ones((len(X), 1), np.uint8), k)
    rank = np.exp(-(np.arange(k) / sigma) ** 2)
    W = np.zeros(pr.Xn.shape[1])
    for i, s in enumerate(samples):
        n = cnt[i, 0]
        for r in range(n):
            share = rank[r] / rank[:n].sum() if wbd else 1.0 / n
            W -= share * np.array([naive_diff(f, pr.Xn[s, f], pr.Xn[idx[i, 0, r], f], pr.is_nominal, pr.missing_nominal) for f in range(len(W))])
    return W / len(samples)


# %% nbs/04_rrelieff.ipynb
def naive_rrelieff(X, dtarget, nominal, n_values=None, k=10, samples=None, weight_by_distance=False, sigma=2.0):
    "Eqs. (1)–(2) with a target-difference function `dtarget(i, j)` (plain Python loops)."
    pr = prepare(X, nominal, n_values)
    N, D = pr.Xn.shape
    samples = np.arange(N) if samples is None else np.asarray(samples)
    idx, _, cnt = naive_knn_pools(pr, samples, np.ones((N, 1), np.uint8), k)
    rank = np.exp(-(np.arange(k) / sigma) ** 2)
    ndc, nda, ndcda = 0.0, np.zeros(D), np.zeros(D)
    for i, s in enumerate(samples):
        n = cnt[i, 0]
        for r in range(n):
            j = idx[i, 0, r]
            d = rank[r] / rank[:n].sum() if weight_by_distance else 1.0 / n
            dc = dtarget(s, j)
            ndc += dc * d
            for f in range(D):
                da = naive_diff(f, pr.Xn[s, f], pr.Xn[j, f], pr.is_nominal, pr.missing_nominal)
                nda[f] += da * d; ndcda[f] += dc * da * d
    m = len(samples)
    return ndcda / ndc - (nda - ndcda) / (m - ndc)


# %% nbs/10_reliefml.ipynb
def naive_reliefml(X, Y, nominal, n_values=None, k=10, samples=None, s=1.0, metric='heom'):
    "Eqs. (1)–(6) with plain loops; returns the raw (unscaled) weights."
    pr = prepare(X, nominal, n_values)
    N, D = pr.Xn.shape
    Q = Y.shape[1]
    samples = np.arange(N) if samples is None else np.asarray(samples)
    P = label_priors(Y, s)
    idx, _, cnt = naive_knn_pools(pr, samples, Y, k, metric)
    W, m = np.zeros(D), len(samples)
    for i, r in enumerate(samples):
        rel = Y[r] == 1
        for l in range(Q):
            n = cnt[i, l]
            if n == 0: continue
            G = idx[i, l, :n]
            pg = sum(np.sum(Y[r] != Y[j]) / Q for j in G) / n
            if rel[l]: coef = -P[l] / P[rel].sum() * (1 - pg) / (1 + pg)
            else: coef = P[l] / P[~rel].sum() * pg
            for j in G:
                for f in range(D):
                    W[f] += coef * naive_diff(f, pr.Xn[r, f], pr.Xn[j, f], pr.is_nominal, pr.missing_nominal) / (m * n)
    return W


# %% nbs/11_rfml.ipynb
def _mld(kind):
    "Plain-Python label dissimilarity of eq. (1)."
    def ham(a, b): return float(np.mean(a != b))
    def jac(a, b):
        u = np.sum((a == 1) | (b == 1))
        return 0.0 if u == 0 else 1.0 - np.sum((a == 1) & (b == 1)) / u
    return ham if kind == 'hamming' else jac

def naive_rfml(X, Y, nominal, n_values=None, k=10, samples=None, label_distance='hamming'):
    "RF-ML by the naive RReliefF with eq. (1)."
    mld = _mld(label_distance)
    return naive_rrelieff(X, lambda i, j: mld(Y[i], Y[j]), nominal, n_values, k, samples)

def naive_rfmml(X, Y, nominal, n_values=None, k=10, label_distance='hamming'):
    "RFM-ML with every instance sampled: mutual k-NN by brute force, then eqs. (1)–(2)."
    pr = prepare(X, nominal, n_values)
    N, D = pr.Xn.shape
    mld = _mld(label_distance)
    idx, _, cnt = naive_knn_pools(pr, np.arange(N), np.ones((N, 1), np.uint8), k)
    nn = [set(idx[i, 0, :cnt[i, 0]].tolist()) for i in range(N)]
    ndc, nda, ndcda, m = 0.0, np.zeros(D), np.zeros(D), 0
    for r in range(N):
        keep = [j for j in idx[r, 0, :cnt[r, 0]] if r in nn[j]]
        if not keep: continue
        m += 1
        for j in keep:
            dc = mld(Y[r], Y[j]); da = np.array([naive_diff(f, pr.Xn[r, f], pr.Xn[j, f], pr.is_nominal, pr.missing_nominal) for f in range(D)])
            ndc += dc / len(keep); nda += da / len(keep); ndcda += dc * da / len(keep)
    return ndcda / ndc - (nda - ndcda) / (m - ndc)


# %% nbs/12_transform.ipynb
def naive_br(score, X, Y):
    "Eq. (1): `score(X, y)`, a (D,) weight vector, on each label's binary problem by a plain loop; (Q×D weights, their mean)."
    W = []
    for l in range(Y.shape[1]): W.append(np.asarray(score(X, Y[:, l]), dtype=np.float64))
    W = np.array(W)
    return W, W.sum(0) / Y.shape[1]

def naive_lp_classes(Y):
    "Eq. (2): each instance's class is the index of its label set among the distinct rows of Y, sorted lexicographically."
    sets = sorted(set(tuple(int(v) for v in row) for row in Y))
    return np.array([sets.index(tuple(int(v) for v in row)) for row in Y]), np.array(sets)

def naive_pair_counts(Y):
    "Eq. (3) by loops over label pairs and instances: c_c, c_e, c_d (Q×Q)."
    N, Q = Y.shape
    cc, cd = np.zeros((Q, Q), np.int64), np.zeros((Q, Q), np.int64)
    for i in range(Q):
        for j in range(Q):
            for r in range(N): cc[i, j] += int(Y[r, i]) * int(Y[r, j]); cd[i, j] += int(Y[r, i] != Y[r, j])
    return cc, N - cd, cd

def naive_construct(Y, pairs, ops):
    "Eq. (4) by loops: new label t of instance r is AND, XOR or XNOR of the labels of pair t."
    out = np.zeros((len(Y), len(pairs)), np.uint8)
    for t, ((i, j), op) in enumerate(zip(pairs, ops)):
        for r in range(len(Y)):
            a, b = int(Y[r, i]), int(Y[r, j])
            out[r, t] = a * b if op == 'and' else int(a != b) if op == 'xor' else int(a == b)
    return out


# %% nbs/14_mlrf.ipynb
def naive_mlrf(X, Y, nominal, n_values=None, k=10, samples=None, metric='manhattan'):
    "Eqs. (1)–(3), plain Python loops: the oracle of the MLRF kernel."
    pr = prepare(X, nominal, n_values)
    N, D = pr.Xn.shape
    samples = np.arange(N) if samples is None else np.asarray(samples)
    m = len(samples)
    p = Y.sum(0) / Y.sum()                       # eq. (1)
    omega = Y.sum(1) / (Y.sum() / N)             # eq. (2)
    idx, _, cnt = naive_knn_pools(pr, samples, Y, k, metric)
    W = np.zeros(D)
    for i, s in enumerate(samples):
        has = Y[s] == 1
        P = p[has].sum()
        for l in range(Y.shape[1]):
            n = cnt[i, l]
            if omega[s] == 0 or n == 0: continue
            coef = -p[l] / P if has[l] else p[l] / (1 - P)
            for r in range(n):
                for f in range(D):
                    d = naive_diff(f, pr.Xn[s, f], pr.Xn[idx[i, l, r], f], pr.is_nominal, pr.missing_nominal)
                    W[f] += omega[s] * coef * d / (m * n)
    return W


# %% nbs/14_mlrf.ipynb
def naive_phi(w, su, S, redundancy=mean_pair_redundancy)->float:
    "Φ(S) = sigmoid(Σ_S w) − R(S), eq. (8), from scratch."
    return float(1 / (1 + np.exp(-w[list(S)].sum())) - redundancy(su, S))


# %% nbs/14_mlrf.ipynb
def naive_backward_search(w, su, features, tolerance=0.01, min_features=1, redundancy=mean_pair_redundancy):
    "Sequential backward search on Φ, recomputed from scratch: (removed positions, Φ path, removals at the best Φ)."
    S, removed = list(range(len(w))), []
    path = [naive_phi(w, su, S, redundancy)]
    best, n_best = path[0], 0
    while len(S) > min_features:
        cands = sorted(S, key=lambda q: features[q])
        scores = [naive_phi(w, su, [u for u in S if u != q], redundancy) for q in cands]
        q = cands[next(t for t, v in enumerate(scores) if v >= max(scores) - PHI_TIE)]
        S.remove(q); removed.append(q); path.append(max(scores))
        if path[-1] >= best - PHI_TIE: best, n_best = path[-1], len(removed)
        elif path[-1] < best - tolerance: break
    return removed, path, n_best


# %% nbs/20_lazy.ipynb
def naive_query_neighbors(prep:Prepared, Xq, k, metric='heom', w=None):
    "Neighbours (n×k, -1 = none) of scaled query rows `Xq` among the training rows, by `naive_knn_pools`."
    N, n = prep.Xn.shape[0], len(Xq)
    both = dataclasses.replace(prep, Xn=np.vstack([prep.Xn, Xq]), has_missing=True)
    pool = np.r_[np.ones(N), np.zeros(n)].astype(np.uint8)[:, None]
    return naive_knn_pools(both, N + np.arange(n), pool, k, metric, w)[0][:, 0]

def naive_train_neighbors(prep:Prepared, k, metric='heom', w=None):
    "Leave-one-out neighbours (N×k) of every training row."
    N = prep.Xn.shape[0]
    return naive_knn_pools(prep, np.arange(N), np.ones((N, 1), np.uint8), k, metric, w)[0][:, 0]


# %% nbs/20_lazy.ipynb
def naive_mlknn(X, Y, Xq, k=10, s=1.0, nominal=None, w=None, metric='heom'):
    "Eqs. (1)–(3) with plain loops: `(prediction, score)` for the query rows `Xq`."
    N, Q = Y.shape
    pr = prepare(X, np.zeros(X.shape[1], bool) if nominal is None else nominal)
    nb = naive_train_neighbors(pr, k, metric, w)
    c1, c0 = np.zeros((Q, k + 1)), np.zeros((Q, k + 1))
    for i in range(N):
        for l in range(Q):
            j = sum(int(Y[a, l]) for a in nb[i] if a >= 0)
            if Y[i, l]: c1[l, j] += 1
            else: c0[l, j] += 1
    qn = naive_query_neighbors(pr, pr.apply(Xq), k, metric, w)
    pred, score = np.zeros((len(Xq), Q), np.uint8), np.zeros((len(Xq), Q))
    for t in range(len(Xq)):
        for l in range(Q):
            j = sum(int(Y[a, l]) for a in qn[t] if a >= 0)
            prior = (s + Y[:, l].sum()) / (2 * s + N)
            p1 = prior * (s + c1[l, j]) / (s * (k + 1) + c1[l].sum())
            p0 = (1 - prior) * (s + c0[l, j]) / (s * (k + 1) + c0[l].sum())
            pred[t, l], score[t, l] = p1 >= p0, p1 / (p1 + p0)
    return pred, score


# %% nbs/20_lazy.ipynb
def naive_brknn(X, Y, Xq, k=10, variant='a', nominal=None, w=None, metric='heom'):
    "Eqs. (4)–(5) with plain loops: `(prediction, confidence)`."
    Q = Y.shape[1]
    pr = prepare(X, np.zeros(X.shape[1], bool) if nominal is None else nominal)
    qn = naive_query_neighbors(pr, pr.apply(Xq), k, metric, w)
    pred, conf = np.zeros((len(Xq), Q), np.uint8), np.zeros((len(Xq), Q))
    for t in range(len(Xq)):
        nbrs = [a for a in qn[t] if a >= 0]
        conf[t] = [sum(int(Y[a, l]) for a in nbrs) / k for l in range(Q)]
        if variant == 'a':
            pred[t] = [c >= 0.5 for c in conf[t]]
            if not pred[t].any(): pred[t, max(range(Q), key=lambda l: (conf[t, l], -l))] = 1
        else:
            m = int(np.round(sum(int(Y[a].sum()) for a in nbrs) / k))
            for l in sorted(range(Q), key=lambda l: (-conf[t, l], l))[:m]: pred[t, l] = 1
    return pred, conf


# %% nbs/20_lazy.ipynb
def naive_dmlknn(X, Y, Xq, k=10, s=1.0, delta=6, nominal=None, w=None, metric='heom'):
    "Eqs. (6)–(8) with plain loops over training instances (as Mulan's `DMLkNN`): `(prediction, score)`."
    N, Q = Y.shape
    pr = prepare(X, np.zeros(X.shape[1], bool) if nominal is None else nominal)
    nb = naive_train_neighbors(pr, k, metric, w)
    Ci = [[sum(int(Y[a, l]) for a in nb[i] if a >= 0) for l in range(Q)] for i in range(N)]
    qn = naive_query_neighbors(pr, pr.apply(Xq), k, metric, w)
    pred, score = np.zeros((len(Xq), Q), np.uint8), np.zeros((len(Xq), Q))
    for t in range(len(Xq)):
        Ct = [sum(int(Y[a, l]) for a in qn[t] if a >= 0) for l in range(Q)]
        V, NV = np.zeros(Q), np.zeros(Q)
        for i in range(N):
            if all(abs(Ci[i][j] - Ct[j]) <= delta for j in range(Q)):
                for l in range(Q):
                    if Ci[i][l] == Ct[l]:
                        if Y[i, l]: V[l] += 1
                        else: NV[l] += 1
        for l in range(Q):
            n1 = Y[:, l].sum(); prior = (s + n1) / (2 * s + N)
            p1 = prior * (s + V[l]) / (s * Q + n1)
            p0 = (1 - prior) * (s + NV[l]) / (s * Q + N - n1)
            pred[t, l], score[t, l] = p1 >= p0, p1 / (p1 + p0)
    return pred, score


# %% nbs/20_lazy.ipynb
def naive_simplex_qp(A):
    "argmin αᵀAα over the unit simplex for positive definite `A`, by trying every support."
    k, best, arg = len(A), np.inf, None
    for m in range(1, k + 1):
        for S in itertools.combinations(range(k), m):
            z = np.linalg.solve(A[np.ix_(S, S)], np.ones(m)); z = z / z.sum()
            if z.min() < -1e-12: continue
            a = np.zeros(k); a[list(S)] = z
            if a @ A @ a < best: best, arg = a @ A @ a, a
    return arg

def naive_mlcw_alpha(prep:Prepared, xq, nb, w=None, reg=1e-3):
    "Eqs. (9)–(10) for one scaled query `xq` with neighbours `nb`: the reconstruction weights α."
    d2 = lambda a, b: naive_distance(a, b, prep.is_nominal, prep.missing_nominal, 'heom', w) ** 2
    k = len(nb)
    G = np.array([[0.5 * (d2(xq, prep.Xn[a]) + d2(xq, prep.Xn[b]) - (0.0 if a == b else d2(prep.Xn[a], prep.Xn[b])))
                   for b in nb] for a in nb])
    G += max(0.0, -np.linalg.eigvalsh(G)[0]) * np.eye(k)
    tr = np.trace(G)
    return naive_simplex_qp(G + (reg * tr if tr > 0 else reg) * np.eye(k))

def naive_mlcwknn(X, Y, Xq, k=10, reg=1e-3, nominal=None, w=None, metric='heom'):
    "Eqs. (9)–(11): `(prediction, posterior)`."
    pr = prepare(X, np.zeros(X.shape[1], bool) if nominal is None else nominal)
    Xs = pr.apply(Xq)
    qn = naive_query_neighbors(pr, Xs, k, metric, w)
    p = np.array([naive_mlcw_alpha(pr, Xs[t], qn[t], w, reg) @ Y[qn[t]] for t in range(len(Xq))])
    return (p >= 0.5 - 1e-9).astype(np.uint8), p


# %% nbs/20_lazy.ipynb
def naive_weka_sums(xq, Xt, is_nominal, w, p):
    "Weka's `EuclideanDistance` sums (p = 2; p = 1: absolute differences) of the scaled query row xq and every row of Xt, attribute by attribute."
    s = np.zeros(len(Xt))
    for f in range(len(xq)):
        a, b = xq[f], Xt[:, f]
        if is_nominal[f]: d = np.where(np.isnan(a) | np.isnan(b) | (a != b), 1.0, 0.0)
        elif np.isnan(a): d = np.where(np.isnan(b), 1.0, np.maximum(b, 1.0 - b))
        else: d = np.where(np.isnan(b), max(a, 1.0 - a), a - b)
        s = s + w[f] * (d * d if p == 2 else np.abs(d))
    return s

def naive_weka_list(d, k, skip=-1):
    "`LinearNNSearch.kNearestNeighbours` on the sums d (row `skip` left out): the list's rows and their sums."
    h, ties = [None], []                                  # MyHeap, 1-based, of (sum, row); the tie list
    def up(i):
        while i > 1 and h[i][0] > h[i // 2][0]: h[i], h[i // 2] = h[i // 2], h[i]; i //= 2
    def down(n):
        i = 1
        while (2 * i <= n and h[i][0] < h[2 * i][0]) or (2 * i + 1 <= n and h[i][0] < h[2 * i + 1][0]):
            c = 2 * i if (2 * i + 1 > n or h[2 * i][0] > h[2 * i + 1][0]) else 2 * i + 1
            h[i], h[c] = h[c], h[i]; i = c
    for j in range(len(d)):
        if j == skip: continue
        if len(h) <= k: h.append((d[j], j)); up(len(h) - 1)
        elif d[j] < h[1][0]:
            old = h[1]; h[1] = h[k]; down(k - 1); h[k] = (d[j], j); up(k)
            if old[0] == h[1][0]: ties.append(old)
            elif old[0] > h[1][0]: ties = []
        elif d[j] == h[1][0]: ties.append((d[j], j))
    out = []
    for r in range(len(h) - 2, -1, -1): out.append(h[1]); h[1] = h[r + 1]; down(r)
    lst = out[::-1] + ties
    return [j for _, j in lst], np.array([s for s, _ in lst])

def naive_weka_neighbors(prep, Xs, k, metric='heom', w=None):
    "Weka's lists of the scaled dense query rows Xs (None: each training row, itself left out): rows, HEOM distances."
    Xt, p = (prep.Xn if prep.csr is None else densify(prep)), (2 if metric == 'heom' else 1)
    w = np.ones(Xt.shape[1]) if w is None else np.asarray(w, float)
    out = []
    for i, xq in enumerate(Xt if Xs is None else Xs):
        rows, s = naive_weka_list(naive_weka_sums(xq, Xt, prep.is_nominal, w, p), k, i if Xs is None else -1)
        out.append((rows, np.sqrt(s) if p == 2 else s))
    return out


# %% nbs/21_rfs.ipynb
def naive_rfs_weights(X, Y, nominal, n_values=None, k=10):
    "ReliefF scores of eq. (1)'s inputs for every label by plain loops: `(Q×D features, Q×Q labels, NaN on the diagonal)`."
    D, Q = X.shape[1], Y.shape[1]
    nom = np.r_[np.asarray(nominal, bool), np.ones(Q - 1, bool)]              # label inputs: nominal {0, 1}
    nv = np.r_[np.zeros(D, np.int64) if n_values is None else np.asarray(n_values, np.int64), np.full(Q - 1, 2)]
    F, L = np.zeros((Q, D)), np.full((Q, Q), np.nan)
    for j in range(Q):
        others = [l for l in range(Q) if l != j]
        W = naive_relieff(np.c_[X, Y[:, others]].astype(np.float64), Y[:, j].astype(np.int64), nom, nv, k)
        F[j], L[j, others] = W[:D], W[D:]
    return F, L
