"""The same bits on every machine (issue 29): `machine_workload.py` run as different machines would run it.

Simulated machines, each a subprocess (a simulated CPU with a numba cache of its own, so every kernel is
compiled anew for it; the host with the package's cache, as a user's second run):

* **host**: the CPU numba detects, the OpenBLAS kernels and NumPy SIMD paths it picks, 2 threads;
* **baseline**: a plain x86-64 CPU without AVX or FMA for numba, OpenBLAS's Prescott kernels, NumPy's
  dispatched SIMD paths off (`NPY_DISABLE_CPU_FEATURES`), glibc's FMA/AVX variants of exp, log, pow …
  hidden (`GLIBC_TUNABLES`), 1 thread;
* **haswell**: numba compiling for Haswell (AVX2 + FMA), OpenBLAS's Haswell kernels, 2 threads.

By default the test runs **host** and **baseline**: they differ in every knob at once (vector width, FMA,
BLAS kernels, NumPy's and glibc's SIMD paths, thread count). **haswell** sits between them and costs
another full compilation (about 3 CPU-minutes, in CI alongside pytest and nbval); `RELIEFFML_MACHINES=all`
(or a comma-separated list of names) adds it.

Every output of the workload — rankers' weights and rankings, neighbour lists and distances, learners'
scores and predictions, every metric and evaluation figure — must have the same SHA-256 digest on all three.
On x86-64 only (the knobs are x86 names); an ARM machine runs the same kernels with its own CPU name.
"""
import json, os, platform, subprocess, sys
from pathlib import Path
import numpy as np
import pytest

HERE = Path(__file__).resolve().parent

MACHINES = {
    "host": {"NUMBA_NUM_THREADS": "2"},
    "baseline": {"NUMBA_CPU_NAME": "x86-64", "NUMBA_CPU_FEATURES": "+64bit,+cmov,+cx8,+fxsr,+mmx,+sse,+sse2",
                 "OPENBLAS_CORETYPE": "Prescott", "NUMBA_NUM_THREADS": "1",
                 "NPY_DISABLE_CPU_FEATURES": "X86_V3 X86_V4 AVX512_ICL AVX512_SPR",
                 "GLIBC_TUNABLES": "glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-AVX512F"},
    "haswell": {"NUMBA_CPU_NAME": "haswell", "NUMBA_CPU_FEATURES": "", "OPENBLAS_CORETYPE": "Haswell",
                "NUMBA_NUM_THREADS": "2"},
}
# NUMBA_CPU_FEATURES="" with a named CPU: numba then takes the CPU's own feature set (not the host's)


def machine_env(name: str, cache: Path) -> dict:
    "The environment of simulated machine `name`, its numba cache in `cache`."
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("NUMBA_", "OPENBLAS_", "NPY_", "GLIBC_TUNABLES", "OMP_"))}
    env.update(MACHINES[name], PYTHONHASHSEED="0", MPLBACKEND="Agg")
    if name != "host": env["NUMBA_CACHE_DIR"] = str(cache)
    return {k: v for k, v in env.items() if v != ""}


def chosen_machines() -> tuple:
    "The machines to run: `RELIEFFML_MACHINES` (`all`, or names separated by commas), by default host and baseline."
    want = os.environ.get("RELIEFFML_MACHINES", "host,baseline").strip()
    names = tuple(MACHINES) if want == "all" else tuple(n.strip() for n in want.split(",") if n.strip())
    bad = [n for n in names if n not in MACHINES]
    if bad or len(names) < 2: raise ValueError(f"RELIEFFML_MACHINES={want!r}: name two or more of {sorted(MACHINES)}, or 'all'")
    return names


def run_machines(tmp: Path, names=None) -> dict:
    "Start every machine's workload at once (they compile in parallel), then collect name -> {output: digest}."
    procs = {}
    for name in names or chosen_machines():
        out = tmp / f"{name}.json"
        procs[name] = (out, subprocess.Popen([sys.executable, str(HERE / "machine_workload.py"), str(out)],
                                             env=machine_env(name, tmp / f"cache-{name}"),
                                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True))
    res = {}
    for name, (out, p) in procs.items():
        log = p.communicate(timeout=1800)[0]
        assert p.returncode == 0, f"machine {name} failed:\n{log[-3000:]}"
        res[name] = json.loads(out.read_text())
    return res


def differing(res: dict) -> dict:
    "output -> {machine: digest} for every output whose digest is not the same on all machines."
    keys = sorted(set().union(*res.values()))
    return {k: {m: r.get(k) for m, r in res.items()} for k in keys if len({r.get(k) for r in res.values()}) > 1}


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the simulated CPUs are x86-64 names")
def test_same_bits_on_every_machine(tmp_path):
    res = run_machines(tmp_path)
    assert len(res["host"]) > 900, f"the workload produced only {len(res['host'])} outputs"
    diff = differing(res)
    assert not diff, f"{len(diff)} of {len(res['host'])} outputs differ between machines, e.g. {sorted(diff)[:12]}"
