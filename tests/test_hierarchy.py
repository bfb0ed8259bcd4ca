"""The data layer's class hierarchy and Clus HMC ARFF reader (relieffml.hierarchy; SPEC §5).

References are independent of the code under test: hand-built hierarchies, a recursive weight
definition, the ancestor matrix, pandas' CSV reader for the features and a direct re-reading of the
class column for the labels. The files come from the shared data folder (the `data_home` fixture) and
from the copies bundled with the package.
"""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from relieffml.hierarchy import Hierarchy
from relieffml.data import load_hmc_arff

W0 = 0.75


# ---------------------------------------------------------------- pre-order
def test_preorder_tree_first_mention():
    h = Hierarchy.from_paths(["b/x", "a", "b", "a/y/z", "a/y", "b/x"])
    assert h.classes == ["b", "b/x", "a", "a/y", "a/y/z"]
    assert h.is_tree
    assert [p.tolist() for p in h.parents] == [[], [0], [], [2], [3]]
    assert h.depth.tolist() == [1, 2, 1, 2, 3]


def test_dotted_paths_are_slash_paths():
    a = Hierarchy.from_paths(["1", "1.2", "1.2.3", "4"])
    b = Hierarchy.from_paths(["1/2/3", "4"])
    assert a.classes == b.classes == ["1", "1/2", "1/2/3", "4"]
    assert a.index("1.2.3") == a.index("1/2/3") == 2


def test_preorder_dag_edges_any_order():
    edges = [("a", "c"), ("root", "b"), ("c", "d"), ("root", "a"), ("b", "c"), ("a", "c")]
    h = Hierarchy.from_edges(edges)
    # root's children in edge order: b, a; c first visited below b
    assert h.classes == ["b", "c", "d", "a"]
    assert not h.is_tree
    assert [h.classes[p] for p in h.parents[h.index("c")]] == ["a", "b"]   # declaration order of the edges
    assert h.depth.tolist() == [1, 2, 3, 1]


def test_clus_declaration_tree_vs_dag():
    t = Hierarchy.from_clus_declaration(" 2,3,3/1/1,2/1 ")
    assert t.is_tree and t.classes == ["2", "2/1", "3", "3/1", "3/1/1"]
    d = Hierarchy.from_clus_declaration("root/GO1,GO1/GO2,root/GO3,GO3/GO2")
    assert not d.is_tree and d.classes == ["GO1", "GO2", "GO3"]
    with pytest.raises(ValueError, match="parent/child"):
        Hierarchy.from_clus_declaration("root/a,a/b/c")
    with pytest.raises(ValueError, match="empty"):
        Hierarchy.from_clus_declaration(" , ")


# ---------------------------------------------------------------- invalid hierarchies
def test_cycle_is_an_error():
    with pytest.raises(ValueError, match="cycle: a -> b -> c -> a"):
        Hierarchy.from_edges([("root", "a"), ("a", "b"), ("b", "c"), ("c", "a")])
    with pytest.raises(ValueError, match="cycle"):
        Hierarchy.from_edges([("root", "a"), ("a", "a")])


def test_unreachable_is_an_error():
    with pytest.raises(ValueError, match=r"not reachable from the root 'root': \['x', 'y'\]"):
        Hierarchy.from_edges([("root", "a"), ("x", "y")])
    with pytest.raises(ValueError, match="not reachable"):      # a cycle off the root is unreachable
        Hierarchy.from_edges([("root", "a"), ("x", "y"), ("y", "x")])


def test_bad_names_and_lookups():
    with pytest.raises(ValueError, match="empty component"):
        Hierarchy.from_paths(["a//b"])
    with pytest.raises(ValueError, match="not one string"):
        Hierarchy.from_paths("a/b")
    h = Hierarchy.from_paths(["a/b"])
    with pytest.raises(ValueError, match="'a/c' is not in the hierarchy"):
        h.ancestors("a/c")
    with pytest.raises(ValueError, match="out of range"):
        h.ancestors(5)


# ---------------------------------------------------------------- weights
def test_weights_paper_toy():
    toy = Hierarchy.from_paths(["c1", "c2", "c2.1", "c2.2", "c3"])
    w = toy.class_weights(W0)
    assert w[toy.index("c1")] == pytest.approx(W0)
    assert w[toy.index("c2.2")] == pytest.approx(W0 ** 2)
    assert w == pytest.approx([W0, W0, W0 ** 2, W0 ** 2, W0])
    assert toy.class_weights() == pytest.approx(w)           # default w0 = 0.75


