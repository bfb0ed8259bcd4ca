#!/usr/bin/env python
"""Collect the chapters' naive references into tests/naive.py (run by tests/run.sh's sync step).

The loop-for-loop NumPy oracles of the estimator chapters are ordinary, visible cells of their chapters
(first line `# naive reference: ...`), not exported: they are no part of the package's API. The test
suite and later chapters import them from the generated tests/naive.py, so each oracle has one source,
its chapter, as the package code has in nbdev. Edit the chapter, not tests/naive.py.

    python tools/make_naive.py
"""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MARK = "# naive reference"
HEADER = '''"""Naive references of the estimator chapters, loop for loop, the oracles of the kernel tests.

Generated from the chapters by tools/make_naive.py: edit the chapter named above each block, not this file.
"""
import dataclasses, itertools
import numpy as np
from relieffml.distances import Prepared, prepare, naive_diff, naive_distance
from relieffml.neighbors import naive_knn_pools
from relieffml.sparse import densify
from relieffml.reliefml import label_priors
from relieffml.mlrf import mean_pair_redundancy, PHI_TIE
'''


def naive_cells():
    "(notebook, source) of every naive-reference cell, in chapter order."
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        for c in json.loads(nb.read_text())["cells"]:
            src = "".join(c["source"])
            if c["cell_type"] == "code" and src.startswith(MARK): yield nb.name, src.split("\n", 1)[1]


def main():
    parts = [HEADER] + [f"\n\n# %% nbs/{name}\n{src.rstrip()}\n" for name, src in naive_cells()]
    (ROOT / "tests" / "naive.py").write_text("".join(parts))


if __name__ == "__main__": main()
