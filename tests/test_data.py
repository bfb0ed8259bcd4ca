"""The data layer: MultiLabelDataset, the Mulan/MEKA ARFF loader, the data home and the generator.

References are independent of the loader: scipy.io.arff (dense files), pandas' CSV reader (flags, whose
nominal declarations scipy cannot read), a ten-line sparse-row reader written here (enron), the label
statistics published with the Mulan data sets, files written by liac-arff's own encoder, and the
generator's documented equations recomputed from its output.
"""
import functools, gzip, hashlib, http.server, io, shutil, signal, sys, threading, types
from pathlib import Path
from xml.sax.saxutils import quoteattr

import arff
import numpy as np
import pandas as pd
import scipy.sparse as sp
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from scipy.io import arff as scipy_arff

from relieffml import data as data_module
from relieffml.data import (BUNDLED_DATA, DATASHEET, MULAN_SHA256, MultiLabelDataset, default_dataset, find_dataset,
                            get_data_home, list_datasets, load_arff, load_dataset, make_multilabel_relevance)

# name: (instances, features, labels, nominal features, label cardinality, distinct label sets);
# sizes from the data README, cardinality and label sets as published with the Mulan benchmark.
MULAN = {
    "emotions": (593, 72, 6, 0, 1.869, 27),
    "yeast": (2417, 103, 14, 0, 4.237, 198),
    "scene": (2407, 294, 6, 0, 1.074, 15),
    "flags": (194, 19, 7, 9, 3.392, 54),
    "genbase": (662, 1185, 27, 1185, 1.252, 32),
    "enron": (1702, 1001, 53, 1001, 3.378, 753),
}


def eq_nan(a, b):
    a, b = (v.toarray() if sp.issparse(v) else v for v in (a, b))    # a sparse file's X is CSR
    return np.array_equal(np.asarray(a, dtype=float), np.asarray(b, dtype=float), equal_nan=True)


# ---------------------------------------------------------------- writing files with liac-arff's encoder
def write_arff(path, X, Y, feature_names, label_names, categories, sparse=False, xml=True, relation="r"):
    "Write a data set with liac-arff (dense or sparse rows) and, if `xml`, the Mulan label file beside it."
    path = Path(path)
    attrs = [(n, list(c) if c is not None else "NUMERIC") for n, c in zip(feature_names, categories)]
    attrs += [(n, ["0", "1"]) for n in label_names]

    def value(f, v):
        if np.isnan(v): return None
        return categories[f][int(v)] if categories[f] is not None else float(v)

    rows = [[value(f, X[i, f]) for f in range(X.shape[1])] + [str(int(y)) for y in Y[i]] for i in range(len(X))]
    if sparse:  # omit zeros: numeric 0.0, the first declared value of a nominal attribute
        first = [a[1][0] if isinstance(a[1], list) else 0.0 for a in attrs]
        rows = [{j: v for j, v in enumerate(r) if v is None or v != first[j]} for r in rows]
    text = arff.dumps(dict(relation=relation, attributes=attrs, data=rows))
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt") as f: f.write(text)
    else: path.write_text(text)
    if xml:
        stem = path.name.split(".arff")[0]
        labels = "".join(f"<label name={quoteattr(n)}></label>" for n in label_names)
        path.with_name(stem + ".xml").write_text(
            f'<?xml version="1.0"?><labels xmlns="http://mulan.sourceforge.net/labels">{labels}</labels>')
    return path


def small_dataset():
    X = np.array([[1.5, 0, -2.0], [np.nan, 2, 0.0], [3.25, np.nan, 1e-300], [0.0, 1, 7.0]])
    Y = np.array([[1, 0], [0, 0], [1, 1], [0, 1]], dtype=np.uint8)
    return X, Y, ["size", "colour", "temp"], ["sunny", "rainy"], [None, ["red", "green", "blue"], None]


# ---------------------------------------------------------------- MultiLabelDataset
def test_dataset_conversions_and_defaults():
    X, Y, fn, ln, cats = small_dataset()
    ds = MultiLabelDataset(X.astype(np.float32).tolist(), Y.astype(bool), fn, ln, categories=cats)
    assert ds.X.dtype == np.float64 and ds.X.flags.c_contiguous and ds.Y.dtype == np.uint8
    assert ds.nominal.tolist() == [False, True, False]
    assert ds.n_values.tolist() == [0, 3, 0]
    plain = MultiLabelDataset(np.zeros((2, 3)), np.array([[0.0, 1.0], [1.0, 1.0]]))
    assert plain.feature_names == ["x0", "x1", "x2"] and plain.label_names == ["y0", "y1"]
    assert plain.categories == [None] * 3 and "2 instances" in repr(plain)


@pytest.mark.parametrize("kwargs, match", [
    (dict(Y=np.ones((3, 2))), "Y has 3 rows but X has 4"),
    (dict(Y=np.full((4, 2), 2)), "only 0 and 1"),
    (dict(Y=np.full((4, 2), np.nan)), "NaN"),
    (dict(Y=np.ones((4, 2, 1))), "Y must be a 2-D 0/1 label matrix"),
    (dict(Y=np.ones((4, 0))), "Y has no labels"),
    (dict(Y=np.array([["a"]] * 4)), "Y must contain only 0 and 1"),
    (dict(X=np.ones(4)), "X must be 2-D"),
    (dict(X=np.array([[np.inf, 0, 0]] * 4)), "infinite"),
    (dict(X=[["a", "b", "c"]] * 4), "X must be numeric"),
    (dict(feature_names=["a", "b"]), "feature_names has 2 entries, expected 3"),
    (dict(feature_names=["a", "a", "b"]), "feature_names contains duplicates"),
    (dict(label_names=["size", "x"]), "both as feature and label"),
    (dict(label_names=[1, 2]), "label_names must be strings"),
    (dict(nominal=[0, 1, 0], categories=None), "nominal must be a boolean mask"),
    (dict(nominal=np.array([False, True]), categories=None), "nominal must be a boolean mask of length 3"),
    (dict(categories=[None, ["red"], None]), r"categories\[1\]"),
    (dict(categories=[None, ["r", "r", "g"], None]), "duplicates"),
    (dict(categories=[["a"], ["r", "g", "b"], None]), r"X\[:, 0\] holds values"),
    (dict(nominal=np.array([False, False, False])), r"categories\[1\] must be None"),
    (dict(categories=[None, "rgb", None]), r"categories\[1\] must be a non-empty list"),
])
def test_dataset_rejects_bad_arguments(kwargs, match):
    X, Y, fn, ln, cats = small_dataset()
    args = dict(X=X, Y=Y, feature_names=fn, label_names=ln, categories=cats) | kwargs
    with pytest.raises(ValueError, match=match):
        MultiLabelDataset(**args)


