"""shmem-halo: a halo update against the 4-byte words in it, two-sided MPI beside MPI puts and
OpenSHMEM puts, gets and flag-synchronised puts on the same ranks (csrc/shmem/shmem_halo.c; the
Cray X1 study's Fig. 8.1, issue #49). One launch per rank count; built with Open MPI only
(its OpenSHMEM), and a build without it says so (csrc/shmem/lib/mpis)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (RANKS_SWEEP, harness_bytes, launch_timeout, rank_counts,
                                    repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark)

METRICS = 2      # latency and bandwidth of each point


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
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
    "barriers, and OpenSHMEM puts with a flag per side (pairwise synchronisation), on the same "
    "ranks (the X1 study's Fig. 8.1)",
    options("shmem-halo", "sizes methods") + (RANKS_SWEEP,),
    _plan, ranks=">=1 (--np or the ranks sweep; Open MPI builds only)",
    # per word a side: 4 edges, 8 ghosts (two sets, symmetric memory), 4 window ghosts; 4 B each
    memory=lambda spec, v: 16 * 4 * max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=1,256",),
    headline="us per halo update (median, slowest rank), MB/s of halo words a rank receives",
    doc="docs/shmem_halo.md"))

# The comm suite: the X1 comparison at 2 and 4 ranks, 1 word to 64 Ki words a side.
join_suite("comm", "shmem-halo", budget=0.05, ci_target=0.03, max_reps=200, ranks="2,4",
           sizes="1,16,256,4K,64K")
