"""The offline docs build and the browser check, on small synthetic pages.

A tiny staged site (what nbdev's proc_nbs writes: a raw front-matter cell, `#|` options, show_doc's
Quarto link attributes, links to notebooks and to the published site, a figure) is built with
tools/build_docs.py and must pass tools/check_pages.py in Chromium; then one hand-written page per
defect must fail it with the matching message.
"""
import ast, base64, json, os, re, shutil, subprocess, sys, tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import build_docs, check_pages  # noqa: E402

PNG = base64.b64encode(bytes.fromhex(  # a 1x1 red PNG
    "89504e470d0a1a0a0000000d49484452000000010000000108020000009077"
    "53de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082")).decode()


def _missing():
    if not shutil.which("pandoc"): return "pandoc"
    if not (build_docs.MATHJAX / "MathJax.js").exists(): return "libjs-mathjax"
    try: check_pages.browser()
    except SystemExit: return "chromium"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    if (what := _missing()):
        if os.environ.get("CI", "").lower() == "true": pytest.fail(f"required in CI: {what}")
        pytest.skip(f"{what} not installed")
    tmp = tmp_path_factory.mktemp("docs")
    cache = tmp / "_proc"
    (cache / "tutorials").mkdir(parents=True)
    def nb(path, title, *cells):
        fm = {"cell_type": "raw", "metadata": {}, "source": f"---\ntitle: {title}\ndescription: 'Summary of {title}, with $x^2$.'\n---\n"}
        (cache / path).write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [fm, *cells]}))
    md = lambda s: {"cell_type": "markdown", "metadata": {}, "source": s}
    code = lambda s, *outs: {"cell_type": "code", "metadata": {}, "execution_count": None, "source": s, "outputs": list(outs)}
    result = lambda data: {"output_type": "execute_result", "execution_count": None, "metadata": {}, "data": data}
    stream = lambda t: {"output_type": "stream", "name": "stdout", "text": t}
    show_doc = ('---\n\n[source](https://github.com/relieffml/relieffml/blob/main/x.py#L1){target="_blank" '
                'style="float:right; font-size:smaller"}\n\n### helper_fn\n\n```python\ndef helper_fn(x)\n```\n\n*Doc.*\n\n'
                'x : int\n    The input, as SPEC §3 says (Conventions chapter, §3; see Conventions §3).')  # docstrings cite the conventions in plain text
    nb("index.ipynb", "Home", md("See [chapter A](a.ipynb), [B](b.ipynb), the [tutorial](tutorials/t.ipynb) "
                                 "and the [conventions](conventions.ipynb)."))
    nb("conventions.ipynb", "Conventions", md("## §3 Three {#sec-3}\n\nThe third convention."))
    nb("a.ipynb", "Chapter A",
       md("## Section A\n\nThe prior $P_l = \\frac{C_l + s}{N + 2s}$, see [B](b.ipynb#section-b), "
          "[B on the site](https://relieffml.github.io/relieffml/b.html), doi:10.1023/A:1025667309714 and `helper_fn` [below](#helper_fn).\n\n$$W_f = \\sum_i x_i \\tag{6}$$"),
       code("#| echo: false\nprint('only the output')", stream("only the output\n")),
       code("#| echo: false\n#| output: asis\nshow_doc(helper_fn)", result({"text/markdown": show_doc, "text/plain": "<x>"})),
       code("#| hide\nsecret_cell = 1"), code("#| include: false\nexcluded_cell = 2"),
       code("#| output: false\nsilenced_cell = 3", stream("silenced output\n")),
       code("progress_cell = 5", stream("\rsteps:   0%| | 0/2\rsteps:  50%|5| 1/2\rsteps: 100%|#| 2/2\n")),
       code("#| label: fig-dot\n#| fig-cap: 'A red dot; lower is $x^2$.'\nx = 1\nx", result({"text/plain": "1"}), {"output_type": "display_data", "metadata": {}, "data": {"image/png": PNG, "text/plain": "<Figure>"}}),
       md("As @fig-dot shows (and [@fig-dot])."),
       code("#| code-fold: true\nanswer_cell = 42\nprint(answer_cell)", stream("42\n")),
       md('::: {.callout-note collapse="true"}\n## Why 42\n\nThe discussion of the answer, with $y^2$.\n:::'),
       code("# NBVAL_CHECK_OUTPUT\nchecked_cell = 4\nchecked_cell", result({"text/plain": "4"})))
    nb("b.ipynb", "Chapter B", md("## Section B\n\nBack to [A](a.ipynb#section-a), where [`_private_helper`](a.ipynb#_private_helper) lives."),
       md("## relieffml\n\nThe package relieffml: `from relieffml.reliefml import ReliefFML`, relieffml, relieffml.\n\n"
          "### ReliefFML\n\nThe ranker.\n\n## Hamming loss\n\nThe share of wrong labels, HL in the papers' tables.\n\n"
          "## Holdout\n\nSplitting the data, HLX and hl are not the measure."))
    nb("tutorials/t.ipynb", "Tutorial", md("Uses [chapter A](../a.ipynb) and [B](https://relieffml.github.io/relieffml/b.html#section-b), "
                                           "as SPEC §3 says."))
    (cache / "_quarto.yml").write_text("website:\n  title: demo\n  navbar:\n    left:\n      - text: Tutorials\n        href: tutorials/t.ipynb\n"
                                       "  sidebar:\n    contents:\n      - index.ipynb\n      - section: Chapters\n        contents: [a.ipynb, b.ipynb, conventions.ipynb]\n"
                                       "      - section: Tutorials\n        contents: [tutorials/t.ipynb]\n")
    return build_docs.render_offline(cache, tmp / "_docs")


