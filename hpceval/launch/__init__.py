"""Launch: turn a LaunchSpec into the exact command line of the MPI runtime in use."""
from hpceval.launch import mpich as _mpich  # noqa: F401  (registers)
from hpceval.launch import openmpi as _openmpi  # noqa: F401  (registers)
from hpceval.launch import smpi as _smpi  # noqa: F401  (registers)
from hpceval.launch import srun as _srun  # noqa: F401  (registers)
from hpceval.launch.base import LAUNCHERS, Launcher
from hpceval.launch.detect import CHOICES, find_launcher

__all__ = ["CHOICES", "LAUNCHERS", "Launcher", "find_launcher"]
