"""`from relieffml import …`: every front-door name is its module's own object, `import relieffml` alone loads no
estimator (nor numba), and an unknown name raises AttributeError naming it."""
import importlib
import subprocess
import sys
import pytest
import relieffml


@pytest.mark.parametrize("name", relieffml.__all__)
def test_front_door_name_is_the_modules_object(name):
    module = importlib.import_module(f"relieffml.{relieffml._MODULE_OF[name]}")
    assert name in module.__all__                       # a public name of its module, not a private helper
    assert getattr(relieffml, name) is getattr(module, name)
    assert name in dir(relieffml)


def test_front_door_covers_every_estimator():
    "Every scikit-learn estimator a module of the front door exports is at the front door too."
    from sklearn.base import BaseEstimator
    found = set()
    for m in relieffml._HOME:
        module = importlib.import_module(f"relieffml.{m}")
        found |= {n for n in module.__all__
                  if isinstance(obj := getattr(module, n), type) and issubclass(obj, BaseEstimator)}
    assert found <= set(relieffml.__all__), found - set(relieffml.__all__)


def test_import_is_light_and_unknown_names_fail():
    code = "import sys, relieffml; print(sorted(m for m in sys.modules if m.startswith(('relieffml.', 'numba'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]", out
    with pytest.raises(AttributeError, match="no attribute 'ReliefFm'"):
        relieffml.ReliefFm
    from relieffml import ReliefFML, load_dataset        # the spelling the README and the quick start use
    assert ReliefFML.__module__ == "relieffml.reliefml" and load_dataset.__module__ == "relieffml.data"
