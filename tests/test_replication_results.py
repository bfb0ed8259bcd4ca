"""Stored results stay honest (issue 44, item 4): one (data set, fold) slice of every stored results file in
`tutorials/results/` is recomputed from scratch and must EQUAL the stored rows — every column but the run's
version, commit and time, every value to the bit. Our results are bit-reproducible (seeded folds and sampling,
kernels whose output does not depend on the thread count), so equality is the right test; a file that no
longer follows from the code fails, and the message names the command that regenerates it.

For paper 000 the checked slices of the reduced run are emotions fold 0 (bundled, cheap) and medical fold 0, a set
the package does not bundle: it is downloaded, verified, through the loopback mirror that tests/run.sh serves
(RELIEFFML_MIRROR); of the full run, emotions fold 0 and enron fold 0 (through the mirror), one from each of the
two commits that computed it.
For paper 004 (tutorial 04) it is emotions fold 0 of the full run: the paper's three sets are all bundled.
For paper 001 (tutorial 02) it is emotions fold 0 of the reduced run (the run tutorial 02 makes live; its sets are
all bundled), and emotions fold 0 and cal500 fold 0 (through the mirror) of the full run. For paper 003 (RFS) it
is emotions fold 0 of the full run (bundled, about 2 s). For paper 002 (tutorial 03) it is part of ImCLEF07D fold 0 of the
full run: a whole slice fits some 150 random forests (about two minutes on one thread), so the check recomputes a
sub-grid of it (`SUB_GRIDS`): every kind of row the slice holds (the reference curve, other (m, k) settings, random
rankings, the forest on all features) at the cheap sizes, on the same fold, rankings, permutations and forests.
The experiment code itself is checked against tutorial 01's own loop body (`run_fold`), executed from the
notebook's cells, so the package reproduces the tutorial's numbers and not only its own; for paper 004 the same
holds for tutorial 04's live loop, and for tutorial 02's (its own `run`, on fold 0 of
its 800-row yeast subsample, which also checks the subsample and fold the package's slice draws under a row cap),
and for tutorial 05's (`fold_rows`, on the first fold of its worked example).
"""
import itertools, json, math, os, shutil
from pathlib import Path

import pandas as pd
import pytest

from relieffml.data import find_dataset
from relieffml.fetch import split_files
from relieffml.replicate import (PAPER_000, PAPER_001, PAPER_003, PAPER_004, FFAGrid, compute_slice, experiment,
                                 read_results, recompute_slice, regenerate_command, write_results)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "tutorials" / "results"
# the slices recomputed per stored file: a cheap bundled one and one downloaded through the mirror
CHECKS = {"000_reduced.csv.gz": [("emotions", 0), ("medical", 0)],
          "000_full.csv.gz": [("emotions", 0), ("enron", 0)],   # dense and sparse: one from each of the run's commits
          "001_reduced.csv.gz": [("emotions", 0)],    # tutorial 02's live run; its four sets are all bundled
          "001_full.csv.gz": [("emotions", 0), ("cal500", 0)],   # cal500: not bundled, through the mirror (about 10 s)
          "003_full.csv.gz": [("emotions", 0)],       # about 2 s
          "004_full.csv.gz": [("emotions", 0)],       # paper 004's three sets are all bundled; emotions is cheap
          "002_full.csv.gz": [("ImCLEF07D", 0)]}      # bundled (its training split); a sub-grid, below
# a slice too long to recompute whole is checked on a sub-grid: rows of it, recomputed on the same fold
SUB_GRIDS = {"002_full.csv.gz": FFAGrid(m=(10, 500), k=(10, 50), sizes=(1, 2, 80), grid_sizes=(4,), n_random=2)}


def test_every_stored_file_is_checked():
    stored = sorted(p.name for p in RESULTS.glob("*.csv.gz"))
    assert stored, "no stored results in tutorials/results"
    assert set(stored) == set(CHECKS), \
        f"stored results files and the slices checked differ: {stored} vs {sorted(CHECKS)}"


def assert_slice_matches(path, dataset, fold):
    "The stored rows of (dataset, fold) equal a fresh recomputation, or an AssertionError naming the command."
    stored, fresh = recompute_slice(path, dataset, fold, n_jobs=1, grid=SUB_GRIDS.get(path.name))
    hexed = lambda df: df.assign(value=[v.hex() for v in df.value])
    try: pd.testing.assert_frame_equal(hexed(stored), hexed(fresh), check_dtype=False)
    except AssertionError as e:
        raise AssertionError(f"{path.name}: slice ({dataset}, fold {fold}) no longer matches the code ({e}); "
                             f"regenerate it with: {regenerate_command(path)}") from None


def _bundled(dataset, split="all"):
    "Whether `load_dataset(dataset, split=split)` reads a copy bundled with the package (or the data home's)."
    if split == "all": return find_dataset(dataset) is not None
    return all(f.get("bundled") for f in split_files(dataset, split))


