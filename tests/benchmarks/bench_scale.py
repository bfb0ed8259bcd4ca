"""How the cost grows with N, D, the number of labels Q and density — run by hand, not part of CI:

    python tests/benchmarks/bench_scale.py [--text] [--large [--large-dense]] [--memory] [--repeat R]

Every fit samples every instance, k = 10, 2 threads, compile time excluded (each ranker is fitted on a
slice first), is the best of R runs (`--repeat`, default 3; the text set too, as single runs of it varied by
20 %), and is printed as a ratio to the dense floor of `bench_core.py` (the bare numba L1 10-NN pass over the
same rows) measured in the same run:

* the Q sweep: 3000 × 100 uniform X, Q = 5 / 50 / 500 labels, about 3 per instance;
* `--text`: a synthetic bag of words with the statistics of a typical Mulan text set (7395 × 1836
  binary, 3.7 % non-zero, 159 labels, 2.4 per instance), dense and as scipy.sparse CSR;
* `--large`: 20000 × 5000, 1 % non-zero, 400 labels, CSR fits against the dense floor measured on 2000 query
  rows and scaled by N/2000 (the full floor pass alone takes about 8 minutes); `--large-dense` adds the dense fits;
* `--memory`: peak resident memory each fit adds, over the size of dense X, in a fresh process.

Targets (issue 15): on the text statistics ReliefF-ML, MLRF, RF-ML and RF-BR each <= 2x the dense floor,
CSR <= 0.3x; at Q = 500, ReliefF-ML, MLRF and RF-BR each <= 2x RF-ML.
"""
import os, subprocess, sys, time
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_core import THREADS, floor_pass, best_time, _status   # the same floor and memory probe as bench_core

METHODS = ('ReliefF-ML', 'MLRF', 'RF-ML', 'RF-BR')


def bag_of_words(n, d, q, density, card, seed=0):
    "Binary X (n×d, about `density` non-zero, word frequencies ~ 1/rank) and Y (n×q, about `card` labels each, word-driven)."
    rng = np.random.default_rng(seed)
    freq = 1.0 / np.arange(1, d + 1) ** 0.8
    freq *= density * d / freq.sum()
    X = (rng.random((n, d)) < np.minimum(freq, 0.9)).astype(np.float64)
    topic = X[:, rng.permutation(d)[:q]] + rng.random((n, q)) * 0.5      # each label leans on one word
    score = topic + rng.gumbel(size=(n, q))
    Y = np.zeros((n, q), np.uint8)
    ranks = np.argsort(-score, axis=1)
    counts = np.clip(rng.poisson(card - 1, n) + 1, 1, q)
    for i in range(n): Y[i, ranks[i, :counts[i]]] = 1
    return X, Y


def uniform(n, d, q, card, seed=0):
    "Uniform X (n×d) and Y (n×q) with about `card` labels per instance."
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    Y = (rng.random((n, q)) < card / q).astype(np.uint8)
    return X, Y


def make(meth):
    from relieffml.reliefml import ReliefFML
    from relieffml.mlrf import MLRF
    from relieffml.rfml import RFML
    from relieffml.relieff import ReliefF
    return {'ReliefF-ML': lambda: ReliefFML(n_samples=None, n_jobs=THREADS), 'MLRF': lambda: MLRF(n_jobs=THREADS),
            'RF-ML': lambda: RFML(n_jobs=THREADS), 'RF-BR': lambda: ReliefF(n_jobs=THREADS)}[meth]()


def dense_floor(X, repeat, rows=None):
    "The floor pass over every row; with `rows`, over that many query rows, scaled by N/rows (its cost is linear in them)."
    Xn = (X - X.min(0)) / np.where(np.ptp(X, 0) > 0, np.ptp(X, 0), 1)
    m = len(X) if rows is None else rows
    out = np.empty((m, 10), np.int64)
    floor_pass(Xn[:50], 10, out[:50])
    return best_time(lambda: floor_pass(Xn, 10, out), repeat) * len(X) / m


_CHILD = """
import sys, numpy as np, scipy.sparse as sp
sys.path.insert(0, {here!r})
from bench_scale import {gen}, make
from bench_core import _status
X, Y = {gen}(*{args!r})
Xf = sp.csr_matrix(X) if {csr!r} else X
make({meth!r}).fit(Xf[:60], Y[:60])
base = _status('VmHWM:')
make({meth!r}).fit(Xf, Y)
print(_status('VmHWM:') - base, X.nbytes)
"""


def peak_ratio(gen, args, meth, csr):
    "Peak resident memory a fit adds, over the size of dense X, in a fresh process (numba cache warm)."
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), gen=gen, args=args, meth=meth, csr=csr)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split()
    return int(out[-2]) / int(out[-1])


def run_set(label, gen, args, forms, repeat, memory, floor_rows=None):
    X, Y = globals()[gen](*args)
    t_floor = dense_floor(X, repeat, floor_rows)
    row = dict(set=label, N=X.shape[0], D=X.shape[1], Q=Y.shape[1], nnz=f"{np.count_nonzero(X) / X.size:.1%}",
               floor_s=round(t_floor, 3))
    for form in forms:
        Xf = sp.csr_matrix(X) if form == 'csr' else X
        for meth in METHODS:
            make(meth).fit(Xf[:60], Y[:60])                                   # compile
            t = best_time(lambda: make(meth).fit(Xf, Y), repeat)
            row[f'{meth} {form}/floor'] = round(t / t_floor, 2)
            if memory: row[f'{meth} {form} mem/X'] = round(peak_ratio(gen, args, meth, form == 'csr'), 2)
    print(row, flush=True)
    return row


def main():
    argv = sys.argv[1:]
    repeat = int(argv[argv.index('--repeat') + 1]) if '--repeat' in argv else 3
    memory = '--memory' in argv
    rows = [run_set(f'uniform Q={q}', 'uniform', (3000, 100, q, 3.0), ('dense',), repeat, memory) for q in (5, 50, 500)]
    if '--text' in argv: rows.append(run_set('text', 'bag_of_words', (7395, 1836, 159, 0.037, 2.4), ('dense', 'csr'), repeat, memory))
    if '--large' in argv:      # dense fits only with --large-dense (about an hour on 2 cores); the floor from 2000 query rows
        forms = ('dense', 'csr') if '--large-dense' in argv else ('csr',)
        rows.append(run_set('large', 'bag_of_words', (20000, 5000, 400, 0.01, 2.4), forms, 1, memory, 2000))
    import pandas as pd
    with pd.option_context('display.width', 160, 'display.max_rows', 100):
        print(pd.DataFrame(rows).set_index('set').T.to_string())


if __name__ == '__main__':
    main()
