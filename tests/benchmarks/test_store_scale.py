"""benchmarks/store_scale.py runs end to end on a small run (the 10^5-record figures are in
benchmarks/README.md; they are measured by hand, not as a timed test)."""
import subprocess
import sys

from helpers import ROOT


def test_store_scale_script_runs_on_500_records(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "store_scale.py"), "--records",
                        "500", "--dir", str(tmp_path)], capture_output=True, text=True,
                       timeout=600, cwd=ROOT)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert "one run of 500 records" in lines[0]
    rows = {l[:14].strip(): l[14:].split() for l in lines[2:] if l.strip()}   # name, exit, s, MB
    for command in ("import", "report", "history", "export", "export csv", "show", "compare",
                    "compare --all"):
        assert rows[command][0] == "0", p.stdout      # exit status of each command
        assert float(rows[command][-1]) > 0           # a peak RSS was measured
    assert (tmp_path / "report.html").stat().st_size > 10_000