def test_stats_against_hand_count():
    X, Y, fn, ln, cats = small_dataset()
    s = MultiLabelDataset(X, Y, fn, ln, categories=cats).stats()
    labelsets = {tuple(r) for r in Y.tolist()}
    assert s == dict(n_instances=4, n_features=3, n_labels=2, n_nominal=1, n_missing=2,
                     label_cardinality=4 / 4, label_density=4 / 8, n_labelsets=len(labelsets))


def test_to_frame_categoricals_keep_declared_categories():
    X, Y, fn, ln, cats = small_dataset()
    df = MultiLabelDataset(X, Y, fn, ln, categories=[None, ["red", "green", "blue", "unused"], None]).to_frame()
    assert list(df.columns) == fn + ln
    assert list(df["colour"].cat.categories) == ["red", "green", "blue", "unused"]
    assert df["colour"].tolist()[:2] == ["red", "blue"] and pd.isna(df["colour"][2])
    assert df["sunny"].dtype == np.uint8 and eq_nan(df["size"], X[:, 0])


def test_subset_and_select_features():
    X, Y, fn, ln, cats = small_dataset()
    ds = MultiLabelDataset(X, Y, fn, ln, categories=cats, name="s")
    sub = ds.subset([3, 1])
    assert eq_nan(sub.X, X[[3, 1]]) and sub.Y.tolist() == Y[[3, 1]].tolist() and sub.name == "s"
    sub.X[0, 0] = 99
    assert ds.X[3, 0] == 0.0                        # a copy, not a view
    assert ds.subset(np.array([True, False, False, True])).Y.tolist() == Y[[0, 3]].tolist()
    sel = ds.select_features([2, 1])
    assert sel.feature_names == ["temp", "colour"] and sel.categories == [None, cats[1]]
    assert sel.nominal.tolist() == [False, True] and eq_nan(sel.X, X[:, [2, 1]])
    for bad in ([4], [-5], [0.5], np.array([True, False])):
        with pytest.raises(ValueError, match="rows"): ds.subset(bad)
    with pytest.raises(ValueError, match="idx"): ds.select_features([3])


# ---------------------------------------------------------------- the shared Mulan data
@pytest.mark.data
@pytest.mark.parametrize("name", list(MULAN))
def test_mulan_counts_and_label_statistics(data_home, name):
    n, d, q, nominal, card, labelsets = MULAN[name]
    ds = load_dataset(name, data_home=data_home)
    s = ds.stats()
    assert (s["n_instances"], s["n_features"], s["n_labels"], s["n_nominal"]) == (n, d, q, nominal)
    assert s["label_cardinality"] == pytest.approx(card, abs=1e-3)
    assert s["n_labelsets"] == labelsets and s["n_missing"] == 0
    assert ds.name == name
    assert set(ds.label_names) == set(load_xml_names(data_home / f"{name}.xml"))


def load_xml_names(path):
    import re
    return re.findall(r'<label name="([^"]*)"', Path(path).read_text())


@pytest.mark.data
@pytest.mark.parametrize("name", ["emotions", "yeast", "scene", "genbase"])
def test_dense_values_match_scipy(data_home, name):
    ds = load_dataset(name, data_home=data_home)
    rec, meta = scipy_arff.loadarff(data_home / f"{name}.arff")
    for f, fname in enumerate(ds.feature_names):
        col = rec[fname]
        if ds.nominal[f]:
            assert list(meta[fname][1]) == ds.categories[f]
            decoded = [ds.categories[f][int(c)] for c in ds.X[:, f]]
            assert decoded == [v.decode() for v in col], fname
        else:
            assert np.array_equal(ds.X[:, f], col.astype(float)), fname
    for j, lname in enumerate(ds.label_names):
        assert ds.Y[:, j].tolist() == [int(v.decode()) for v in rec[lname]], lname
    assert ds.label_names == [a for a in meta.names() if a in set(ds.label_names)]   # ARFF order


@pytest.mark.data
def test_flags_values_match_pandas_csv(data_home):
    # scipy rejects flags' nominal declarations ('{0,1, 2}'); read the data section with pandas instead
    text = (data_home / "flags.arff").read_text().splitlines()
    start = next(i for i, l in enumerate(text) if l.strip().lower() == "@data")
    df = pd.read_csv(io.StringIO("\n".join(text[start + 1:])), header=None, skipinitialspace=True, dtype=str)
    ds = load_dataset("flags", data_home=data_home)
    for f in range(19):
        if ds.nominal[f]:
            assert [ds.categories[f][int(c)] for c in ds.X[:, f]] == df[f].str.strip().tolist()
        else:
            assert np.array_equal(ds.X[:, f], df[f].astype(float))
    assert np.array_equal(ds.Y, df.iloc[:, 19:].astype(int).to_numpy())


@pytest.mark.data
def test_enron_sparse_matches_a_direct_reading(data_home):
    lines = (data_home / "enron.arff").read_text().splitlines()
    start = next(i for i, l in enumerate(lines) if l.strip().lower() == "@data")
    rows = [l.strip() for l in lines[start + 1:] if l.strip() and not l.startswith("%")]
    A = np.zeros((len(rows), 1054))
    for i, row in enumerate(rows):
        for entry in filter(None, row.strip("{}").split(",")):
            k, v = entry.split()
            A[i, int(k)] = float(v)
    ds = load_dataset("enron", data_home=data_home)
    assert sp.isspmatrix_csr(ds.X) and ds.X.nnz == np.count_nonzero(A[:, :1001])
    assert np.array_equal(ds.X.toarray(), A[:, :1001]) and np.array_equal(ds.Y, A[:, 1001:])


