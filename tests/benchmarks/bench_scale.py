"""How the cost grows with N, D, the number of labels Q and density — run by hand, not part of CI:

    python tests/benchmarks/bench_scale.py [--text] [--large [--large-dense]] [--memory] [--repeat R]
                                           [--base DIR] [--only-sparse] [--cpu]

Every fit samples every instance, k = 10, 2 threads, compile time excluded (each ranker is fitted on a
slice first), is the best of R runs (`--repeat`, default 3; the text set too, as single runs of it varied by
20 %), and is printed as a ratio to the dense floor of `bench_core.py` (the bare numba L1 10-NN pass over the
same rows) measured in the same run:

* the Q sweep: 3000 × 100 uniform X, Q = 5 / 50 / 500 labels, about 3 per instance;
* `--text`: a synthetic bag of words with the statistics of a typical Mulan text set (7395 × 1836
  binary, 3.7 % non-zero, 159 labels, 2.4 per instance), dense and as scipy.sparse CSR;
* `--large`: 20000 × 5000, 1 % non-zero, 400 labels, CSR fits against the dense floor measured on 2000 query
  rows and scaled by N/2000 (the full floor pass alone takes about 8 minutes); `--large-dense` adds the dense fits;
* `--memory`: peak resident memory each fit adds (the high-water mark restarted just before it, the generator's
  dense X freed), over the size of dense X, in a fresh process; for CSR
  also over the CSR's own bytes (`mem/CSR`) and over the issue-31 budget 3 × CSR bytes + N·k·16 (`mem/budget`);
* `--base DIR`: a checkout of another version of relieffml (e.g. `git worktree add ../base 46e4bb8`): its
  CSR fits and this checkout's, each in fresh processes taking turns (`--repeat` rounds), best of the rounds,
  both as ratios to the one floor (`base csr/floor`, `csr/floor`) and to a floor timed in each fit's own process
  just before the fit, on N/10 query rows scaled by 10 (`csr/paired floor`: best fit over best floor of those
  processes; the floor timed minutes earlier moved by 60 % between runs, 17 to 27 s, and a slow spell slows
  a fit and its paired floor alike). ML-kNN's fit + predict (5000 training
  rows, the rest queried) is timed dense and CSR the same way (`MLkNN csr/dense`). The machine is shared:
  alternating the versions keeps a slow spell from favouring one of them;
* `--cpu` (with `--base`): also each CSR fit's CPU seconds (`time.process_time`) on one thread, base and this
  checkout taking turns, best of the rounds (`base cpu s`, `cpu s`). Wall-clock ratios on this shared 2-core VM
  moved by 10-20 % between runs of unchanged code; one thread's CPU time moved by about 5 %, so it is the
  figure that can tell a change of a few per cent.

Targets (issue 15): on the text statistics ReliefF-ML, MLRF, RF-ML and RF-BR each <= 2x the dense floor,
CSR <= 0.3x; at Q = 500, ReliefF-ML, MLRF and RF-BR each <= 2x RF-ML. Issue 31 (posting lists): CSR RF-ML
<= 0.03x, ReliefF-ML, MLRF, RF-BR <= 0.08x the floor; ML-kNN CSR fit + predict <= 0.1x dense; CSR peak
memory <= 3 x CSR bytes + N·k·16.
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
xbytes = X.nbytes
del X                                                     # not the fit's: only Xf and Y stay
import ctypes; ctypes.CDLL('libc.so.6').malloc_trim(0)    # freed heap back to the system: the fit cannot reuse it unseen
open('/proc/self/clear_refs', 'w').write('5')             # restart the high-water mark at the current size
base = _status('VmRSS:')
make({meth!r}).fit(Xf, Y)
print(_status('VmHWM:') - base, xbytes)
"""


def _env(root=None):
    "The environment of a child process importing relieffml from `root` (None: this checkout)."
    env = dict(os.environ)
    if root: env['PYTHONPATH'] = os.path.abspath(root) + os.pathsep + env.get('PYTHONPATH', '')
    return env


def peak_ratio(gen, args, meth, csr):
    "Peak resident memory a fit adds, and the size of dense X, in a fresh process (numba cache warm)."
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), gen=gen, args=args, meth=meth, csr=csr)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split()
    return int(out[-2]), int(out[-1])


_TIMED = """
import sys, time, numpy as np, scipy.sparse as sp
sys.path.insert(0, {here!r})
import numba; numba.set_num_threads({threads})
import relieffml
clock = time.{clock}
from bench_scale import {gen}, make, dense_floor
X, Y = {gen}(*{args!r})
Xf = sp.csr_matrix(X) if {csr!r} else X
floor = dense_floor(X, 1, len(X) // 10) if {paired!r} else 0.0   # the floor on a tenth of the rows, just before the fit
if {meth!r} == 'MLkNN':
    from relieffml.lazy import MLkNN
    run = lambda n: MLkNN(n_neighbors=10, n_jobs={threads}).fit(Xf[:n], Y[:n]).predict(Xf[n:n + max(1, n // 2)])
    run(60); t = clock(); run(5000)
else:
    est = lambda: make({meth!r}).set_params(n_jobs={threads})
    est().fit(Xf[:60], Y[:60]); t = clock(); est().fit(Xf, Y)
print(floor, clock() - t, relieffml.__file__)
"""


