"""Rankers' search on row-chunked dask arrays (chapter 07): the merged neighbour lists equal the in-memory
`knn_pools` exactly on tie-heavy data, the statistics equal `prepare`'s, bad input is a clear error, a
client that goes away is a RuntimeError, and X larger than a worker's memory limit still completes."""
import subprocess, sys, threading, time
import numpy as np
import pytest

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
from relieffml.distances import prepare
from relieffml.neighbors import knn_pools
from relieffml.distributed import as_dask_features, dask_knn_pools


def tie_data(seed, N=120, D=6, kind=3):
    "Small integer features, duplicated rows, nominal features (kind ≥ 1), missing values (kind ≥ 2), a fine numeric column (kind 3)."
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, (N, D)).astype(float)
    X[rng.integers(0, N, N // 3)] = X[rng.integers(0, N, N // 3)]
    nom = np.zeros(D, bool)
    if kind >= 1: nom[::3] = True
    if kind >= 2: X[rng.random((N, D)) < 0.05] = np.nan
    if kind == 3: X[:, 1] += np.round(rng.random(N), 1)
    return X, nom, rng.integers(0, 2, (N, 3)).astype(np.uint8), rng.choice(N, 40, replace=False)


def both(X, nom, Y, samples, k, metric, w=None, chunks=17, block=16):
    "(in-memory idx, cnt), (dask idx, cnt) on the synchronous scheduler."
    i1, _, c1 = knn_pools(prepare(X, nom), samples, Y, k, metric, w)
    src, _ = as_dask_features(da.from_array(X, chunks=(chunks, X.shape[1])), nom, block_size=block)
    i2, c2 = dask_knn_pools(src, src.prepare_stats(), samples, Y, k, metric, w)
    return (i1, c1), (i2, c2)


@pytest.fixture(autouse=True)
def synchronous():
    with dask.config.set(scheduler="synchronous"): yield


@pytest.mark.parametrize("kind", [0, 1, 2, 3])
@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_merge_equals_knn_pools(kind, metric):
    for seed, chunks, k in [(0, 3, 4), (1, 17, 4), (2, 40, 10), (3, 120, 2), (4, 7, 1)]:
        X, nom, Y, s = tie_data(seed + 10 * kind, kind=kind)
        w = np.random.default_rng(seed).random(X.shape[1]) if metric == "heom" and seed % 2 else None
        (i1, c1), (i2, c2) = both(X, nom, Y, s, k, metric, w, chunks)
        np.testing.assert_array_equal(i2, i1); np.testing.assert_array_equal(c2, c1)


def test_tie_order_matters_on_this_data():
    "The equality above can fail: Weka's order differs from the stable k smallest on these data."
    X, nom, Y, s = tie_data(0)
    idx, dist, cnt = knn_pools(prepare(X, nom), s, Y, 4, "manhattan")
    from relieffml.distances import manhattan
    p = prepare(X, nom)
    differs = 0
    for i, r in enumerate(s):
        members = [j for j in np.flatnonzero(Y[:, 0]) if j != r]
        d = np.array([manhattan(p, r, j) for j in members])
        stable = np.array(members)[np.argsort(d, kind="mergesort")[:cnt[i, 0]]]
        differs += not np.array_equal(stable, idx[i, 0, :cnt[i, 0]])
    assert differs > 0


def test_stats_equal_prepare():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50, 6)); X[:, 0] = 3.0; X[:, 1] = np.nan
    X[:25, 2], X[25:, 2] = -1e308, 1e308                     # range overflows float64: stored halved
    X[:, 3] = rng.integers(0, 4, 50); X[rng.random(50) < .2, 4] = np.nan
    nom = np.array([False, False, False, True, False, False])
    for chunks in (1, 7, 50):
        src, _ = as_dask_features(da.from_array(X, chunks=(chunks, 2)), nom)
        for nv in (None, np.array([0, 0, 0, 6, 0, 0])):
            q, p = src.prepare_stats(nom, nv), prepare(X, nom, nv)
            for a in ("lo", "rng", "missing_nominal", "is_nominal"): np.testing.assert_array_equal(getattr(q, a), getattr(p, a))
            assert q.has_missing == p.has_missing and q.Xn.shape == (0, 6) and q.source is src
            np.testing.assert_array_equal(q.apply(X), p.Xn)