@pytest.mark.data
def test_yeast_labels_follow_arff_order_not_xml_order(data_home):
    ds = load_dataset("yeast", data_home=data_home)
    assert ds.label_names == [f"Class{i}" for i in range(1, 15)]
    assert load_xml_names(data_home / "yeast.xml")[3] == "Class6"


@pytest.mark.data
def test_registry_matches_the_shared_files(data_home):
    for fname, digest in MULAN_SHA256.items():
        assert hashlib.sha256((data_home / fname).read_bytes()).hexdigest() == digest, fname


# ---------------------------------------------------------------- file variants
def test_sparse_and_dense_files_load_identically(tmp_path):
    X, Y, fn, ln, cats = small_dataset()
    dense = load_arff(write_arff(tmp_path / "d.arff", X, Y, fn, ln, cats))
    sparse = load_arff(write_arff(tmp_path / "s.arff", X, Y, fn, ln, cats, sparse=True))
    assert "{" in (tmp_path / "s.arff").read_text().split("@DATA")[1]
    assert sp.isspmatrix_csr(sparse.X) and isinstance(dense.X, np.ndarray)
    for ds in (dense, sparse):
        assert eq_nan(ds.X, X) and np.array_equal(ds.Y, Y)
        assert (ds.feature_names, ds.label_names, ds.categories) == (fn, ln, cats)


def test_sparse_file_with_dense_rows_and_implicit_first_value(tmp_path):
    p = tmp_path / "mixed.arff"
    p.write_text("@relation m\n@attribute a numeric\n@attribute c {x,y}\n@attribute l {0,1}\n@data\n"
                 "{0 2, 1 y}\n{}\n3,?,1\n{2 1}\n")
    ds = load_arff(p, labels=1)
    assert eq_nan(ds.X, [[2, 1], [0, 0], [3, np.nan], [0, 0]]) and ds.Y[:, 0].tolist() == [0, 0, 1, 1]


def test_gzip(tmp_path):
    X, Y, fn, ln, cats = small_dataset()
    for sparse in (False, True):
        p = write_arff(tmp_path / f"z{int(sparse)}.arff.gz", X, Y, fn, ln, cats, sparse=sparse)
        ds = load_arff(p)                                  # finds z0.xml beside z0.arff.gz
        assert eq_nan(ds.X, X) and np.array_equal(ds.Y, Y) and ds.name == f"z{int(sparse)}"
    assert list_datasets(tmp_path, bundled=False) == ["z0", "z1"]
    assert load_dataset("z1", data_home=tmp_path).label_names == ln


@pytest.mark.parametrize("sign", [1, -1])
def test_meka_header_both_signs(tmp_path, sign):
    X, Y, fn, ln, cats = small_dataset()
    feats, labs = [("size", "NUMERIC"), ("temp", "NUMERIC")], [(n, ["0", "1"]) for n in ln]
    frows = [[None if np.isnan(v) else float(v) for v in r] for r in X[:, [0, 2]]]
    lrows = [[str(int(v)) for v in r] for r in Y]
    if sign > 0:   # -C 2: the first two attributes are the labels
        attrs, rows, relation = labs + feats, [l + f for l, f in zip(lrows, frows)], "m: -C 2 -split-percentage 50"
    else:          # -C -2: the last two
        attrs, rows, relation = feats + labs, [f + l for l, f in zip(lrows, frows)], "m: -C -2"
    p = tmp_path / "m.arff"
    p.write_text(arff.dumps(dict(relation=relation, attributes=attrs, data=rows)))
    ds = load_arff(p)
    assert ds.label_names == ln and ds.feature_names == ["size", "temp"]
    assert np.array_equal(ds.Y, Y) and eq_nan(ds.X, X[:, [0, 2]])


def test_label_selection_precedence_and_forms(tmp_path):
    X, Y, fn, ln, cats = small_dataset()
    p = write_arff(tmp_path / "p.arff", X, Y, fn, ln, cats)
    one = load_arff(p, labels=1)                                                        # an int beats the XML beside
    assert one.label_names == ["rainy"] and one.feature_names == fn + ["sunny"]
    assert one.categories[3] == ["0", "1"] and np.array_equal(one.X[:, 3], Y[:, 0])  # a label turned feature
    assert load_arff(p, labels=["rainy", "sunny"]).label_names == ["sunny", "rainy"]  # file order
    other = tmp_path / "other.xml"
    other.write_text('<labels xmlns="urn:a"><group><label name="rainy"/></group>'
                     '<x:label xmlns:x="urn:x" name="sunny"/></labels>')
    ds = load_arff(p, xml=other)                                                        # nested, any namespace
    assert ds.label_names == ln and np.array_equal(ds.Y, Y)


def test_hierarchical_header_is_delegated(tmp_path, monkeypatch):
    import relieffml.data as data
    monkeypatch.setattr(data, "load_hmc_arff", lambda path: ("hmc", Path(path).name))
    p = tmp_path / "h.arff"
    p.write_text("@RELATION h\n@ATTRIBUTE a NUMERIC\n@attribute 'class' HIERARCHICAL 1,1/2\n@DATA\n1,1/2\n")
    assert load_arff(p) == ("hmc", "h.arff")


