"""Progress reports: a fit watched through `progress_callback` runs its driver in parts, and must give
bit-for-bit the weights of the unwatched single call, while reporting a monotone `done` up to `total`."""
import numpy as np
import pytest

from relieffml.cli import main
from relieffml.config import progress_callback
from relieffml.data import make_multilabel_relevance
from relieffml.distances import prepare
from relieffml.mlrf import MLRF
from relieffml.neighbors import knn_pools, knn_query
from relieffml.relieff import ReliefF
from relieffml.reliefml import ReliefFML
from relieffml.rfml import RFML


@pytest.fixture(scope="module")
def ds():
    # 301 instances: neither a multiple of the 16-sample blocks nor of the 4-sample tiles
    return make_multilabel_relevance(n_samples=301, n_features=9, n_labels=3, n_relevant=4, n_redundant=1,
                                     nominal_fraction=0.2, missing_fraction=0.05, random_state=3)


def watched(fn):
    "Run fn() inside a progress_callback; return its result and the reports."
    reports = []
    with progress_callback(lambda done, total: reports.append((done, total))):
        out = fn()
    return out, reports


def check_reports(reports, n_parts_min=2):
    assert len(reports) >= n_parts_min
    done = [d for d, _ in reports]
    assert done == sorted(done) and done[-1] == reports[-1][1]        # monotone, ends at the total
    assert len({t for _, t in reports}) == 1


@pytest.mark.parametrize("make", [
    lambda: ReliefF(n_neighbors=5),                                   # RF-BR: the label-matrix path
    lambda: ReliefFML(n_neighbors=5, n_samples=None),
    lambda: ReliefFML(n_neighbors=5, n_samples=77, random_state=1),   # a sample that ends mid-block
    lambda: RFML(n_neighbors=5),
    lambda: RFML(n_neighbors=5, mutual=True),
    lambda: MLRF(n_neighbors=5),
], ids=["relieff-br", "reliefml", "reliefml-m77", "rfml", "rfmml", "mlrf"])
def test_watched_fit_is_bitwise_the_same(ds, make):
    plain = make().fit(ds).weights_
    est, reports = watched(lambda: make().fit(ds))
    np.testing.assert_array_equal(est.weights_, plain)
    check_reports(reports)


def test_watched_knn_is_the_same(ds):
    prep = prepare(ds.X, ds.nominal)
    pools = np.column_stack([ds.Y, 1 - ds.Y]).astype(np.uint8)
    samples = np.arange(0, 301, 2)
    plain = knn_pools(prep, samples, pools, 7, metric='heom')
    got, reports = watched(lambda: knn_pools(prep, samples, pools, 7, metric='heom'))
    for a, b in zip(plain, got): np.testing.assert_array_equal(a, b)
    check_reports(reports)
    Xq = prep.apply(ds.X[:37])
    plain = knn_query(prep, Xq, 5)
    got, reports = watched(lambda: knn_query(prep, Xq, 5))
    for a, b in zip(plain, got): np.testing.assert_array_equal(a, b)
    check_reports(reports)


def test_no_listener_after_the_block(ds):
    reports = []
    with progress_callback(lambda d, t: reports.append(d)):
        pass
    ReliefF(n_neighbors=5).fit(ds)
    assert reports == []


def test_cli_progress_bar(capsys):
    assert main(["rank", "--progress", "--top", "3"]) == 0
    err = capsys.readouterr().err
    assert "relieffml rank (reliefml)" in err and "100%" in err


# The compile notice (chapter 00a, "Compiling on first use"): said once on stderr while kernels compile, never
# for kernels numba loads from its cache, never with RELIEFFML_COMPILE_NOTICE=off.
_COMPILE_TWO = ("import numpy as np; from relieffml.mlrf import su_matrix, discretize; "
                "c = discretize(np.random.default_rng(0).random((40, 3)), None, 4); su_matrix(c)")
# su_matrix compiles two kernels one after the other (`_entropy_hist`, then `_su_driver`): two outermost compiles


def _stderr_of(code, cache, notice):
    import os, subprocess, sys
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), NUMBA_NUM_THREADS="1", RELIEFFML_COMPILE_NOTICE=notice)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return out.stderr


def test_compile_notice_once_fresh_never_cached_never_off(tmp_path):
    from relieffml.config import _COMPILE_NOTICE
    fresh = _stderr_of(_COMPILE_TWO, tmp_path / "cache", "0")      # every compile is long enough: said once
    assert fresh.count(_COMPILE_NOTICE) == 1, fresh
    cached = _stderr_of(_COMPILE_TWO, tmp_path / "cache", "0")     # the same kernels, now from numba's cache
    assert _COMPILE_NOTICE not in cached, cached
    off = _stderr_of(_COMPILE_TWO, tmp_path / "other", "off")     # compiling again, but asked to be quiet
    assert _COMPILE_NOTICE not in off, off


def test_compile_notice_bad_setting_names_the_variable(monkeypatch):
    from relieffml.config import _compile_notice_after
    monkeypatch.setenv("RELIEFFML_COMPILE_NOTICE", "-1")
    with pytest.raises(ValueError, match="RELIEFFML_COMPILE_NOTICE"): _compile_notice_after()
