"""Write README.md from nbs/index.ipynb (what `nbdev-readme` does, without needing Quarto).

Markdown cells are copied; code cells become ```python blocks followed by their text output. Cells
starting with `#| hide` are skipped. `python tools/make_readme.py --check` exits 1 if README.md is stale.

The index links the other pages as the site sees them (`03_relieff.ipynb`, `tutorials/00_quickstart.ipynb`,
relative to the staged `nbs/`), which on GitHub, where README.md sits at the top of the repository, would
be broken links. Here they point at the notebooks in the repository (`nbs/03_relieff.ipynb`,
`tutorials/00_quickstart.ipynb`; GitHub renders them), and a page generated at build time (the API
reference) at the published site. The offline pages keep their relative links (tools/check_pages.py
forbids links to the published site there).
"""
import json, re, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GENERATED = {"api.ipynb": "api.html"}  # pages built by tools/build_docs.py, with no notebook in the repository


def site_url() -> str:
    "The published site, from _quarto.yml (`website: site-url`)."
    import yaml
    return yaml.safe_load((ROOT / "_quarto.yml").read_text())["website"]["site-url"].rstrip("/") + "/"


def github_link(url: str) -> str:
    "A link of the index as it must read in README.md on GitHub."
    if re.match(r"[a-z][\w+.-]*:|#|/", url): return url          # absolute, anchor or rooted: unchanged
    path, _, frag = url.partition("#")
    if path in GENERATED: return site_url() + GENERATED[path] + (f"#{frag}" if frag else "")
    if not path.endswith(".ipynb"): return url
    return (path if path.startswith("tutorials/") else f"nbs/{path}") + (f"#{frag}" if frag else "")


def relink(md: str) -> str:
    "Rewrite the targets of markdown links `[text](target)` with `github_link` (code spans left alone)."
    parts = re.split(r"(`[^`]*`)", md)
    return "".join(p if p.startswith("`") else re.sub(r"\]\(([^)\s]+)\)", lambda m: f"]({github_link(m[1])})", p) for p in parts)


def render(nb_path=ROOT / "nbs" / "index.ipynb") -> str:
    nb = json.loads(Path(nb_path).read_text())
    parts = []
    for c in nb["cells"]:
        src = "".join(c["source"]).strip()
        if not src or src.startswith("#| hide"): continue
        if c["cell_type"] == "markdown":
            parts.append(relink(src))
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