# ---------------------------------------------------------------- malformed input
GOOD_HEADER = "@relation r\n@attribute a numeric\n@attribute c {x,y}\n@attribute l {0,1}\n@data\n"
MALFORMED = {
    "bad_type": ("@relation r\n@attribute a numerik\n@attribute l {0,1}\n@data\n1,0\n", "line 2"),
    "no_data_section": ("@relation r\n@attribute a numeric\n@attribute l {0,1}\n", "line 3 (end of file): expected @attribute or @data"),
    "attribute_before_relation": ("@attribute a numeric\n@relation r\n@data\n", "line 1: expected @relation, found '@attribute'"),
    "no_relation": ("% a comment\n\n@attribute a numeric\n@data\n", "line 3: expected @relation"),
    "misspelt_keyword": ("@relation r\n@atribute a numeric\n@attribute l {0,1}\n@data\n", "line 2: expected @attribute, unknown keyword '@atribute'"),
    "empty_file": ("", "line 1: no ARFF header (empty file?); expected @relation"),
    "only_comments": ("% nothing\n%\n", "line 2: no ARFF header"),
    "second_relation": ("@relation r\n@attribute a numeric\n@relation s\n@data\n", "line 3: expected @attribute or @data, found '@relation'"),
    "repeated_sparse_index": (GOOD_HEADER + "{0 1, 2 1}\n{0 0.4,0 0.9}\n", "line 7: sparse row gives attribute index 0 more than once"),
    "repeated_sparse_index_spaced": (GOOD_HEADER + "{2 1,  1 y , 2 0}\n", "line 6: sparse row gives attribute index 2"),
    "bad_escape_in_name": ("@relation r\n@attribute 'a\\qb' numeric\n@attribute l {0,1}\n@data\n1,0\n", "line 2: Unsupported escape sequence"),
    "duplicate_attribute": ("@relation r\n@attribute a numeric\n@attribute a numeric\n@data\n", "line 3"),
    "wrong_number_of_values": (GOOD_HEADER + "1,x,0\n2,y\n", "line 7: expected 3 values (one per attribute), found 2: '2,y'"),
    "too_many_values": (GOOD_HEADER + "1,x,0,5\n", "line 6: expected 3 values (one per attribute), found 4: '1,x,0,5'"),
    "too_many_quoted_values": (GOOD_HEADER + "1,'x',0,'a, b'\n", "line 6: expected 3 values (one per attribute), found 4"),
    "unknown_nominal_value": (GOOD_HEADER + "1,x,0\n2,z,1\n", "line 7"),
    "bad_number": (GOOD_HEADER + "abc,x,0\n", "line 6"),
    "sparse_index_out_of_range": (GOOD_HEADER + "{0 1, 9 1}\n", "line 6"),
    "string_attribute": ("@relation r\n@attribute s string\n@attribute l {0,1}\n@data\n'a',0\n", "'s' is a string attribute"),
    "date_attribute": ("@relation r\n@attribute when date yyyy-MM-dd\n@attribute l {0,1}\n@data\n", "date attribute when"),
    "missing_label": (GOOD_HEADER + "1,x,0\n2,y,?\n", "label 'l' has a missing value ('?') in instance 1"),
    "label_not_01": ("@relation r\n@attribute a numeric\n@attribute l {0,1,2}\n@data\n1,2\n", "label 'l' must be declared {0,1}"),
    "label_yes_no": ("@relation r\n@attribute a numeric\n@attribute l {yes,no}\n@data\n1,yes\n", "must be declared {0,1}"),
    "numeric_label_not_01": ("@relation r\n@attribute a numeric\n@attribute l numeric\n@data\n1,0.5\n", "numeric label 'l'"),
    "infinite_value": (GOOD_HEADER + "1e999,x,0\n", "infinite"),
    "percent_in_bad_row": (GOOD_HEADER + "1,x,0,%d\n", "line 6"),
    "no_rows": (GOOD_HEADER, "no data rows"),
    "empty_nominal_value": ("@relation r\n@attribute c {,x}\n@attribute l {0,1}\n@data\nx,0\n", "empty or '?' value"),
    "duplicate_nominal_value": ("@relation r\n@attribute c {x,x}\n@attribute l {0,1}\n@data\nx,0\n", "declares a value twice"),
}


@pytest.mark.parametrize("case", list(MALFORMED))
def test_malformed_files_raise_valueerror_naming_the_file(tmp_path, case):
    text, match = MALFORMED[case]
    p = tmp_path / f"{case}.arff"
    p.write_text(text)
    with pytest.raises(ValueError) as e:
        load_arff(p, labels=1)
    assert str(p) in str(e.value) and match in str(e.value), str(e.value)


def test_label_specification_errors(tmp_path):
    X, Y, fn, ln, cats = small_dataset()
    p = write_arff(tmp_path / "p.arff", X, Y, fn, ln, cats, xml=False)
    (tmp_path / "absent.xml").write_text('<labels><label name="sunny"/><label name="windy"/></labels>')
    (tmp_path / "broken.xml").write_text("<labels><label name='a'>")
    (tmp_path / "empty.xml").write_text("<labels/>")
    cases = [(dict(), "cannot tell which attributes"), (dict(xml=tmp_path / "absent.xml"), "['windy']"),
             (dict(xml=tmp_path / "broken.xml"), "broken.xml"), (dict(xml=tmp_path / "empty.xml"), "empty.xml"),
             (dict(xml=tmp_path / "nope.xml"), "nope.xml"), (dict(labels=["sunny", "nope"]), "['nope']"),
             (dict(labels=0), "labels=0"), (dict(labels=-2), "positive"), (dict(labels=5), "labels=5"), (dict(labels="sunny"), "labels must be"),
             (dict(labels=[]), "labels must be"), (dict(labels=["sunny", "sunny"]), "twice"),
             (dict(labels=2, xml=tmp_path / "absent.xml"), "not both")]
    for kwargs, match in cases:
        with pytest.raises(ValueError, match=None) as e:
            load_arff(p, **kwargs)
        assert match in str(e.value), (kwargs, str(e.value))
    p.write_text(p.read_text().replace("@RELATION r", "@RELATION 'r: -C 9'"))
    with pytest.raises(ValueError, match="-C 9"): load_arff(p)


