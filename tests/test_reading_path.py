"""The book's reading path (issue 47, item 3): `_quarto.yml`'s sidebar lists every chapter and tutorial once, in
reading order (the previous/next links follow it), and each chapter's "Read first" line names only pages that
come before it on that path.
"""
import json, re
from pathlib import Path
import yaml

ROOT = Path(__file__).resolve().parents[1]
NO_LINE_YET = set()
NO_LINE_NEEDED = {"index.ipynb", "tutorials/00_quickstart.ipynb"}                    # where the path starts


def reading_path() -> list[str]:
    def flat(entries):
        for e in entries: yield from ([e] if isinstance(e, str) else flat(e["contents"]))
    return list(flat(yaml.safe_load((ROOT / "_quarto.yml").read_text())["website"]["sidebar"]["contents"]))


def test_sidebar_lists_every_page_once():
    path = reading_path()
    pages = {p.name for p in (ROOT / "nbs").glob("*.ipynb")} | {f"tutorials/{p.name}" for p in (ROOT / "tutorials").glob("*.ipynb")}
    assert len(path) == len(set(path)) and set(path) - {"api.ipynb"} == pages


def test_read_first_names_earlier_pages():
    path = reading_path()
    for page in path:
        if page in NO_LINE_NEEDED | NO_LINE_YET or page == "api.ipynb": continue
        folder = (ROOT / "nbs" / page) if not page.startswith("tutorials/") else (ROOT / page)
        cells = json.loads(folder.read_text())["cells"]
        line = next((("".join(c["source"])) for c in cells[:3] if "**Read first:**" in "".join(c["source"])), None)
        assert line, f"{page}: no 'Read first' line under the title"
        for target in re.findall(r"\]\(([^)#]+\.ipynb)", line):
            name = target.replace("../", "") if page.startswith("tutorials/") else target
            name = name if name in path else f"tutorials/{Path(name).name}"
            assert name in path and path.index(name) < path.index(page), f"{page} asks to read {target} first, which comes later"
