"""npb-lu: the NAS Parallel Benchmarks' LU application benchmark (docs/nas_lu.md): SSOR on the
block lower and upper triangular systems of an implicit Navier-Stokes discretisation, classes
S, W, A, B, C, verified against NPB 3.4's residual and error norms and surface integral; Mop/s
as NPB counts them vs the number of ranks (powers of two, NPB's 2-D pipelined decomposition)."""
from __future__ import annotations

import dataclasses
from typing import Any, Dict, List, Tuple

from hpceval.catalog.common import REPETITION, check_memory, harness_bytes
from hpceval.catalog.nas_common import RANKS, NasHooks, plan_class
from hpceval.catalog.params import Param
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)
from hpceval.errors import UsageError

# class: (n, itmax, a pessimistic timed run on one rank in seconds: 5x this machine's)
CLASSES = {"S": (12, 50, 0.2), "W": (33, 300, 18.0), "A": (64, 250, 110.0),
           "B": (102, 250, 450.0), "C": (162, 250, 1800.0)}
SLOW_FACTOR = 5.0   # the classes' run times are this many times this machine's
FIELDS = 4 * 5      # u, rsd, frct and the flux scratch: 5 doubles a point each

# Each sample is a whole NPB run after NPB's own untimed warm-up iteration: fewer, longer
# samples than the harness's defaults.
_FEWER = {"warmup": 0, "min-reps": 3, "max-reps": 20}
REPS = tuple(dataclasses.replace(p, default=_FEWER.get(p.name, p.default)) for p in REPETITION)


def proc_grid(np: int) -> Tuple[int, int]:
    """NPB LU's process grid (xdim, ydim) of a power-of-two rank count: ydim the largest power
    of two whose square is at most np."""
    y = 1
    while 4 * y * y <= np:
        y *= 2
    return np // y, y


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    cls = v["class"]
    n, itmax, run_s = CLASSES[cls]
    check_memory(int(FIELDS * 8 * (n + 4) ** 3), ctx, f"npb-lu class {cls} ({n}^3)")

    def fits(np: int) -> None:
        xdim, ydim = proc_grid(np)
        if n // xdim < 3:
            raise UsageError(f"npb-lu: class {cls} ({n}^3) is too small for {np} ranks (a "
                             f"{xdim} x {ydim} grid): at least 3 points a rank in i and j")
    return plan_class(b, v, ctx, run_s, SLOW_FACTOR, fits)


def _memory(spec: LaunchSpec, v: Dict[str, Any]) -> int:
    n = CLASSES[v["class"]][0]
    xdim, ydim = proc_grid(spec.nranks)
    # a rank's columns with two ghost layers in i and j, all planes
    return FIELDS * 8 * (n // xdim + 5) * (n // ydim + 5) * (n + 2) + harness_bytes(v)


register_benchmark(Benchmark(
    "npb-lu", "nas",
    "NAS Parallel Benchmarks LU: SSOR on the block lower and upper triangular systems of an "
    "implicit finite-difference Navier-Stokes discretisation, classes S 12^3 x 50 iterations, "
    "W 33^3 x 300, A 64^3 x 250, B 102^3 x 250, C 162^3 x 250; the residual and error norms "
    "and the surface integral verified against NPB 3.4's values; Mop/s as NPB counts them, "
    "NPB's 2-D pipelined wavefront over a power-of-two number of ranks",
    (Param("class", "choice", "S", "NPB problem class", choices=tuple(CLASSES)),
     RANKS,
     ) + REPS,
    _plan, ranks="--np or the ranks sweep (powers of two)", memory=_memory,
    tiny=("class=S",)))


# ---------------------------------------------------------------- card, headline rows, figures

_HOOKS = NasHooks("npb-lu", "NAS LU (NPB)", 45,
                  where=lambda p: f"class {p['class']} ({p['n']}^3, {p['itmax']} iterations), "
                                  f"{p['ranks']} ranks")
card_rows, headline_rows, figures = _HOOKS.card_rows, _HOOKS.headline_rows, _HOOKS.figures


# The study: NAS classes chosen by rank count, as for npb-cg and npb-mg (the SP2 study ran B).
for _cls, _ranks in (("A", "ladder<=64"), ("B", "ladder>=16")):
    register_study("npb-lu", **{"class": _cls}, ranks=_ranks, min_reps=2, max_reps=5, warmup=0)