def test_unreadable_files(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.arff"): load_arff(tmp_path / "nope.arff")
    p = tmp_path / "broken.arff.gz"
    p.write_bytes(gzip.compress(GOOD_HEADER.encode() * 50)[:40])
    with pytest.raises(ValueError, match="broken.arff.gz"): load_arff(p, labels=1)
    latin = tmp_path / "latin.arff"
    latin.write_bytes("@relation r\n@attribute c {caf\xe9,th\xe9}\n@attribute l {0,1}\n@data\nth\xe9,1\n".encode("latin-1"))
    assert load_arff(latin, labels=1).categories == [["caf\xe9", "th\xe9"]]


# ---------------------------------------------------------------- fuzzing
NAME = st.text("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.", min_size=1, max_size=6)
CATEGORY = st.text("abcxyzABC019_-. ", min_size=1, max_size=5).filter(lambda s: s.strip() == s)


@st.composite
def datasets(draw):
    n, d, q = draw(st.integers(1, 6)), draw(st.integers(1, 4)), draw(st.integers(1, 3))
    names = draw(st.lists(NAME, min_size=d + q, max_size=d + q, unique=True))
    cats = [draw(st.none() | st.lists(CATEGORY, min_size=1, max_size=4, unique=True)) for _ in range(d)]
    X = np.empty((n, d))
    for f in range(d):
        vals = (st.integers(0, len(cats[f]) - 1).map(float) if cats[f] is not None
                else st.floats(allow_nan=False, allow_infinity=False) | st.sampled_from([0.0, -0.0, 1.0]))
        X[:, f] = draw(st.lists(vals | st.just(np.nan), min_size=n, max_size=n))
    Y = np.array(draw(st.lists(st.lists(st.integers(0, 1), min_size=q, max_size=q), min_size=n, max_size=n)), dtype=np.uint8)
    return X, Y, names[:d], names[d:], cats


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=datasets(), sparse=st.booleans())
def test_fuzz_round_trip(tmp_path, data, sparse):
    X, Y, fn, ln, cats = data
    ds = load_arff(write_arff(tmp_path / "f.arff", X, Y, fn, ln, cats, sparse=sparse))
    assert eq_nan(ds.X, X) and np.array_equal(ds.Y, Y)
    assert (ds.feature_names, ds.label_names, ds.categories) == (fn, ln, cats)


JUNK = [",", "{", "}", "?", "'", '"', "@data", "@attribute z numeric", "abc", "1e999", "%", " ", "\t", "nan",
        "-C 3", "\\", "{0 1}", "0", "1", "x", "@relation q", "inf", "-", "1,2,3"]


def _base_file(tmp_path, sparse):
    X, Y, fn, ln, cats = small_dataset()
    return write_arff(tmp_path / "base.arff", X, Y, fn, ln, cats, sparse=sparse).read_text().splitlines()


@st.composite
def mutations(draw, lines):
    lines = list(lines)
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.sampled_from(["truncate", "delete", "junk", "duplicate"]))
        if kind == "truncate": lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        elif kind == "delete" and len(lines) > 1: del lines[i]
        elif kind == "duplicate": lines.insert(i, lines[i])
        else:
            pos = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:pos] + draw(st.sampled_from(JUNK)) + lines[i][pos:]
    return "\n".join(lines) + "\n"


def _alarm(signum, frame): raise TimeoutError("load_arff hung on a mutated file")


@pytest.mark.parametrize("sparse", [False, True])
def test_fuzz_mutated_files_raise_valueerror_or_load(tmp_path, sparse):
    base = _base_file(tmp_path, sparse)

    @settings(max_examples=80, deadline=None)
    @given(text=mutations(base))
    def check(text):
        p = tmp_path / "mut.arff"
        p.write_text(text)
        old = signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(10)
        try: ds = load_arff(p, labels=2)
        except ValueError as e:
            assert str(p) in str(e), str(e)
            return
        finally:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, old)
        assert isinstance(ds, MultiLabelDataset) and ds.Y.dtype == np.uint8
    check()


# ---------------------------------------------------------------- data home and download
def test_get_data_home_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("RELIEFFML_DATA", str(tmp_path / "env"))
    assert get_data_home(tmp_path / "arg") == tmp_path / "arg"
    assert get_data_home() == tmp_path / "env"
    monkeypatch.delenv("RELIEFFML_DATA")
    assert get_data_home() == Path("~/relieffml_data").expanduser()


def test_missing_dataset_without_url_explains(monkeypatch, tmp_path):
    monkeypatch.delenv("RELIEFFML_DATA_URL", raising=False)
    with pytest.raises(ValueError) as e:
        load_dataset("emotions_not_bundled", data_home=tmp_path)
    msg = str(e.value)
    assert str(tmp_path) in msg and "set RELIEFFML_DATA to" in msg and "RELIEFFML_DATA_URL" in msg
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")          # so that "../x" names nothing that exists, wherever the checkout is
    for bad in ("", "../x", "/abs", "a\\b", 3):
        with pytest.raises(ValueError, match="name must be"): load_dataset(bad, data_home=tmp_path)
    assert list_datasets(tmp_path / "absent", bundled=False) == []


def test_a_directory_is_named_as_such(monkeypatch, tmp_path):
    "A directory given as DATA said 'name must be a data set name' (absolute) or 'not found in the data home'."
    X, Y, fn, ln, cats = small_dataset()
    (tmp_path / "home" / "sub").mkdir(parents=True)
    write_arff(tmp_path / "home" / "sub" / "t.arff", X, Y, fn, ln, cats)
    (tmp_path / "work" / "emotions").mkdir(parents=True)
    (tmp_path / "work" / "folder.arff").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    monkeypatch.setenv("RELIEFFML_DATA_URL", "http://127.0.0.1:9/")     # a directory is refused before any download
    home = tmp_path / "home"
    for name, where in [(str(tmp_path / "work"), tmp_path / "work"), (str(tmp_path / "work") + "/", tmp_path / "work"),
                        (tmp_path / "work", tmp_path / "work"), ("folder.arff", tmp_path / "work" / "folder.arff"),
                        ("sub", home / "sub"), ("hmc", BUNDLED_DATA / "hmc")]:
        with pytest.raises(ValueError) as e:
            load_dataset(name, data_home=home)
        assert str(e.value).startswith(f"{str(name)!r} is a directory ({where}), not a data set: expected an ARFF file"), str(e.value)
    assert load_dataset("sub/t", data_home=home).X.shape == X.shape
    assert load_dataset("emotions", data_home=home).X.shape == (593, 72)   # a data set comes before a folder of that name
    for load in (load_arff, data_module.load_hmc_arff):
        with pytest.raises(ValueError, match=r"folder\.arff is a directory, not an ARFF file"): load("folder.arff")
        with pytest.raises(FileNotFoundError, match="no ARFF file absent.arff"): load("absent.arff")