def test_weights_dag_mean_rule():
    diamond = Hierarchy.from_edges([("root", "a"), ("root", "b"), ("a", "c"), ("b", "c"), ("c", "d")])
    w = dict(zip(diamond.classes, diamond.class_weights(0.5)))
    assert w == pytest.approx({"a": 0.5, "b": 0.5, "c": 0.25, "d": 0.125})
    skew = Hierarchy.from_edges([("root", "a"), ("a", "b"), ("root", "b"), ("b", "c")])
    w = dict(zip(skew.classes, skew.class_weights(0.5)))
    assert w["b"] == pytest.approx(0.5 * (0.5 + 1.0) / 2)      # parents a (0.5) and the root (1)
    assert w["c"] == pytest.approx(0.5 * w["b"])
    assert skew.depth[skew.index("b")] == pytest.approx(1 + (1 + 0) / 2)


@pytest.mark.parametrize("w0", [0, 1, 1.5, -0.1, "0.5", None, True, np.nan])
def test_bad_w0(w0):
    with pytest.raises(ValueError, match="w0"):
        Hierarchy.from_paths(["a"]).class_weights(w0)


# ---------------------------------------------------------------- constraint
def test_validate_and_close():
    toy = Hierarchy.from_paths(["c1", "c2", "c2.1", "c2.2", "c3"])
    Y = np.array([[0, 0, 0, 1, 0], [1, 1, 0, 1, 0], [0, 0, 1, 1, 1], [0, 0, 0, 0, 0]])
    assert toy.validate(Y).tolist() == [0, 2]
    C = toy.close(Y)
    assert C.dtype == np.uint8
    assert C.tolist() == [[0, 1, 0, 1, 0], [1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [0, 0, 0, 0, 0]]
    assert toy.validate(C).size == 0
    assert toy.close(Y.astype(bool)).tolist() == C.tolist()
    with pytest.raises(ValueError, match="5 columns"):
        toy.validate(Y[:, :4])
    with pytest.raises(ValueError, match="0/1"):
        toy.close(np.where(Y == 1, 2, 0))
    with pytest.raises(ValueError, match="0/1"):
        toy.close(np.full((1, 5), np.nan))


def test_ancestor_matrix_dag():
    h = Hierarchy.from_edges([("root", "a"), ("root", "b"), ("a", "c"), ("b", "c"), ("c", "d"), ("root", "e")])
    A = h.ancestor_matrix
    names = h.classes
    got = {names[c]: {names[a] for a in np.flatnonzero(A[c])} for c in range(len(h))}
    assert got == {"a": set(), "b": set(), "c": {"a", "b"}, "d": {"a", "b", "c"}, "e": set()}
    assert [names[a] for a in h.ancestors("d")] == sorted(["a", "b", "c"], key=h.index)


# ---------------------------------------------------------------- fuzzing
@st.composite
def random_trees(draw):
    n = draw(st.integers(1, 25))
    par = [-1] + [draw(st.integers(-1, i - 1)) for i in range(1, n)]
    name = [None] * n
    for i in range(n):
        seg = f"n{i}"
        name[i] = seg if par[i] < 0 else f"{name[par[i]]}/{seg}"
    order = draw(st.permutations(range(n)))
    extra = draw(st.lists(st.integers(0, n - 1), max_size=5))            # repeated paths
    leaves_only = draw(st.booleans())                                      # ancestors left implied
    kids = {p for p in par if p >= 0}
    listed = [name[i] for i in order if not (leaves_only and i in kids)] + [name[i] for i in extra]
    return par, name, listed


@settings(max_examples=60, deadline=None)
@given(random_trees(), st.integers(0, 2**31 - 1))
def test_random_trees(tree, seed):
    par, name, listed = tree
    h = Hierarchy.from_paths(listed)
    assert sorted(h.classes) == sorted(name) and h.is_tree
    pos = {c: i for i, c in enumerate(h.classes)}
    for i, p in enumerate(par):                       # pre-order: parents before children
        if p >= 0: assert pos[name[p]] < pos[name[i]]
        assert h.depth[pos[name[i]]] == name[i].count("/") + 1
    assert h.class_weights(0.6) == pytest.approx(0.6 ** h.depth)
    rng = np.random.default_rng(seed)
    Y = (rng.random((6, len(h))) < 0.3).astype(np.uint8)
    C = h.close(Y)
    assert h.validate(C).size == 0
    assert np.array_equal(C, ((Y.astype(int) @ h.ancestor_matrix.astype(int) + Y) > 0).astype(np.uint8))


@st.composite
def random_dags(draw):
    n = draw(st.integers(1, 15))
    parents = []
    for i in range(n):
        ps = draw(st.sets(st.integers(-1, i - 1), min_size=1, max_size=3)) if i else {-1}
        parents.append(sorted(ps))
    edges = [("root" if p < 0 else f"g{p}", f"g{i}") for i in range(n) for p in parents[i]]
    return parents, draw(st.permutations(edges))


def _weight_recursive(parents, i, w0):
    return w0 * np.mean([1.0 if p < 0 else _weight_recursive(parents, p, w0) for p in parents[i]])


@settings(max_examples=60, deadline=None)
@given(random_dags(), st.integers(0, 2**31 - 1))
def test_random_dags(dag, seed):
    parents, edges = dag
    h = Hierarchy.from_edges(edges)
    assert sorted(h.classes) == sorted(f"g{i}" for i in range(len(parents)))
    w = h.class_weights(0.7)
    for i in range(len(parents)):
        assert w[h.index(f"g{i}")] == pytest.approx(_weight_recursive(parents, i, 0.7))
    rng = np.random.default_rng(seed)
    Y = (rng.random((5, len(h))) < 0.3).astype(np.uint8)
    C = h.close(Y)
    assert h.validate(C).size == 0
    assert np.array_equal(C, ((Y.astype(int) @ h.ancestor_matrix.astype(int) + Y) > 0).astype(np.uint8))
    bad = np.flatnonzero((C != Y).any(1))
    assert h.validate(Y).tolist() == bad.tolist()


# ---------------------------------------------------------------- loading
def _write(tmp_path, text, name="t.arff"):
    p = tmp_path / name
    p.write_text(text)
    return p


SMALL = """% a comment
@RELATION small

@ATTRIBUTE x1 numeric
@ATTRIBUTE 'col two' {lo, 'mid dle', hi}
@ATTRIBUTE class hierarchical a,a/b,c
@ATTRIBUTE x3 REAL

@DATA
1.5,lo,a/b,3
?,'mid dle',c@a,-1
% comment row
2, hi ,?,?
"""


def test_load_small_file(tmp_path):
    ds = load_hmc_arff(_write(tmp_path, SMALL))
    assert ds.feature_names == ["x1", "col two", "x3"]
    assert ds.label_names == ["a", "a/b", "c"]
    np.testing.assert_array_equal(ds.X, [[1.5, 0, 3], [np.nan, 1, -1], [2, 2, np.nan]])
    assert ds.Y.tolist() == [[1, 1, 0], [1, 0, 1], [0, 0, 0]]
    assert ds.nominal.tolist() == [False, True, False]
    assert ds.categories[1] == ["lo", "mid dle", "hi"] and ds.categories[0] is None
    assert ds.hierarchy.classes == ds.label_names


@pytest.mark.parametrize("row,msg", [
    ("1,lo,a/x,3", r"line 10: class 'a/x' is not declared"),
    ("1,lo,a,3,4", r"t\.arff, line 10: expected 4 values \(one per attribute\), found 5: '1,lo,a,3,4'"),   # liac-arff: "Bad @DATA instance format"
    ("1,lo,a/b@c,3,", r"t\.arff, line 10: expected 4 values \(one per attribute\), found 5"),    # a trailing comma
    ("1,lo,a", r"t\.arff, line 10: expected 4 values \(one per attribute\), found 3: '1,lo,a'"),
    ("1.5,'mid dle'", r"line 10: expected 4 values \(one per attribute\), found 2"),
    ("one,lo,a,3", r"Invalid numerical value, at line 10"),
    ("1,mid,a,3", r"value mid not found in nominal declaration, at line 10"),
    ("{0 1, 2 a}", r"line 10: sparse rows are not supported"),
])
def test_load_errors(tmp_path, row, msg):
    head = SMALL.split("@DATA")[0] + "@DATA\n"
    with pytest.raises(ValueError, match=msg):
        load_hmc_arff(_write(tmp_path, head + row + "\n"))


def test_load_header_errors(tmp_path):
    with pytest.raises(ValueError, match="one 'hierarchical' attribute, found 0"):
        load_hmc_arff(_write(tmp_path, "@RELATION r\n@ATTRIBUTE x numeric\n@DATA\n1\n"))
    with pytest.raises(ValueError, match="date attribute d is not supported"):
        load_hmc_arff(_write(tmp_path, "@RELATION r\n@ATTRIBUTE d date\n@ATTRIBUTE class hierarchical a\n@DATA\n"))
    with pytest.raises(ValueError, match=r"line 2 \(end of file\): expected @attribute or @data"):
        load_hmc_arff(_write(tmp_path, "@RELATION r\n@ATTRIBUTE class hierarchical a\n"))
    with pytest.raises(ValueError, match="line 3: hierarchy has a cycle"):
        load_hmc_arff(_write(tmp_path, "@RELATION r\n@ATTRIBUTE x numeric\n"
                                       "@ATTRIBUTE class hierarchical root/a,a/b,b/a\n@DATA\n1,a\n"))


def test_dag_file_closes_ancestors(tmp_path):
    text = ("@RELATION r\n@ATTRIBUTE x numeric\n"
            "@ATTRIBUTE class hierarchical root/A,root/B,A/C,B/C,C/D\n@DATA\n1,D\n2,B@A\n3,?\n")
    ds = load_hmc_arff(_write(tmp_path, text))
    assert ds.label_names == ["A", "C", "D", "B"]
    assert ds.Y.tolist() == [[1, 1, 1, 1], [1, 0, 0, 1], [0, 0, 0, 0]]


HMC_FILES = {  # file: (instances, features, classes, tree, max depth)
    "ImCLEF07A_Train": (10000, 80, 96, True, 3), "ImCLEF07A_Test": (1006, 80, 96, True, 3),
    "ImCLEF07D_Train": (10000, 80, 46, True, 3), "ImCLEF07D_Test": (1006, 80, 46, True, 3),
    "cellcycle_FUN.train": (1628, 77, 499, True, 6), "cellcycle_FUN.test": (1281, 77, 499, True, 6),
    "cellcycle_GO.train": (1625, 77, 4125, False, None), "cellcycle_GO.test": (1278, 77, 4125, False, None),
}


def _reference_read(path):
    "Independent reading: pandas for the features, the raw class strings for the labels."
    lines = path.read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip().upper() == "@DATA") + 1
    df = pd.read_csv(path, skiprows=start, header=None, na_values="?", keep_default_na=False)
    return df.iloc[:, :-1].to_numpy(np.float64), df.iloc[:, -1].astype(str).tolist()


