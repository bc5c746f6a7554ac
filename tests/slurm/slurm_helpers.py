"""Commands on the Slurm virtual cluster: Slurm's own and hpceval's, run on node1 as a user on a
login node would run them."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

from cluster_helpers import VCluster
from helpers import ROOT
from hpceval.vcluster.net import ns_pids

# hpceval of this checkout, as the job scripts run it (python -m hpceval in the checkout).
HPCEVAL = (sys.executable, "-m", "hpceval")
# What stays on the nodes between jobs: Slurm's daemons (munged lives in the bridge namespace).
DAEMONS = ("slurmctld", "slurmscriptd", "slurmd")


class SlurmCluster(VCluster):
    def hpceval(self, db: Path, *args: str, timeout: float = 120,
                env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        """`hpceval ARGS` on node1 against the database `db` (the shared file system)."""
        return subprocess.run(
            [str(ROOT / "scripts" / "vcluster"), "exec", "node1", "env",
             f"HPCEVAL_DB={db}", *(f"{k}={v}" for k, v in (env or {}).items()),
             *HPCEVAL, *args], capture_output=True, text=True,
            env=self.env, cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)

    def job_gone(self, job: str, limit_s: float = 30) -> bool:
        """Whether the job has left squeue's running and pending lists within limit_s."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if not self.on("node1", "squeue", "-h", "-t", "PD,R,CG", "-j", job).strip():
                return True
            time.sleep(0.3)
        return False

    def job_state(self, job: str) -> Dict[str, str]:
        """Slurm's own word on a job (scontrol: finished jobs stay for MinJobAge, 10 minutes on
        the virtual cluster; no accounting database is needed)."""
        words = self.on("node1", "scontrol", "-o", "show", "job", job).split()
        return dict(w.split("=", 1) for w in words if "=" in w)

    def strays(self, limit_s: float = 15) -> List[str]:
        """Processes on any node other than Slurm's daemons, once they have had limit_s to
        go (a job's slurmstepd leaves a moment after its processes)."""
        deadline = time.monotonic() + limit_s
        while True:
            found = [f"{pid} {_comm(pid)}" for node in self.cluster.nodes
                     for pid in ns_pids(node.ns) if _comm(pid) not in DAEMONS + ("",)]
            if not found or time.monotonic() > deadline:
                return found
            time.sleep(0.3)


def _comm(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip()
    except OSError:
        return ""                                  # gone meanwhile