class _Server:
    "A local HTTP server over `folder`, counting requests per path."
    def __init__(self, folder):
        hits = self.hits = {}

        class Handler(http.server.SimpleHTTPRequestHandler):
            def log_message(self, *args): pass
            def do_GET(self):
                hits[self.path] = hits.get(self.path, 0) + 1
                super().do_GET()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(folder)))
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.mark.data
def test_download_verify_and_cache(data_home, tmp_path, monkeypatch):
    home = tmp_path / "home"
    with _Server(data_home) as srv:
        monkeypatch.setenv("RELIEFFML_DATA_URL", srv.url + "/")
        assert load_dataset("emotions", data_home=home).X.shape == (593, 72) and srv.hits == {}   # bundled: no request
        path = data_module._download("emotions", srv.url + "/", home)     # the checksum-verified path, directly
        ds = load_dataset("emotions", data_home=home)
        assert ds.X.shape == (593, 72) and ds.name == "emotions" and find_dataset("emotions", home) == path
        for ext in (".arff", ".xml"):
            assert (home / f"emotions{ext}").read_bytes() == (data_home / f"emotions{ext}").read_bytes()
        assert srv.hits == {"/emotions.arff": 1, "/emotions.xml": 1}
        again = load_dataset("emotions", data_home=home)
        assert srv.hits == {"/emotions.arff": 1, "/emotions.xml": 1}          # served from the cache
        assert np.array_equal(again.X, ds.X) and list_datasets(home, bundled=False) == ["emotions"]
        with pytest.raises(ValueError, match="could not download .*/nope.arff"):
            load_dataset("nope", data_home=home)
    assert sorted(p.name for p in home.iterdir()) == ["emotions.arff", "emotions.xml"]


@pytest.mark.data
def test_corrupted_download_is_rejected_and_not_cached(data_home, tmp_path, monkeypatch):
    served = tmp_path / "served"
    served.mkdir()
    shutil.copy(data_home / "emotions.xml", served)
    raw = bytearray((data_home / "emotions.arff").read_bytes())
    raw[-10] = ord("9") if raw[-10] != ord("9") else ord("8")
    (served / "emotions.arff").write_bytes(bytes(raw))
    home = tmp_path / "home"
    with _Server(served) as srv:
        with pytest.raises(ValueError, match="checksum mismatch.*emotions.arff"):
            data_module._download("emotions", srv.url, home)
    assert list(home.iterdir()) == []


def test_download_of_unregistered_names_is_verified_by_parsing(tmp_path, monkeypatch):
    X, Y, fn, ln, cats = small_dataset()
    served = tmp_path / "served"
    (served / "sub").mkdir(parents=True)
    write_arff(served / "sub" / "toy.arff", X, Y, fn, ln, cats, sparse=True)
    write_arff(served / "noxml.arff", X, Y, fn, ln, cats, xml=False)
    (served / "broken.arff").write_text(GOOD_HEADER + "1,x\n")
    home = tmp_path / "home"
    with _Server(served) as srv:
        monkeypatch.setenv("RELIEFFML_DATA_URL", srv.url)
        ds = load_dataset("sub/toy", data_home=home)
        assert eq_nan(ds.X, X) and ds.label_names == ln
        assert (home / "sub" / "toy.xml").is_file()
        assert load_dataset("noxml", data_home=home, labels=2).label_names == ln    # no XML served: labels given
        with pytest.raises(ValueError, match="line 6"):
            load_dataset("broken", data_home=home, labels=1)
    assert sorted(p.name for p in home.rglob("*")) == ["noxml.arff", "sub", "toy.arff", "toy.xml"]


# ---------------------------------------------------------------- the generator
def test_generator_shapes_names_and_ground_truth():
    ds = make_multilabel_relevance(n_samples=120, n_features=30, n_labels=3, n_relevant=5, n_redundant=3)
    assert ds.X.shape == (120, 30) and ds.Y.shape == (120, 3)
    assert ds.feature_names[:2] == ["f00", "f01"] and ds.label_names == ["l0", "l1", "l2"]
    rel, red = set(ds.relevant_.tolist()), set(ds.redundant_.tolist())
    assert len(rel) == 5 and len(red) == 3 and not rel & red
    assert set(ds.redundant_of_.tolist()) <= rel
    (a, b), = ds.interacting_
    assert {a, b} <= rel and a < b
    support = [s.tolist() for s in ds.label_support_]
    assert support[0] == [a, b] and sorted(sum(support, [])) == sorted(rel)   # a partition of the relevant set
    assert ds.relevant_.tolist() != list(range(5))                             # columns shuffled


def test_generator_labels_follow_the_documented_equations():
    ds = make_multilabel_relevance(n_samples=500, noise=0.0, random_state=3)
    X, Y = ds.X, ds.Y
    (a, b), = ds.interacting_
    assert np.array_equal(Y[:, 0], (X[:, a] > 0.5) ^ (X[:, b] > 0.5))                           # eq. 3
    for j, cols in enumerate(ds.label_support_[1:], start=1):
        assert np.array_equal(Y[:, j], (X[:, cols] - 0.5).sum(axis=1) > 0)                       # eq. 4
    for r, s in zip(ds.redundant_, ds.redundant_of_):
        assert np.std(X[:, r] - X[:, s]) == pytest.approx(0.05, rel=0.15)
    irrelevant = sorted(set(range(20)) - set(ds.relevant_) - set(ds.redundant_))
    assert all(abs(np.corrcoef(X[:, f], Y[:, j])[0, 1]) < 0.2 for f in irrelevant for j in range(4))
    for f in (a, b):                                                                              # XOR: no marginal signal
        assert abs(np.corrcoef(X[:, f], Y[:, 0])[0, 1]) < 0.12


