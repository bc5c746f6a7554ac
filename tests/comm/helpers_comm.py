"""Run a communication binary under the launcher hpceval uses; parse its records."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import List, Tuple

from hpceval.launch import find_launcher
from hpceval.records import parse_record

QUICK = ["--budget", "0.02", "--min-reps", "3", "--max-reps", "8", "--warmup", "1"]


def launch(bindir, name: str, args: List[str], nranks: int = 2, timeout: float = 90):
    launcher = find_launcher("auto", 2)
    cmd = launcher.command(nranks, [str(bindir / f"hpceval-{name}"), *args],
                           "core" if nranks <= 2 else "none", {})
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


MPICH_BIN = Path(__file__).resolve().parents[2] / "build-mpich" / "bin"


def launch_mpich(name: str, args: List[str], nranks: int = 2, timeout: float = 90):
    """The binary of the MPICH build under mpiexec.mpich (make build-mpich)."""
    import pytest
    if not shutil.which("mpiexec.mpich"):
        pytest.fail("MPICH is not installed: 'make test' installs it (HPCEVAL_MPICH=1)")
    binary = MPICH_BIN / f"hpceval-{name}"
    if not binary.is_file():
        pytest.fail(f"{binary} is not built: run 'make build-mpich'")
    return subprocess.run(["mpiexec.mpich", "-n", str(nranks), str(binary), *args],
                          capture_output=True, text=True, timeout=timeout,
                          stdin=subprocess.DEVNULL)


def run_ok(bindir, name: str, args: List[str], nranks: int = 2) -> List[dict]:
    """Run, require success, return the validated result records: every sample positive, or
    0 where the record says samples were clipped there (loggp's derived overheads)."""
    p = launch(bindir, name, args + QUICK, nranks)
    assert p.returncode == 0, p.stderr[-2000:]
    recs = [parse_record(l) for l in p.stdout.splitlines() if l.strip()]
    assert recs[0]["type"] == "meta" and recs[-1]["type"] == "end"
    results = [r for r in recs if r["type"] == "result"]
    for r in results:
        s = r["stats"]
        assert r["check"] == "ok" and s["n"] >= 1 and 0 <= s["min"] <= s["median"] <= s["max"]
        assert s["min"] > 0 or r.get("clipped_samples"), r
    return results


def error_of(p) -> Tuple[int, str]:
    """Exit status and the error record's message."""
    msgs = [json.loads(l)["message"] for l in p.stdout.splitlines()
            if l.startswith("{") and json.loads(l).get("type") == "error"]
    return p.returncode, msgs[0] if msgs else p.stderr


def bracket_ok(switch, refined: set) -> bool:
    """A bracket as the refinement leaves it: two close sizes (commmodel.brackets' width), one
    of them added by the refinement."""
    from hpceval.analysis.commmodel import BRACKET_BYTES, BRACKET_REL
    close = switch.n_after - switch.n_before <= max(BRACKET_BYTES, BRACKET_REL * switch.n_before)
    return close and bool({switch.n_before, switch.n_after} & refined)


def run_twice_and_compare(cli, name: str, sets: List[str]) -> dict:
    """`hpceval run NAME` twice with these settings, then `compare 1 2 --json`: its document."""
    for _ in range(2):
        p = cli("run", name, *sets)
        assert p.returncode == 0, p.stderr[-2000:]
    p = cli("compare", "1", "2", "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)
