"""shmem-halo: a halo update against the 4-byte words in it, two-sided MPI beside MPI puts,
OpenSHMEM puts, gets and flag-synchronised puts, and Co-Array Fortran puts, gets and pairwise
syncs on the same ranks (csrc/shmem/shmem_halo.c, lib/halo_caf.f90; the Cray X1 study's
Fig. 8.1, issue #49). One launch per rank count; built with Open MPI only (its OpenSHMEM), and a
build without it says so (csrc/shmem/lib/needs.c); the caf methods where the build has
OpenCoarrays too (buildinfo.json's "caf")."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (RANKS_SWEEP, harness_bytes, launch_timeout, rank_counts,
                                    repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark)
from hpceval.errors import UsageError
from hpceval.paths import bin_dir, build_says

METRICS = 2      # latency and bandwidth of each point


def _methods(b: Benchmark, chosen: List[str], ctx: PlanContext) -> List[str]:
    """The methods this build can run: without Co-Array Fortran every method ('all') leaves the
    caf ones out, said; a caf method named is refused."""
    if not any(m.startswith("caf-") for m in chosen) or build_says("caf"):
        return chosen
    if set(chosen) != set(b.param("methods").choices):
        raise UsageError("--set shmem-halo.methods: the caf methods need a build with Co-Array "
                         f"Fortran (install libcoarrays-openmpi-dev, rebuild); {bin_dir()} has "
                         "none")
    ctx.note("shmem-halo: methods caf-put, caf-get, caf-sync left out: this build has no "
             "Co-Array Fortran")
    return [m for m in chosen if not m.startswith("caf-")]


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    v = {**v, "methods": _methods(b, list(v["methods"]), ctx)}
    args = [a for name in ("sizes", "methods") for a in b.param(name).to_arg(v[name])]
    points = len(v["sizes"]) * len(v["methods"])
    return [LaunchSpec(b.name, f"shmem-halo np={n}", "shmem-halo", args + repetition_args(b, v),
                       n, "core", expected_results=METRICS * points,
                       timeout_s=launch_timeout(v, points))
            for n in rank_counts(v["ranks"], ctx)]


register_benchmark(Benchmark(
    "shmem-halo", "communication",
    "halo update on a periodic 2-D process grid vs the 4-byte words sent to each of the four "
    "neighbours: two-sided MPI, MPI puts with fences, OpenSHMEM puts and gets with global "
    "barriers, and OpenSHMEM puts with a flag per side (pairwise synchronisation), and "
    "Co-Array Fortran puts and gets with sync all and puts with sync images, on the same "
    "ranks (the X1 study's Fig. 8.1)",
    options("shmem-halo", "sizes methods") + (RANKS_SWEEP,),
    _plan, ranks=">=1 (--np or the ranks sweep; Open MPI builds only)",
    # per word a side: 4 edges, 8 ghosts (two sets, symmetric memory), 4 window ghosts, and the
    # coarrays' 4 edges and 8 ghosts; 4 B each
    memory=lambda spec, v: 28 * 4 * max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=1,256",),
    headline="us per halo update (median, slowest rank), MB/s of halo words a rank receives",
    doc="docs/shmem_halo.md"))

# The comm suite: the X1 comparison at 2 and 4 ranks, 1 word to 64 Ki words a side.
join_suite("comm", "shmem-halo", budget=0.05, ci_target=0.03, max_reps=200, ranks="2,4",
           sizes="1,16,256,4K,64K", methods="all")
