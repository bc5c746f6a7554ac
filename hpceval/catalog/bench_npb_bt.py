"""npb-bt: the NAS Parallel Benchmarks' BT application benchmark (docs/nas_bt.md): ADI time
steps of an implicit Navier-Stokes discretisation, a 5x5 block tridiagonal system along each
direction, classes S, W, A, B, C, verified against NPB 3.4's residual and error norms; Mop/s as
NPB counts them vs the number of ranks (squares, NPB's rule for BT; LU's 2-D grid)."""
from __future__ import annotations

from hpceval.catalog.nas_common import (FEWER_REPS, grid_app, ranks_param,
                                        register_npb_study, SQUARE, square_grid)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, register_benchmark

# class: (n, niter, a pessimistic timed run on one rank in seconds: 5x this machine's)
CLASSES = {"S": (12, 60, 0.5), "W": (24, 200, 15.0), "A": (64, 200, 250.0),
           "B": (102, 200, 1000.0), "C": (162, 200, 4000.0)}
SLOW_FACTOR = 5.0   # the classes' run times are this many times this machine's
# u, rhs, forcing, 2 flux scratch (5 doubles each), u by variable and its 7 primitives (12),
# the C' blocks of a direction's batches (25, a plane's last batch padded: 1.1x)
POINT_BYTES = (25 + 12 + 28) * 8


_plan, _memory = grid_app("npb-bt", CLASSES, SLOW_FACTOR, POINT_BYTES, square_grid, SQUARE)


register_benchmark(Benchmark(
    "npb-bt", "nas",
    "NAS Parallel Benchmarks BT: ADI time steps of an implicit finite-difference Navier-Stokes "
    "discretisation, a 5x5 block tridiagonal system along each direction, classes S 12^3 x 60 "
    "steps, W 24^3 x 200, A 64^3 x 200, B 102^3 x 200, C 162^3 x 200; the residual and error "
    "norms verified against NPB 3.4's values; Mop/s as NPB counts them, a square number of "
    "ranks on LU's 2-D grid with the block tridiagonal solves pipelined across ranks",
    options("npb-bt", "class", **FEWER_REPS) + (ranks_param("squares", alone=1),),
    _plan, ranks="--np or the ranks sweep (squares)", rank_rule=SQUARE, memory=_memory,
    tiny=("class=S", "ranks=1"),
    headline="Mop/s as NPB counts them, time", doc="docs/nas_bt.md"))


register_npb_study("npb-bt")   # classes A and B by rank count, as for npb-cg
