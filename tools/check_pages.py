"""Check the built documentation pages as a reader sees them: each page is opened in headless Chromium,
MathJax runs, and the DOM after it is inspected for

* raw TeX left untypeset (a math span MathJax did not replace, TeX delimiters or commands in the prose,
  a MathJax/TeX error),
* a visible `#|` cell-option line,
* Quarto-only attribute text (`{target="_blank" ...}`, `{.class}`, `{#id}`, `:::` fences),
* a broken internal link (a relative link to a missing file or anchor, a link to a notebook, or a link
  to the published site that should have been made relative),
* a missing image (a relative `src` with no file, or one the browser could not load),
* no search box, or a search index that did not load (tools/docs_search.js marks `<body data-search="N">`),
* "SPEC §n" text outside a link (every citation of the specification links to the Conventions chapter),
* a visible test-harness marker (`# NBVAL_CHECK_OUTPUT`, `NBVAL_IGNORE_OUTPUT`, `NBVAL_SKIP`, ...),
* an exercise answer shown open: a cell marked `#| code-fold: true` (tools/build_docs.py keeps the option as
  `data-code_fold="true"` on the cell) that is not inside a closed `<details>`,
* a figure without a caption: an image in a cell's output that is not inside a `<figure>` whose
  `<figcaption>` reads "Figure n: ..." (cells with `#| label: fig-...` and `#| fig-cap:`), or an
  `@fig-...` cross-reference left unresolved ("?@fig-..." shown),
* on the site's index.html: a page of the site (chapter, tutorial, reference) that its text does not link,
* a chapter with a "Kernel(s)" section whose "Implementation" section (kernel internals, equivalence sweeps,
  timings) is missing or does not come after its "Worked example" (issue 32: theory → reference → estimator →
  example, implementation last),
* previous/next links missing: every page on the sidebar's reading path has a `nav.page-nav` with a
  "previous" link (but the first) and a "next" link (but the last), following the sidebar's order,
* on the API page (api.html): a property listed with a call signature, or a method without one (the entry of
  `MultiLabelDataset.n_values` must read "property": calling it raises TypeError),
* the search (on the whole site, once): a query that is exactly a section's name (an API entry such as
  `ReliefFML`) whose first result is not that section, and a measure's abbreviation (HL, OE, RL, AP, ...)
  whose first result is not a section named by the measure's full name,
* a `__main__.` module path shown (show_doc's name for a class of the chapter itself, `-> __main__.PoolSpec`),
* a numpydoc section printed as a heading ("Parameters" over a dashed line is a markdown heading): an
  API entry's parameter list run together into one paragraph, and "Parameters" in the table of contents.

    python tools/check_pages.py _docs                                   # every page; exit 1 on a defect
    python tools/check_pages.py _docs --screenshots DIR index.html ...  # also save screenshots
"""
import argparse, os, re, shutil, subprocess, sys, tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import unquote, urlsplit

from bs4 import BeautifulSoup

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--virtual-time-budget=20000"]
SITE_URL = "https://relieffml.github.io/relieffml/"
NOT_SHOWN = ("script", "style", "svg", "title", "head", "noscript")
TEX = re.compile(r"\\[()\[\]]|\$\$|\$[^$\s][^$\n]*\$|\\(frac|sum|prod|mathrm|mathcal|mathbf|begin|end|left|right|"
                 r"sqrt|cdot|qquad|tag|lvert|rvert|alpha|beta|lambda|delta|Delta|in|le|ge|neq|approx)\b")
NUMPYDOC = {"Parameters", "Attributes", "Returns", "Yields", "Raises", "Warns", "Other Parameters", "See Also"}
WARN = "warning: "  # reported, not failed on (unless --strict): e.g. nbdev's links to helpers with no show_doc
OPTION_LINE = re.compile(r"(^|\n)[ \t]*#\|")
SPEC_REF = re.compile(r"SPEC\s*§")
NBVAL = re.compile(r"\bNBVAL_[A-Z_]+\b")
FIG_CAPTION = re.compile(r"Figure \d+:\s*\S")
FIG_UNRESOLVED = re.compile(r"\?@fig-[\w-]+")
QUARTO_ATTR = re.compile(r"\{(?:[.#][A-Za-z][\w-]*|[A-Za-z][\w-]*=)[^{}\n]*\}|(^|\n)[ \t]*:::")


