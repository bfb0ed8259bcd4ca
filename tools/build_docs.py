"""Build the documentation site: stage the notebooks with nbdev, then render them.

1. `nbdev.serve.proc_nbs` processes the chapters in nbs/ (show_doc, `#| hide`, front matter, doc links)
   into `_proc/`; the tutorials get the same nbdev processors into `_proc/tutorials/`, and the
   top-level `_quarto.yml` (site, sidebar sections, MathJax) is copied to `_proc/_quarto.yml`, and the API
   reference `_proc/api.ipynb` is generated from each module's `__all__` and `relieffml/_modidx.py` (every
   public name, its signature and docstring's first line, linked to its entry in its chapter): the front door
   (`relieffml.__all__`, grouped by use) first, then the other names module by module, the kernels last. The
   numpydoc sections show_doc prints ("Parameters" over dashes, a heading in markdown) become a bold
   label over a list of entries (`numpydoc_outputs`), for both renderers.
2. `--quarto` renders `_proc` with Quarto (`_proc/_docs/`), for a local comparison only: it is not published.
3. Without `--quarto` the same staged notebooks are rendered offline into `_docs/`, the published site
   (.github/workflows/deploy.yaml publishes it once tools/check_pages.py has passed on it), doing what
   Quarto would do with them: the front matter becomes the page
   title and summary; cell options are honoured (`include: false`, `echo: false`, `output: false`,
   `output: asis`; `#|` lines never shown; `label: fig-x` / `fig-cap` give the cell's images a numbered
   caption "Figure n: ..." and `@fig-x` becomes a link "Figure n"; `code-fold: true` puts the cell, code
   and output, in a closed `<details>` "Answer" — Quarto folds the code only; a collapsed callout
   `::: {.callout-note collapse="true"}` whose first line is `## Title` becomes a closed `<details>` "Title"); pandoc reads the notebook (so show_doc's Quarto link
   attributes are parsed, not printed) and writes HTML through tools/docs_template.html with a sidebar
   built from `_quarto.yml` and previous/next links along its order (the reading path; Quarto's
   `page-navigation: true`); links to notebooks or to the published site become relative `.html`
   links; tools/docs_filter.lua (also Quarto's filter) links a "SPEC §n" left in a docstring to the
   Conventions chapter and drops nbval's `# NBVAL_...` marker lines from the code shown; figures are extracted beside each page; MathJax is Debian's libjs-mathjax, copied into
   `_docs/mathjax/`, so equations typeset offline. Every page has a search box over all pages: the index
   is built here from the rendered pages (`_docs/search_index.js`, one entry per section, loaded as a
   script so it works from file://) and searched by tools/docs_search.js (`_docs/search.js`); Quarto's
   site has its own search (`navbar: search: true`). tools/check_pages.py then checks the pages in Chromium.

    python tools/build_docs.py            # stage and render offline into _docs/
    python tools/build_docs.py --stage    # stage only
    python tools/build_docs.py --quarto   # stage and render with Quarto (a local comparison, not published)
"""
import json, os, posixpath, re, shutil, subprocess, sys, tempfile
from html import escape as html_escape
from pathlib import Path
from urllib.parse import urlsplit

import yaml

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).with_name("docs_template.html")
MATHJAX = Path(os.environ.get("RELIEFFML_MATHJAX", "/usr/share/javascript/mathjax"))
PANDOC_IN = "ipynb+link_attributes+fenced_divs+bracketed_spans+gfm_auto_identifiers+header_attributes"
LUA_FILTER = Path(__file__).with_name("docs_filter.lua")


def stage() -> Path:
    "Process nbs/ with `proc_nbs` and tutorials/ with the same nbdev processors into `_proc/`."
    from nbdev.serve import proc_nbs
    from nbdev.serve_drv import main as proc_one
    from nbdev.processors import FilterDefaults
    os.chdir(ROOT)
    cache = proc_nbs(str(ROOT / "nbs"), n_workers=0)
    tut = cache / "tutorials"
    tut.mkdir(exist_ok=True)
    for nb in sorted((ROOT / "tutorials").glob("*.ipynb")): proc_one((nb, tut / nb.name, FilterDefaults))
    for nb in [*cache.glob("*.ipynb"), *tut.glob("*.ipynb")]: numpydoc_outputs(nb)
    shutil.copy(ROOT / "_quarto.yml", cache / "_quarto.yml")
    (cache / "api.ipynb").write_text(json.dumps(api_notebook(cache), ensure_ascii=False, indent=1))
    return cache


# ---- numpydoc sections in show_doc's output ----------------------------------------------------------

NUMPYDOC = {"Parameters", "Attributes", "Returns", "Yields", "Raises", "Warns", "Other Parameters", "See Also",
            "Notes", "References", "Examples"}