def test_build_renders_what_quarto_would(site):
    a = (site / "a.html").read_text()
    assert '<h1 class="title">Chapter A</h1>' in a and "Summary of Chapter A" in a
    assert "only the output" in a and "print(" not in a                 # echo: false
    assert "secret_cell" not in a and "excluded_cell" not in a          # hide, include: false
    assert "silenced_cell" in a and "silenced output" not in a          # output: false
    assert "steps: 100%" in a and "steps:   0%" not in a                # a progress bar: its last state only
    assert 'id="helper_fn"' in a and "show_doc" not in a and "target=" not in a.split("</nav>", 2)[-1].replace('target="_blank"', "")
    assert 'href="https://doi.org/10.1023/A:1025667309714"' in a
    assert 'href="b.html#section-b"' in a and 'href="b.html"' in a and ".ipynb" not in a
    assert '<a href="tutorials/t.html">Tutorial</a>' in a                # sidebar from _quarto.yml
    assert 'href="../a.html"' in (site / "tutorials" / "t.html").read_text()
    assert len(list(site.glob("a_files/*.png"))) == 1
    assert 'id="search-box"' in a and 'src="./search_index.js"' in a  # the search box, on every page
    assert 'data-root="../"' in (site / "tutorials" / "t.html").read_text()
    index = json.loads((site / "search_index.js").read_text().split("=", 1)[1].rstrip().rstrip(";"))
    assert {e["u"] for e in index} >= {"index.html", "a.html", "a.html#section-a", "b.html#section-b", "tutorials/t.html"}
    assert any("only the output" in e["t"] for e in index) and (site / "search.js").exists()
    assert "NBVAL" not in a and "checked_cell" in a                     # nbval's markers are not shown
    assert '<a href="./conventions.html#sec-3">Conventions §3</a>' in a  # a docstring's "SPEC §3" is linked
    assert '<a href="./conventions.html#sec-3">Conventions chapter, §3</a>' in a  # and "Conventions chapter, §3"
    assert a.count('<a href="./conventions.html#sec-3">Conventions §3</a>') >= 2  # and a plain "Conventions §3"
    assert 'href="../conventions.html#sec-3"' in (site / "tutorials" / "t.html").read_text()
    b = (site / "b.html").read_text()
    assert "<code>_private_helper</code>" in b and "#_private_helper" not in b   # no entry to land on: text, no link
    assert 'id="sec-3"' in (site / "conventions.html").read_text()     # {#id} heading attributes, as in Quarto


