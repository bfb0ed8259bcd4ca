"""Write README.md from nbs/index.ipynb (what `nbdev-readme` does, without needing Quarto).

Markdown cells are copied; code cells become ```python blocks followed by their text output. Cells
starting with `#| hide` are skipped. `python tools/make_readme.py --check` exits 1 if README.md is stale.
"""
import json, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def render(nb_path=ROOT / "nbs" / "index.ipynb") -> str:
    nb = json.loads(Path(nb_path).read_text())
    parts = []
    for c in nb["cells"]:
        src = "".join(c["source"]).strip()
        if not src or src.startswith("#| hide"): continue
        if c["cell_type"] == "markdown":
            parts.append(src)
            continue
        parts.append(f"```python\n{src}\n```")
        outs = []
        for o in c.get("outputs", []):
            text = o.get("text") or o.get("data", {}).get("text/plain")
            if text: outs.append("".join(text).rstrip())
        if outs: parts.append("    " + "\n".join(outs).replace("\n", "\n    "))
    return "<!-- Generated from nbs/index.ipynb by tools/make_readme.py: edit the notebook, not this file. -->\n\n" + "\n\n".join(parts) + "\n"


if __name__ == "__main__":
    text = render()
    readme = ROOT / "README.md"
    if "--check" in sys.argv:
        if not readme.exists() or readme.read_text() != text:
            sys.exit("README.md is out of date with nbs/index.ipynb: run python tools/make_readme.py")
    else:
        readme.write_text(text)