def browser() -> str:
    for name in [os.environ.get("CHROME", ""), "chromium", "chromium-browser", "google-chrome"]:
        if name and shutil.which(name): return shutil.which(name)
    raise SystemExit("no Chromium found: install Debian's chromium or set CHROME")


def chrome(page: Path, *args: str, timeout: int = 90) -> str:
    "Run headless Chromium on `page` with a fresh profile; return its stdout."
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([browser(), *FLAGS, f"--user-data-dir={profile}", *args, page.resolve().as_uri()],
                           capture_output=True, text=True, timeout=timeout)
    if r.returncode: raise RuntimeError(f"chromium failed on {page}: {r.stderr[-500:]}")
    return r.stdout


def visible_text(soup, skip_code=False) -> str:
    "The text a reader sees: no scripts, styles or MathJax output (and no code, if asked)."
    soup = BeautifulSoup(str(soup), "html.parser")
    drop = list(NOT_SHOWN) + (["pre", "code"] if skip_code else [])
    for el in soup.find_all(drop): el.decompose()
    for el in soup.select('[class^="MathJax"], [class*=" MathJax"]'): el.decompose()
    return soup.get_text()


def _ids(page: Path, cache={}) -> set:
    if page not in cache: cache[page] = {el["id"] for el in BeautifulSoup(page.read_text(), "html.parser").find_all(id=True)}
    return cache[page]


def defects(page: Path, dom: str, site: Path) -> list[str]:
    "Everything wrong with one rendered page (`dom`: Chromium's DOM after load and MathJax)."
    soup, out = BeautifulSoup(dom, "html.parser"), []
    body = soup.body or soup
    maths = body.select("span.math")
    if maths and body.get("data-mathjax") != "done": out.append("MathJax did not run")
    for m in maths:
        if not m.select('[class^="MathJax"]'): out.append(f"untypeset TeX: {m.get_text()[:60]!r}")
    if body.select(".MathJax_Error, .merror, [class*=noError], [data-mjx-error]"): out.append("MathJax reported a TeX error")
    prose = visible_text(body, skip_code=True)
    for m in TEX.finditer(prose): out.append(f"raw TeX in the text: {prose[max(0, m.start()-20):m.end()+20]!r}")
    text = visible_text(body)
    for m in OPTION_LINE.finditer(text): out.append(f"visible cell option: {text[m.start():m.start()+60].strip()!r}")
    for m in QUARTO_ATTR.finditer(prose): out.append(f"Quarto-only markup shown: {m.group(0)[:60]!r}")
    for a in body.find_all("a", href=True):
        href = a["href"]
        if href.startswith(SITE_URL): out.append(f"link to the published site, not the page beside it: {href}"); continue
        u = urlsplit(href)
        if u.scheme or u.netloc: continue
        target = (page.parent / unquote(u.path)).resolve() if u.path else page.resolve()
        if u.path.endswith(".ipynb"): out.append(f"link to a notebook: {href}")
        elif not target.is_file() or site.resolve() not in target.parents: out.append(f"broken link: {href}")
        elif u.fragment and u.fragment not in _ids(target): out.append(f"{WARN}missing anchor (the page exists): {href}")
    for img in body.find_all("img"):
        src = img.get("src", "")
        u = urlsplit(src)
        if not src: out.append("image without src")
        elif img.get("data-broken"): out.append(f"image did not load: {src[:80]}")
        elif not (u.scheme or u.netloc) and not (page.parent / unquote(u.path)).is_file(): out.append(f"missing image: {src}")
    for h in body.find_all(re.compile(r"^h[1-6]$")):
        if h.get_text(" ", strip=True) in NUMPYDOC: out.append(f"numpydoc section shown as a heading: {h.get_text(strip=True)!r}")
    if not body.select_one("input#search-box"): out.append("no search box (input#search-box)")
    elif body.get("data-search", "0") in ("", "0"): out.append("search index missing: search_index.js did not load")
    for t in body.find_all(string=SPEC_REF):
        if t.find_parent("a") is None and t.find_parent(list(NOT_SHOWN)) is None:
            out.append(f"'SPEC §' not inside a link: {t.strip()[:60]!r}")
    for m in NBVAL.finditer(text): out.append(f"visible test-harness marker: {m.group(0)}")
    for m in re.finditer(r"__main__\.\w+", text): out.append(f"module path __main__ shown: {m.group(0)}")
    for cell in body.select('[data-code_fold="true"]'):
        det = cell.find_parent("details")
        if det is None or det.has_attr("open"):
            shown = visible_text(cell).strip().splitlines()
            out.append(f"code-fold cell rendered open: {(shown[0] if shown else '')[:60]!r}")
    for img in body.select('[class~="output"] img'):
        fig = img.find_parent("figure")
        cap = fig.find("figcaption") if fig else None
        if cap is None or not FIG_CAPTION.match(cap.get_text(" ", strip=True)):
            out.append(f"figure without a caption ('Figure n: ...'): {img.get('src', '')[:60]}")
    for m in FIG_UNRESOLVED.finditer(prose): out.append(f"unresolved figure reference: {m.group(0)}")
    if page.resolve() == (site / "index.html").resolve(): out += unlinked_pages(body, page, site)
    out += page_nav(body, page, site)
    if page.name == "api.html": out += api_kinds(body)
    out += unlayered(body)
    return list(dict.fromkeys(out))


