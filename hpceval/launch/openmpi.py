"""Open MPI's mpirun/mpiexec."""
from __future__ import annotations

import os
import re
from typing import Dict, List, Sequence, Tuple

from hpceval.launch.base import Launcher, register_launcher
from hpceval.launch.ompi_session import launch_dir


@register_launcher
class OpenMPILauncher(Launcher):
    flavour = "openmpi"
    programs = ("mpirun.openmpi",)

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return "Open MPI" in version_text or "OpenRTE" in version_text or "PRRTE" in version_text

    def host_args(self, slots: Sequence[Tuple[str, int]]) -> List[str]:
        return ["--host", ",".join(f"{host}:{k}" for host, k in slots)]

    def session_args(self, slots: Sequence[Tuple[str, int]]) -> List[str]:
        """A session directory of this launch's own (ompi_session.py), when every rank runs
        here under ORTE (Open MPI 4): on other nodes mpirun's orteds would leave its name
        behind, and Open MPI 5 (PRRTE) names the option differently."""
        nodes = os.environ.get("SLURM_JOB_NUM_NODES") or os.environ.get("SLURM_NNODES") or "1"
        major = re.search(r"(\d+)\.\d+", self.version)
        if slots or nodes != "1" or not major or int(major.group(1)) >= 5:
            return []
        where = launch_dir()
        return ["--mca", "orte_tmpdir_base", where] if where else []

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str],
                slots: Sequence[Tuple[str, int]] = ()) -> List[str]:
        cmd = [self.program]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")     # Open MPI refuses root without it
        if slots:
            cmd += self.host_args(slots)
        cmd += self.session_args(slots)
        cpus = self.cpu_list(bind, nranks)
        if cpus:
            cmd += ["--cpu-list", ",".join(map(str, cpus)), "--bind-to", "cpu-list:ordered"]
        elif self.oversubscribed(self.per_node(nranks, slots)):
            # Binding more ranks than cores to cores is an error in Open MPI; let them float.
            # Ranks that share a core give it up while they wait: Open MPI does so by itself
            # only when it counts more ranks than slots, and given hosts' slots (node:2 on
            # nodes of one core) it spins out whole time slices (a 4-rank two-node launch
            # 11.4 s against 4.2 s).
            cmd += ["--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle", "1"]
        elif bind != "default":          # default: Open MPI's own choice
            cmd += ["--bind-to", bind]
        cmd += ["-np", str(nranks)]
        for name in sorted(env):
            cmd += ["-x", name]                  # export to remote nodes too (value set in env)
        return cmd + argv
