"""Run the test suite's jobs on as many lanes as the machine has cores (tests/run.sh, steps 2 and 3).

    python tools/lanes.py [--lanes N] < jobs

Each line of the input is one job, `name<TAB>shell command`, listed longest first: a free lane takes the next job
in the list, so the long jobs start at once and the short ones fill the lanes' ends. Two fixed groups (pytest
beside the digest test, then the chapters beside the tutorials) leave a core idle while the shorter of each pair
waits for the longer. A job's output is printed, whole, when it ends; then a table of every job's time and
result. Exit status 1 when any job failed, or when none ran.
"""
import argparse, os, subprocess, sys, tempfile, threading, time


def parse_jobs(lines):
    "[(name, command)] from `name<TAB>command` lines; blank lines and lines starting with # are skipped."
    jobs = []
    for n, line in enumerate(lines, 1):
        line = line.rstrip("\n")
        if not line.strip() or line.lstrip().startswith("#"): continue
        name, tab, cmd = line.partition("\t")
        if not tab or not name.strip() or not cmd.strip():
            raise ValueError(f"jobs line {n}: expected 'name<TAB>command', got {line!r}")
        jobs.append((name.strip(), cmd))
    return jobs


def run_lanes(jobs, lanes, out=sys.stdout):
    "Run `jobs` on `lanes` lanes; print each one's output when it ends, then the table. Returns [(name, s, rc)]."
    todo, done, lock = list(jobs), [], threading.Lock()
    start = time.perf_counter()

    def lane():
        while True:
            with lock:
                if not todo: return
                name, cmd = todo.pop(0)
            with tempfile.TemporaryFile("w+") as log:
                t = time.perf_counter()
                rc = subprocess.run(cmd, shell=True, stdout=log, stderr=subprocess.STDOUT).returncode
                s = time.perf_counter() - t
                log.seek(0)
                with lock:
                    done.append((name, s, rc))
                    print(f"\n== {name}: {'passed' if rc == 0 else f'FAILED (exit {rc})'} in {s:.0f} s, "
                          f"{time.perf_counter() - start:.0f} s into the lanes", file=out)
                    out.write(log.read())
                    out.flush()

    threads = [threading.Thread(target=lane) for _ in range(max(1, lanes))]
    for th in threads: th.start()
    for th in threads: th.join()
    print(f"\n| job | seconds | result |\n|---|---:|---|", file=out)
    for name, s, rc in done: print(f"| {name} | {s:.0f} | {'passed' if rc == 0 else 'FAILED'} |", file=out)
    print(f"{len(done)} jobs on {lanes} lanes in {time.perf_counter() - start:.0f} s", file=out)
    return done


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lanes", type=int, default=os.cpu_count() or 1, help="jobs at once (default: the cores)")
    a = ap.parse_args()
    if a.lanes < 1: ap.error(f"--lanes must be at least 1, got {a.lanes}")
    done = run_lanes(parse_jobs(sys.stdin), a.lanes)
    sys.exit(0 if done and all(rc == 0 for _, _, rc in done) else 1)


if __name__ == "__main__":
    main()