def test_generator_noise_flips_labels():
    clean = make_multilabel_relevance(n_samples=4000, noise=0.0, random_state=5)
    noisy = make_multilabel_relevance(n_samples=4000, noise=0.2, random_state=5)
    assert np.array_equal(clean.X, noisy.X)
    assert np.mean(clean.Y != noisy.Y) == pytest.approx(0.2, abs=0.02)


def test_generator_determinism_and_fractions():
    a, b = make_multilabel_relevance(random_state=7), make_multilabel_relevance(random_state=7)
    c = make_multilabel_relevance(random_state=8)
    assert np.array_equal(a.X, b.X) and np.array_equal(a.Y, b.Y) and not np.array_equal(a.X, c.X)
    ds = make_multilabel_relevance(n_samples=200, n_features=40, nominal_fraction=0.25, missing_fraction=0.05)
    assert ds.nominal.sum() == round(0.25 * (40 - 2)) and ds.nominal[ds.redundant_].sum() == 0
    assert np.isnan(ds.X).sum() == round(0.05 * 200 * 40)
    nom = ds.X[:, ds.nominal]
    assert set(np.unique(nom[~np.isnan(nom)])) == {0.0, 1.0, 2.0}
    assert all(ds.categories[f] == ["low", "mid", "high"] for f in np.flatnonzero(ds.nominal))
    one = make_multilabel_relevance(n_labels=1, n_relevant=2, n_redundant=0)
    assert one.Y.shape == (300, 1) and len(one.relevant_) == 2
    full = make_multilabel_relevance(nominal_fraction=1.0, random_state=2)
    assert full.nominal.sum() == 18


def test_generator_subset_keeps_ground_truth_and_default_dataset():
    ds = make_multilabel_relevance()
    assert np.array_equal(ds.subset(range(10)).relevant_, ds.relevant_)
    assert not hasattr(ds.select_features([0, 1]), "relevant_")
    dd = default_dataset()
    assert np.array_equal(dd.X, ds.X) and "default" in dd.name


@pytest.mark.parametrize("kwargs, match", [
    (dict(n_samples=0), "n_samples"), (dict(n_features=1.5), "n_features"), (dict(n_labels=0), "n_labels"),
    (dict(n_relevant=1), "n_relevant"), (dict(n_relevant=30), "exceeds n_features"),
    (dict(n_redundant=-1), "n_redundant"), (dict(n_labels=6), "n_relevant must be >= n_labels \\+ 1"),
    (dict(n_labels=1), "n_relevant must be 2"), (dict(noise=0.6), "noise"), (dict(noise=True), "noise"),
    (dict(nominal_fraction=1.5), "nominal_fraction"), (dict(missing_fraction=-0.1), "missing_fraction"),
])
def test_generator_rejects_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_multilabel_relevance(**kwargs)


# ---------------------------------------------------------------- the bundled data sets
# sizes of the Clus HMC files from the data README (instances, features, classes)
HMC = {"ImCLEF07A_Train": (10000, 80, 96), "ImCLEF07A_Test": (1006, 80, 96), "ImCLEF07D_Train": (10000, 80, 46),
       "ImCLEF07D_Test": (1006, 80, 46), "cellcycle_FUN.train": (1628, 77, 499), "cellcycle_FUN.test": (1281, 77, 499),
       "cellcycle_GO.train": (1625, 77, 4125), "cellcycle_GO.test": (1278, 77, 4125)}


def test_bundled_mulan_files_are_the_published_bytes():
    """Decompressed, each bundled Mulan file is Mulan's repository file (its git blob SHA-1 in the registry), except
    enron's ARFF and four label lists, which are the shared benchmark copies (MULAN_SHA256); genbase and flags
    are Mulan's own files (genbase with its `protein` identifier)."""
    from relieffml.fetch import blob_sha1, registry
    mulan = {f"{n}.arff": s["splits"]["all"]["git_blob_sha1"] for n, s in registry().items() if "all" in s["splits"]}
    mulan |= {f"{n}.xml": s["xml"]["git_blob_sha1"] for n, s in registry().items() if s.get("xml")}
    shared = {"enron.arff", "emotions.xml", "yeast.xml", "scene.xml", "enron.xml"}
    for fname in MULAN_SHA256:
        raw = gzip.decompress((BUNDLED_DATA / f"{fname}.gz").read_bytes())
        if fname in shared: assert hashlib.sha256(raw).hexdigest() == MULAN_SHA256[fname], fname
        else: assert blob_sha1(raw) == mulan[fname], fname


@pytest.mark.data
def test_bundled_hmc_files_are_the_shared_bytes(data_home):
    for name in HMC:
        raw = gzip.decompress((BUNDLED_DATA / "hmc" / f"{name}.arff.gz").read_bytes())
        assert raw == (data_home / "hmc" / f"{name}.arff").read_bytes(), name


def test_bundled_sets_load_with_nothing_set(tmp_path, monkeypatch):
    monkeypatch.delenv("RELIEFFML_DATA", raising=False)
    monkeypatch.delenv("RELIEFFML_DATA_URL", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))                       # ~/relieffml_data does not exist
    monkeypatch.chdir(tmp_path)
    assert set(list_datasets()) == set(MULAN) | {f"hmc/{n}" for n in HMC}
    for name in ("emotions", "flags", "enron", "hmc/ImCLEF07D_Test"):
        assert find_dataset(name).is_relative_to(BUNDLED_DATA)
    s = load_dataset("flags").stats()
    assert (s["n_instances"], s["n_features"], s["n_labels"]) == MULAN["flags"][:3]
    ds = load_dataset("hmc/cellcycle_FUN.test")
    assert ds.X.shape + ds.Y.shape[1:] == HMC["cellcycle_FUN.test"] and ds.hierarchy.is_tree


