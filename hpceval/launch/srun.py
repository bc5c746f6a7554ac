"""Slurm's srun, used inside an allocation."""
from __future__ import annotations

import os
from typing import Dict, List

from hpceval.launch.base import Launcher, register_launcher


@register_launcher
class SrunLauncher(Launcher):
    flavour = "slurm"

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return version_text.startswith("slurm")

    def max_ranks(self) -> int:
        # Inside an allocation the ranks spread over its nodes: the allocation's task count is
        # the bound when Slurm states it, else the one-host rule (a lower bound of any allocation).
        tasks = os.environ.get("SLURM_NTASKS", "")
        return int(tasks) if tasks.isdigit() and int(tasks) > 0 else super().max_ranks()

    def max_ranks_reason(self) -> str:
        if os.environ.get("SLURM_NTASKS", "").isdigit():
            return f"more than the allocation's SLURM_NTASKS={os.environ['SLURM_NTASKS']} tasks"
        return super().max_ranks_reason()

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str]) -> List[str]:
        cmd = [self.program, "-n", str(nranks), "--export=ALL"]
        if bind == "none":
            cmd += ["--cpu-bind=none", "--cpus-per-task", str(max(self.cores // max(nranks, 1), 1))]
        else:
            cmd += ["--cpu-bind=cores"]
        return cmd + argv
