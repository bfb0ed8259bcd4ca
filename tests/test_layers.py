"""The package's layers, read from its source (AST), so that they stay as the chapters describe them.

config (numba options, random_state, progress; fmath: same-bits exp and log) → data (container, readers, Hierarchy, generator;
fetch: the registry and the verified downloader, which data imports and which imports nothing of data) →
kernels (distances, sparse rows, neighbours: Weka's scan, its shortcuts, pool selection, replaying everyone's scan,
the block driver, the update engine) →
estimator base → rankers → learners → evaluation → replication (a paper's experiment, run and stored) → CLI. A module
imports only from its own layer or below (in-function imports included), the graph has no cycle, no module imports
another layer's `_private` name, and no function takes more than 12 parameters.

Inside the kernel layer, modules may import each other's `_private` names (issue 45, item 3): the kernel helpers the
search and update chapters share (`_scan_pool`, `_exactify`, `_query_form`, …) stay private to the layer, out of the
API reference, instead of becoming public to cross a module boundary. Across layers the rule is unchanged.
"""
import ast
from pathlib import Path
import pytest

PKG = Path(__file__).resolve().parents[1] / "relieffml"
KERNELS = ("distances", "sparse", "scan", "shortcuts", "replay", "pools", "driver", "updates", "neighbors",
           "distributed")
LAYERS = [("config", "fmath"), ("data", "hierarchy", "fetch"), KERNELS, ("base",),
          ("relieff", "rrelieff", "reliefml", "rfml", "hmc", "mlrf", "infogain", "transform"),
          ("lazy", "rfs"), ("metrics", "evaluation"), ("replicate",), ("cli",)]
LEVEL = {m: i for i, layer in enumerate(LAYERS) for m in layer}
MODULES = sorted(p.stem for p in PKG.glob("*.py") if p.stem not in ("__init__", "_modidx"))


def imports(mod):
    "(imported module, imported names, line) of every relieffml import in `mod`, wherever it stands."
    for node in ast.walk(ast.parse((PKG / f"{mod}.py").read_text())):
        if isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").startswith("relieffml")):
            target = (node.module or "").removeprefix("relieffml").lstrip(".")
            if target: yield target, [a.name for a in node.names], node.lineno
            else: yield from ((a.name, [], node.lineno) for a in node.names)   # from . import x
        elif isinstance(node, ast.Import):
            yield from ((a.name.removeprefix("relieffml."), [], node.lineno) for a in node.names if a.name.startswith("relieffml."))


def test_every_module_has_a_layer():
    assert set(MODULES) <= set(LEVEL), f"modules without a layer: {sorted(set(MODULES) - set(LEVEL))}"


@pytest.mark.parametrize("mod", MODULES)
def test_imports_point_down_and_are_public(mod):
    for target, names, line in imports(mod):
        assert LEVEL[target] <= LEVEL[mod], f"{mod}.py:{line} imports {target}, a layer above it"
        private = [n for n in names if n.startswith("_")]
        if mod in KERNELS and target in KERNELS: continue          # private to the kernel layer, shared inside it
        assert not private, f"{mod}.py:{line} imports private names {private} from {target}"


def test_no_import_cycle():
    graph = {m: {t for t, _, _ in imports(m) if t != m} for m in MODULES}
    state = {}
    def visit(m, path):
        if state.get(m) == "done": return
        assert state.get(m) != "open", f"import cycle: {' -> '.join(path + [m])}"
        state[m] = "open"
        for t in graph[m]: visit(t, path + [m])
        state[m] = "done"
    for m in MODULES: visit(m, [])


# Named exceptions, each with its reason (the rule is for kernels and estimators' internals).
MANY_PARAMETERS = {("evaluation", "evaluate"): "the user-facing evaluation protocol: every option a keyword with a default"}


@pytest.mark.parametrize("mod", MODULES)
def test_at_most_twelve_parameters(mod):
    for node in ast.walk(ast.parse((PKG / f"{mod}.py").read_text())):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            n = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs) + bool(a.vararg) + bool(a.kwarg)
            n -= bool(a.args) and a.args[0].arg in ("self", "cls")
            if (mod, node.name) in MANY_PARAMETERS: continue
            assert n <= 12, f"{mod}.py:{node.lineno} {node.name} takes {n} parameters"


def test_the_rules_can_fail(tmp_path, monkeypatch):
    "A module importing upwards or a private name is caught."
    (tmp_path / "distances.py").write_text("from .lazy import MLkNN\nfrom .config import _LISTENERS\n")
    monkeypatch.setattr(__import__(__name__), "PKG", tmp_path)
    found = list(imports("distances"))
    assert [(t, LEVEL[t] <= LEVEL["distances"]) for t, _, _ in found] == [("lazy", False), ("config", True)]
    assert [n for _, names, _ in found for n in names if n.startswith("_")] == ["_LISTENERS"]


def test_base_reaches_dask_through_the_data_layer():
    "base imports nothing of distributed (issue 45, item 4): a dask input finds its module by `data.backend_of`."
    assert "distributed" not in {t for t, _, _ in imports("base")}
    assert "distributed" not in (PKG / "base.py").read_text()
    assert "'dask': 'relieffml.distributed'" in (PKG / "data.py").read_text()      # a name, imported on first use


def test_in_memory_fit_imports_no_back_end():
    "A fit on NumPy arrays imports neither dask nor relieffml.distributed: the back end is imported when needed."
    import subprocess, sys
    code = ("import sys, numpy as np\nfrom relieffml.relieff import ReliefF\n"
            "ReliefF(n_samples=5).fit(np.random.default_rng(0).random((20, 3)), np.arange(20) % 2)\n"
            "print(sorted(m for m in sys.modules if m == 'dask' or m == 'relieffml.distributed'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_a_registered_back_end_is_found_by_its_package(monkeypatch):
    "backend_of: the package of type(X) names the module; that module's `handles` decides; unknown types give None."
    import sys, types, fractions, numpy as np
    from relieffml import data
    monkeypatch.setattr(data, "_BACKENDS", dict(data._BACKENDS))       # the registration below is undone after
    toy = types.ModuleType("toy_backend")
    toy.handles = lambda X: X > 0
    monkeypatch.setitem(sys.modules, "toy_backend", toy)
    data.register_backend("fractions", "toy_backend")
    assert data.backend_of(fractions.Fraction(1, 2)) is toy
    assert data.backend_of(fractions.Fraction(-1, 2)) is None                # the package matches, the module declines
    assert data.backend_of(np.zeros((2, 2))) is None and data.backend_of(object()) is None
