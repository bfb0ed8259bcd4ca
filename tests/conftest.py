"""Shared fixtures: where the Mulan data sets and Weka are, and a clear skip when they are absent.

In CI (`CI=true`) a skip of a `data` or `weka` test is turned into a failure by `tests/run.sh`, so the
references always run there; on a user's fresh clone without them the tests skip with the reason.
"""
import os, shutil
from pathlib import Path
import pytest

ROOT = Path(__file__).resolve().parents[1]
WEKA_JAR = Path(os.environ.get("WEKA_JAR", "/usr/share/java/weka.jar"))


def shared_data_home():
    "The Mulan data folder: env RELIEFFML_DATA, else ../shared/datasets beside the project, else None."
    env = os.environ.get("RELIEFFML_DATA")
    for cand in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "datasets"]:
        if (cand / "emotions.arff").exists(): return cand
    return None


def _skip_or_fail(reason):
    "Skip on a user's machine; in CI (CI=true) the references must run, so fail instead."
    if os.environ.get("CI", "").lower() == "true": pytest.fail(f"required in CI: {reason}")
    pytest.skip(reason)


@pytest.fixture(scope="session")
def data_home():
    home = shared_data_home()
    if home is None:
        _skip_or_fail("shared Mulan data sets not found: set RELIEFFML_DATA or put ../shared/datasets beside the project")
    return home


@pytest.fixture(scope="session")
def weka_jar():
    if not WEKA_JAR.exists() or shutil.which("java") is None:
        _skip_or_fail(f"Weka not found at {WEKA_JAR} (apt-get install weka) or no java on PATH")
    return WEKA_JAR
