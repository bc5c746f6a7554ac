"""Commands on the Slurm virtual cluster: Slurm's own and hpceval's, run on node1 as a user on a
login node would run them."""
from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, Optional

from cluster_helpers import VCluster
from helpers import ROOT


class SlurmCluster(VCluster):
    def hpceval(self, db: Path, *args: str, timeout: float = 120,
                env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
        """`hpceval ARGS` on node1 against the database `db` (the shared file system)."""
        return subprocess.run(
            [str(ROOT / "scripts" / "vcluster"), "exec", "node1", "env",
             f"HPCEVAL_DB={db}", *(f"{k}={v}" for k, v in (env or {}).items()),
             sys.executable, "-m", "hpceval", *args], capture_output=True, text=True,
            env=self.env, cwd=ROOT, timeout=timeout, stdin=subprocess.DEVNULL)

    def job_gone(self, job: str, limit_s: float = 30) -> bool:
        """Whether the job has left squeue's running and pending lists within limit_s."""
        deadline = time.monotonic() + limit_s
        while time.monotonic() < deadline:
            if not self.on("node1", "squeue", "-h", "-t", "PD,R,CG", "-j", job).strip():
                return True
            time.sleep(0.3)
        return False
