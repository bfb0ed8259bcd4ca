"""Build the documentation site: stage the notebooks for Quarto, then render.

1. `nbdev.serve.proc_nbs` processes the chapters in nbs/ (show_doc, `#| hide`, ...) into `_proc/`;
2. the tutorials are copied to `_proc/tutorials/` and the top-level `_quarto.yml` (the site: sidebar
   sections, MathJax) to `_proc/_quarto.yml`;
3. with Quarto on PATH, `quarto render _proc` writes the site to `_proc/_docs/`; without it (Quarto
   cannot be installed everywhere), every staged notebook is rendered to standalone HTML with
   nbconvert (MathJax included) into `_docs/`, so the pages can still be checked.

    python tools/build_docs.py            # stage and render
    python tools/build_docs.py --stage    # stage only (what a Quarto machine renders)
"""
import shutil, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def stage() -> Path:
    from nbdev.serve import proc_nbs
    cache = proc_nbs(str(ROOT / "nbs"), n_workers=0)
    tut = cache / "tutorials"
    tut.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "tutorials").glob("*.ipynb")): shutil.copy(nb, tut / nb.name)
    shutil.copy(ROOT / "_quarto.yml", cache / "_quarto.yml")
    return cache


CELL_KEYS = {"code": {"cell_type", "id", "metadata", "source", "outputs", "execution_count"},
             "markdown": {"cell_type", "id", "metadata", "source", "attachments"},
             "raw": {"cell_type", "id", "metadata", "source", "attachments"}}


def _html(nb_path: Path, dest: Path):
    "One notebook to standalone HTML with nbconvert, dropping the processing-only keys nbdev adds to cells."
    import json, nbformat
    from nbconvert import HTMLExporter
    raw = json.loads(nb_path.read_text())
    for c in raw["cells"]:
        for k in set(c) - CELL_KEYS.get(c["cell_type"], set(c)): del c[k]
        c.get("metadata", {}).pop("execution", None)
    body, _ = HTMLExporter().from_notebook_node(nbformat.reads(json.dumps(raw), as_version=4))
    dest.mkdir(parents=True, exist_ok=True)
    (dest / (nb_path.stem + ".html")).write_text(body)


def render(cache: Path) -> Path:
    if shutil.which("quarto"):
        subprocess.run(["quarto", "render", str(cache)], check=True)
        return cache / "_docs"
    out = ROOT / "_docs"
    for nb in sorted(cache.glob("*.ipynb")) + sorted((cache / "tutorials").glob("*.ipynb")):
        _html(nb, out / nb.relative_to(cache).parent)
    return out


if __name__ == "__main__":
    cache = stage()
    if "--stage" in sys.argv: print(f"staged in {cache}")
    else:
        out = render(cache)
        print(f"{len(list(out.rglob('*.html')))} pages in {out}")
