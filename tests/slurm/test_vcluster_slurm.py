"""`vcluster up N --slurm`: Slurm's commands work on the nodes, and `down` leaves nothing."""
from __future__ import annotations

import os
import subprocess
import time

from helpers import ROOT
from hpceval import vcluster
from hpceval.vcluster.net import listed_namespaces


def test_nodes_idle_and_srun_reaches_both(slurm):
    assert slurm.on("node2", "sinfo", "-h", "-N", "-o", "%N:%t").split() == \
        ["node1:idle", "node2:idle"]
    assert sorted(slurm.on("node1", "srun", "-N2", "-n2", "hostname").split()) == \
        ["node1", "node2"]
    assert "pmix" in slurm.on("node1", "srun", "--mpi=list")


def test_sbatch_runs_a_script(slurm):
    out = slurm.cluster.path / "job.out"       # not below /tmp, which each node has privately
    job = slurm.on("node1", "sbatch", "--parsable", "-N2", f"--output={out}", "--wrap",
                   "'srun hostname'").strip()
    assert slurm.job_gone(job)
    text = out.read_text()
    out.unlink()
    assert sorted(text.split()) == ["node1", "node2"]


def _slurm_processes(directory) -> list:
    ps = subprocess.run(["ps", "-eo", "pid,stat,args"], capture_output=True, text=True).stdout
    return [l for l in ps.splitlines() if str(directory) in l and " Z" not in l]


def test_down_ends_daemons_and_jobs(fresh_dir):
    cluster = vcluster.up(2, fresh_dir, slurm=True)
    env = {**os.environ, "HPCEVAL_VCLUSTER_DIR": str(fresh_dir)}
    sbatch = subprocess.run([str(ROOT / "scripts" / "vcluster"), "exec", "node1", "sbatch",
                             "--parsable", "-N2", "--output=/dev/null", "--wrap", "'srun sleep 317'"],
                            capture_output=True, text=True, env=env)
    assert sbatch.returncode == 0, sbatch.stderr
    assert _slurm_processes(fresh_dir)                       # the daemons run with its config
    vcluster.down(fresh_dir)
    time.sleep(0.2)
    assert _slurm_processes(fresh_dir) == []
    ps = subprocess.run(["ps", "-eo", "stat,args"], capture_output=True, text=True).stdout
    assert not [l for l in ps.splitlines() if "sleep 317" in l and not l.startswith("Z")]
    assert listed_namespaces(cluster.prefix) == [] and not fresh_dir.exists()
