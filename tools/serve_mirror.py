#!/usr/bin/env python
"""Serve a copy of the registry's sources on 127.0.0.1 (a free port), laid out as raw.githubusercontent.com serves them.

tests/run.sh starts it over ../shared/datasets/mulan-mirror and points RELIEFFML_MIRROR at it, so that the
tests and notebooks that need a non-bundled set download it, verified, with no network:

    python tools/serve_mirror.py [FOLDER] [--url-file PATH]

The first line on stdout (and the file PATH, if given) is the base URL, e.g. http://127.0.0.1:40123; it runs
until it is stopped (SIGTERM or Ctrl-C).
"""
import argparse, functools, http.server, signal, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    "A static file handler that does not log every request."
    def log_message(self, *args): pass


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("folder", nargs="?", default=str(ROOT.parent / "shared" / "datasets" / "mulan-mirror"))
    p.add_argument("--url-file", help="also write the base URL to this file")
    args = p.parse_args(argv)
    folder = Path(args.folder)
    if not folder.is_dir(): sys.exit(f"serve_mirror: no folder {folder}")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(folder)))
    url = f"http://127.0.0.1:{httpd.server_address[1]}"
    if args.url_file: Path(args.url_file).write_text(url + "\n")
    print(url, flush=True)
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    try: httpd.serve_forever()
    except KeyboardInterrupt: pass
    finally: httpd.server_close()


if __name__ == "__main__":
    main()