def test_columns_chunked_are_rechunked():
    X, nom, Y, s = tie_data(1)
    src, _ = as_dask_features(da.from_array(X, chunks=(13, 2)), nom)
    assert len(src.X.chunks[1]) == 1
    i2, c2 = dask_knn_pools(src, src.prepare_stats(), s, Y, 3)
    i1, _, c1 = knn_pools(prepare(X, nom), s, Y, 3)
    np.testing.assert_array_equal(i2, i1); np.testing.assert_array_equal(c2, c1)


def test_bad_input():
    X, nom, Y, s = tie_data(2)
    Xd = da.from_array(X, chunks=(20, 6))
    with pytest.raises(ValueError, match="unknown chunk sizes"): as_dask_features(Xd[Xd[:, 0] >= 0], nom)
    with pytest.raises(ValueError, match="2-D"): as_dask_features(Xd[:, 0], nom)
    with pytest.raises(ValueError, match="at least 2 instances"): as_dask_features(Xd[:1], nom)
    with pytest.raises(ValueError, match="nominal"): as_dask_features(Xd, nominal="yes")
    Xi = X.copy(); Xi[5, 2] = np.inf
    with pytest.raises(ValueError, match="infinite"): as_dask_features(da.from_array(Xi, chunks=20), nom)[0].prepare_stats()
    Xn = X.copy(); Xn[7, 0] = 1.5
    with pytest.raises(ValueError, match="nominal feature 0"): as_dask_features(da.from_array(Xn, chunks=20), nom)[0].prepare_stats()
    src, _ = as_dask_features(Xd, nom)
    with pytest.raises(ValueError, match="rows but X has 120"): dask_knn_pools(src, src.prepare_stats(), s, Y[:-1], 3)


def test_import_relieffml_does_not_import_dask():
    code = "import sys, relieffml, relieffml.distributed; print(any(m.split('.')[0] in ('dask', 'distributed') for m in sys.modules))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() == "False"


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0") as c: yield c


def test_on_local_cluster(cluster):
    from distributed import Client
    X, nom, Y, s = tie_data(3)
    with dask.config.set(scheduler=None), Client(cluster):
        (i1, c1), (i2, c2) = both(X, nom, Y, s, 4, "heom", chunks=23)
    np.testing.assert_array_equal(i2, i1); np.testing.assert_array_equal(c2, c1)


def _fit_then_close_client():
    "A dask fit in a thread; its client closed once the scheduler holds tasks. Returns what the fit raised (None: it finished)."
    from distributed import Client, LocalCluster
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0") as c, \
            dask.config.set(scheduler=None):
        client = Client(c)
        X = da.random.default_rng(0).random((200_000, 20), chunks=(10_000, 20))
        src, _ = as_dask_features(X, "auto", block_size=64)
        prep, out = src.prepare_stats(), {}
        def fit():
            try: out["r"] = dask_knn_pools(src, prep, np.arange(0, 200_000, 10), np.ones((200_000, 1)), 5)
            except Exception as e: out["e"] = e
        t = threading.Thread(target=fit); t.start()
        deadline = time.time() + 60
        while not c.scheduler.tasks and t.is_alive() and time.time() < deadline: time.sleep(0.01)
        client.close(); t.join(60)
        assert not t.is_alive(), "the fit hangs after the client closed"
        return out.get("e")


def test_client_going_away_is_a_runtime_error():
    # The fit holds the client it started on (DaskFeatures.scheduler), so a close between two of its ~600
    # computations fails the next one; it is not run on Dask's local scheduler instead.
    e = _fit_then_close_client()
    assert isinstance(e, RuntimeError) and "go away" in str(e), e