def numpydoc_markdown(md: str) -> str:
    """show_doc prints a numpydoc docstring as it is; as markdown, "Parameters" over a dashed line is a
    heading (in every page's table of contents) and the entries run together into one paragraph. Each
    section becomes a bold label and each entry `name : type` a list item "**`name`** (*type*): description"."""
    lines, out, i = md.split("\n"), [], 0
    while i < len(lines):
        head = lines[i].strip()
        if not (head in NUMPYDOC and i + 1 < len(lines) and re.fullmatch(r"-{3,}", lines[i + 1].strip())):
            out.append(lines[i]); i += 1; continue
        body, i = [], i + 2
        while i < len(lines) and not (lines[i].strip() in NUMPYDOC and i + 1 < len(lines)
                                      and re.fullmatch(r"-{3,}", lines[i + 1].strip())):
            body.append(lines[i]); i += 1
        out += ["", f"**{head}**", ""]
        if head in {"Notes", "References", "Examples"}:
            out += [l.strip() for l in body] + [""]; continue
        for l in body:
            if not l.strip(): continue
            if l[:1].isspace() and out and out[-1].startswith("- "): out[-1] += " " + l.strip(); continue
            name, _, typ = l.strip().partition(" : ")
            out.append(f"- **`{name.strip()}`**" + (f" (*{typ.strip()}*):" if typ.strip() else ":"))
        out.append("")
    return "\n".join(out)


def own_names(md: str) -> str:
    """show_doc's signature names a class with its module: `-> __main__.PoolSpec` for one of the chapter itself (the
    notebook runs as `__main__`), `prep:relieffml.distances.Prepared` for one imported. In the signature (the first
    code block) the reader sees the class name alone, as in the API reference; the docstring is left as written."""
    path = re.compile(r"\b(?:__main__|relieffml(?:\.\w+)*)\.(?=[A-Za-z_])")
    return re.sub(r"```.*?```", lambda m: path.sub("", m.group(0)), md, count=1, flags=re.S)


def numpydoc_outputs(path: Path):
    "Rewrite the numpydoc sections and `own_names` in the markdown outputs (show_doc's) of one staged notebook, in place."
    nb, changed = json.loads(path.read_text()), False
    for c in nb["cells"]:
        for o in c.get("outputs", []):
            md = o.get("data", {}).get("text/markdown")
            if md is None: continue
            text = "".join(md) if isinstance(md, list) else md
            new = numpydoc_markdown(own_names(text))
            if new != text: o["data"]["text/markdown"], changed = new, True
    if changed: path.write_text(json.dumps(nb, ensure_ascii=False, indent=1))


# ---- the API reference (generated at every build, so it lists what the package exports today) ------

def _signature(obj) -> str:
    "`(params)` of a callable (a numba dispatcher's Python function), module paths dropped from annotations."
    import inspect
    try: sig = str(inspect.signature(getattr(obj, "py_func", obj)))
    except (TypeError, ValueError): return ""
    sig = re.sub(r"\b(?:relieffml|numpy|typing|pandas|scipy|collections)(?:\.\w+)*\.(?=[A-Za-z_])", "", sig)
    sig = re.sub(r"(: |-> )'([^']*)'", r"\1\2", sig)  # annotations kept as strings (from __future__ import annotations)
    return re.sub(r"^\(self\)", "()", re.sub(r"^\(self, ", "(", sig))


def _summary(obj) -> str:
    "The first line of the docstring (a class's own docstring, not an inherited one), or ''."
    import inspect
    doc = inspect.getdoc(getattr(obj, "py_func", obj)) if callable(obj) or isinstance(obj, type) else None
    return doc.strip().splitlines()[0].strip() if doc and doc.strip() else ""


def _title(nb: Path) -> str:
    "A chapter's title: its first `# ` heading."
    for c in json.loads(nb.read_text())["cells"]:
        if c["cell_type"] == "markdown" and (t := "".join(c["source"]).strip()).startswith("# "): return t[2:].splitlines()[0].strip()
    return nb.stem


def public_members(cls) -> list[tuple[str, object, str]]:
    """(name, member, kind) of the public methods and properties a relieffml class defines or inherits from a
    relieffml base (scikit-learn's own `get_params` etc. are not repeated), kind "method" or "property"."""
    import inspect
    out = []
    for name in sorted(dir(cls)):
        if name.startswith("_"): continue
        owner = next((k for k in cls.__mro__ if name in vars(k)), None)
        if owner is None or not owner.__module__.startswith("relieffml"): continue
        m = inspect.getattr_static(cls, name)
        if isinstance(m, (property, __import__("functools").cached_property)): out.append((name, m, "property"))
        elif isinstance(m, (staticmethod, classmethod)) or inspect.isfunction(m): out.append((name, getattr(m, "__func__", m), "method"))
    return out