def _needs_mirror(dataset, split="all"):
    if not _bundled(dataset, split) and not os.environ.get("RELIEFFML_MIRROR"):
        if os.environ.get("CI") == "true": pytest.fail(f"{dataset} is not bundled and RELIEFFML_MIRROR is not set")
        pytest.skip(f"{dataset} is not bundled: run through tests/run.sh, which serves the loopback mirror")


@pytest.mark.parametrize("name, dataset, fold", [(n, d, f) for n, slices in CHECKS.items() for d, f in slices])
def test_stored_slice_recomputes_exactly(name, dataset, fold):
    _needs_mirror(dataset, experiment(name[:3]).split)
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
    command = "regenerate it with: rm .*relieffml replicate 000 --protocol reduced --datasets emotions"
    with pytest.raises(AssertionError, match=command):
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
    for src in (imports, config): exec(src, ns)                          # the tutorial's order
    ns["LEARNERS"] = {"ML-kNN": ns["MLkNN"], "DML-kNN": ns["DMLkNN"], "MLC-WkNN": ns["MLCWkNN"]}   # as in the tutorial
    exec(body, ns)
    ds = PAPER_000.prepare(ns["load_dataset"]("emotions"))
    train, test = next(ns["iterative_stratified_kfold"](ds.Y, ns["LIVE_FOLDS"]["emotions"], random_state=ns["SEED"]))
    tutorial = pd.DataFrame(ns["run_fold"](ds, train, test, ns["K_LIVE"])).rename(columns={"learner": "method"})
    ours = compute_slice(PAPER_000, PAPER_000.protocols["reduced"], "emotions", 0)
    keys = ["convention", "method", "variant", "measure"]
    assert tutorial[keys].to_dict("records") == ours[keys].to_dict("records")
    assert [v.hex() for v in tutorial.value] == [v.hex() for v in ours.value]


def test_package_slice_equals_tutorial_04_loop(monkeypatch):
    "chen_slice is tutorial 04's live loop (its selectors, learner, sweep and measures): emotions fold 0, same bits."
    monkeypatch.chdir(ROOT / "tutorials")                 # the tutorial reads results/004_full.csv.gz from there
    notebook = "04_mmlrf_replication.ipynb"
    cells = _tutorial_cells("from relieffml.replicate import", "DATASETS = ", "class MLRFTopS", "def from_stored",
                            "results, selectors, rankings, folds_of", notebook=notebook)
    ns = {}
    for src in cells[:4]: exec(src, ns)
    ns["data"], ns["FOLDS_USED"] = {"emotions": PAPER_004.prepare(ns["load_dataset"]("emotions"))}, {"emotions": 1}
    exec(cells[4], ns)                                    # the live loop, on emotions fold 0 only
    keys = ["dataset", "fold", "method", "fraction", "metric"]
    tutorial = ns["res"].sort_values(keys, kind="mergesort").reset_index(drop=True)
    ours = ns["from_stored"](compute_slice(PAPER_004, PAPER_004.protocols["full"], "emotions", 0))
    ours = ours.sort_values(keys, kind="mergesort").reset_index(drop=True)
    assert tutorial[keys].to_dict("records") == ours[keys].to_dict("records")
    assert [v.hex() for v in tutorial.value] == [v.hex() for v in ours.value]


def test_package_slice_equals_tutorial_02_run(monkeypatch):
    "spolaor_slice is tutorial 02's run (data, 800-row subsample, folds, rankers, General_B): yeast fold 0, same bits."
    monkeypatch.chdir(ROOT / "tutorials")
    cells = _tutorial_cells("FULL = ", "from relieffml.replicate import", "PAPER_TABLE2 = ",
                            "data = {name: stratified_subsample", "def run(ds, name)",
                            notebook="02_transformation_replication.ipynb")
    ns = {}
    for src in cells: exec(src, ns)
    every_fold = ns["iterative_stratified_kfold"]
    ns["iterative_stratified_kfold"] = lambda *a: itertools.islice(every_fold(*a), 1)     # the tutorial's run, fold 0
    tutorial, _ = ns["run"](ns["data"]["yeast"], "yeast")
    ours = compute_slice(PAPER_001, PAPER_001.protocols["reduced"], "yeast", 0, n_jobs=1)
    assert ours.n_folds.iloc[0] == ns["N_FOLDS"] and tuple(PAPER_001.protocols["reduced"].grid) == ns["SIZES"]
    assert tutorial.method.tolist() == ours.method.tolist() and tutorial.metric.tolist() == ours.measure.tolist()
    shares = ["none" if m == "General_B" else f"{p:.1f}" for m, p in zip(tutorial.method, tutorial.fraction)]
    assert shares == ours.variant.tolist()
    assert [v.hex() for v in tutorial.value] == [v.hex() for v in ours.value]


def test_package_slice_equals_tutorial_05_loop():
    "liu_slice is tutorial 05's live loop (FoldRun, configurations, measures): same rows and bits, first emotions fold."
    starts = ("import time, warnings", "SEED = ", "class OneClassSafe", "LEARNERS = {", "def dbr_parents",
              "class FoldRun", "def _fit_predict", "def meta(", "PAIRS = ", "def configurations",
              "def balanced_accuracy_macro", "def fold_rows")
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
