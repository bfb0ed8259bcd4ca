"""Reading and run time of each page, for the index's contents table.

Reading time: the words a reader sees (markdown cells, and code cells that are shown: not `#| hide`,
`include: false` or `echo: false`), whitespace-separated, at 200 words a minute, rounded up to 5 minutes.
Run time: the seconds nbval spent executing each notebook, summed over its cells, from a JUnit XML report

    python -m pytest --nbval-lax -q nbs tutorials --junitxml=/tmp/nbval.xml
    python tools/docs_times.py --junit /tmp/nbval.xml [--extra tutorials/03_hmc_replication.ipynb=412 ...]

`--extra NB=SECONDS` adds a notebook timed another way (e.g. `tools/nbtool.py run` under `time`).
Prints one line per notebook: path, words, reading minutes, run seconds.
"""
import argparse, json, math, re, xml.etree.ElementTree as ET
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WPM = 200


def shown_words(nb_path: Path) -> int:
    "Words of the markdown and of the shown code of one notebook (option lines and outputs excluded)."
    n = 0
    for c in json.loads(nb_path.read_text())["cells"]:
        src = "".join(c["source"])
        if c["cell_type"] == "code":
            opts = "\n".join(l for l in src.splitlines() if l.lstrip().startswith("#|"))
            if re.search(r"#\|\s*(hide\b|include:\s*false|echo:\s*false|export\b|exporti\b)", opts): continue
            src = "\n".join(l for l in src.splitlines() if not l.lstrip().startswith("#|") and "NBVAL_" not in l)
        elif c["cell_type"] != "markdown": continue
        n += len(src.split())
    return n


def reading_minutes(words: int) -> int:
    return max(5, 5 * math.ceil(words / WPM / 5))


def run_seconds(junit: Path) -> dict:
    "Seconds per notebook (relative path) from nbval's JUnit report: the sum of its cells' times."
    out = defaultdict(float)
    for tc in ET.parse(junit).getroot().iter("testcase"):
        m = re.match(r"(nbs|tutorials)[./]([\w.-]+\.ipynb)$", tc.get("file") or tc.get("classname", ""))  # "nbs.00_data.ipynb"
        if m: out[f"{m[1]}/{m[2]}"] += float(tc.get("time", 0))
    return dict(out)


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--junit", type=Path)
    ap.add_argument("--extra", nargs="*", default=[])
    a = ap.parse_args()
    runs = run_seconds(a.junit) if a.junit else {}
    for e in a.extra:
        nb, sec = e.split("="); runs[nb] = float(sec)
    for nb in sorted(ROOT.glob("nbs/*.ipynb")) + sorted(ROOT.glob("tutorials/*.ipynb")):
        rel = nb.relative_to(ROOT).as_posix()
        w = shown_words(nb)
        print(f"{rel:45s} {w:6d} words {reading_minutes(w):4d} min  run {runs.get(rel, float('nan')):7.0f} s")