def child_time(root, gen, args, meth, csr, cpu=False):
    """One timed fit (compile excluded) in a fresh process importing relieffml from `root` (None: this checkout):
    wall-clock seconds with THREADS threads and, for a ranker, the dense floor timed in that process just before it
    (`dense_floor` on N/10 query rows, scaled by 10; else 0), or with `cpu` the CPU seconds of one thread."""
    code = _TIMED.format(here=os.path.dirname(os.path.abspath(__file__)), threads=1 if cpu else THREADS, gen=gen, args=args,
                         meth=meth, csr=csr, clock='process_time' if cpu else 'perf_counter', paired=not cpu and meth != 'MLkNN')
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True, env=_env(root),
                         cwd=root or None).stdout.split()      # the working directory comes first on sys.path
    if root: assert out[-1].startswith(os.path.abspath(root)), out[-1]
    return float(out[-2]), float(out[-3])


def compare(row, base, gen, args, repeat, t_floor, cpu=False):
    """Base and this checkout's CSR fits (and ML-kNN dense and CSR) in fresh processes, taking turns; best of `repeat`
    rounds; with `cpu`, also each CSR fit's CPU seconds on one thread."""
    roots = (base, None) if base else (None,)
    jobs = [(meth, root, True, False) for meth in METHODS for root in roots] + [('MLkNN', None, False, False), ('MLkNN', None, True, False)]
    if base: jobs += [('MLkNN', base, True, False)]
    if cpu: jobs += [(meth, root, True, True) for meth in METHODS for root in roots]
    best, floor = {}, {}
    for _ in range(repeat):
        for job in jobs:
            t, f = child_time(job[1], gen, args, job[0], job[2], job[3])
            best[job] = min(best.get(job, np.inf), t); floor[job] = min(floor.get(job, np.inf), f)
    for meth in METHODS:
        if base: row[f'{meth} base csr/floor'] = round(best[(meth, base, True, False)] / t_floor, 3)
        row[f'{meth} csr/floor (fresh process)'] = round(best[(meth, None, True, False)] / t_floor, 3)
    for meth in METHODS:                # against the floor timed in the fits' own processes: a slow spell slows both
        for root, name in ((base, 'base '), (None, '')) if base else ((None, ''),):
            row[f'{meth} {name}csr/paired floor'] = round(best[(meth, root, True, False)] / floor[(meth, root, True, False)], 3)
    fl = [v for v in floor.values() if v > 0]
    row['paired floor s (min-max of bests)'] = f"{min(fl):.1f}-{max(fl):.1f}"
    for meth in METHODS if cpu else ():
        if base: row[f'{meth} base cpu s'] = round(best[(meth, base, True, True)], 3)
        row[f'{meth} cpu s'] = round(best[(meth, None, True, True)], 3)
    dense = best[('MLkNN', None, False, False)]
    row['MLkNN dense s'] = round(dense, 2)
    if base: row['MLkNN base csr/dense'] = round(best[('MLkNN', base, True, False)] / dense, 3)
    row['MLkNN csr/dense'] = round(best[('MLkNN', None, True, False)] / dense, 3)


def run_set(label, gen, args, forms, repeat, memory, floor_rows=None, base=None, in_process=True, cpu=False):
    X, Y = globals()[gen](*args)
    t_floor = dense_floor(X, repeat, floor_rows)
    row = dict(set=label, N=X.shape[0], D=X.shape[1], Q=Y.shape[1], nnz=f"{np.count_nonzero(X) / X.size:.1%}",
               floor_s=round(t_floor, 3))
    S = sp.csr_matrix(X)
    csr_bytes = S.data.nbytes + S.indices.nbytes + S.indptr.nbytes
    for form in forms:
        Xf = S if form == 'csr' else X
        for meth in METHODS:
            if in_process:
                make(meth).fit(Xf[:60], Y[:60])                               # compile
                t = best_time(lambda: make(meth).fit(Xf, Y), repeat)
                row[f'{meth} {form}/floor'] = round(t / t_floor, 3)
            if memory:
                peak, xbytes = peak_ratio(gen, args, meth, form == 'csr')
                row[f'{meth} {form} mem/X'] = round(peak / xbytes, 3)
                if form == 'csr':
                    row[f'{meth} mem/CSR'] = round(peak / csr_bytes, 2)
                    row[f'{meth} mem/budget'] = round(peak / (3 * csr_bytes + 16 * 10 * X.shape[0]), 2)
    if base is not None: compare(row, base or None, gen, args, repeat, t_floor, cpu)
    print(row, flush=True)
    return row


def main():
    argv = sys.argv[1:]
    repeat = int(argv[argv.index('--repeat') + 1]) if '--repeat' in argv else 3
    memory = '--memory' in argv
    base = argv[argv.index('--base') + 1] if '--base' in argv else None
    only = '--only-sparse' in argv        # skip the Q sweep and the dense fits (the floor is still measured)
    rows = [] if only else [run_set(f'uniform Q={q}', 'uniform', (3000, 100, q, 3.0), ('dense',), repeat, memory) for q in (5, 50, 500)]
    if '--text' in argv:
        rows.append(run_set('text', 'bag_of_words', (7395, 1836, 159, 0.037, 2.4), ('csr',) if only else ('dense', 'csr'),
                            repeat, memory, base=base if base else ('' if only else None), in_process=not only,
                            cpu='--cpu' in argv))
    if '--large' in argv:      # dense fits only with --large-dense (about an hour on 2 cores); the floor from 2000 query rows
        forms = ('dense', 'csr') if '--large-dense' in argv else ('csr',)
        rows.append(run_set('large', 'bag_of_words', (20000, 5000, 400, 0.01, 2.4), forms, 1, memory, 2000))
    import pandas as pd
    with pd.option_context('display.width', 160, 'display.max_rows', 100):
        print(pd.DataFrame(rows).set_index('set').T.to_string())


if __name__ == '__main__':
    main()
