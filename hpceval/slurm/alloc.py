"""The Slurm allocation this process runs in, from the variables salloc/sbatch set: job id,
partition, nodes, tasks per node; and the MPI plugin srun needs for the binaries' MPI."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Dict, List, Optional

from hpceval.slurm.commands import output

# srun's --mpi plugin per MPI the binaries were built with (buildinfo.json "mpi"): Debian's Open
# MPI 4.1 needs PMIx (pmi2 fails in MPI_Init), MPICH speaks PMI-2.
MPI_PLUGINS = {"openmpi": "pmix", "mpich": "pmi2"}


def expand_counts(text: str) -> List[int]:
    """Slurm's compressed per-node counts: '2(x3),1' -> [2, 2, 2, 1]."""
    counts: List[int] = []
    for part in filter(None, text.split(",")):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if not m:
            return []
        counts += [int(m.group(1))] * int(m.group(2) or 1)
    return counts


@dataclass
class Allocation:
    job_id: str
    partition: str
    nodelist: str
    nnodes: int
    tasks_per_node: List[int]
    cpus_per_node: List[int]

    @classmethod
    def from_env(cls, env: Optional[Dict[str, str]] = None) -> Optional["Allocation"]:
        """The allocation of SLURM_JOB_ID, or None outside Slurm."""
        env = os.environ if env is None else env
        if not env.get("SLURM_JOB_ID"):
            return None
        nnodes = int(env.get("SLURM_JOB_NUM_NODES") or env.get("SLURM_NNODES") or 1)
        cpus = expand_counts(env.get("SLURM_JOB_CPUS_PER_NODE", "")) or [1] * nnodes
        return cls(env["SLURM_JOB_ID"], env.get("SLURM_JOB_PARTITION", ""),
                   env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST", ""), nnodes,
                   expand_counts(env.get("SLURM_TASKS_PER_NODE", "")) or [1] * nnodes, cpus)

    @property
    def ntasks(self) -> int:
        return sum(self.tasks_per_node)

    def placement(self, nranks: int) -> Dict[str, int]:
        """Nodes and tasks per node for nranks: spread over as many nodes as there are ranks (a
        2-rank ping-pong in a 2-node allocation crosses nodes), block within a node."""
        nodes = max(1, min(self.nnodes, nranks))
        return {"nodes": nodes, "ppn": -(-nranks // nodes)}

    def describe(self) -> Dict[str, object]:
        """What the run records about the job (settings["slurm"])."""
        return {"job_id": self.job_id, "partition": self.partition, "nodelist": self.nodelist,
                "nodes": self.nnodes, "tasks_per_node": self.tasks_per_node,
                "version": slurm_version()}


def slurm_version() -> Optional[str]:
    text = output(["srun", "--version"])
    return text.strip() if text else None


def mpi_plugin(built: Optional[str], env: Optional[Dict[str, str]] = None) -> Optional[str]:
    """The --mpi plugin for the binaries' MPI; None when the user chose one (SLURM_MPI_TYPE,
    which srun reads itself) or the MPI is unknown (srun's MpiDefault then applies)."""
    env = os.environ if env is None else env
    if env.get("SLURM_MPI_TYPE"):
        return None
    return MPI_PLUGINS.get(built or "")
