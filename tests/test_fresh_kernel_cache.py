"""tools/fresh_kernel_cache.py: a warm numba cache never runs a callee's old code after the package changed.

numba stamps each cached kernel with its own file; a caller in one module keeps its compiled copy of a callee in
another after the callee's file is edited. The test builds that case in a two-module package, with numba's own
cache, and checks that the script removes the stale kernels (and only numba's files) when a module changed."""
import importlib.util, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("fresh_kernel_cache", ROOT / "tools" / "fresh_kernel_cache.py")
fkc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(fkc)


def _package(tmp_path, step):
    pkg = tmp_path / "pk"
    pkg.mkdir(exist_ok=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text(f"import numba\n@numba.njit(cache=True)\ndef callee(x): return x + {step}\n")
    (pkg / "b.py").write_text("import numba\nfrom .a import callee\n"
                              "@numba.njit(cache=True)\ndef caller(x): return callee(x) * 10\n")
    return pkg


def _caller(tmp_path):
    "caller(1) in a fresh process, with the package's __pycache__ as numba's cache."
    code = "from pk.b import caller; print(caller(1))"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)}
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         check=True)
    return int(out.stdout)


def test_an_edited_callee_is_compiled_again(tmp_path):
    pkg = _package(tmp_path, 1)
    assert fkc.refresh(pkg, pkg / "__pycache__") == 0                 # no cache yet: nothing to remove, stamp written
    assert _caller(tmp_path) == 20                                    # (1 + 1) · 10, now cached
    assert fkc.refresh(pkg, pkg / "__pycache__") == 0                 # unchanged: the cache stays
    assert _caller(tmp_path) == 20
    _package(tmp_path, 2)                                             # the callee's module edited, the caller's not
    assert fkc.refresh(pkg, pkg / "__pycache__") > 0
    assert _caller(tmp_path) == 30                                    # (1 + 2) · 10: the current code


def test_only_numbas_files_are_removed(tmp_path):
    pkg, cache = tmp_path / "p", tmp_path / "c"
    pkg.mkdir()
    (pkg / "m.py").write_text("x = 1\n")
    fkc.refresh(pkg, cache)
    for name in ("m.f-3.py311.nbi", "m.f-3.py311.1.nbc", "m.cpython-311.pyc"): (cache / name).write_text("")
    (pkg / "m.py").write_text("x = 2\n")
    assert fkc.refresh(pkg, cache) == 2
    assert sorted(p.name for p in cache.iterdir()) == ["m.cpython-311.pyc", fkc.STAMP]
    assert (cache / fkc.STAMP).read_text().strip() == fkc.source_stamp(pkg)


def test_the_stamp_covers_names_and_contents(tmp_path):
    (tmp_path / "a.py").write_text("1")
    s1 = fkc.source_stamp(tmp_path)
    (tmp_path / "a.py").rename(tmp_path / "b.py")
    s2 = fkc.source_stamp(tmp_path)
    (tmp_path / "b.py").write_text("2")
    assert len({s1, s2, fkc.source_stamp(tmp_path)}) == 3
