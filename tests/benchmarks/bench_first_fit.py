"""Time to first result (issue 45, item 7) — run by hand, not part of CI's pass/fail:

    python tests/benchmarks/bench_first_fit.py [--estimators ReliefF,ReliefFML,RFML,MLkNN]

Each estimator's first `fit` on a 300 × 20 array runs in a fresh Python process whose numba cache
(`NUMBA_CACHE_DIR`) is an empty folder, as on a fresh install: the time includes importing relieffml and
compiling every kernel the fit needs. A second process with the same, now filled, cache gives the time once
cached. Both are the whole process's wall and CPU times, one numba thread. To compare two checkouts in one run,
start it twice at once, each with `PYTHONPATH` set to its checkout. The issue's target is ≤ 20 s fresh.
"""
import argparse, os, resource, subprocess, sys, tempfile, time

FIT = {  # the estimator's first fit, as a user writes it
    "ReliefF": "from relieffml import ReliefF; ReliefF().fit(X, Y[:, 0])",
    "ReliefFML": "from relieffml import ReliefFML; ReliefFML().fit(X, Y)",
    "RFML": "from relieffml import RFML; RFML().fit(X, Y)",
    "MLkNN": "from relieffml import MLkNN; MLkNN().fit(X, Y).predict_proba(X)",
}
DATA = ("import numpy as np; rng = np.random.default_rng(0); X = rng.random((300, 20)); "
        "Y = (rng.random((300, 5)) < 0.3).astype(np.uint8); Y[:2] = [[1] * 5, [0] * 5]")


def run(code, cache):
    """Wall and CPU time of one fresh Python process running `code` with numba's cache in `cache` (CPU time: what
    compiling costs however busy the machine is; the compile is single-threaded)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", RELIEFFML_COMPILE_NOTICE="off")
    t, c = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", f"{DATA}; {code}"], env=env, check=True)
    c2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t, (c2.ru_utime - c.ru_utime) + (c2.ru_stime - c.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--estimators", default=",".join(FIT))
    names = ap.parse_args().estimators.split(",")
    print("| estimator | first fit, empty cache: wall (s) | CPU (s) | cached: wall (s) | CPU (s) |\n|---|---:|---:|---:|---:|")
    for name in names:
        with tempfile.TemporaryDirectory() as cache:
            fresh, cached = run(FIT[name], cache), run(FIT[name], cache)
        print(f"| {name} | {fresh[0]:.1f} | {fresh[1]:.1f} | {cached[0]:.1f} | {cached[1]:.1f} |", flush=True)


if __name__ == "__main__":
    main()
