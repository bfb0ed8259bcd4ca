"""Time to first result (issue 45, item 7) — run by hand, not part of CI's pass/fail:

    python tests/benchmarks/bench_first_fit.py [--estimators ReliefF,ReliefFML,RFML,MLkNN] [--data cont,dup,bin]

Each estimator's first `fit` on a 300 × 20 array runs in a fresh Python process whose numba cache
(`NUMBA_CACHE_DIR`) is an empty folder, as on a fresh install: the time includes importing relieffml and
compiling every kernel the fit needs. A second process with the same, now filled, cache gives the time once
cached. Both are the whole process's wall and CPU times, one numba thread. A single fresh fit varies by about ±2 s
on a machine that is not idle: `--repeat R` runs it R times, each with its own empty cache, and prints the
smallest time with the median beside it. To compare two checkouts in one run, start it twice at once, each with
`PYTHONPATH` set to its checkout. The issue's target is ≤ 20 s fresh.

What compiles depends on the data (chapter *Pools*, "Compiling only what the input needs"): `cont`, the issue's
uniform random values, has no tie, so the search compiles its shortcuts alone; `dup` repeats two rows, whose ties
compile Weka's scan when the first row needs it; `bin` has 0/1 values, summed exactly, where Weka's scan is compiled
in from the start.
"""
import argparse, os, resource, statistics, subprocess, sys, tempfile, time

FIT = {  # the estimator's first fit, as a user writes it
    "ReliefF": "from relieffml import ReliefF; ReliefF().fit(X, Y[:, 0])",
    "ReliefFML": "from relieffml import ReliefFML; ReliefFML().fit(X, Y)",
    "RFML": "from relieffml import RFML; RFML().fit(X, Y)",
    "MLkNN": "from relieffml import MLkNN; MLkNN().fit(X, Y).predict_proba(X)",
}
DATA = ("import numpy as np; rng = np.random.default_rng(0); X = rng.random((300, 20)); "
        "Y = (rng.random((300, 5)) < 0.3).astype(np.uint8); Y[:2] = [[1] * 5, [0] * 5]")
FORM = {"cont": "", "dup": "; X[5], X[100] = X[6], X[101]", "bin": "; X = (X < 0.5).astype(float)"}


def run(code, cache, form="cont"):
    """Wall and CPU time of one fresh Python process running `code` with numba's cache in `cache` (CPU time: what
    compiling costs however busy the machine is; the compile is single-threaded)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, NUMBA_NUM_THREADS="1", RELIEFFML_COMPILE_NOTICE="off")
    t, c = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-c", f"{DATA}{FORM[form]}; {code}"], env=env, check=True)
    c2 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.perf_counter() - t, (c2.ru_utime - c.ru_utime) + (c2.ru_stime - c.ru_stime)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--estimators", default=",".join(FIT))
    ap.add_argument("--data", default="cont", help="comma-separated: " + ", ".join(FORM))
    ap.add_argument("--repeat", type=int, default=1, help="fresh fits per estimator, each with its own empty cache")
    args = ap.parse_args()
    if args.repeat < 1: ap.error("--repeat must be at least 1")
    best = "" if args.repeat == 1 else f", least of {args.repeat} (median)"
    print(f"| estimator | data | first fit, empty cache: wall (s){best} | CPU (s) | cached: wall (s) | CPU (s) |\n"
          "|---|---|---:|---:|---:|---:|")
    for form in args.data.split(","):
        for name in args.estimators.split(","):
            fresh = []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory() as cache:
                    fresh.append(run(FIT[name], cache, form))
                    if len(fresh) == 1: cached = run(FIT[name], cache, form)
            wall, cpu = (_least(t) for t in zip(*fresh))
            print(f"| {name} | {form} | {wall} | {cpu} | {cached[0]:.1f} | {cached[1]:.1f} |", flush=True)


def _least(times):
    "The smallest of `times`, with their median in brackets when there are several."
    return f"{min(times):.1f}" + ("" if len(times) == 1 else f" ({statistics.median(times):.1f})")


if __name__ == "__main__":
    main()
