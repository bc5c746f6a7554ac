"""swm: ParkBench's spectral shallow water benchmark (SWM, PSTSWM) as the SP2 study ran it, a
preset of psst (docs/swm.md): the distributed FFT (binary exchange) and the distributed Legendre
transform (partial sums over the latitude blocks, MPI_Allreduce), the medium problem (T170 with
32 levels: about 0.9 GB of 64-bit workspace, 0.6 TFlop a simulated day) where memory allows,
else the small one (T42, 16 levels); execution time and MFlop/s (the serial model's operation
count over the time), checked against the serial model as psst's."""
from __future__ import annotations

from typing import Any, Dict, List, Tuple

from hpceval.catalog.bench_kernels import plan_psst_ranks, psst_bytes, psst_memory, sst_bytes
from hpceval.catalog.common import fits_memory, rank_counts, ranks_sweep
from hpceval.catalog.nas_common import FEWER_REPS
from hpceval.catalog.options import options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, node_bytes,
                                      register_benchmark, register_study)

# problem: (truncation, levels)
PROBLEMS = {"medium": (170, 32), "small": (42, 16)}


def swm_grid(n: int) -> Tuple[int, int]:
    """P x Q of n ranks: Q (the distributed FFT's, a power of two) the largest power of two
    whose square is at most n, P = n / Q latitude blocks: both transforms distributed from 4
    ranks on (NPB LU's rule for its 2-D grid)."""
    q = 1
    while 4 * q * q <= n and n % (2 * q) == 0:
        q *= 2
    return n // q, q


def _problem(v: Dict[str, Any], n: int, ctx: PlanContext) -> str:
    """The problem asked for; 'auto': the medium one where its n ranks fit this node."""
    if v["problem"] != "auto":
        return v["problem"]
    m, levels = PROBLEMS["medium"]
    if fits_memory(node_bytes(psst_bytes(m, levels, n, v), ctx.ranks_per_node(n)), ctx):
        return "medium"
    ctx.note(f"swm on {n} ranks: the medium problem (T{m} L{levels}, about "
             f"{sst_bytes(m, levels) / 2**30:.1f} GiB and the serial check's copy) does not fit "
             "this node's memory: the small one instead")
    return "small"


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        m, levels = PROBLEMS[_problem(v, n, ctx)]
        p, q = swm_grid(n)
        preset = {**v, "truncation": m, "levels": levels, "grids": f"{p}x{q}",
                  "mappings": ["row"], "transposes": ["distributed"], "sums": ["allreduce"],
                  "start": "classic"}
        specs += plan_psst_ranks(b, preset, n, False, ctx)
    return specs


register_benchmark(Benchmark(
    "swm", "nas",
    "ParkBench's spectral shallow water benchmark (SWM) as the SP2 study ran it: psst with the "
    "distributed FFT and the distributed Legendre transform on a P x Q grid, the medium problem "
    "(T170 L32, about 0.9 GB of 64-bit workspace) where memory allows, else the small one "
    "(T42 L16); execution time and MFlop/s (the serial model's operation count), checked "
    "against the serial model",
    options("psst", "days", **FEWER_REPS)
    + (Param("problem", "choice", "auto", "auto (medium where memory allows, else small), "
             "medium (T170 L32), small (T42 L16)", choices=("auto",) + tuple(PROBLEMS)),
       ranks_sweep()),
    _plan, ranks="--np or the ranks sweep (default 2)", memory=psst_memory,
    tiny=("problem=small", "days=0.05"),
    headline="execution time, MFlop/s (the serial model's operation count)", doc="docs/swm.md"))


# The study: one day of the medium problem on the rungs its grid fits (P <= 128 latitude-pair
# blocks of T170: up to 4096 ranks as 128 x 32), two samples.
register_study("swm", problem="auto", ranks="ladder<=4096", min_reps=2, max_reps=3, warmup=0,
               budget=1)