@pytest.mark.data
@pytest.mark.parametrize("name", list(HMC_FILES))
def test_hmc_files_load(data_home, name):
    path = data_home / "hmc" / f"{name}.arff"
    ds = load_hmc_arff(path)                                 # its speed: tests/benchmarks/bench_load.py
    n, d, q, tree, depth = HMC_FILES[name]
    h = ds.hierarchy
    assert ds.X.shape == (n, d) and ds.Y.shape == (n, q) and ds.Y.dtype == np.uint8
    assert len(h) == q and h.is_tree == tree and ds.label_names == h.classes
    if depth is not None: assert h.max_depth == depth
    assert h.validate(ds.Y).size == 0 and ds.Y.sum(1).min() >= 1
    X, classes = _reference_read(path)
    np.testing.assert_array_equal(ds.X, X)
    # labels: each listed class plus, in a tree, every path prefix; in a DAG the ancestor closure
    names = np.array(h.classes)
    for i in range(0, n, max(1, n // 200)):
        got = set(names[ds.Y[i] == 1])
        listed = classes[i].split("@")
        if tree: want = {"/".join(c.split("/")[:k]) for c in listed for k in range(1, c.count("/") + 2)}
        else: want = set(listed) | {h.classes[a] for c in listed for a in h.ancestors(c)}
        assert got == want, i


@pytest.mark.data
def test_imageclef_orders(data_home):
    "ImCLEF07A declares 4/6/2 before 4/6 (4/6 is first met there); ImCLEF07D repeats paths."
    a = load_hmc_arff(data_home / "hmc" / "ImCLEF07A_Train.arff").hierarchy
    kids4 = [c for c in a.classes if c.startswith("4/") and c.count("/") == 1]
    assert kids4 == ["4/6", "4/1", "4/2", "4/3", "4/4", "4/5"]
    assert a.classes.index("4/6") < a.classes.index("4/6/2") < a.classes.index("4/1")
    d = load_hmc_arff(data_home / "hmc" / "ImCLEF07D_Train.arff").hierarchy
    assert len(set(d.classes)) == len(d.classes) == 46


@pytest.mark.data
def test_load_arff_delegates(data_home):
    from relieffml.data import load_arff, load_dataset
    ds = load_arff(data_home / "hmc" / "ImCLEF07D_Test.arff")
    assert ds.hierarchy is not None and ds.Y.shape == (1006, 46)
    ds = load_dataset("hmc/cellcycle_GO.test", data_home)
    assert not ds.hierarchy.is_tree and ds.Y.shape == (1278, 4125)
    assert ds.name == "hmc/cellcycle_GO.test"


# ---------------------------------------------------------------- the data layer stands alone
def test_data_layer_does_not_import_the_algorithms():
    "data, fetch and hierarchy import nothing above them, not even inside functions (read from their source)."
    import ast, inspect, relieffml.data as data, relieffml.fetch as fetch, relieffml.hierarchy as hierarchy
    for mod, allowed in ((data, {"relieffml.config", "relieffml.hierarchy", "relieffml.fetch"}),
                         (hierarchy, {"relieffml.data"}), (fetch, set())):
        for node in ast.walk(ast.parse(inspect.getsource(mod))):
            if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("relieffml")):
                name = "relieffml." + node.module if node.level else node.module
                assert name in allowed, (mod.__name__, name)
            if isinstance(node, ast.Import):
                assert not any(a.name.startswith("relieffml") for a in node.names), mod.__name__


def test_import_in_a_fresh_interpreter_loads_no_algorithm_module():
    import subprocess, sys
    code = ("import sys, relieffml.hierarchy, relieffml.data; "
            "print(sorted(m for m in sys.modules if m.startswith('relieffml')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert eval(out) == ["relieffml", "relieffml.config", "relieffml.data", "relieffml.fetch", "relieffml.hierarchy"]


# ---------------------------------------------------------------- small refusals and new paths
@pytest.mark.parametrize("edges,msg", [([("root", None)], "got None"), ([(None, "a")], "got None"),
                                       ([("root", "")], "non-empty"), ([("root", "a"), ("a", 1.5)], "got 1.5"),
                                       ([("a", "root")], "cannot be a child")])
def test_bad_class_names_are_refused(edges, msg):
    with pytest.raises(ValueError, match=msg): Hierarchy(edges)


def test_integer_names_become_strings():
    assert Hierarchy([("root", 1), (1, 2)]).classes == ["1", "2"]


def test_gzipped_hmc_file_and_escaped_names(tmp_path):
    import gzip
    text = SMALL.replace("'col two'", "'col\\'s two'")
    p = tmp_path / "g.arff.gz"
    p.write_bytes(gzip.compress(("\ufeff" + text).encode("utf-8")))
    ds = load_hmc_arff(p)
    assert ds.feature_names == ["x1", "col's two", "x3"] and ds.name == "g"
    assert ds.Y.tolist() == load_hmc_arff(_write(tmp_path, SMALL)).Y.tolist()


def test_sparse_row_after_dense_rows_is_refused(tmp_path):
    text = SMALL.split("% comment row")[0] + "{0 1, 2 a}\n"
    with pytest.raises(ValueError, match=r"line 12: sparse rows are not supported"): load_hmc_arff(_write(tmp_path, text))


def test_labels_argument_is_refused_for_hmc_files(tmp_path):
    from relieffml.data import load_arff
    with pytest.raises(ValueError, match="Clus HMC file"): load_arff(_write(tmp_path, SMALL), labels=1)


@pytest.mark.parametrize("name", list(HMC_FILES))
def test_bundled_hmc_copies_load_by_name(name, tmp_path, monkeypatch):
    from relieffml.data import BUNDLED_DATA, find_dataset, load_dataset
    monkeypatch.delenv("RELIEFFML_DATA", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert find_dataset(f"hmc/{name}") == BUNDLED_DATA / "hmc" / f"{name}.arff.gz"
    ds = load_dataset(f"hmc/{name}")
    n, d, q, tree, depth = HMC_FILES[name]
    assert ds.X.shape == (n, d) and ds.Y.shape == (n, q) and ds.hierarchy.is_tree == tree
