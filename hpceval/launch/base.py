"""Launcher registry: each MPI runtime knows how to start N ranks with a binding policy."""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Dict, List, Optional, Sequence, Tuple, Type

from hpceval.errors import UsageError


class Launcher:
    """Builds the exact command line for one launch. Subclasses register by `flavour`."""

    flavour = "?"
    # This MPI's own launcher names, tried when the binaries were built with it (detect.py).
    programs: Tuple[str, ...] = ()

    def __init__(self, program: str, version: str, cores: int):
        self.program = program        # absolute path of mpirun / mpiexec / srun
        self.version = version        # first line of its --version, for the fingerprint
        self.cores = cores

    @classmethod
    def recognises(cls, version_text: str) -> bool:
        raise NotImplementedError

    @classmethod
    def version_line(cls, version_text: str) -> str:
        """The line of --version that names the version (the fingerprint keeps it)."""
        return version_text.splitlines()[0].strip()

    def command(self, nranks: int, argv: List[str], bind: str, env: Dict[str, str]) -> List[str]:
        raise NotImplementedError

    def cpu_list(self, bind: str, nranks: int) -> Optional[List[int]]:
        """The CPU of each rank under a named policy (POLICIES), None for the plans' own
        'core'/'none' and the MPI's 'default'; one-line UsageError when this host cannot."""
        return cpu_list(bind, nranks, sorted(os.sched_getaffinity(0)))

    def host_args(self, slots: Sequence[Tuple[str, int]]) -> List[str]:
        """The options that place `ranks` on each (host, ranks) slot, in order."""
        raise UsageError(f"{os.path.basename(self.program)} cannot be given hosts: --hosts and "
                         "--hostfile are for mpirun/mpiexec (inside Slurm the allocation places "
                         "ranks)")

    def oversubscribed(self, nranks: int) -> bool:
        return nranks > self.cores

    # mpirun/mpiexec as hpceval calls them get no host list, so every rank starts on this
    # machine: beyond this many ranks a core the launch only thrashes (or exhausts process
    # limits) until its time limit kills it.
    RANKS_PER_CORE = 64

    def max_ranks(self) -> int:
        """The most ranks one launch may ask for, and why (for the refusal)."""
        return self.RANKS_PER_CORE * self.cores

    def max_ranks_reason(self) -> str:
        return (f"more than {self.RANKS_PER_CORE} ranks per core on this host's {self.cores} "
                f"cores ({os.path.basename(self.program)} starts every rank here)")

    @staticmethod
    def per_node(nranks: int, slots: Sequence[Tuple[str, int]]) -> int:
        """Ranks on the busiest node: what oversubscription is judged by."""
        return max((k for _, k in slots), default=nranks)

    def describe(self) -> Dict[str, str]:
        return {"launcher": os.path.basename(self.program), "flavour": self.flavour,
                "version": self.version}


LAUNCHERS: Dict[str, Type[Launcher]] = {}

# Binding policies by name (hpceval experiment binding, docs/experiments.md), besides the plans'
# own 'core' (one core per rank, the MPI's mapping) and 'none'. Each launcher spells a CPU list
# its own way; 'cpus:0,2' binds rank i to the i-th CPU listed.
POLICIES = ("consecutive", "alternating", "default", "none")
_STRIDE = {"consecutive": 1, "alternating": 2}


def cpu_list(bind: str, nranks: int, cpus: Sequence[int]) -> Optional[List[int]]:
    """Rank i's CPU under `bind`, from the CPUs this process may use: consecutive (0,1,2..),
    alternating (every other: 0,2,4..), 'cpus:LIST'; None for core, none and default."""
    if bind.startswith("cpus:"):
        try:
            want = [int(c) for c in bind[5:].split(",")]
        except ValueError:
            raise UsageError(f"binding '{bind}': expected cpus:N,N,...") from None
        bad = [c for c in want if c not in cpus]
        if bad or len(want) < nranks:
            raise UsageError(f"binding '{bind}': {nranks} ranks need as many CPUs of "
                             f"{','.join(map(str, cpus))}")
        return want[:nranks]
    stride = _STRIDE.get(bind)
    if stride is None:
        if bind in POLICIES or bind == "core":
            return None
        raise UsageError(f"binding '{bind}': expected one of {', '.join(POLICIES)}")
    usable = list(cpus)[::stride]
    if nranks > len(usable):
        raise UsageError(f"binding {bind}: {nranks} ranks on every "
                         f"{'other ' if stride == 2 else ''}CPU of {len(cpus)} needs "
                         f"{stride * (nranks - 1) + 1} CPUs; at most {len(usable)} here")
    return usable[:nranks]


def register_launcher(cls: Type[Launcher]) -> Type[Launcher]:
    LAUNCHERS[cls.flavour] = cls
    return cls


def version_text(program: str) -> Optional[str]:
    """The program's --version output, or None when it cannot run."""
    try:
        proc = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=30,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return (proc.stdout + proc.stderr).strip()


def which(name: str) -> Optional[str]:
    return shutil.which(name)