def class_members(cls, name: str, link) -> list[str]:
    "The API lines of a class's public methods (with their signature) and properties (marked, no call)."
    lines = []
    for meth, m, kind in public_members(cls):
        qual = f"{name}.{meth}"
        if kind == "property":
            fget = getattr(m, "fget", getattr(m, "func", None))
            lines.append(f"    - [`{qual}`]({link(qual)}) *property* — {_summary(fget) or '(no docstring)'}")
        else:
            lines.append(f"    - [`{qual}`]({link(qual)})`{_signature(m).replace('`', chr(39))}` — {_summary(m) or '(no docstring)'}")
    return lines


# The front door's names (`relieffml._HOME`, by module) grouped by what a user does with them, in this order; the
# kernel modules (tests/test_layers.py's KERNELS, with config and fmath) come last, apart, for contributors.
FRONT_DOOR = {"Data sets": ("data", "hierarchy"),
              "Feature rankers": ("relieff", "rrelieff", "infogain", "reliefml", "rfml", "mlrf", "hmc", "transform"),
              "Multi-label classifiers": ("lazy", "rfs"),
              "Metrics": ("metrics",),
              "Evaluation and statistics": ("evaluation",)}
KERNEL_MODULES = ("config", "fmath", "distances", "sparse", "scan", "shortcuts", "replay", "pools", "driver", "updates",
                  "neighbors", "distributed")


def api_entry(name: str, obj, link) -> list[str]:
    "The API lines of one public name: a callable or class with its signature (a class then its members), a constant its value."
    if callable(obj) or isinstance(obj, type):
        sig = _signature(obj).replace("`", "'")
        lines = [f"- [`{name}`]({link(name)})`{sig}` — {_summary(obj) or '(no docstring)'}"]
        return lines + (class_members(obj, name, link) if isinstance(obj, type) else [])
    val = repr(obj) if isinstance(obj, (bool, int, float, str, tuple, frozenset)) else ""
    val = val if 0 < len(val) <= 60 else type(obj).__name__
    return [f"- [`{name}`]({link(name)}) `= {val.replace('`', chr(39))}` — constant"]


def api_linker(mod: str, nb: str, cache: Path):
    "`link(qual)`: the chapter `nb`'s entry of `qual` (or of its class), else the chapter; `mod`'s `_modidx.py` entries."
    from relieffml._modidx import d as modidx
    syms = modidx["syms"].get(mod, {})
    staged = (cache / nb).read_text() if (cache / nb).exists() else ""
    entries = set(re.findall(r"#{2,4} ([A-Za-z_][\w.]*)", staged))  # show_doc headings of the staged chapter
    def link(qual):
        for q in (qual, qual.split(".")[0]):
            url = syms.get(f"{mod}.{q}", ("",))[0]
            if q in entries and "#" in url: return f"{nb}#{url.split('#', 1)[1]}"
        return nb
    return link


