"""The kernels run as plain Python under NUMBA_DISABLE_JIT=1 (stumpy's way to debug a kernel or measure its line
coverage): each ranker and learner, on dense and sparse input, gives there exactly the bits it gives compiled.

The kernel tests themselves pass in plain Python too, and measure the kernels' line coverage (issue 45, item 5):

    NUMBA_DISABLE_JIT=1 python -m coverage run --source=relieffml -m pytest tests/test_neighbors.py \
        tests/test_sparse.py tests/test_postings.py tests/test_relieff.py tests/test_rrelieff.py
    python -m coverage report --include='relieffml/shortcuts.py,relieffml/pools.py,relieffml/replay.py,...'

(170 tests, 5–8 minutes on 2 cores; on 2026-12-07: replay 100 %, pools 99 %, sparse 99 %, shortcuts 98 %, driver
94 %, updates 94 %, scan 90 %, neighbors 89 %, distances 86 % of their statements.)"""
import json
import os
import subprocess
import sys
import numpy as np

WORKLOAD = r'''
import json, sys
import numpy as np, scipy.sparse as sp
from relieffml import ReliefF, RReliefF, ReliefFML, RFML, MLRF, MLkNN, BRkNN, make_multilabel_relevance
ds = make_multilabel_relevance(n_samples=60, n_features=10, n_labels=3, random_state=0)
X = ds.X.copy(); X[X < np.quantile(X, 0.4)] = 0.0
out = {}
for form, Xf in (("dense", X), ("sparse", sp.csr_matrix(X))):
    out[f"ReliefF/{form}"] = ReliefF(n_samples=None).fit(Xf, ds.Y[:, 0]).weights_
    out[f"RReliefF/{form}"] = RReliefF(n_samples=None).fit(Xf, X[:, 0] + ds.Y[:, 1]).weights_
    out[f"ReliefFML/{form}"] = ReliefFML(n_samples=None).fit(Xf, ds.Y).weights_
    out[f"RFML/{form}"] = RFML(n_samples=None).fit(Xf, ds.Y).weights_
    out[f"MLRF/{form}"] = MLRF().fit(Xf, ds.Y).weights_
    out[f"MLkNN/{form}"] = MLkNN(n_neighbors=5).fit(Xf, ds.Y).predict_proba(Xf[:7])
    out[f"BRkNN/{form}"] = BRkNN(n_neighbors=5).fit(Xf, ds.Y).predict_proba(Xf[:7])
json.dump({k: [float(v).hex() for v in np.ravel(a)] for k, a in out.items()}, sys.stdout)
'''


def run(jit: bool) -> dict:
    env = {**os.environ, "NUMBA_DISABLE_JIT": "0" if jit else "1"}
    done = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, capture_output=True, text=True, timeout=1500)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_kernels_run_in_pure_python_with_the_same_bits():
    compiled, python = run(True), run(False)
    assert compiled.keys() == python.keys()
    for key in compiled:
        assert python[key] == compiled[key], key          # float.hex: every bit
    assert len(compiled) == 14 and all(len(v) > 0 for v in compiled.values())