def test_build_honours_figure_and_fold_options(site):
    from bs4 import BeautifulSoup
    soup = BeautifulSoup((site / "a.html").read_text(), "html.parser")
    fig = soup.select_one("figure#fig-dot")                              # label: the figure's anchor
    assert fig and fig.select_one(".output img") and "x = 1" not in fig.get_text()
    cap = fig.figcaption.get_text(" ", strip=True)
    assert cap.startswith("Figure 1: A red dot; lower is") and fig.figcaption.select_one("span.math")  # caption's markdown parsed
    refs = soup.select("a.fig-ref")
    assert [(a["href"], a.get_text(" ", strip=True)) for a in refs] == [("#fig-dot", "Figure 1")] * 2
    assert "@fig" not in soup.main.get_text()
    det = soup.select_one("details.code-fold")                           # code-fold: code and output folded, closed
    assert det and not det.has_attr("open") and det.summary.get_text() == "Answer"
    assert "answer_cell = 42" in det.get_text() and det.select_one(".output").get_text().strip() == "42"
    call = soup.select_one("details.callout-fold")                       # a collapsed callout: folded prose
    assert call and not call.has_attr("open") and call.summary.get_text() == "Why 42" and "discussion of the answer" in call.get_text()


def test_search_shows_results(site):
    "Typing a query (the box filled from ?q=, which fires its input event) lists the sections that contain it."
    with tempfile.TemporaryDirectory() as profile:
        dom = subprocess.run([check_pages.browser(), *check_pages.FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                              (site / "tutorials" / "t.html").resolve().as_uri() + "?q=checked_cell"],
                             capture_output=True, text=True, timeout=90).stdout
    soup = check_pages.BeautifulSoup(dom, "html.parser")
    hits = [a["href"] for a in soup.select("#search-results li a")]
    assert hits and all(h.startswith("../a.html") for h in hits), hits
    assert soup.select_one("#search-results mark").get_text() == "checked_cell"


def test_built_pages_pass_the_browser_check(site):
    res = check_pages.check(site)
    assert set(res) == {"index.html", "a.html", "b.html", "conventions.html", "tutorials/t.html"}
    assert res == {p: [] for p in res}


DEFECTS = {
    "raw TeX in the text": "<p>The weight $W_f = \\sum_i x_i$ is untouched.</p>",
    "untypeset TeX": '<p>A prior <span class="math inline">\\(P_l\\)</span>.</p>',
    "visible cell option": "<pre><code>#| echo: false\nshow_doc(f)</code></pre>",
    "Quarto-only markup": '<p><a href="https://github.com/x">source</a>{target="_blank" style="float:right"}</p>',
    "link to a notebook": '<p><a href="a.ipynb">A</a></p>',
    "broken link": '<p><a href="nowhere.html">gone</a></p>',
    "link to the published site": '<p><a href="https://relieffml.github.io/relieffml/a.html">A</a></p>',
    "missing image": '<p><img src="a_files/nothing.png" alt="x"></p>',
    "missing anchor": '<p><a href="b.html#no-such-section">B</a></p>',
    "no search box": "<p>A page without the search box.</p>",
    "search index missing": "<p>The index script is not there.</p>",
    "'SPEC §' not inside a link": "<p>As SPEC §2 says.</p>",
    "visible test-harness marker": "<pre><code># NBVAL_CHECK_OUTPUT\nprint(1)</code></pre>",
    "code-fold cell rendered open": '<details open><summary>Answer</summary><div class="cell code" data-code_fold="true">'
                                    '<pre><code>print(42)</code></pre><div class="output stream stdout"><pre><code>42</code></pre></div></div></details>',
    "figure without a caption": f'<div class="cell code"><div class="output display_data"><p><img src="data:image/png;base64,{PNG}"></p></div></div>',
    "unresolved figure reference": "<p>See <strong>?@fig-nothing</strong>.</p>",
    "module path __main__ shown": "<pre><code>def pool_spec(pools, k:int)-&gt;__main__.PoolSpec:</code></pre>",
    "no Implementation section": "<h2>Kernel</h2><p>Internals.</p><h2>Worked example</h2><p>An example.</p><h2>References</h2>",
    "numpydoc section shown as a heading": "<h3>MLkNN</h3><p><em>ML-kNN.</em></p><h2 id='parameters'>Parameters</h2>"
                                           "<p>n_neighbors : int Number of neighbours. s : float Smoothing.</p>",
}
MORE_DEFECTS = {  # other shapes of the same defects
    "code-fold cell rendered open": '<div class="cell code" data-code_fold="true"><pre><code>print(42)</code></pre></div>',
    "figure without a caption": f'<figure><div class="output display_data"><p><img src="data:image/png;base64,{PNG}"></p></div>'
                                '<figcaption>Figure 1:</figcaption></figure>',
}
LAYER_ORDER = {  # chapter layering (issue 32): the implementation closes the chapter
    "Implementation section comes before the Worked example": "<h2>Kernel</h2><h2>Implementation</h2><h2>Worked example</h2>",
}
SEARCH = ('<input id="search-box" data-root="./"><div id="search-results" hidden></div>'
          '<script src="{index}" defer></script><script src="search.js" defer></script>')


