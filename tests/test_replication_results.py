"""Stored results stay honest (issue 44, item 4): one (data set, fold) slice of every stored results file in
`tutorials/results/` is recomputed from scratch and must EQUAL the stored rows — every column but the run's
version, commit and time, every value to the bit. Our results are bit-reproducible (seeded folds and sampling,
kernels whose output does not depend on the thread count), so equality is the right test; a file that no
longer follows from the code fails, and the message names the command that regenerates it.

For paper 000 the checked slices are emotions fold 0 (bundled, cheap) and medical fold 0, a set the package does
not bundle: it is downloaded, verified, through the loopback mirror that tests/run.sh serves (RELIEFFML_MIRROR).
The experiment code itself is checked against tutorial 01's own loop body (`run_fold`), executed from the
notebook's cells, so the package reproduces the tutorial's numbers and not only its own.

For paper 003 (RFS) the checked slice is emotions fold 0 of the full run (bundled, about 2 s), and `liu_slice` is
checked against tutorial 05's live loop (`fold_rows`) on the first fold of its worked example.
"""
import json, math, os, shutil
from pathlib import Path

import pandas as pd
import pytest

from relieffml.data import find_dataset
from relieffml.replicate import (PAPER_000, PAPER_003, compute_slice, read_results, recompute_slice, regenerate_command,
                                 write_results)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tutorials" / "results"
# the slices recomputed per stored file: a cheap bundled one and one downloaded through the mirror
CHECKS = {"000_reduced.csv.gz": [("emotions", 0), ("medical", 0)],
          "003_full.csv.gz": [("emotions", 0)]}


def test_every_stored_file_is_checked():
    stored = sorted(p.name for p in RESULTS.glob("*.csv.gz"))
    assert stored, "no stored results in tutorials/results"
    assert set(stored) == set(CHECKS), f"stored results files and the slices checked differ: {stored} vs {sorted(CHECKS)}"


def assert_slice_matches(path, dataset, fold):
    "The stored rows of (dataset, fold) equal a fresh recomputation, or an AssertionError naming the regenerating command."
    stored, fresh = recompute_slice(path, dataset, fold, n_jobs=1)
    hexed = lambda df: df.assign(value=[v.hex() for v in df.value])
    try: pd.testing.assert_frame_equal(hexed(stored), hexed(fresh), check_dtype=False)
    except AssertionError as e:
        raise AssertionError(f"{path.name}: slice ({dataset}, fold {fold}) no longer matches the code ({e}); "
                             f"regenerate it with: {regenerate_command(path)}") from None


def _needs_mirror(dataset):
    if find_dataset(dataset) is None and not os.environ.get("RELIEFFML_MIRROR"):
        if os.environ.get("CI") == "true": pytest.fail(f"{dataset} is not bundled and RELIEFFML_MIRROR is not set")
        pytest.skip(f"{dataset} is not bundled: run through tests/run.sh, which serves the loopback mirror")


@pytest.mark.parametrize("name, dataset, fold", [(n, d, f) for n, slices in CHECKS.items() for d, f in slices])
def test_stored_slice_recomputes_exactly(name, dataset, fold):
    _needs_mirror(dataset)
    assert_slice_matches(RESULTS / name, dataset, fold)


def test_a_medical_slice_is_not_bundled():
    "The second slice of 000 goes through the download path: medical is not among the bundled sets."
    from relieffml.data import BUNDLED_DATA
    assert not list(BUNDLED_DATA.glob("medical*"))


def test_an_altered_value_fails_and_names_the_command(tmp_path):
    "One stored value moved by one ulp: the check fails and says how to regenerate the file."
    rows = read_results(RESULTS / "000_reduced.csv.gz")
    rows = rows[rows.dataset == "emotions"].reset_index(drop=True)
    rows.loc[5, "value"] = math.nextafter(rows.loc[5, "value"], math.inf)
    write_results(rows, tmp_path / "000_reduced.csv.gz")
    with pytest.raises(AssertionError, match="regenerate it with: rm .*relieffml replicate 000 --protocol reduced --datasets emotions"):
        assert_slice_matches(tmp_path / "000_reduced.csv.gz", "emotions", 0)


def _tutorial_cells(*starts, notebook="01_reliefml_replication.ipynb"):
    "Sources of a tutorial's code cells that begin with (or define) the given text."
    cells = ["".join(c["source"]) for c in json.loads((ROOT / "tutorials" / notebook).read_text())["cells"]
             if c["cell_type"] == "code"]
    return [next(s for s in cells if text in s) for text in starts]


def test_package_slice_equals_tutorial_run_fold():
    "reyes_slice is tutorial 01's run_fold: same rows, same bits, on emotions fold 0 (the tutorial's 10 folds, k = 10)."
    config, imports, body = _tutorial_cells("SEED = ", "from relieffml.lazy import", "def run_fold")
    ns = {}
    for src in (config, imports): exec(src, ns)
    ns["LEARNERS"] = {"ML-kNN": ns["MLkNN"], "DML-kNN": ns["DMLkNN"], "MLC-WkNN": ns["MLCWkNN"]}   # the tutorial's, cell 7
    exec(body, ns)
    ds = PAPER_000.prepare(ns["load_dataset"]("emotions"))
    train, test = next(ns["iterative_stratified_kfold"](ds.Y, ns["N_FOLDS"]["emotions"], random_state=ns["SEED"]))
    tutorial = pd.DataFrame(ns["run_fold"](ds, train, test, 10)).rename(columns={"learner": "method"})
    ours = compute_slice(PAPER_000, PAPER_000.protocols["reduced"], "emotions", 0)
    keys = ["convention", "method", "variant", "measure"]
    assert tutorial[keys].to_dict("records") == ours[keys].to_dict("records")
    assert [v.hex() for v in tutorial.value] == [v.hex() for v in ours.value]


def test_package_slice_equals_tutorial_05_loop():
    "liu_slice is tutorial 05's live loop (FoldRun, configurations, measures): same rows, same bits, on the worked example's first emotions fold."
    starts = ("import time, warnings", "SEED = ", "class OneClassSafe", "LEARNERS = {", "def dbr_parents", "class FoldRun",
              "def _fit_predict", "def meta(", "PAIRS = ", "def configurations", "def balanced_accuracy_macro", "def fold_rows")
    ns = {}
    for src in _tutorial_cells(*starts, notebook="05_rfs_replication.ipynb"): exec(src, ns)
    proto = PAPER_003.protocols[ns["LIVE"]]
    ds = PAPER_003.prepare(ns["load_dataset"]("emotions"))
    train, test = next(ns["iterative_stratified_kfold"](ds.Y, proto.n_folds("emotions"), random_state=ns["SEED"]))
    tutorial = pd.DataFrame(ns["fold_rows"]("emotions", ds, 0, train, test, proto.grid),
                            columns=["dataset", "fold", "method", "variant", "measure", "value"])
    ours = compute_slice(PAPER_003, proto, "emotions", 0)
    keys = ["method", "variant", "measure"]
    assert tutorial[keys].to_dict("records") == ours[keys].to_dict("records")
    assert [v.hex() for v in tutorial.value] == [v.hex() for v in ours.value]
