"""What this build can run of a plan: the launches whose binary it left out (buildinfo.json's
"left_out": dense without ScaLAPACK, shmem-halo without OpenSHMEM) are left out of a plan of
several benchmarks, with a note; a real run and a dry run plan alike."""
from __future__ import annotations

from typing import List

from hpceval import paths
from hpceval.catalog import LaunchSpec, PlanContext

# The binaries whose threads need MPI_THREAD_FUNNELED (csrc/mem): not under SMPI
THREADED = frozenset({"stream", "mem-bandwidth", "mem-contention"})


def built(specs: List[LaunchSpec], ctx: PlanContext) -> List[LaunchSpec]:
    """A plan of several benchmarks leaves out, and notes, those whose binary the build left out
    (buildinfo.json says why); a plan of nothing else keeps them, and is refused with the reason
    (paths.binary)."""
    gone = {s.binary: why for s in specs if (why := paths.left_out(s.binary))}
    if ctx.sim_cost is not None:       # SMPI's ranks are single-threaded (MPI_THREAD_SINGLE)
        gone.update({s.binary: "SMPI provides no MPI_THREAD_FUNNELED for its threads"
                     for s in specs if s.binary in THREADED})
    if not gone or set(gone) == {s.binary for s in specs}:
        return specs
    for binary, why in sorted(gone.items()):
        ctx.note(f"{binary} left out: not in this build ({why})")
    return [s for s in specs if s.binary not in gone]
