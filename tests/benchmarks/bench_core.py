"""Core speed and memory benchmark — run by hand, not part of CI's pass/fail:

    RELIEFFML_DATA=../shared/datasets python tests/benchmarks/bench_core.py [--no-skrebate]

On yeast and scene, every instance sampled, k = 10, 2 threads, compile time excluded (each kernel is
warmed up on a slice first), it prints:

* the floor: a bare numba pass that, for every instance, computes its L1 distance to all others and keeps
  the 10 nearest (fastmath with reassociation, no N×N matrix) — the brute-force search every ranker
  must do (ours computes four distance rows per pass over X, so it can come in under the floor);
* ReliefF-ML, RF-ML and RF-BR as ratios to the floor;
* RF-BR per label (with `store_label_weights=True`: the Q weight rows, as the peers compute them; the
  default keeps only their mean) against fast-select 0.3.0 and scikit-rebate 0.8 per label
  (`pip install fast-select skrebate`; they are not dependencies of relieffml);
* peak extra memory of each ranker during fit, as a multiple of the size of X.

Every time, ours and the peers', is the best of 5 runs (scikit-rebate's, which takes seconds, of one):
timings on this VM are bimodal, a run now and then taking 1.4× as long.
"""
import sys, time
import numpy as np
import numba
from numba import prange

THREADS = 2
numba.set_num_threads(THREADS)


@numba.njit(fastmath=True, parallel=True, cache=True)
def floor_pass(X, k, out):
    "For each of the first len(out) instances (all of them in bench_core): L1 distance to all others, keep the k nearest."
    N, D = X.shape
    for i in prange(out.shape[0]):
        bd = np.full(k, np.inf); bi = np.full(k, -1); w = 0
        for j in range(N):
            if j == i: continue
            s = 0.0
            for f in range(D): s += abs(X[i, f] - X[j, f])
            if s < bd[w]:
                bd[w] = s; bi[w] = j
                w = 0
                for r in range(1, k):
                    if bd[r] > bd[w]: w = r
        out[i] = bi


def best_time(fn, repeat=5):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter(); fn(); ts.append(time.perf_counter() - t)
    return min(ts)


def _status(key):
    for line in open('/proc/self/status'):
        if line.startswith(key): return int(line.split()[1]) * 1024
    return 0


_CHILD = """
import sys, numpy as np
sys.path.insert(0, {here!r})
from bench_core import _status, _make
from relieffml.data import load_dataset
ds = load_dataset({name!r}); X, Y = np.ascontiguousarray(ds.X), ds.Y
_make({meth!r}).fit(X[:60], Y[:60])                     # compiled code loads from the numba cache
base = _status('VmHWM:')
_make({meth!r}).fit(X, Y)
print(_status('VmHWM:') - base, X.nbytes)
"""


def _make(meth):
    from relieffml.reliefml import ReliefFML
    from relieffml.rfml import RFML
    from relieffml.relieff import ReliefF
    return {'ReliefF-ML': lambda: ReliefFML(n_samples=None, n_jobs=THREADS), 'RF-ML': lambda: RFML(n_jobs=THREADS),
            'RF-BR': lambda: ReliefF(n_jobs=THREADS)}[meth]()


def peak_extra_ratio(name, meth):
    "Peak resident memory a fit adds, over the size of X, measured in a fresh process (numba cache warm)."
    import subprocess, os
    code = _CHILD.format(here=os.path.dirname(os.path.abspath(__file__)), name=name, meth=meth)
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True).stdout.split()
    return int(out[-2]) / int(out[-1])


def main():
    from relieffml.data import load_dataset
    from relieffml.reliefml import ReliefFML
    from relieffml.rfml import RFML
    from relieffml.relieff import ReliefF
    use_skrebate = '--no-skrebate' not in sys.argv
    rows = []
    for name in ('yeast', 'scene'):
        ds = load_dataset(name)
        X, Y = np.ascontiguousarray(ds.X), ds.Y
        Q = Y.shape[1]
        Xn = (X - X.min(0)) / np.where(np.ptp(X, 0) > 0, np.ptp(X, 0), 1)
        out = np.empty((len(X), 10), np.int64)
        floor_pass(Xn[:50], 10, out[:50])                                     # compile
        t_floor = best_time(lambda: floor_pass(Xn, 10, out))
        rankers = {'ReliefF-ML': lambda: ReliefFML(n_samples=None, n_jobs=THREADS),
                   'RF-ML': lambda: RFML(n_jobs=THREADS),
                   'RF-BR': lambda: ReliefF(n_jobs=THREADS)}
        times, mems = {}, {}
        for meth, make in rankers.items():
            make().fit(X[:60], Y[:60])                                         # compile
            times[meth] = best_time(lambda: make().fit(X, Y))
            mems[meth] = peak_extra_ratio(name, meth)
        row = dict(data=name, N=X.shape[0], D=X.shape[1], Q=Q, floor_s=t_floor)
        for meth in rankers:
            row[f'{meth}_s'] = times[meth]; row[f'{meth}/floor'] = times[meth] / t_floor
            row[f'{meth}_mem/X'] = mems[meth]
        make_rows = lambda: ReliefF(store_label_weights=True, n_jobs=THREADS)    # the Q weight rows the peers compute
        make_rows().fit(X[:60], Y[:60])
        ours_per_label = best_time(lambda: make_rows().fit(X, Y)) / Q
        row['RF-BR_per_label_s'] = ours_per_label
        try:
            from fast_select.ReliefF import ReliefF as FSReliefF
            y0 = Y[:, 0].astype(int)
            FSReliefF(n_neighbors=10, backend='cpu', n_jobs=THREADS).fit(X[:60], y0[:60])
            t_fs = np.mean([best_time(lambda l=l: FSReliefF(n_neighbors=10, backend='cpu', n_jobs=THREADS).fit(X, Y[:, l].astype(int)))
                            for l in range(min(Q, 3))])                # best of 5 per label, as ours
            row['fast-select_per_label_s'] = t_fs; row['speedup_vs_fast-select'] = t_fs / ours_per_label
        except ImportError: print('fast-select not installed: pip install fast-select')
        if use_skrebate:
            try:
                from skrebate import ReliefF as SKReliefF
                t_sk = best_time(lambda: SKReliefF(n_neighbors=10, n_jobs=THREADS).fit(X, Y[:, 0].astype(int)), 1)
                row['skrebate_per_label_s'] = t_sk; row['speedup_vs_skrebate'] = t_sk / ours_per_label
            except ImportError: print('skrebate not installed: pip install skrebate')
        rows.append(row)
        print(f"-- {name} done", flush=True)
    import pandas as pd
    df = pd.DataFrame(rows).set_index('data').T
    with pd.option_context('display.float_format', '{:.3f}'.format, 'display.width', 120):
        print(df.to_string())


if __name__ == '__main__':
    main()
