"""Shared fixtures: where the raw Mulan / Clus HMC files and Weka are, and a clear skip when Weka is absent.

The data tests compare the loader with independent readers of the *raw* files (scipy, pandas, hand-written
readers), so `data_home` is a folder of plain `.arff`/`.xml` files: env RELIEFFML_DATA, else
../shared/datasets beside the project, else the copies bundled with the package, decompressed once per
session. So the data tests run on a fresh clone too. In CI (`CI=true`) a skip of a `weka` test is turned
into a failure, so the references always run there; on a user's machine without Weka they skip with the reason.
"""
import gzip, os, shutil
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


def unpack_bundled(dest:Path) -> Path:
    "Decompress the data sets bundled with relieffml into `dest` (same layout, `.gz` dropped)."
    from relieffml.data import BUNDLED_DATA
    for gz in BUNDLED_DATA.rglob("*.gz"):
        out = dest / gz.relative_to(BUNDLED_DATA).with_suffix("")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(gzip.decompress(gz.read_bytes()))
    return dest


@pytest.fixture(scope="session")
def data_home(tmp_path_factory):
    return shared_data_home() or unpack_bundled(tmp_path_factory.mktemp("bundled_data"))


@pytest.fixture(scope="session")
def weka_jar():
    if not WEKA_JAR.exists() or shutil.which("java") is None:
        _skip_or_fail(f"Weka not found at {WEKA_JAR} (apt-get install weka) or no java on PATH")
    return WEKA_JAR
