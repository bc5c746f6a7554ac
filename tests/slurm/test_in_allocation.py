"""`hpceval run` inside `salloc -N2`: srun across both nodes with the MPI's plugin (pmix for
Open MPI, pmi2 for MPICH), the job recorded in the run; near the job's end no new launch starts
and the run is incomplete, its finished records kept."""
from __future__ import annotations

import json
import sqlite3

import pytest

from helpers import FAST, ROOT
from slurm_helpers import HPCEVAL

PINGPONG = ["pingpong", *FAST, "--set", "pingpong.refine=0", "--set", "sizes=8,1K",
            "--timeout", "40"]


def _run(db):
    c = sqlite3.connect(db)
    c.row_factory = sqlite3.Row
    run = c.execute("SELECT * FROM runs ORDER BY id DESC").fetchone()
    launches = c.execute("SELECT * FROM launches WHERE run_id = ?", (run["id"],)).fetchall()
    nrec = c.execute("SELECT count(*) FROM records WHERE run_id = ?", (run["id"],)).fetchone()[0]
    c.close()
    return run, launches, nrec


@pytest.mark.parametrize("bindir,plugin", [("build/bin", "pmix"), ("build-mpich/bin", "pmi2")])
def test_pingpong_across_both_nodes(slurm, bindir, plugin):
    if not (ROOT / bindir / "hpceval-pingpong").exists():
        pytest.skip(f"{bindir} is not built (make build-mpich)")
    db = slurm.cluster.path / f"alloc-{plugin}.db"
    proc = slurm.run("exec", "node1", "salloc", "-N2", "-t", "5", "env",
                     f"HPCEVAL_BINDIR={ROOT / bindir}", f"HPCEVAL_DB={db}",
                     *HPCEVAL, "run", *PINGPONG, timeout=90)
    assert proc.returncode == 0, proc.stderr
    run, (launch,), nrec = _run(db)
    assert launch["command"].startswith("/usr/bin/srun -N 2 -n 2 --ntasks-per-node 1")
    assert f"--mpi={plugin}" in launch["command"]
    assert json.loads(launch["meta"])["hosts"] == ["node1", "node2"] and nrec == 4
    slurm_info = json.loads(run["settings"])["slurm"]
    assert slurm_info["nodelist"] == "node[1-2]" and slurm_info["partition"] == "debug"
    assert slurm_info["job_id"] == run["job_id"] and slurm_info["version"].startswith("slurm")


def test_job_end_stops_launches(slurm):
    # A 1-minute job with 50 s kept free: the first launch (about 2 s at most) fits in what is
    # left, the second (mem-latency's 33 sizes at 2 s each) does not and never starts, nor does
    # any after it; what the first measured stays, and the run says what it left out.
    db = slurm.cluster.path / "clock.db"
    proc = slurm.run("exec", "node1", "salloc", "-N2", "-t", "1", "env", f"HPCEVAL_DB={db}",
                     "HPCEVAL_SLURM_MARGIN=50", *HPCEVAL, "run", "pingpong", "mem-latency",
                     *FAST, "--set", "pingpong.refine=0", "--set", "mem-latency.budget=2",
                     timeout=90)
    assert proc.returncode == 1, proc.stderr
    errors = [l for l in proc.stderr.splitlines() if l.startswith("hpceval: error:")]
    assert len(errors) == 1 and "left out 2 launches: mem-latency random base, mem-latency " \
        "window" in errors[0], proc.stderr
    run, launches, nrec = _run(db)
    assert run["status"] == "timeout" and "the job's 1:00" in run["reason"]
    assert [(l["benchmark"], l["status"]) for l in launches] == [("pingpong", "ok")]
    assert nrec > 0
