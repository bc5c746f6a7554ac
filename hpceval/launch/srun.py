"""Slurm's srun, used inside an allocation."""
from __future__ import annotations

from typing import Dict, List

from hpceval.launch.base import Launcher, register_launcher


@register_launcher
class SrunLauncher(Launcher):
    flavour = "slurm"

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        return version_text.startswith("slurm")

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str]) -> List[str]:
        cmd = [self.program, "-n", str(nranks), "--export=ALL"]
        if bind == "none":
            cmd += ["--cpu-bind=none", "--cpus-per-task", str(max(self.cores // max(nranks, 1), 1))]
        else:
            cmd += ["--cpu-bind=cores"]
        return cmd + argv
