"""Choose a launcher: srun inside a Slurm allocation, else mpirun/mpiexec of whatever MPI is found."""
from __future__ import annotations

import os
from typing import Optional, Sequence

from hpceval.errors import UsageError
from hpceval.launch.base import LAUNCHERS, Launcher, version_text, which

CHOICES = ("auto", "mpirun", "mpiexec", "srun")


def _from_program(name: str, cores: int) -> Optional[Launcher]:
    path = which(name)
    if not path:
        return None
    text = version_text(path)
    if text is None:
        raise UsageError(f"{path} --version failed: is the MPI installation broken?")
    for cls in LAUNCHERS.values():
        if cls.recognises(text):
            return cls(path, text.splitlines()[0].strip(), cores)
    raise UsageError(f"{path} is not an MPI launcher hpceval knows (Open MPI, MPICH, Slurm): "
                     f"'{text.splitlines()[0] if text else ''}'")


def find_launcher(choice: str, cores: int) -> Launcher:
    if choice not in CHOICES:
        raise UsageError(f"--launcher {choice}: expected one of {', '.join(CHOICES)}")
    if choice == "auto":
        order: Sequence[str] = ("mpirun", "mpiexec")
        if os.environ.get("SLURM_JOB_ID") and which("srun"):
            order = ("srun",) + tuple(order)
    else:
        order = (choice,)
    for name in order:
        launcher = _from_program(name, cores)
        if launcher:
            return launcher
    raise UsageError(f"no MPI launcher found (looked for {', '.join(order)} on PATH): "
                     "install Open MPI ('make quick' does) or put your MPI's bin directory on PATH")