def _page(body: str, expected: str = "") -> str:
    "A hand-written page with the search box (unless the defect is its absence) and `body` as its text."
    nav = "" if expected == "no search box" else SEARCH.format(index="no_index.js" if expected == "search index missing" else "search_index.js")
    return f"<!DOCTYPE html><html><head><title>x</title></head><body><nav>{nav}</nav><main>{body}</main></body></html>"


@pytest.mark.parametrize("expected", list(DEFECTS))
def test_check_fails_on_each_defect(site, expected, tmp_path):
    page = site / f"defect_{list(DEFECTS).index(expected)}.html"
    page.write_text(_page(DEFECTS[expected], expected))
    try: found = check_pages.check(site, [page])[page.name]
    finally: page.unlink()
    tex = ("MathJax did not run", "untypeset TeX", "raw TeX")  # one TeX defect may show in several ways
    assert any(expected in d for d in found), found
    assert all(expected in d or (expected.startswith(tex) and d.startswith(tex)) for d in found), found
    assert found[0].startswith(check_pages.WARN) == (expected == "missing anchor")


@pytest.mark.parametrize("expected", list(MORE_DEFECTS))
def test_check_fails_on_other_shapes(site, expected):
    page = site / "defect_more.html"
    page.write_text(_page(MORE_DEFECTS[expected], expected))
    try: found = check_pages.check(site, [page])[page.name]
    finally: page.unlink()
    assert found and all(expected in d for d in found), found


@pytest.mark.parametrize("expected", list(LAYER_ORDER))
def test_check_fails_on_implementation_before_example(site, expected):
    page = site / "defect_layer.html"
    page.write_text(_page(LAYER_ORDER[expected]))
    try: found = check_pages.check(site, [page])[page.name]
    finally: page.unlink()
    assert found and all(expected in d for d in found), found


def test_layering_passes_in_order():
    ok = "<h2>Kernel</h2><h2>Worked example</h2><h2>Implementation</h2><h2>Exercises</h2>"
    assert check_pages.unlayered(check_pages.BeautifulSoup(ok, "html.parser")) == []
    assert check_pages.unlayered(check_pages.BeautifulSoup("<h2>Motivation</h2>", "html.parser")) == []


def test_check_fails_on_an_index_that_misses_a_page(site):
    extra = site / "extra.html"
    extra.write_text(_page("<p>A chapter the index forgot.</p>"))
    try: found = check_pages.check(site, [site / "index.html"])["index.html"]
    finally: extra.unlink()
    assert found == ["index does not link: extra.html"], found