def reading_path(site: Path) -> list[Path]:
    "The pages in the order the sidebar lists them (links of #sidebar's sections, navbar excluded), from index.html."
    index = site / "index.html"
    soup = BeautifulSoup(index.read_text(), "html.parser")
    links = [a["href"] for a in soup.select("#sidebar > ul a[href]")]
    return list(dict.fromkeys((index.parent / unquote(urlsplit(h).path)).resolve() for h in links))


def page_nav(body, page: Path, site: Path, cache={}) -> list[str]:
    "Previous/next links of a page on the reading path: present, and pointing at its neighbours on it."
    if site not in cache: cache[site] = reading_path(site) if (site / "index.html").exists() else []
    order, me = cache[site], page.resolve()
    if me not in order: return []
    n, out = order.index(me), []
    for rel, want in (("prev", order[n - 1] if n > 0 else None), ("next", order[n + 1] if n + 1 < len(order) else None)):
        a = body.select_one(f'nav.page-nav a[rel="{rel}"]')
        got = (page.parent / unquote(urlsplit(a["href"]).path)).resolve() if a else None
        if got != want: out.append(f"{rel} link goes to {got and got.relative_to(site.resolve())}, the reading path says "
                                   f"{want and want.relative_to(site.resolve())}")
    return out


API_ENTRY = re.compile(r"^([A-Za-z_]\w*)\.([A-Za-z_]\w*)(\(.*)?$")


def api_kinds(body) -> list[str]:
    "API entries `Class.name` against the class: a property says *property* and shows no call, a method shows its call."
    import importlib, inspect
    out = []
    for h2 in body.find_all("h2"):
        mod = h2.get_text(" ", strip=True)
        try: module = importlib.import_module(mod)
        except ImportError: continue
        ul = h2.find_next("ul")
        for li in (ul.find_all("li") if ul else []):
            code = li.find("code")
            m = API_ENTRY.match(code.get_text(strip=True)) if code else None
            if not m or not isinstance(getattr(module, m[1], None), type): continue
            attr = inspect.getattr_static(getattr(module, m[1]), m[2], None)
            text = li.get_text(" ", strip=True).split(" — ")[0]
            is_prop = isinstance(attr, (property, __import__("functools").cached_property))
            if is_prop and ("(" in text or "property" not in text):
                out.append(f"API: {m[1]}.{m[2]} is a property, listed as a method: {text[:60]!r}")
            elif not is_prop and callable(attr) and "(" not in text:
                out.append(f"API: {m[1]}.{m[2]} is a method, listed without its call: {text[:60]!r}")
    return out


SEARCH_ABBREVIATIONS = {"HL": ("hamming loss", "hamming_loss"), "OE": ("one-error", "one_error"), "RL": ("ranking loss", "ranking_loss"),
                        "AP": ("average precision", "average_precision"), "Acc": ("accuracy",), "Cov": ("coverage",)}


def search_first(site: Path, query: str) -> tuple[str, str]:
    "The first result of the site's search for `query` (typed into index.html's box): (href, title)."
    from urllib.parse import quote
    with tempfile.TemporaryDirectory() as profile:
        r = subprocess.run([browser(), *FLAGS, f"--user-data-dir={profile}", "--dump-dom",
                            (site / "index.html").resolve().as_uri() + "?q=" + quote(query)], capture_output=True, text=True, timeout=90)
    a = BeautifulSoup(r.stdout, "html.parser").select_one("#search-results li a")
    return (a["href"], a.get_text(" ", strip=True)) if a else ("", "")