def test_x_larger_than_a_workers_memory_limit():
    "X generated lazily on the workers, twice a worker's memory limit: the search completes, X is never gathered."
    import psutil
    from distributed import Client, LocalCluster
    N, D = 1_000_000, 100                                     # 800 MB of float64; workers hold 400 MB each
    with LocalCluster(n_workers=2, threads_per_worker=1, memory_limit="400MB", dashboard_address=":0") as c, \
            Client(c), dask.config.set(scheduler=None):
        rss0 = psutil.Process().memory_info().rss
        X = da.random.default_rng(1).random((N, D), chunks=(25_000, D))
        src, _ = as_dask_features(X, "auto", block_size=16)
        idx, cnt = dask_knn_pools(src, src.prepare_stats(), np.arange(0, N, N // 16), np.ones((N, 1), np.uint8), 3)
        grown = psutil.Process().memory_info().rss - rss0
    assert (cnt == 3).all() and (idx >= 0).all()
    first, nb = X[:25_000].compute(), X[idx[0, 0]].compute()  # sample 0's neighbours beat its own chunk's 3rd nearest
    lo, hi = np.minimum(first.min(0), nb.min(0)), np.maximum(first.max(0), nb.max(0))   # (scaling by the chunk's range
    d = lambda a: np.abs((a - first[0]) / (hi - lo)).sum(1)                              #  only to order, not exactly)
    assert d(nb).max() <= np.sort(d(first[1:]))[2] * 1.01
    assert grown < N * D * 8 / 8, f"the client grew by {grown / 2**20:.0f} MiB"


def rankers():
    "(name, estimator, X, target, nominal) for every Relief ranker and the wrappers through them."
    from relieffml.relieff import ReliefF
    from relieffml.rrelieff import RReliefF
    from relieffml.reliefml import ReliefFML
    from relieffml.rfml import RFML
    from relieffml.mlrf import MLRF
    from relieffml.hmc import HMCReliefF
    from relieffml.transform import BinaryRelevanceRanker, LabelPowersetRanker, LCFS
    from test_hmc import _dag, _problem
    X, nom, Y, _ = tie_data(11, N=150)
    y_num = np.nan_to_num(X[:, 1]) + np.random.default_rng(0).normal(size=len(X))
    h = _dag(); Xh, Yh, nomh = _problem(3, h, N=90)
    kw = dict(n_neighbors=4, n_samples=50, random_state=0, nominal=nom)
    return [("ReliefF", ReliefF(**kw), X, Y[:, 0], nom), ("ReliefF-distance", ReliefF(weight_by_distance=True, **kw), X, Y[:, 0], nom),
            ("RReliefF", RReliefF(**kw), X, y_num, nom), ("ReliefF-ML", ReliefFML(**kw), X, Y, nom),
            ("RF-ML", RFML(**kw), X, Y, nom), ("RFM-ML", RFML(mutual=True, **kw), X, Y, nom),
            ("MLRF", MLRF(**kw), X, Y, nom),
            ("HMC-ReliefF", HMCReliefF(n_neighbors=4, n_samples=None, random_state=0, hierarchy=h, nominal=nomh), Xh, Yh, nomh),
            ("BR", BinaryRelevanceRanker(ReliefF(n_neighbors=4, random_state=0), nominal=nom), X, Y, nom),
            ("LP", LabelPowersetRanker(ReliefF(n_neighbors=4, random_state=0), nominal=nom), X, Y, nom),
            ("LCFS", LCFS(ReliefF(n_neighbors=4, random_state=0), random_state=0, nominal=nom), X, Y, nom)]


@pytest.mark.parametrize("name", [r[0] for r in rankers()])
def test_every_ranker_equals_in_memory(cluster, name, monkeypatch):
    import relieffml.distributed as dist
    from distributed import Client
    from sklearn.base import clone
    monkeypatch.setattr(dist, "BLOCK_SIZE", 32)                  # several blocks of samples
    _, est, X, y, nom = next(r for r in rankers() if r[0] == name)
    want = clone(est).fit(X, y).weights_
    with dask.config.set(scheduler=None), Client(cluster):
        got = clone(est).fit(da.from_array(X, chunks=(37, X.shape[1])), y).weights_
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_y_length_and_dask_y():
    from relieffml.reliefml import ReliefFML
    X, nom, Y, _ = tie_data(12)
    Xd = da.from_array(X, chunks=(30, 6))
    with pytest.raises(ValueError, match="rows but X has 120"): ReliefFML(n_samples=10).fit(Xd, Y[:-1])
    with pytest.raises(ValueError, match="Y is a dask collection"): ReliefFML(n_samples=10).fit(Xd, da.from_array(Y, chunks=30))


def test_dask_dataframe_equals_pandas():
    "A dask DataFrame with numeric and categorical columns ranks as the pandas DataFrame does (categories as codes)."
    import pandas as pd, dask.dataframe as dd
    from relieffml.reliefml import ReliefFML
    X, nom, Y, _ = tie_data(13)
    df = pd.DataFrame({f"f{j}": X[:, j] for j in range(6)})
    df["f0"] = pd.Categorical.from_codes(np.nan_to_num(X[:, 0], nan=-1).astype(int), ["a", "b", "c"])
    est = ReliefFML(n_neighbors=4, n_samples=40, random_state=0)
    want = est.fit(df, Y).weights_
    got = ReliefFML(n_neighbors=4, n_samples=40, random_state=0).fit(dd.from_pandas(df, npartitions=3), Y).weights_
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)


def test_mmlrf_gathers_its_preselected_columns_and_says_so(cluster):
    "MML-RF: the MLRF weights run on the workers; the redundancy search gathers the pre-selected columns, with a warning."
    from distributed import Client
    from relieffml.mlrf import MMLRF
    from relieffml.data import make_multilabel_relevance
    ds = make_multilabel_relevance(n_samples=150, n_features=8, n_labels=3, n_relevant=4, n_redundant=2, random_state=0)
    X, nom, Y = ds.X, ds.nominal, ds.Y
    want = MMLRF(n_neighbors=4, nominal=nom).fit(X, Y)
    with dask.config.set(scheduler=None), Client(cluster):
        with pytest.warns(UserWarning, match="gathering .* columns"):
            got = MMLRF(n_neighbors=4, nominal=nom).fit(da.from_array(X, chunks=(37, X.shape[1])), Y)
    np.testing.assert_allclose(got.weights_, want.weights_, rtol=0, atol=1e-12)
    np.testing.assert_array_equal(got.selected_, want.selected_)


@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_knn_pools_on_a_dask_source_of_binary_rows(metric):
    "Binary rows (exact integer sums): the lists found on the chunks get their distances computed, as in memory, to the bit."
    X = (np.random.default_rng(5).random((90, 7)) < 0.4).astype(float)
    s, nom, Y = np.arange(0, 90, 4), np.zeros(7, bool), np.ones((90, 1))
    i1, d1, c1 = knn_pools(prepare(X, nom), s, Y, 5, metric)
    src, _ = as_dask_features(da.from_array(X, chunks=(17, 7)), nom, block_size=16)
    i2, d2, c2 = knn_pools(src.prepare_stats(), s, Y, 5, metric)
    np.testing.assert_array_equal(c2, c1); np.testing.assert_array_equal(i2, i1); np.testing.assert_array_equal(d2, d1)


@pytest.mark.parametrize("metric", ["manhattan", "heom"])
def test_knn_pools_on_a_dask_source_gives_distances(metric):
    "knn_pools on a Prepared whose rows live in Dask: the same lists as in memory, and their distances (not ∞)."
    X, nom, Y, s = tie_data(4, kind=2)
    i1, d1, c1 = knn_pools(prepare(X, nom), s, Y, 4, metric)
    src, _ = as_dask_features(da.from_array(X, chunks=(17, X.shape[1])), nom, block_size=16)
    i2, d2, c2 = knn_pools(src.prepare_stats(), s, Y, 4, metric)
    np.testing.assert_array_equal(c2, c1); np.testing.assert_array_equal(i2, i1)
    assert np.isfinite(d2[i2 >= 0]).all()
    np.testing.assert_allclose(d2, d1, rtol=1e-12, atol=1e-12)


def test_dask_input_reaches_this_module_through_backend_of():
    "base finds the Dask path by the input's type (data.backend_of), not by importing this module."
    import pandas as pd, dask.dataframe as dd
    import relieffml.distributed as dist
    from relieffml.data import backend_of
    from relieffml.base import as_features
    X, nom, _, _ = tie_data(14)
    Xd = da.from_array(X, chunks=(30, 6))
    assert backend_of(Xd) is dist and backend_of(dd.from_pandas(pd.DataFrame(X), npartitions=2)) is dist
    assert backend_of(X) is None and backend_of(dask.config) is None      # in memory; a dask module, not a collection
    src, info = as_features(Xd, nom)
    assert isinstance(src, dist.DaskFeatures) and (info["nominal"] == nom).all()