def _datasheet_rows():
    "The rows of the datasheet's tables, as lists of stripped cells."
    lines = DATASHEET.read_text(encoding="utf-8").splitlines()
    return {r[0]: r[1:] for r in ([c.strip() for c in l.strip().strip("|").split("|")] for l in lines
                                  if l.startswith("| ") and not l.startswith("| name"))}


@pytest.mark.parametrize("name", list(MULAN) + [f"hmc/{n}" for n in HMC])
def test_datasheet_matches_the_data(name):
    "The datasheet's N, D, Q (and published Mulan label cardinality) against the loaded data and the tables above."
    row = _datasheet_rows()[name]
    ds = load_dataset(name, data_home=Path("/nonexistent"))
    s = ds.stats()
    want = MULAN[name][:3] if name in MULAN else HMC[name.split("/")[1]]
    if name == "genbase": want = (662, 1186, 27)     # the bundled file is Mulan's, with its `protein` identifier
    assert tuple(int(v) for v in row[:3]) == want == (s["n_instances"], s["n_features"], s["n_labels"])
    if name in MULAN:
        assert float(row[3]) == MULAN[name][4]
        assert s["label_cardinality"] == pytest.approx(float(row[3]), abs=1e-3)
    text = DATASHEET.read_text(encoding="utf-8")
    assert "Licence" in text and "DOI" in text


def test_data_home_copy_takes_precedence_over_the_bundled_one(tmp_path, monkeypatch):
    X, Y, fn, ln, cats = small_dataset()
    write_arff(tmp_path / "emotions.arff", X, Y, fn, ln, cats)
    monkeypatch.setenv("RELIEFFML_DATA", str(tmp_path))
    assert load_dataset("emotions").X.shape == X.shape and find_dataset("emotions") == tmp_path / "emotions.arff"
    assert load_dataset("emotions", data_home=tmp_path / "empty").X.shape == (593, 72)


# ---------------------------------------------------------------- ARFF text as the format defines it
def test_quoted_names_and_values_decode_backslash_escapes(tmp_path):
    "Each escape written out by hand; nominal values compared with liac-arff's own decoding of the same text."
    names = ["Swainson's Thrush", 'say "hi"', "back\\slash", "tab\there", "new\nline", "per%cent"]
    written = ["'Swainson\\'s Thrush'", "'say \\\"hi\\\"'", "'back\\\\slash'", "'tab\\there'", "'new\\nline'", "'per\\%cent'"]
    header = "@relation r\n" + "".join(f"@attribute {w} numeric\n" for w in written)
    header += "@attribute c {'it\\'s', \"a\\\\b\", plain}\n@attribute 'Swainson\\'s Thrush label' {0,1}\n@data\n"
    p = tmp_path / "esc.arff"
    p.write_text(header + ",".join(["1"] * 6) + ",'it\\'s',1\n" + ",".join(["2"] * 6) + ",'a\\\\b',0\n")
    (tmp_path / "esc.xml").write_text('<labels><label name="Swainson&apos;s Thrush label"/></labels>')
    ds = load_arff(p)
    assert ds.feature_names == names + ["c"] and ds.label_names == ["Swainson's Thrush label"]
    assert ds.categories[-1] == ["it's", "a\\b", "plain"] == arff.loads(p.read_text())["attributes"][6][1]
    assert ds.X[:, -1].tolist() == [0, 1] and ds.Y[:, 0].tolist() == [1, 0]


def test_byte_order_mark_is_accepted(tmp_path):
    p = tmp_path / "bom.arff"
    p.write_bytes(b"\xef\xbb\xbf" + GOOD_HEADER.encode() + b"1,x,0\n2,y,1\n")
    ds = load_arff(p, labels=1)
    assert ds.feature_names == ["a", "c"] and ds.Y[:, 0].tolist() == [0, 1]
    g = tmp_path / "bom.arff.gz"
    g.write_bytes(gzip.compress(p.read_bytes()))
    assert load_arff(g, labels=1).feature_names == ["a", "c"]


# ---------------------------------------------------------------- small refusals
def test_empty_dataset_is_refused():
    with pytest.raises(ValueError, match="at least 1 instance"): MultiLabelDataset(np.zeros((0, 3)), np.zeros((0, 2)))


@pytest.mark.parametrize("labels", [True, False, 2.0, object()])
def test_labels_of_the_wrong_type_are_refused(tmp_path, labels):
    p = tmp_path / "p.arff"
    p.write_text(GOOD_HEADER + "1,x,0\n")
    with pytest.raises(ValueError, match="labels must be an int"): load_arff(p, labels=labels)


def test_relation_with_a_windows_path_still_loads(tmp_path):
    "The relation name is only searched for MEKA's -C: an escape liac-arff would refuse is kept as written."
    p = tmp_path / "w.arff"
    p.write_text("@relation 'C:\\data\\m: -C -1'\n@attribute a numeric\n@attribute l {0,1}\n@data\n1,0\n")
    assert load_arff(p).label_names == ["l"]


# names with every character ARFF must quote or escape, encoded by liac-arff's value encoder (the oracle;
# its attribute writer only wraps names in quotes, without escaping)
ODD_NAME = st.text("ab \t\n'\"\\%,?@é\x01\x1b", min_size=1, max_size=6)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(ODD_NAME, min_size=3, max_size=3, unique=True), sparse=st.booleans())
def test_fuzz_escaped_names_round_trip(tmp_path, names, sparse):
    head = "@relation r\n" + "".join(f"@attribute {arff.encode_string(n)} {t}\n" for n, t in zip(names, ["numeric", "real", "{0,1}"]))
    rows = ["{0 1, 1 0.5, 2 1}", "{0 2, 1 -1}"] if sparse else ["1,0.5,1", "2,-1,0"]
    p = tmp_path / "n.arff"
    p.write_text(head + "@data\n" + "\n".join(rows) + "\n", encoding="utf-8")
    ds = load_arff(p, labels=1)
    assert ds.feature_names == names[:2] and ds.label_names == names[2:]
    assert eq_nan(ds.X, [[1, 0.5], [2, -1]]) and ds.Y[:, 0].tolist() == [1, 0]
