"""Choose a launcher: srun inside a Slurm allocation, else mpirun/mpiexec of whatever MPI is found,
preferring the MPI the binaries were built with (buildinfo.json's "mpi", e.g. build-mpich/bin)."""
from __future__ import annotations

import json
import os
from typing import Optional, Sequence, Set

from hpceval import paths
from hpceval.errors import UsageError
from hpceval.launch.base import LAUNCHERS, Launcher, version_text, which

CHOICES = ("auto", "mpirun", "mpiexec", "srun", "smpi")
# The launcher names each choice looks for, in order; the built MPI's own names follow these.
_NAMES = {"auto": ("mpirun", "mpiexec"), "mpirun": ("mpirun",), "mpiexec": ("mpiexec",),
          "srun": ("srun",), "smpi": ("smpirun",)}


def _from_program(name: str, cores: int) -> Optional[Launcher]:
    path = which(name)
    if not path:
        return None
    text = version_text(path)
    if text is None:
        raise UsageError(f"{path} --version failed: is the MPI installation broken?")
    for cls in LAUNCHERS.values():
        if cls.recognises(text):
            return cls(path, cls.version_line(text), cores)
    raise UsageError(f"{path} is not an MPI launcher hpceval knows (Open MPI, MPICH, Slurm): "
                     f"'{text.splitlines()[0] if text else ''}'")


def built_flavour() -> Optional[str]:
    """The launcher flavour of the MPI the binaries were built with, when hpceval knows it."""
    try:
        flavour = json.loads(paths.build_info_path().read_text()).get("mpi")
    except (OSError, ValueError, AttributeError):
        return None
    return flavour if flavour in LAUNCHERS else None


def _order(choice: str, built: Optional[str]) -> Sequence[str]:
    order = _NAMES[choice]
    if choice == "auto" and os.environ.get("SLURM_JOB_ID") and which("srun"):
        order = ("srun",) + order
    if choice != "srun" and built:
        # Debian installs both MPIs side by side; mpirun is only one of them.
        order += LAUNCHERS[built].programs
    return order


def find_launcher(choice: str, cores: int) -> Launcher:
    if choice not in CHOICES:
        raise UsageError(f"--launcher {choice}: expected one of {', '.join(CHOICES)}")
    built = built_flavour()
    # A launcher of another MPI than the binaries' would start N singletons: use it only when
    # none of the built MPI (or Slurm's srun, which serves every MPI) is found.
    wanted: Set[str] = {built, "slurm"} if built else set(LAUNCHERS)
    order = _order(choice, built)
    fallback = None
    for name in order:
        launcher = _from_program(name, cores)
        if launcher and launcher.flavour in wanted:
            return launcher
        fallback = fallback or launcher
    if fallback:
        return fallback
    raise UsageError(f"no MPI launcher found (looked for {', '.join(order)} on PATH): "
                     "install Open MPI ('make quick' does) or put your MPI's bin directory on PATH")