def api_notebook(cache: Path) -> dict:
    """A notebook listing every public name (each module's `__all__`, and the public methods nbdev indexed in
    `_modidx.py`) with its signature and summary line, linked to its entry in the chapter that defines it
    (a method without an entry of its own links to its class's; a name without any, to the chapter). Three parts:
    the front door (`relieffml.__all__`, grouped as `FRONT_DOOR`), the other names of the other modules, and the
    kernel modules (`KERNEL_MODULES`), each module in chapter order."""
    import importlib
    import relieffml
    chapters = {}  # module -> notebook that exports it
    for nb in sorted((ROOT / "nbs").glob("*.ipynb")):
        if m := re.search(r"#\|\s*default_exp\s+(\S+)", nb.read_text()): chapters.setdefault(f"relieffml.{m[1].strip(chr(34)+chr(92))}", nb.name)
    grouped = [m for mods in FRONT_DOOR.values() for m in mods]
    if sorted(grouped) != sorted(relieffml._HOME):
        raise ValueError(f"FRONT_DOOR groups {sorted(grouped)}, relieffml._HOME has {sorted(relieffml._HOME)}")
    links = {mod: api_linker(mod, nb, cache) for mod, nb in chapters.items()}
    md = ["Every public name of the package with its signature, the first line of its docstring, and a link to its "
          "entry in the chapter that derives it. Classes are followed by their public methods (called with their "
          "signature) and properties (*property*: read as an attribute, `ds.n_values`, not called). Constants link "
          "to their chapter. First the names a user needs, then the rest of each module, then the kernels."]
    md.append("# The front door\n\nThe data sets, estimators, metrics and evaluation helpers, grouped by what they are "
              "for. Each imports from the package itself, as `from relieffml import …` (e.g. "
              "`from relieffml import ReliefFML, load_dataset`).")
    for title, mods in FRONT_DOOR.items():
        lines = [line for mod in mods for name in relieffml._HOME[mod]
                 for line in api_entry(name, getattr(relieffml, name), links[f"relieffml.{mod}"])]
        md.append(f"## {title}\n\n" + "\n".join(lines))
    in_order = sorted(chapters.items(), key=lambda kv: kv[1])
    kernels = {f"relieffml.{m}" for m in KERNEL_MODULES}
    md.append("# Modules\n\nThe other public names of each module, those the front door does not list, "
              "module by module in chapter order.")
    for mod, nb in [(mod, nb) for mod, nb in in_order if mod not in kernels]:
        module, home = importlib.import_module(mod), relieffml._HOME.get(mod.split(".", 1)[1], [])
        head = f"## {mod}\n\nIn the chapter [{_title(ROOT / 'nbs' / nb)}]({nb})."
        if home: head += " In the front door: " + ", ".join(f"[`{n}`]({links[mod](n)})" for n in home) + "."
        rest = [n for n in getattr(module, "__all__", []) if n not in home]
        md.append(head + ("\n\n" + "\n".join(l for n in rest for l in api_entry(n, getattr(module, n), links[mod])) if rest else ""))
    md.append("# Kernels (for contributors)\n\nThese modules are the numba layer the estimators are built on: "
              "each is documented in its chapter, and none is needed to use the package.")
    for mod, nb in [(mod, nb) for mod, nb in in_order if mod in kernels]:
        module = importlib.import_module(mod)
        lines = [l for n in getattr(module, "__all__", []) for l in api_entry(n, getattr(module, n), links[mod])]
        md.append((f"## {mod}\n\nIn the chapter [{_title(ROOT / 'nbs' / nb)}]({nb}).\n\n" + "\n".join(lines)).rstrip())
    fm = ("---\ntitle: API reference\ndescription: Every public name of relieffml with its signature and what it "
          "does, linked to its entry in the chapter that derives it.\noutput-file: api.html\n---\n")
    cells = [{"cell_type": "raw", "metadata": {}, "source": fm}] + [
        {"cell_type": "markdown", "id": f"api-{i}", "metadata": {}, "source": c} for i, c in enumerate(md)]
    return {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": cells}


# ---- notebook preprocessing (before pandoc) -------------------------------------------------------

def front_matter(nb: dict) -> dict:
    "Pop the raw `---` YAML cell nbdev's FrontmatterProc writes; return its fields (empty if none)."
    for i, c in enumerate(nb["cells"]):
        src = "".join(c["source"]).strip()
        if c["cell_type"] == "raw" and src.startswith("---"):
            del nb["cells"][i]
            return yaml.safe_load(src.split("\n", 1)[-1].rsplit("---", 1)[0]) or {}
        if src and not src.startswith("<!--"): break
    return {}


def cell_options(src: str) -> tuple[dict, str]:
    "Split Quarto/nbdev `#|` option lines off the top of a cell: (options, remaining source)."
    lines, opts = src.splitlines(), {}
    while lines and lines[0].lstrip().startswith("#|"):
        opt = lines.pop(0).lstrip()[2:].strip()
        if ":" in opt: opts.update(yaml.safe_load(opt) or {})
        elif opt: opts.update({w: True for w in opt.split()})
    return opts, "\n".join(lines)


def _asis_markdown(out: dict) -> str:
    "What Quarto's `output: asis` puts into the page for one output: its markdown (or stream) text."
    data = out.get("data", {})
    txt = data.get("text/markdown", out.get("text", data.get("text/plain", "")))
    return "".join(txt)


def carriage_returns(text: str) -> str:
    "A stream as a terminal shows it: each line keeps what follows its last `\\r` (a progress bar's final state)."
    return "\n".join(line.rstrip("\r").rsplit("\r", 1)[-1] for line in text.split("\n"))


def apply_options(nb: dict):
    "Honour cell options as Quarto does; every cell left has no `#|` line and valid execution counts."
    cells = []
    for n, c in enumerate(nb["cells"], 1):
        if c["cell_type"] != "code": cells.append(c); continue
        opts, src = cell_options("".join(c["source"]))
        if opts.get("hide") or opts.get("include") is False: continue
        c["source"] = "" if opts.get("echo") is False else src
        fold = opts.get("code-fold")
        if fold in (True, "true", "show"):  # pandoc turns cell metadata into data- attributes of the cell's div
            c["metadata"]["code_fold"] = "show" if fold == "show" else "true"
            c["metadata"]["code_summary"] = str(opts.get("code-summary", "Answer"))
        caption = []
        if str(opts.get("label", "")).startswith("fig-") or opts.get("fig-cap"):
            c["metadata"]["fig_label"] = str(opts.get("label") or f"fig-{c.get('id', n)}")
            if opts.get("fig-cap"):  # a markdown cell right after, so pandoc parses the caption's markdown and math
                caption = [{"cell_type": "markdown", "id": f"{c.get('id', n)}-cap", "metadata": {"fig_caption": "true"},
                            "source": str(opts["fig-cap"])}]
        if opts.get("output") is False: c["outputs"] = []
        asis = [_asis_markdown(o) for o in c["outputs"]] if opts.get("output") == "asis" else []
        if asis: c["outputs"] = []
        if c["source"].strip() or c["outputs"]: cells += [c] + caption
        cells += [{"cell_type": "markdown", "id": f"{c.get('id', n)}-asis{i}", "metadata": {}, "source": md}
                  for i, md in enumerate(asis) if md.strip()]
        c["execution_count"] = n
        for o in c["outputs"]:
            if "execution_count" in o: o["execution_count"] = n
            if o.get("output_type") == "stream": o["text"] = carriage_returns("".join(o["text"]))
    keys = {"code": {"cell_type", "id", "metadata", "source", "outputs", "execution_count"}}
    for c in cells:  # drop the processing-only keys nbdev adds (pandoc refuses unknown cell keys)
        for k in set(c) - keys.get(c["cell_type"], {"cell_type", "id", "metadata", "source", "attachments"}): del c[k]
        c["metadata"].pop("execution", None)
    nb["cells"] = cells


# ---- links and sidebar ----------------------------------------------------------------------------

def resolve_link(url: str, src: str, here: str, pages: dict, base: str) -> str:
    "A link as it must read on page `here` (built from notebook `src`): notebooks and site URLs -> relative .html."
    parts = urlsplit(url)
    if parts.scheme == "doi": return "https://doi.org/" + url[4:]  # pandoc autolinks "doi:10..." as a URI
    if base and url.startswith(base): target = parts.path[len(urlsplit(base).path):] or "index.html"
    elif parts.scheme or parts.netloc or url.startswith(("#", "/")) or not parts.path: return url
    else:
        path = posixpath.normpath(posixpath.join(posixpath.dirname(src), parts.path))
        if path not in pages: return url
        target = pages[path]["out"]
    rel = posixpath.relpath(target, posixpath.dirname(here) or ".")
    return rel + (f"#{parts.fragment}" if parts.fragment else "")


DROP = object()
class Splice(list): "Elements that replace one element in its parent list."


def _walk(x, f):
    "Apply `f` to every pandoc AST element (dict with 't'), bottom-up; `f` returns an element, DROP or a Splice."
    if isinstance(x, list):
        out = []
        for y in (_walk(e, f) for e in x):
            if isinstance(y, Splice): out += y
            elif y is not DROP: out.append(y)
        return out
    if isinstance(x, dict):
        x = {k: _walk(v, f) for k, v in x.items()}
        return f(x) if "t" in x else x
    return x


def _symbol(inlines) -> str | None:
    "The Python name a show_doc heading (`### ReliefFML.fit`) documents, else None: its anchor is the name."
    if not all(i["t"] in ("Str", "Code") for i in inlines): return None
    text = "".join(i["c"] if i["t"] == "Str" else i["c"][1] for i in inlines)
    return text if re.fullmatch(r"[A-Za-z_][\w.]*", text) else None


def _attr(div, key):
    "A cell div's data attribute (pandoc writes cell metadata as JSON text: strings keep their quotes)."
    v = dict(div["c"][0][2]).get(key)
    return json.loads(v) if v and v[:1] in '"[{' else v


def _has_image(x) -> bool:
    if isinstance(x, dict): return x.get("t") == "Image" or _has_image(x.get("c"))
    return isinstance(x, list) and any(_has_image(y) for y in x)


def figures_and_folds(ast: dict) -> tuple[dict, dict]:
    """Quarto's figure and code-fold options, on the cells of one page (top-level divs of pandoc's ipynb AST).

    A cell with `#| label: fig-x` / `#| fig-cap:` has its image outputs wrapped in `<figure id="fig-x">` with
    the caption "Figure n: ..." (n counts the page's figures, as Quarto does); its caption cell (added by
    `apply_options`) is consumed. A cell with `#| code-fold: true` is put, code and outputs, inside a closed
    `<details>` ("show": open). Returns the AST and {label: n} for the `@fig-x` references."""
    raw = lambda html: {"t": "RawBlock", "c": ["html", html]}
    blocks, out, figs = ast["blocks"], [], {}
    for i, b in enumerate(blocks):
        if b["t"] != "Div": out.append(b); continue
        classes = b["c"][0][1]
        if "markdown" in classes and _attr(b, "fig_caption"): continue  # consumed by the figure before it
        if "code" not in classes: out.append(b); continue
        if (label := _attr(b, "fig_label")) and _has_image(b["c"][1]):
            n = figs[label] = len(figs) + 1
            nxt = blocks[i + 1] if i + 1 < len(blocks) else None
            cap = []
            if nxt and nxt["t"] == "Div" and _attr(nxt, "fig_caption"):
                cap = [y for blk in nxt["c"][1] if blk["t"] in ("Para", "Plain") for y in blk["c"]]
            images = [o for o in b["c"][1] if o["t"] == "Div" and _has_image(o)]
            first = b["c"][1].index(images[0])
            rest = [o for o in b["c"][1] if o not in images]
            figure = [raw(f'<figure id="{label}" class="cell-figure">'), *images, raw("<figcaption>"),
                      {"t": "Plain", "c": [{"t": "Str", "c": "Figure"}, {"t": "Space"}, {"t": "Str", "c": f"{n}:"},
                                           *([{"t": "Space"}] + cap if cap else [])]}, raw("</figcaption></figure>")]
            b["c"][1] = rest[:first] + figure + rest[first:]
        if (fold := _attr(b, "code_fold")):
            summary = html_escape(str(_attr(b, "code_summary") or "Answer"))
            out += [raw(f'<details class="code-fold"{" open" if fold == "show" else ""}><summary>{summary}</summary>'), b, raw("</details>")]
        else: out.append(b)
    ast["blocks"] = out
    return ast, figs


FIG_REF = re.compile(r"^(.*?)\[?@(fig-[\w-]*\w)\]?(.*)$", re.S)


def _fig_refs(el, figs: dict):
    "A Str holding `@fig-x` (or `[@fig-x]`) -> a link reading 'Figure n'; an unknown label -> '?@fig-x' (as Quarto)."
    m = FIG_REF.match(el["c"])
    if not m: return el
    pre, label, post = m.groups()
    if label in figs:
        mid = {"t": "Link", "c": [["", ["fig-ref"], []], [{"t": "Str", "c": "Figure"}, {"t": "Space"}, {"t": "Str", "c": str(figs[label])}], [f"#{label}", ""]]}
    else:
        print(f"warning: unresolved cross-reference @{label}", file=sys.stderr)
        mid = {"t": "Strong", "c": [{"t": "Str", "c": f"?@{label}"}]}
    tail = _fig_refs({"t": "Str", "c": post}, figs) if post else None
    return Splice(([{"t": "Str", "c": pre}] if pre else []) + [mid] + ([] if tail is None else tail if isinstance(tail, Splice) else [tail]))


def _text(inlines) -> str:
    "The plain text of pandoc inlines (for a summary line)."
    out = []
    for i in inlines:
        if i["t"] in ("Str", "Code", "Math"): out.append(i["c"] if i["t"] == "Str" else i["c"][1])
        elif i["t"] in ("Space", "SoftBreak"): out.append(" ")
        elif isinstance(i.get("c"), list): out.append(_text([x for x in i["c"] if isinstance(x, dict)] or (i["c"][-1] if isinstance(i["c"][-1], list) else [])))
    return "".join(out)


def _folded_callout(el):
    "Quarto's collapsed callout (`::: {.callout-note collapse=\"true\"}` with a `## Title` first): a closed <details>."
    body = el["c"][1]
    title = "Details"
    if body and body[0]["t"] == "Header": title, body = _text(body[0]["c"][2]), body[1:]
    raw = lambda html: {"t": "RawBlock", "c": ["html", html]}
    return Splice([raw(f'<details class="callout-fold"><summary>{html_escape(title)}</summary>'), *body, raw("</details>")])


def fix_ast(ast: dict, link, figs: dict = {}) -> dict:
    """Resolve Link/Image targets with `link`; drop the empty code blocks `echo: false` leaves; unwrap the
    markdown-cell divs, so their headings are the page's sections (and enter the table of contents)."""
    def f(el):
        if el["t"] in ("Link", "Image"): el["c"][2][0] = link(el["c"][2][0])
        if el["t"] == "CodeBlock" and not el["c"][1].strip(): return DROP
        if el["t"] == "Div" and {"cell", "markdown"} <= set(el["c"][0][1]): return Splice(el["c"][1])
        if el["t"] == "Header" and (name := _symbol(el["c"][2])): el["c"][1][0] = name.lower()
        if el["t"] == "Str" and "@fig-" in el["c"]: return _fig_refs(el, figs)
        if el["t"] == "Div" and any(c.startswith("callout") for c in el["c"][0][1]) and dict(el["c"][0][2]).get("collapse") == "true":
            return _folded_callout(el)
        return el
    return _walk(ast, f)


def sidebar(site: dict, pages: dict, here: str) -> str:
    "The navigation: the `_quarto.yml` navbar links and sidebar sections, as HTML for page `here`."
    from html import escape
    def a(nb, text=None):
        p = pages.get(nb)
        if p is None: raise ValueError(f"_quarto.yml: sidebar entry {nb!r} is not a staged notebook")
        cur = ' aria-current="page"' if p["out"] == here else ""
        return f'<a href="{posixpath.relpath(p["out"], posixpath.dirname(here) or ".")}"{cur}>{escape(text or p.get("title", nb))}</a>'
    def items(entries):
        out = []
        for e in entries:
            if isinstance(e, str): out.append(f"<li>{a(e)}</li>")
            else: out.append(f'<li class="section"><span>{escape(e["section"])}</span><ul>{items(e["contents"])}</ul></li>')
        return "".join(out)
    web = site.get("website", {})
    top = "".join(a(e["href"], e["text"]) for e in web.get("navbar", {}).get("left", []))
    up = posixpath.relpath(".", posixpath.dirname(here) or ".")
    search = (f'<div class="search"><input id="search-box" type="search" placeholder="Search the book" aria-label="Search" '
              f'autocomplete="off" data-root="{up}/"><div id="search-results" hidden></div></div>'
              f'<script src="{up}/{SEARCH_INDEX}" defer></script><script src="{up}/{SEARCH_JS}" defer></script>')
    return (f'<div class="site-title">{a("index.ipynb", web.get("title"))}</div>{search}<div class="navbar">{top}</div>'
            f'<ul>{items(web.get("sidebar", {}).get("contents", []))}</ul>')


def reading_order(site: dict) -> list[str]:
    "The sidebar's pages in order, sections flattened: the reading path the previous/next links follow."
    def flat(entries):
        for e in entries:
            if isinstance(e, str): yield e
            else: yield from flat(e["contents"])
    return list(dict.fromkeys(flat(site.get("website", {}).get("sidebar", {}).get("contents", []))))


def page_links(site: dict, pages: dict, here: str) -> str:
    "Previous/next links of page `here` along `reading_order`, as Quarto's `page-navigation: true` gives."
    from html import escape
    order = [nb for nb in reading_order(site) if nb in pages]
    at = [n for n, nb in enumerate(order) if pages[nb]["out"] == here]
    if not at: return ""
    def a(nb, rel, arrow):
        href = posixpath.relpath(pages[nb]["out"], posixpath.dirname(here) or ".")
        text = escape(pages[nb].get("title", nb))
        return f'<a rel="{rel}" href="{href}">{arrow.format(text)}</a>'
    prev = a(order[at[0] - 1], "prev", "← Previous: {}") if at[0] > 0 else "<span></span>"
    nxt = a(order[at[0] + 1], "next", "Next: {} →") if at[0] + 1 < len(order) else "<span></span>"
    return f'<nav class="page-nav">{prev}{nxt}</nav>'


# ---- search ---------------------------------------------------------------------------------------

SEARCH_INDEX, SEARCH_JS = "search_index.js", "search.js"


def search_entries(site: Path, pages: list[str]) -> list[dict]:
    """One entry per section (the text from one h1-h3 heading to the next) of each page: page title, section
    title, URL relative to the site root (with the section's anchor) and the visible text, code included."""
    from bs4 import BeautifulSoup, Comment, NavigableString
    out = []
    for rel in pages:
        soup = BeautifulSoup((site / rel).read_text(), "html.parser")
        main = soup.find("main")
        if main is None: continue
        for el in main.select("nav#TOC, script, style"): el.decompose()
        title = soup.find("h1", class_="title")
        page_title = title.get_text(" ", strip=True) if title else rel
        sec = {"p": page_title, "s": page_title, "u": rel, "t": []}
        secs = [sec]
        for el in main.descendants:
            if getattr(el, "name", None) in ("h2", "h3") and el.get("id"):
                sec = {"p": page_title, "s": el.get_text(" ", strip=True), "u": f"{rel}#{el['id']}", "t": []}
                secs.append(sec)
            elif isinstance(el, NavigableString) and not isinstance(el, Comment) and not any(getattr(q, "name", None) in ("h1", "h2", "h3") for q in el.parents):
                sec["t"].append(str(el))
        for s in secs:
            s["t"] = re.sub(r"\s+", " ", "".join(s["t"])).strip()
            if s["t"] or s is secs[0]: out.append(s)
    return out


def write_search(site: Path, pages: list[str]):
    "`search_index.js` (the index as a script, so it loads from file:// too) and the client, tools/docs_search.js."
    entries = search_entries(site, pages)
    (site / SEARCH_INDEX).write_text("window.RELIEFFML_SEARCH = " + json.dumps(entries, ensure_ascii=False, separators=(",", ":")) + ";\n")
    shutil.copy(Path(__file__).with_name("docs_search.js"), site / SEARCH_JS)


# ---- rendering ------------------------------------------------------------------------------------

def _mathjax_ignore(d, names):
    "Copy only what the TeX input and SVG output need (no web fonts: SVG works from file:// too)."
    keep = {"jax/output": {"SVG"}, "jax/output/SVG/fonts": {"TeX"}, "localization": {"en"},
            "config": {"TeX-AMS_SVG.js", "local"}}
    rel = Path(d).relative_to(MATHJAX).as_posix()
    if rel == ".": return {"unpacked", "test", "fonts"} & set(names)
    return set(names) - keep[rel] if rel in keep else set()


def render_page(src: str, nb: dict, pages: dict, site: dict, out: Path, base: str):
    "One staged notebook to `out/<its output file>` with pandoc and tools/docs_template.html."
    here, p = pages[src]["out"], pages[src]
    dest = out / here
    dest.parent.mkdir(parents=True, exist_ok=True)
    def run(args, inp):
        r = subprocess.run(["pandoc", *args], input=inp, cwd=dest.parent, capture_output=True, text=True)
        if r.returncode: raise RuntimeError(f"pandoc failed on {src}: {r.stderr.strip()}")
        return r.stdout
    up = posixpath.relpath(".", posixpath.dirname(here) or ".")
    with tempfile.TemporaryDirectory() as tmp:
        meta, nav, after = Path(tmp) / "meta.yaml", Path(tmp) / "nav.html", Path(tmp) / "after.html"
        # title and summary are read as markdown with the notebook's extensions (so `$x$` is math there too)
        meta.write_text(yaml.safe_dump({k: p[k] for k in ("title", "description") if p.get(k)}, allow_unicode=True))
        nav.write_text(sidebar(site, pages, here))
        after.write_text(page_links(site, pages, here))
        ast = json.loads(run(["-f", PANDOC_IN, "-t", "json", f"--metadata-file={meta}",
                              f"--extract-media={Path(here).stem}_files", "-"], json.dumps(nb)))
        ast, figs = figures_and_folds(ast)
        ast = fix_ast(ast, lambda u: resolve_link(u, src, here, pages, base), figs)
        run(["-f", "json", "-t", "html5", "--standalone", f"--template={TEMPLATE}", "--toc", "--toc-depth=3",
             f"--lua-filter={LUA_FILTER}", f"--metadata=site-root:{up}",
             f"--mathjax={up}/mathjax/MathJax.js?config=TeX-AMS_SVG", f"--include-before-body={nav}",
             f"--include-after-body={after}", "--wrap=none", "-o", dest.name], json.dumps(ast))


def render_offline(cache: Path, out: Path = ROOT / "_docs") -> Path:
    "Every staged notebook (chapters, then tutorials) to HTML in `out`, with MathJax copied beside them."
    from nbdev.config import get_config
    cfg = get_config()
    base = f"{cfg.doc_host.rstrip('/')}{cfg.doc_baseurl.rstrip('/')}/"
    if not (MATHJAX / "MathJax.js").exists():
        raise SystemExit(f"MathJax not found at {MATHJAX}: install Debian's libjs-mathjax or set RELIEFFML_MATHJAX")
    site = yaml.safe_load((cache / "_quarto.yml").read_text())
    pages, nbs = {}, {}
    for path in sorted(cache.glob("*.ipynb")) + sorted((cache / "tutorials").glob("*.ipynb")):
        src, nb = path.relative_to(cache).as_posix(), json.loads(path.read_text())
        fm = front_matter(nb)
        apply_options(nb)
        out_file = posixpath.join(posixpath.dirname(src), fm.get("output-file") or path.stem + ".html")
        pages[src], nbs[src] = dict(fm, out=out_file), nb
    if out.exists(): shutil.rmtree(out)
    shutil.copytree(MATHJAX, out / "mathjax", ignore=_mathjax_ignore)
    for src, nb in nbs.items(): render_page(src, nb, pages, site, out, base)
    write_search(out, [p["out"] for p in pages.values()])
    return out


def render_quarto(cache: Path) -> Path:
    if not shutil.which("quarto"): raise SystemExit("--quarto: quarto is not on PATH")
    subprocess.run(["quarto", "render", str(cache)], check=True)
    return cache / "_docs"


if __name__ == "__main__":
    cache = stage()
    if "--stage" in sys.argv: print(f"staged in {cache}")
    else:
        out = render_quarto(cache) if "--quarto" in sys.argv else render_offline(cache)
        pages = [p for p in out.rglob("*.html") if "mathjax" not in p.relative_to(out).parts]
        print(f"{len(pages)} pages in {out}")
