#!/usr/bin/env python
"""Author notebooks as percent-format text and build them (a dev tool; not part of the package).

  python tools/nbtool.py nb2py nbs/NN_name.ipynb /tmp/NN_name.py     # extract the editable text form
  python tools/nbtool.py py2nb /tmp/NN_name.py nbs/NN_name.ipynb --run  # rebuild, execute, clean
  python tools/nbtool.py run NB.ipynb [NB2 ...]                      # execute in place (cwd = its folder)

Then `nbdev-export`. Run with the project's Python (.venv/bin/python) so nbdev-clean is found beside it.

Text form: cells start with a line `# %%` (code) or `# %% [markdown]` (markdown; every line of the cell
starts with `# `, which is stripped). Cell ids are deterministic (hash of notebook name and cell index).
"""
import hashlib, json, os, sys
from pathlib import Path


def _cells_from_py(text):
    cells, cur, kind = [], [], None
    for line in text.splitlines():
        if line.startswith('# %%'):
            if kind is not None: cells.append((kind, cur))
            kind, cur = ('markdown' if '[markdown]' in line else 'code'), []
            continue
        if kind is None:
            if line.strip(): kind, cur = 'code', [line]
            continue
        if kind == 'markdown':
            cur.append(line[2:] if line.startswith('# ') else line[1:] if line.startswith('#') else line)
        else: cur.append(line)
    if kind is not None: cells.append((kind, cur))
    out = []
    for kind, lines in cells:
        while lines and not lines[-1].strip(): lines.pop()
        while lines and not lines[0].strip(): lines.pop(0)
        out.append((kind, '\n'.join(lines)))
    return out


def _src(s):
    lines = s.split('\n')
    return [l + '\n' for l in lines[:-1]] + [lines[-1]] if s else []


def py2nb(src, dest, run=False):
    src, dest = Path(src), Path(dest)
    name = dest.stem
    old = {}                                     # a cell whose source is unchanged keeps its id (and export marker)
    if dest.exists():
        for c in json.loads(dest.read_text())['cells']: old.setdefault(''.join(c['source']), []).append(c['id'])
    cells, used = [], set()
    for i, (kind, s) in enumerate(_cells_from_py(src.read_text())):
        cid = next((c for c in old.get(s, []) if c not in used), None) or hashlib.sha1(f'{name}-{i}'.encode()).hexdigest()[:8]
        while cid in used: cid = hashlib.sha1(cid.encode()).hexdigest()[:8]
        used.add(cid)
        c = dict(cell_type=kind, id=cid, metadata={}, source=_src(s))
        if kind == 'code': c.update(execution_count=None, outputs=[])
        cells.append(c)
    nb = dict(cells=cells, metadata=dict(kernelspec=dict(display_name='python3', language='python', name='python3')),
              nbformat=4, nbformat_minor=5)
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + '\n')
    if run: run_nb(dest)


def nb2py(src, dest):
    nb = json.loads(Path(src).read_text())
    parts = []
    for c in nb['cells']:
        s = ''.join(c['source'])
        if c['cell_type'] == 'markdown':
            parts.append('# %% [markdown]\n' + '\n'.join(('# ' + l) if l else '#' for l in s.split('\n')))
        else: parts.append('# %%\n' + s)
    Path(dest).write_text('\n\n'.join(parts) + '\n')


def run_nb(path):
    from execnb.shell import CaptureShell
    path = Path(path).resolve()
    old = os.getcwd(); os.chdir(path.parent)
    try: CaptureShell().execute(path, path, exc_stop=True)
    finally: os.chdir(old)
    os.system(f"{Path(sys.executable).parent}/nbdev-clean --fname \"{path}\" >/dev/null 2>&1")


if __name__ == '__main__':
    cmd, *args = sys.argv[1:]
    if cmd == 'py2nb': py2nb(args[0], args[1], run='--run' in args)
    elif cmd == 'nb2py': nb2py(args[0], args[1])
    elif cmd == 'run':
        for a in args: run_nb(a)
    else: sys.exit(__doc__)
