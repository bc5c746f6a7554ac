"""Open MPI's mpirun/mpiexec."""
from __future__ import annotations

import os
from typing import Dict, List

from hpceval.launch.base import Launcher, register_launcher


@register_launcher
class OpenMPILauncher(Launcher):
    flavour = "openmpi"
    programs = ("mpirun.openmpi",)

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return "Open MPI" in version_text or "OpenRTE" in version_text or "PRRTE" in version_text

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str]) -> List[str]:
        cmd = [self.program]
        if os.geteuid() == 0:
            cmd.append("--allow-run-as-root")     # Open MPI refuses root without it
        if self.oversubscribed(nranks):
            # Binding more ranks than cores to cores is an error in Open MPI; let them float.
            cmd += ["--oversubscribe", "--bind-to", "none"]
        else:
            cmd += ["--bind-to", bind]
        cmd += ["-np", str(nranks)]
        for name in sorted(env):
            cmd += ["-x", name]                  # export to remote nodes too (value set in env)
        return cmd + argv
