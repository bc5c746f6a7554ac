"""npb-lu: the NAS Parallel Benchmarks' LU application benchmark (docs/nas_lu.md): SSOR on the
block lower and upper triangular systems of an implicit Navier-Stokes discretisation, classes
S, W, A, B, C, verified against NPB 3.4's residual and error norms and surface integral; Mop/s
as NPB counts them vs the number of ranks (powers of two, NPB's 2-D pipelined decomposition)."""
from __future__ import annotations

from typing import Tuple

from hpceval.catalog.nas_common import (FEWER_REPS, grid_app, POWER_OF_TWO, ranks_param,
                                        register_npb_study)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, register_benchmark

# class: (n, itmax, a pessimistic timed run on one rank in seconds: 5x this machine's)
CLASSES = {"S": (12, 50, 0.2), "W": (33, 300, 18.0), "A": (64, 250, 110.0),
           "B": (102, 250, 450.0), "C": (162, 250, 1800.0)}
SLOW_FACTOR = 5.0   # the classes' run times are this many times this machine's
# u, rsd, frct and two flux scratch fields (5 doubles a point each); u by variable and its 7
# primitives for the residual (lib/adi_rhs.h: 12)
FIELDS = 5 * 5 + 12


def proc_grid(np: int) -> Tuple[int, int]:
    """NPB LU's process grid (xdim, ydim) of a power-of-two rank count: ydim the largest power
    of two whose square is at most np."""
    y = 1
    while 4 * y * y <= np:
        y *= 2
    return np // y, y


_plan, _memory = grid_app("npb-lu", CLASSES, SLOW_FACTOR, FIELDS * 8, proc_grid, POWER_OF_TWO)


register_benchmark(Benchmark(
    "npb-lu", "nas",
    "NAS Parallel Benchmarks LU: SSOR on the block lower and upper triangular systems of an "
    "implicit finite-difference Navier-Stokes discretisation, classes S 12^3 x 50 iterations, "
    "W 33^3 x 300, A 64^3 x 250, B 102^3 x 250, C 162^3 x 250; the residual and error norms "
    "and the surface integral verified against NPB 3.4's values; Mop/s as NPB counts them, "
    "NPB's 2-D pipelined wavefront over a power-of-two number of ranks",
    options("npb-lu", "class", **FEWER_REPS) + (ranks_param(),),
    _plan, ranks="--np or the ranks sweep (powers of two)", rank_rule=POWER_OF_TWO,
    memory=_memory,
    tiny=("class=S",),
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 3.9},
    headline="Mop/s as NPB counts them, time", doc="docs/nas_lu.md"))


register_npb_study("npb-lu")   # classes A and B by rank count, as for npb-cg
