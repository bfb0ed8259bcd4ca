"""The `relieffml` command line: `main([...])` in-process, and the installed console script once.

Expected values come from the data README (sizes), the published Mulan label statistics and hand
counts of a tiny file, not from the library's own output.
"""
import csv, io, json, os, subprocess, sys
from pathlib import Path

import pytest

from relieffml.cli import build_parser, main

TINY = """@relation tiny
@attribute size numeric
@attribute colour {red, green, blue}
@attribute sunny {0,1}
@attribute rainy {0,1}
@data
1.5, green, 1, 0
?,   red,   0, 0
3,   blue,  1, 1
4,   ?,     0, 1
"""
# hand counts for TINY with the last two attributes as labels
TINY_STATS = dict(n_instances=4, n_features=2, n_labels=2, n_nominal=1, n_missing=2,
                  label_cardinality=1.0, label_density=0.5, n_labelsets=4)


@pytest.fixture
def tiny(tmp_path):
    p = tmp_path / "tiny.arff"
    p.write_text(TINY)
    return p


def run_json(capsys, *argv):
    assert main(["describe", *argv, "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_describe_default_dataset_says_so(capsys):
    assert main(["describe"]) == 0
    out = capsys.readouterr().out
    assert "built-in default data set" in out and "no DATA given" in out
    lines = dict(l.split(None, 1) for l in out.splitlines()[1:])
    assert lines["n_instances"].strip() == "300" and lines["n_features"].strip() == "20"
    assert lines["n_labels"].strip() == "4"


def test_describe_arff_path_all_formats(capsys, tiny):
    info = run_json(capsys, str(tiny), "--labels", "2")
    assert {k: info[k] for k in TINY_STATS} == TINY_STATS and info["name"] == "tiny" and info["source"] == str(tiny)
    assert main(["describe", str(tiny), "--labels", "sunny,rainy", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert list(rows[0]) == ["statistic", "value"]
    assert {r["statistic"]: r["value"] for r in rows}["n_missing"] == "2"
    assert main(["describe", str(tiny), "--labels", "2"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split() == ["statistic", "value"]
    key_width = max(len(l.split()[0]) for l in table)
    assert all(l[key_width:key_width + 2] == "  " and l[key_width + 2] != " " for l in table)   # values aligned
    assert any(l.split() == ["label_density", "0.5"] for l in table)


def test_describe_xml_option(capsys, tiny, tmp_path):
    xml = tmp_path / "labels.xml"
    xml.write_text('<labels xmlns="http://mulan.sourceforge.net/labels"><label name="rainy"/></labels>')
    info = run_json(capsys, str(tiny), "--xml", str(xml))
    assert (info["n_labels"], info["n_features"], info["label_cardinality"]) == (1, 3, 0.5)


@pytest.mark.data
def test_describe_by_name_from_the_data_home(capsys, data_home, monkeypatch):
    monkeypatch.setenv("RELIEFFML_DATA", str(data_home))
    info = run_json(capsys, "emotions")
    assert (info["n_instances"], info["n_features"], info["n_labels"]) == (593, 72, 6)
    assert info["source"] == f"'emotions' in data home {data_home}"           # the data home comes first
    assert info["label_cardinality"] == pytest.approx(1.869, abs=1e-3) and info["n_labelsets"] == 27
    info = run_json(capsys, str(data_home / "flags.arff"))                 # a path: the XML beside it
    assert (info["n_instances"], info["n_features"], info["n_labels"], info["n_nominal"]) == (194, 19, 7, 9)


@pytest.mark.parametrize("argv, message", [
    (["describe", "{tiny}"], "cannot tell which attributes"),
    (["describe", "{tiny}", "--labels", "nope"], "['nope']"),
    (["describe", "{tmp}/absent.arff"], "absent.arff"),
    (["describe", "no_such_dataset"], "RELIEFFML_DATA"),
    (["describe", "--labels", "2"], "--labels and --xml need a DATA argument"),
])
def test_errors_go_to_stderr_with_status_2(capsys, tiny, tmp_path, monkeypatch, argv, message):
    monkeypatch.setenv("RELIEFFML_DATA", str(tmp_path))
    monkeypatch.delenv("RELIEFFML_DATA_URL", raising=False)
    argv = [a.format(tiny=tiny, tmp=tmp_path) for a in argv]
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("relieffml describe: error:") and message in err
    assert "Traceback" not in err and err.count("\n") == 1


def test_usage_errors_and_help(capsys):
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err
    assert main(["describe", "--format", "xml"]) == 2
    assert "invalid choice" in capsys.readouterr().err
    assert main(["frobnicate"]) == 2
    assert main(["--help"]) == 0 and "describe" in capsys.readouterr().out


def test_parser_has_one_subparser_per_command():
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert list(sub.choices) == ["describe", "rank", "data", "replicate"]
    assert sub.choices["describe"].get_default("func").__name__ == "cmd_describe"
    assert sub.choices["replicate"].get_default("func").__name__ == "cmd_replicate"
    assert sub.choices["rank"].get_default("func").__name__ == "cmd_rank"
    actions = next(a for a in sub.choices["data"]._actions if a.dest == "action")
    assert {k: p.get_default("func").__name__ for k, p in actions.choices.items()} == {
        "list": "cmd_data_list", "fetch": "cmd_data_fetch"}


def test_installed_console_script(tiny):
    script = Path(sys.executable).with_name("relieffml")
    assert script.exists(), "console script not installed: pip install -e ."
    env = {k: v for k, v in os.environ.items() if k != "RELIEFFML_DATA_URL"}
    ok = subprocess.run([str(script), "describe", str(tiny), "--labels", "2", "--format", "json"],
                        capture_output=True, text=True, env=env, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["n_instances"] == 4
    bad = subprocess.run([str(script), "describe", str(tiny)], capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "cannot tell" in bad.stderr


# --- rank: the main job -------------------------------------------------------------------------------

def test_rank_default_is_the_main_job(capsys):
    "No DATA: ReliefF-ML on the built-in data set; its relevant and redundant features fill the top places."
    from relieffml.data import default_dataset
    assert main(["rank"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("reliefml on built-in default data set")
    truth = default_dataset()
    informative = {truth.feature_names[f] for f in [*truth.relevant_, *truth.redundant_]}
    top = [line.split()[1] for line in out.splitlines()[2:2 + len(informative)]]
    assert set(top) == informative


@pytest.mark.parametrize("method", ["reliefml", "rfml", "rfmml", "relieff-br", "mlrf", "ig-br"])
def test_rank_methods_write_all_weights(capsys, tmp_path, method):
    out_csv = tmp_path / "w.csv"
    assert main(["rank", "--method", method, "--top", "3", "--format", "json", "--out", str(out_csv)]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["method"] == method and len(shown["features"]) == 3
    rows = list(csv.DictReader(out_csv.open()))
    assert [int(r["rank"]) for r in rows] == list(range(1, 21))
    weights = [float(r["weight"]) for r in rows]
    assert weights == sorted(weights, reverse=True)
    assert [r["feature"] for r in rows[:3]] == [f["feature"] for f in shown["features"]]


def test_rank_matches_the_estimator(capsys):
    from relieffml.data import default_dataset
    from relieffml.rfml import RFML
    assert main(["rank", "--method", "rfml", "--label-distance", "jaccard", "--k", "5", "--top", "0", "--format", "csv"]) == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    est = RFML(n_neighbors=5, label_distance="jaccard").fit(default_dataset())
    assert [int(r["index"]) for r in rows] == est.ranking_.tolist()


@pytest.mark.parametrize("argv,message", [
    (["rank", "--method", "nope"], "invalid choice"),
    (["rank", "--k", "0"], "n_neighbors"),
    (["rank", "--samples", "lots"], "expected all, auto"),
    (["rank", "--samples", "5000"], "n_samples"),
    (["rank", "--method", "hmc"], "hierarch"),
])
def test_rank_bad_input(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_rank_a_directory_says_so(capsys, tmp_path, monkeypatch):
    "`relieffml rank DIR` said 'name must be a data set name' (absolute) or 'not found in the data home' (relative)."
    (tmp_path / "runs").mkdir(); (tmp_path / "runs.arff").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("RELIEFFML_DATA", str(tmp_path / "home"))
    monkeypatch.delenv("RELIEFFML_DATA_URL", raising=False)
    for data in (str(tmp_path / "runs"), str(tmp_path / "runs") + "/", "runs", "runs/"):
        assert main(["rank", data]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"relieffml rank: error: {data!r} is a directory ({tmp_path / 'runs'}), not a data set: "
                              "expected an ARFF file (.arff, .arff.gz) or the name of a data set"), err
        assert err.count("\n") == 1 and "Traceback" not in err
    assert main(["rank", "runs.arff"]) == 2          # looks like a file name: load_arff says what it is
    assert capsys.readouterr().err == "relieffml rank: error: runs.arff is a directory, not an ARFF file (.arff, .arff.gz)\n"


def test_installed_console_script_rank():
    script = Path(sys.executable).with_name("relieffml")
    ok = subprocess.run([str(script), "rank", "--top", "3"], capture_output=True, text=True, timeout=300)
    assert ok.returncode == 0, ok.stderr
    assert len(ok.stdout.splitlines()) == 2 + 3


# --- a fresh install: the bundled data, nothing set -----------------------------------------------------

def _bare_env(tmp_path):
    "The environment of a fresh install: no RELIEFFML_* variables, an empty home."
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELIEFFML_")}
    env["HOME"] = str(tmp_path)
    return env


def test_rank_emotions_on_a_fresh_install(tmp_path):
    "`relieffml rank emotions` with RELIEFFML_DATA unset and the working directory elsewhere."
    script = Path(sys.executable).with_name("relieffml")
    ok = subprocess.run([str(script), "rank", "emotions", "--top", "5"], capture_output=True, text=True,
                        env=_bare_env(tmp_path), cwd=tmp_path, timeout=600)
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.splitlines()
    assert lines[0] == "reliefml on 'emotions' bundled with relieffml: 593 instances, 72 features; top 5 of 72"
    assert len(lines) == 2 + 5
    js = subprocess.run([str(script), "describe", "hmc/cellcycle_GO.test", "--format", "json"], capture_output=True,
                        text=True, env=_bare_env(tmp_path), cwd=tmp_path, timeout=600)
    assert js.returncode == 0, js.stderr
    info = json.loads(js.stdout)
    assert (info["n_instances"], info["n_features"], info["n_labels"]) == (1278, 77, 4125)   # data README


def test_every_bundled_set_loads_in_a_fresh_interpreter(tmp_path):
    code = ("from relieffml.data import list_datasets, load_dataset\n"
            "for n in list_datasets(): d = load_dataset(n); print(n, *d.X.shape, d.Y.shape[1])")
    ok = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=_bare_env(tmp_path),
                        cwd=tmp_path, timeout=600)
    assert ok.returncode == 0, ok.stderr
    got = {l.split()[0]: tuple(int(v) for v in l.split()[1:]) for l in ok.stdout.splitlines()}
    assert got["emotions"] == (593, 72, 6) and got["enron"] == (1702, 1001, 53) and len(got) == 14   # data README


# --- text from files is escaped; errors are one line (+ one of context) ------------------------------------

EVIL = "\x1b[2J\x1b]0;owned\x07"   # clear screen, set the window title


def test_names_from_a_file_are_escaped_in_every_format(capsys, tmp_path):
    p = tmp_path / "evil.arff"
    p.write_text(f"@relation e\n@attribute '{EVIL}x\\tq' numeric\n@attribute b numeric\n@attribute l {{0,1}}\n@data\n"
                 "1,2,0\n2,1,1\n3,3,0\n4,1,1\n")
    for fmt in ("table", "csv", "json"):
        assert main(["rank", str(p), "--labels", "1", "--k", "1", "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert not any(c in out for c in "\x1b\x07\t"), (fmt, out)
        assert ("\\x1b[2J\\x1b]0;owned\\x07x\\tq" in out) or ("\\u001b[2J" in out)   # table/csv escapes, JSON its own
    out_csv = tmp_path / "w.csv"
    assert main(["rank", str(p), "--labels", "1", "--k", "1", "--out", str(out_csv)]) == 0
    assert EVIL + "x\tq" in {r["feature"] for r in csv.DictReader(out_csv.open())}    # the file keeps the real name


@pytest.mark.parametrize("text, expect", [
    (f"@relation r\n@attribute a numeric\n@attribute l {{0,1}}\n@data\n1,0\n2,{EVIL}\n", "line 6"),
    (f"@relation r\n@{EVIL}attribute a numeric\n", "line 2: expected @attribute, unknown keyword"),
    ("@relation r\n@attribute a numeric\n@attribute l {0,1}\n@data\n" + ",".join(["1"] * 3000) + "\n", "line 5"),
])
def test_file_errors_are_escaped_and_short(capsys, tmp_path, text, expect):
    p = tmp_path / "bad.arff"
    p.write_text(text)
    assert main(["describe", str(p), "--labels", "1"]) == 2
    out, err = capsys.readouterr()
    lines = err.splitlines()
    assert out == "" and expect in lines[0] and lines[0].startswith("relieffml describe: error:")
    assert 1 <= len(lines) <= 2 and all(len(l) <= 602 for l in lines)
    assert not any(c in err for c in "\x1b\x07") and "Traceback" not in err


def test_usage_errors_are_one_line_and_a_pointer_to_help(capsys):
    assert main(["rank", "--k", "x" + EVIL]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert lines == ["relieffml rank: error: argument --k: invalid int value: 'x\\x1b[2J\\x1b]0;owned\\x07'",
                     "  see: relieffml rank --help"]


# --- replicate: a paper's experiment -----------------------------------------------------------------

@pytest.mark.parametrize("argv, message", [
    (["999"], "paper must be one of 000"),
    (["000", "--protocol", "quick"], "protocol must be one of full, reduced"),
    (["000", "--datasets", "emotions,flags"], "datasets must be among paper 000's"),   # flags: not one of the paper's
])
def test_replicate_bad_input(capsys, tmp_path, argv, message):
    assert main(["replicate", *argv, "--out", str(tmp_path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("relieffml replicate: error:") and message in err
    assert list(tmp_path.iterdir()) == []                       # nothing written before the arguments are checked


def test_replicate_runs_and_resumes(capsys, tmp_path):
    "genbase under the reduced protocol: 3 folds (tutorial 01's), 3 x 2 x 3 x 2 x 4 rows; a second run recomputes nothing."
    from relieffml.replicate import read_results
    argv = ["replicate", "000", "--protocol", "reduced", "--datasets", "genbase", "--out", str(tmp_path), "--jobs", "1"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    path = tmp_path / "000_reduced.csv.gz"
    assert out.strip() == f"paper 000 (reduced): 3 slices, {3 * 2 * 3 * 2 * 4} rows in {path}"
    first = path.read_bytes()
    rows = read_results(path)
    assert sorted(set(rows.fold)) == [0, 1, 2] and set(rows.n_folds) == {3} and set(rows.k) == {10}
    assert main(argv) == 0 and path.read_bytes() == first       # the same rows, the same seconds: nothing rerun