def search_defects(site: Path) -> list[str]:
    "Exact names first, abbreviations known: checked for the sections this site has (from its search index)."
    import json
    idx = site / "search_index.js"
    if not idx.exists(): return []
    entries = json.loads(idx.read_text().split("=", 1)[1].rstrip().rstrip(";"))
    names = {e["s"] for e in entries if e["s"] != e["p"]}
    out = []
    for q in [q for q in ("ReliefFML", "MLkNN", "hamming_loss") if q in names]:
        href, title = search_first(site, q)
        if title.split(" › ")[-1] != q: out.append(f"search {q!r}: first result {title!r} ({href}), not the entry {q}")
    for abbr, names in SEARCH_ABBREVIATIONS.items():
        if not any(n in e["s"].lower() for e in entries for n in names): continue
        href, title = search_first(site, abbr)
        if not any(n in title.split(" › ")[-1].lower() for n in names):
            out.append(f"search {abbr!r}: first result {title!r} ({href}), not a section on {names[0]}")
    return out


def unlayered(body) -> list[str]:
    "A chapter with a Kernel section must close with its implementation: an Implementation section after the Worked example."
    h2 = [h.get_text(" ", strip=True) for h in body.find_all("h2")]
    if not {"Kernel", "Kernels"} & set(h2): return []
    if "Implementation" not in h2: return ["no Implementation section (a chapter with a Kernel section puts its internals last)"]
    if "Worked example" in h2 and h2.index("Implementation") < h2.index("Worked example"):
        return ["the Implementation section comes before the Worked example"]
    return []


def site_pages(site: Path) -> list[Path]:
    "The HTML pages of a built site (MathJax's own files excluded)."
    return sorted(p for p in Path(site).rglob("*.html") if "mathjax" not in p.relative_to(site).parts)


def unlinked_pages(body, page: Path, site: Path) -> list[str]:
    "The pages of the site that the index page's text (its <main>, not the sidebar) does not link to."
    main, linked = body.find("main") or body, set()
    for a in main.find_all("a", href=True):
        u = urlsplit(a["href"])
        if not (u.scheme or u.netloc) and u.path: linked.add((page.parent / unquote(u.path)).resolve())
    return [f"index does not link: {p.relative_to(site).as_posix()}" for p in site_pages(site)
            if p.resolve() != page.resolve() and p.resolve() not in linked]


def check(site: Path, pages=None, workers: int = 2) -> dict:
    "Map each page (relative path) to its defects."
    site = Path(site)
    pages = pages or site_pages(site)
    def one(p): return p.relative_to(site).as_posix(), defects(p, chrome(p, "--dump-dom"), site)
    with ThreadPoolExecutor(workers) as ex: res = dict(ex.map(one, pages))
    if "index.html" in res and len(pages) == len(site_pages(site)): res["index.html"] += search_defects(site)   # the whole site
    return res


def screenshot(page: Path, png: Path, size="1280,1600"):
    png.parent.mkdir(parents=True, exist_ok=True)
    chrome(page, f"--window-size={size}", f"--screenshot={png.resolve()}")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("site", type=Path)
    ap.add_argument("--screenshots", type=Path, help="directory for screenshots of the pages named after it")
    ap.add_argument("shots", nargs="*", help="pages (relative to site) to screenshot")
    ap.add_argument("--strict", action="store_true", help="fail on warnings (missing anchors) too")
    a = ap.parse_intermixed_args()
    if not a.site.is_dir(): raise SystemExit(f"site: {a.site} is not a directory (run tools/build_docs.py first)")
    if a.shots and not a.screenshots: raise SystemExit("shots: pages to screenshot need --screenshots DIR")
    for s in a.shots: screenshot(a.site / s, a.screenshots / (Path(s).stem + ".png"))
    res = check(a.site)
    bad = {p: [d for d in ds if a.strict or not d.startswith(WARN)] for p, ds in res.items()}
    for p, ds in res.items():
        if not ds: continue
        print(f"{'FAIL' if bad[p] else 'ok  '} {p}")
        for d in ds[:15]: print(f"   {d}")
        if len(ds) > 15: print(f"   ... and {len(ds) - 15} more")
    print(f"{sum(not d for d in bad.values())}/{len(res)} pages pass")
    sys.exit(1 if any(bad.values()) else 0)