def test_api_reference_opens_with_the_front_door(tmp_path):
    "The API notebook: relieffml.__all__ first (grouped by use), then the other modules, the kernel modules last."
    import relieffml
    layers = ast.parse((ROOT / "tests" / "test_layers.py").read_text())     # its KERNELS, however it is wrapped
    kernels = next(ast.literal_eval(node.value) for node in layers.body if isinstance(node, ast.Assign)
                   and [getattr(t, "id", None) for t in node.targets] == ["KERNELS"]) + ("config", "fmath")
    assert set(build_docs.KERNEL_MODULES) == set(kernels)
    cells = [c["source"] for c in build_docs.api_notebook(tmp_path)["cells"][1:]]  # an empty cache: links to chapters
    heads = [c.split("\n", 1)[0] for c in cells]
    front, modules, last = (heads.index(h) for h in ("# The front door", "# Modules", "# Kernels (for contributors)"))
    assert front < modules < last
    listed = [m[1] for c in cells[front:modules] for m in re.finditer(r"^- \[`(\w+)`\]", c, re.M)]
    assert sorted(listed) == relieffml.__all__                           # each once, before any module's heading
    kernel_heads = [i for i, h in enumerate(heads) if h.startswith("## relieffml.") and h[13:] in kernels]
    assert len(kernel_heads) == len(kernels) and min(kernel_heads) > last
    assert "MultiLabelDataset.n_values`](00_data.ipynb) *property*" in cells[front + 1]


def test_numpydoc_sections_become_labelled_lists():
    # what show_doc prints for a numpydoc docstring, as the staged notebook holds it, and what the build makes of it
    md = ("*ML-kNN.*\n\nParameters\n----------\nn_neighbors : int, default=10\n    Number of\n    neighbours.\n"
          "feature_weights, metric\n    As in `MLkNN`.\n\nNotes\n-----\nFree text.")
    out = build_docs.numpydoc_markdown(md)
    assert "----------" not in out and "\n**Parameters**\n" in out and "\n**Notes**\n" in out
    assert "- **`n_neighbors`** (*int, default=10*): Number of neighbours." in out
    assert "- **`feature_weights, metric`**: As in `MLkNN`." in out and out.startswith("*ML-kNN.*")


def test_own_names_drop_module_paths():
    # show_doc's signature names classes with their modules; the staged page shows the names, the docstring is untouched
    md = ("```python\ndef constants(\n    prep:relieffml.distances.Prepared, Xn:NoneType=None\n)->__main__.PoolSpec:\n```\n\n"
          "*Blocks of `relieffml.config.CHUNK`; a_main__.x, if __main__ is run.*")
    want = md.replace("relieffml.distances.Prepared", "Prepared", 1).replace("__main__.PoolSpec", "PoolSpec")
    assert build_docs.own_names(md) == want


def test_pages_link_previous_and_next_along_the_sidebar(site):
    "Every page on the sidebar's reading path links its neighbours on it (Quarto's page-navigation), the ends one only."
    from bs4 import BeautifulSoup
    def nav(page):
        soup = BeautifulSoup((site / page).read_text(), "html.parser")
        return {a["rel"][0]: a["href"] for a in soup.select("nav.page-nav a[rel]")}
    assert nav("index.html") == {"next": "a.html"}
    assert nav("a.html") == {"prev": "index.html", "next": "b.html"}
    assert nav("conventions.html") == {"prev": "b.html", "next": "tutorials/t.html"}
    assert nav("tutorials/t.html") == {"prev": "../conventions.html"}
    assert "Next: Chapter B →" in (site / "a.html").read_text()


def test_check_fails_on_a_missing_or_wrong_page_link(site):
    b, kept = site / "b.html", (site / "b.html").read_text()
    try:
        b.write_text(kept.replace('rel="next" href="conventions.html"', 'rel="next" href="index.html"'))
        wrong = check_pages.check(site, [b])["b.html"]
        b.write_text(kept.replace('rel="prev"', 'rel="nothing"'))
        missing = check_pages.check(site, [b])["b.html"]
    finally: b.write_text(kept)
    assert wrong == ["next link goes to index.html, the reading path says conventions.html"], wrong
    assert missing == ["prev link goes to None, the reading path says a.html"], missing


@pytest.mark.parametrize("query,first", [("ReliefFML", "Chapter B › ReliefFML"), ("relieffml", "Chapter B › relieffml"),
                                         ("HL", "Chapter B › Hamming loss")])
def test_search_ranks_exact_names_and_knows_abbreviations(site, query, first):
    "An exact name, with its case, comes first (the class over the package); an abbreviation finds its measure."
    href, title = check_pages.search_first(site, query)
    assert title == first, (query, title, href)
