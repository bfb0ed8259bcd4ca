"""Clear relieffml's numba cache when any module of the package changed since the cache was filled (tests/run.sh).

    python tools/fresh_kernel_cache.py [--package DIR] [--cache DIR]

numba stamps a cached kernel with its own source file only, while the kernel holds compiled copies of the kernels it
calls. A caller cached before an edit to a callee in another module (`knn_tile` in `pools.py` calling a path of
`shortcuts.py`) keeps the old callee until its own file changes, so a warm cache can test code that no longer
exists. A fresh install or a fresh clone starts empty; a developer's checkout does not. This script keeps one stamp
for the whole package, the SHA-256 of its modules, beside the cache files, and removes the package's numba cache
files (`*.nbi`, `*.nbc`) when the stamp differs: the next run compiles again, from the current code.

The cache is the package's `__pycache__` (numba's default), or `--cache` (a `NUMBA_CACHE_DIR`'s folder for the package).
"""
import argparse, hashlib, sys
from pathlib import Path

STAMP = "relieffml-sources.sha256"


def source_stamp(package: Path) -> str:
    "SHA-256 over the package's modules, each by name and content, in name order."
    h = hashlib.sha256()
    for p in sorted(package.glob("*.py")):
        h.update(p.name.encode() + b"\0" + p.read_bytes() + b"\0")
    return h.hexdigest()


def refresh(package: Path, cache: Path) -> int:
    """Remove numba's files in `cache` unless its stamp matches `package`'s modules; write the stamp. Returns how many
    files were removed."""
    stamp, mark = source_stamp(package), cache / STAMP
    if mark.is_file() and mark.read_text().strip() == stamp: return 0
    stale = [p for p in cache.glob("*") if p.suffix in (".nbi", ".nbc")] if cache.is_dir() else []
    for p in stale: p.unlink()
    cache.mkdir(parents=True, exist_ok=True)
    mark.write_text(stamp + "\n")
    return len(stale)


if __name__ == "__main__":
    root = Path(__file__).resolve().parents[1]
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", type=Path, default=root / "relieffml")
    ap.add_argument("--cache", type=Path, default=None, help="default: the package's __pycache__")
    a = ap.parse_args()
    n = refresh(a.package, a.cache or a.package / "__pycache__")
    if n: print(f"fresh_kernel_cache: the package changed since its numba cache was filled; {n} cache files removed",
                file=sys.stderr)
