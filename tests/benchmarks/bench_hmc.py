"""Speed benchmark of HMC-ReliefF (issue "Hierarchical labels", Speed): a script, not a timed test.

Fits `HMCReliefF(n_neighbors=10, n_jobs=2)` on every instance of ImCLEF07A_Train (10 000 instances,
80 numeric features, 96 classes) and prints the wall-clock time of the fit, and the CPU time of all its
threads (less sensitive to other work on the machine). Compilation is excluded: the kernels are first
warmed up on a small slice of the same data, with the same dtypes. Target: under 5 s wall on the
project's 2-core machine.

    python tests/benchmarks/bench_hmc.py [--repeat 3] [--phases]

`--phases` also times the three steps of the fit separately (neighbour search, hierarchy-weighted target
differences, RReliefF accumulation), to show where the time goes. The data are found like the tests find
them: env RELIEFFML_DATA, else ../shared/datasets beside the project.
"""
import argparse, os, statistics, time
from pathlib import Path
import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if "RELIEFFML_DATA" not in os.environ and (ROOT.parent / "shared" / "datasets").is_dir():
    os.environ["RELIEFFML_DATA"] = str(ROOT.parent / "shared" / "datasets")

from relieffml.data import load_dataset
from relieffml.distances import prepare
from relieffml.hmc import HMCReliefF, hmc_target_diffs
from relieffml.rrelieff import neighbors_all, rrelieff_from_neighbors

K, N_JOBS = 10, 2


def warm_up(ds, n:int=300):
    "Compile every kernel the fit uses on a small random slice (same dtypes as the full run)."
    rows = np.sort(np.random.default_rng(0).choice(ds.X.shape[0], n, replace=False))
    HMCReliefF(n_neighbors=K, n_jobs=N_JOBS, hierarchy=ds.hierarchy).fit(ds.X[rows], ds.Y[rows])


def time_fit(ds)->tuple:
    "(wall seconds, CPU seconds of all threads, fitted ranker) of one full fit."
    t, c = time.perf_counter(), time.process_time()
    r = HMCReliefF(n_neighbors=K, n_jobs=N_JOBS).fit(ds)
    return time.perf_counter() - t, time.process_time() - c, r


def time_phases(ds)->dict:
    "Seconds spent in each step of the fit (the estimator's `_fit`, step by step)."
    out, t = {}, time.perf_counter()
    prep = prepare(ds.X, ds.nominal, ds.n_values); samples = np.arange(ds.X.shape[0])
    out["prepare"], t = time.perf_counter() - t, time.perf_counter()
    idx, cnt = neighbors_all(prep, samples, K, "manhattan", N_JOBS)
    out["neighbours"], t = time.perf_counter() - t, time.perf_counter()
    dC = hmc_target_diffs(ds.Y, ds.hierarchy.class_weights(0.75), samples, idx, cnt, N_JOBS)
    out["target_diffs"], t = time.perf_counter() - t, time.perf_counter()
    rrelieff_from_neighbors(prep, samples, idx, cnt, dC, n_jobs=N_JOBS)
    out["rrelieff"] = time.perf_counter() - t
    return out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=1, help="number of timed fits (the median is reported)")
    p.add_argument("--phases", action="store_true", help="also time the steps of the fit separately")
    a = p.parse_args(argv)
    ds = load_dataset("hmc/ImCLEF07A_Train")
    warm_up(ds)
    times, cpu = [], []
    for _ in range(a.repeat):
        s, c, r = time_fit(ds); times.append(s); cpu.append(c)
    print(f"HMCReliefF(n_neighbors={K}, n_jobs={N_JOBS}) on ImCLEF07A_Train {ds.X.shape[0]}x{ds.X.shape[1]}, "
          f"{ds.Y.shape[1]} classes: {statistics.median(times):.2f} s wall, {statistics.median(cpu):.2f} s CPU "
          f"(median of {len(times)}; target < 5 s wall); top features {r.ranking_[:5].tolist()}")
    if a.phases:
        print("  " + ", ".join(f"{k} {v:.2f} s" for k, v in time_phases(ds).items()))
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
