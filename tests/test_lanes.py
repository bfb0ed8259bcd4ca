"""tools/lanes.py, which runs the suite's jobs side by side (tests/run.sh): real shell jobs, real processes."""
import subprocess, sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lanes  # noqa: E402


def test_jobs_parse_and_bad_lines_name_their_line():
    assert lanes.parse_jobs(["a\techo 1\n", "\n", "# note\n", "b c\tls -l\n"]) == [("a", "echo 1"), ("b c", "ls -l")]
    with pytest.raises(ValueError, match="jobs line 2"): lanes.parse_jobs(["a\techo\n", "no tab here\n"])
    with pytest.raises(ValueError, match="jobs line 1"): lanes.parse_jobs(["\techo\n"])


def test_two_lanes_run_side_by_side_and_every_log_is_printed(tmp_path):
    jobs = [("slow", "sleep 1; echo slow done"), ("fast1", "echo one"), ("fast2", "echo two")]
    out = tmp_path / "out.txt"
    with open(out, "w") as f:
        done = lanes.run_lanes(jobs, 2, f)
    text = out.read_text()
    assert sorted(n for n, _, _ in done) == ["fast1", "fast2", "slow"] and all(rc == 0 for _, _, rc in done)
    assert [n for n, _, _ in done] == ["fast1", "fast2", "slow"]   # side by side: the short jobs ran on the other
    # lane while the slow one slept (one lane would end them in list order)
    for line in ("slow done", "one", "two", "| fast2 |", "3 jobs on 2 lanes"): assert line in text


def test_a_failing_job_fails_the_run_and_shows_its_output():
    jobs = "ok\techo fine\nbad\techo broken >&2; exit 3\n"
    p = subprocess.run([sys.executable, str(ROOT / "tools" / "lanes.py"), "--lanes", "2"], input=jobs,
                       capture_output=True, text=True)
    assert p.returncode == 1
    assert "bad: FAILED (exit 3)" in p.stdout and "broken" in p.stdout and "| ok |" in p.stdout
    empty = subprocess.run([sys.executable, str(ROOT / "tools" / "lanes.py")], input="", capture_output=True, text=True)
    assert empty.returncode == 1                             # no job ran: not a pass
