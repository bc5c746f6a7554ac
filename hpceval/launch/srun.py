"""Slurm's srun, used inside an allocation: the allocation's nodes (ranks spread over as many
nodes as there are ranks, block within a node), and the --mpi plugin the binaries' MPI needs."""
from __future__ import annotations

import os
from typing import Dict, List

from hpceval.launch.base import Launcher, register_launcher
from hpceval.launch.detect import built_flavour
from hpceval.slurm.alloc import Allocation, mpi_plugin


@register_launcher
class SrunLauncher(Launcher):
    flavour = "slurm"

    def __init__(self, program: str, version: str, cores: int):
        super().__init__(program, version, cores)
        self.alloc = Allocation.from_env()
        self.mpi = mpi_plugin(built_flavour())

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

    def _placement(self, nranks: int) -> List[str]:
        if self.alloc is None:
            return ["-n", str(nranks)]
        where = self.alloc.placement(nranks)
        return ["-N", str(where["nodes"]), "-n", str(nranks),
                "--ntasks-per-node", str(where["ppn"])]

    def _cpus_per_task(self, nranks: int) -> int:
        # A node's CPUs shared by its tasks (OpenMP threads of stream); machine cores outside.
        if self.alloc is None:
            return max(self.cores // max(nranks, 1), 1)
        ppn = self.alloc.placement(nranks)["ppn"]
        return max(min(self.alloc.cpus_per_node) // ppn, 1)

    def oversubscribed(self, nranks: int) -> bool:
        if self.alloc is None:
            return super().oversubscribed(nranks)
        return self.alloc.placement(nranks)["ppn"] > min(self.alloc.cpus_per_node)

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str]) -> List[str]:
        cmd = [self.program, *self._placement(nranks), "--export=ALL"]
        if self.mpi:
            cmd.append(f"--mpi={self.mpi}")
        if self.oversubscribed(nranks):
            cmd.append("--overcommit")
        cpus = self.cpu_list(bind, nranks)
        if cpus:
            cmd += ["--cpu-bind=map_cpu:" + ",".join(map(str, cpus))]
        elif bind == "none":
            cmd += ["--cpu-bind=none", "--cpus-per-task", str(self._cpus_per_task(nranks))]
        elif bind != "default":          # default: Slurm's own (TaskPlugin, cgroups)
            cmd += ["--cpu-bind=cores"]
        return cmd + argv

    def describe(self) -> Dict[str, str]:
        return {**super().describe(), **({"mpi_plugin": self.mpi} if self.mpi else {})}
