"""npb-sp: the NAS Parallel Benchmarks' SP application benchmark (docs/nas_sp.md): diagonalised
ADI time steps of an implicit Navier-Stokes discretisation, three scalar pentadiagonal systems
along each direction, classes S, W, A, B, C, verified against NPB 3.4's residual and error
norms; Mop/s as NPB counts them vs the number of ranks (squares, NPB's rule for SP; LU's 2-D
grid, as npb-bt)."""
from __future__ import annotations

from hpceval.catalog.nas_common import (FEWER_REPS, grid_app, ranks_param,
                                        register_npb_study, SQUARE, square_grid)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, register_benchmark

# class: (n, niter, a pessimistic timed run on one rank in seconds: 5x this machine's)
CLASSES = {"S": (12, 100, 0.3), "W": (36, 400, 30.0), "A": (64, 400, 250.0),
           "B": (102, 400, 1000.0), "C": (162, 400, 4000.0)}
SLOW_FACTOR = 5.0   # the classes' run times are this many times this machine's
# u, rhs, forcing, 2 flux scratch (5 doubles each), u by variable and its 7 primitives (12),
# the rows' (d, e) of a direction's batches (6, a plane's last batch padded: 1.1x)
POINT_BYTES = (25 + 12 + 7) * 8


_plan, _memory = grid_app("npb-sp", CLASSES, SLOW_FACTOR, POINT_BYTES, square_grid, SQUARE)


register_benchmark(Benchmark(
    "npb-sp", "nas",
    "NAS Parallel Benchmarks SP: diagonalised ADI time steps of an implicit finite-difference "
    "Navier-Stokes discretisation, three scalar pentadiagonal systems along each direction, "
    "classes S 12^3 x 100 steps, W 36^3 x 400, A 64^3 x 400, B 102^3 x 400, C 162^3 x 400; the "
    "residual and error norms verified against NPB 3.4's values; Mop/s as NPB counts them, a "
    "square number of ranks on LU's 2-D grid with the line solves pipelined across ranks",
    options("npb-sp", "class", **FEWER_REPS) + (ranks_param("squares", alone=1),),
    _plan, ranks="--np or the ranks sweep (squares)", rank_rule=SQUARE, memory=_memory,
    tiny=("class=S", "ranks=1"),
    headline="Mop/s as NPB counts them, time", doc="docs/nas_sp.md"))


register_npb_study("npb-sp")   # classes A and B by rank count, as for npb-cg
