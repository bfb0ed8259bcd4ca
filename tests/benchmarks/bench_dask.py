"""The dask path against the in-memory one (issue 17) — run by hand, not part of CI:

    python tests/benchmarks/bench_dask.py [--sizes 100000 200000 500000] [--samples 256] [--big] [--search]

* overhead: on a LocalCluster of 2 workers × 1 thread, ReliefF-ML on uniform N × 20 X with 5 labels,
  `n_samples` sampled instances, k = 10, against the in-memory fit with 2 numba threads (compile time
  excluded: both are fitted once on a slice first); prints the time ratio, each worker's peak resident
  memory and the weights' largest difference (must be <= 1e-12);
* `--big`: X generated lazily on the workers, 1.5M × 100 float64 (1.2 GB), twice each worker's
  memory_limit (600 MB): the fit completes and the client process grows by far less than X;
* `--search`: time the neighbour search alone (`knn_pools` against `dask_knn_pools`), e.g. before the
  rankers accept dask collections.
"""
import argparse, resource, time
import numpy as np


def peak_rss_mib():
    "This process's peak resident memory (MiB)."
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_mib():
    import psutil
    return psutil.Process().memory_info().rss / 2**20


def data(n, d=20, q=5, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.random((n, d))
    Y = (rng.random((n, q)) < 0.3).astype(np.uint8)
    return X, Y


def fit_in_memory(X, Y, m, search):
    from relieffml.reliefml import ReliefFML
    from relieffml.distances import prepare
    from relieffml.neighbors import knn_pools
    if search:
        s = np.random.default_rng(0).choice(len(X), m, replace=False)
        return knn_pools(prepare(X, np.zeros(X.shape[1], bool)), s, Y, 10, n_jobs=2)[0]
    return ReliefFML(n_neighbors=10, n_samples=m, random_state=0, n_jobs=2).fit(X, Y).weights_


def fit_dask(Xd, Y, m, search):
    from relieffml.reliefml import ReliefFML
    from relieffml.distributed import as_dask_features, dask_knn_pools
    if search:
        src, _ = as_dask_features(Xd, 'auto', block_size=256)
        s = np.random.default_rng(0).choice(Xd.shape[0], m, replace=False)
        return dask_knn_pools(src, src.prepare_stats(), s, Y, 10)[0]
    return ReliefFML(n_neighbors=10, n_samples=m, random_state=0, n_jobs=2).fit(Xd, Y).weights_


def timed(f):
    t = time.perf_counter(); out = f(); return out, time.perf_counter() - t


def overhead(sizes, m, search):
    import dask.array as da
    from distributed import Client, LocalCluster, wait
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=':0') as cluster, Client(cluster) as client:
        X, Y = data(2000)
        fit_in_memory(X, Y, 32, search); fit_dask(da.from_array(X, chunks=(500, 20)), Y, 32, search)   # compile
        print(f"{'N':>8} {'in-memory s':>12} {'dask s':>8} {'ratio':>6} {'worker peak MiB':>16} {'max |Δw|':>9}")
        for n in sizes:
            X, Y = data(n)
            ref, t_mem = timed(lambda: fit_in_memory(X, Y, m, search))
            Xd = da.from_array(X, chunks=(n // 8, 20)).persist()     # the data live on the workers, as they would
            wait(Xd)
            got, t_dask = timed(lambda: fit_dask(Xd, Y, m, search))
            peaks = client.run(peak_rss_mib)
            diff = float(np.abs(np.asarray(got, float) - np.asarray(ref, float)).max())
            print(f"{n:>8} {t_mem:>12.2f} {t_dask:>8.2f} {t_dask / t_mem:>6.1f} "
                  f"{'/'.join(f'{v:.0f}' for v in peaks.values()):>16} {diff:>9.1e}")


def big(m, search):
    import dask.array as da
    from distributed import Client, LocalCluster
    N, D = 1_500_000, 100
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit='600MB', dashboard_address=':0') as cluster, \
            Client(cluster) as client:
        Y = (np.random.default_rng(1).random((N, 3)) < 0.3).astype(np.uint8)
        X = da.random.default_rng(1).random((N, D), chunks=(50_000, D))
        Xw, Yw = data(2000, D, 3)
        fit_dask(da.from_array(Xw, chunks=(500, D)), Yw, 32, search)    # compile on the client first
        r0 = rss_mib()
        _, t = timed(lambda: fit_dask(X, Y, m, search))
        print(f"X {N * D * 8 / 2**30:.2f} GiB lazily generated, workers limited to 600 MB: done in {t:.1f} s; "
              f"client grew by {rss_mib() - r0:.0f} MiB; worker peaks {client.run(peak_rss_mib)} MiB")


if __name__ == '__main__':
    ap = argparse.ArgumentParser()
    ap.add_argument('--sizes', type=int, nargs='+', default=[100_000, 200_000, 500_000])
    ap.add_argument('--samples', type=int, default=256)
    ap.add_argument('--big', action='store_true')
    ap.add_argument('--search', action='store_true')
    a = ap.parse_args()
    if a.big: big(a.samples, a.search)
    else: overhead(a.sizes, a.samples, a.search)
