"""npb-mg: the NAS Parallel Benchmarks' MG kernel (docs/nas_mg.md): V-cycle multigrid on a
periodic 3-D Poisson problem, classes S, W, A, B, verified against NPB 3.4's residual norms;
Mop/s as NPB counts them (58 * nit * n^3 per run) vs the number of ranks."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import check_memory, harness_bytes
from hpceval.catalog.nas_common import (POWER_OF_TWO, FEWER_REPS, plan_class, ranks_param,
                                        register_npb_study)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark
from hpceval.errors import UsageError

# class: (n, nit, a pessimistic timed run on one rank in seconds: 5x this machine's)
CLASSES = {"S": (32, 4, 0.01), "W": (128, 4, 1.0), "A": (256, 4, 7.0), "B": (256, 20, 35.0)}
SLOW_FACTOR = 5.0   # the classes' run times are this many times this machine's
ARRAYS = 3.4        # u and r of the finest level, v, and 2/7 of that for the coarser levels


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    cls = v["class"]
    n, nit, run_s = CLASSES[cls]
    check_memory(int(ARRAYS * 8 * n ** 3), ctx, f"npb-mg class {cls} ({n}^3)")

    def fits(np: int) -> None:
        if n < 2 * np:
            raise UsageError(f"npb-mg: class {cls} ({n}^3) is too small for {np} ranks: at "
                             f"most {n // 2}")
    return plan_class(b, v, ctx, run_s, SLOW_FACTOR, fits)


register_benchmark(Benchmark(
    "npb-mg", "nas",
    "NAS Parallel Benchmarks MG: V-cycle multigrid on a periodic 3-D Poisson problem (NPB's "
    "operators and charge placement), classes S 32^3, W 128^3, A 256^3 (4 iterations), "
    "B 256^3 (20); the final residual norm verified against NPB 3.4's value; Mop/s as NPB "
    "counts them, z-slab decomposition over a power-of-two number of ranks",
    options("npb-mg", "class", **FEWER_REPS) + (ranks_param(),),
    _plan, ranks="--np or the ranks sweep (powers of two)", rank_rule=POWER_OF_TWO,
    # a z-slab of every level, with ghost planes: half as much again
    memory=lambda spec, v: (int(1.5 * ARRAYS * 8 * CLASSES[v["class"]][0] ** 3 / spec.nranks)
                            + harness_bytes(v)),
    tiny=("class=S",),
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.35},
    headline="Mop/s as NPB counts them, time", doc="docs/nas_mg.md"))


register_npb_study("npb-mg")   # classes A and B by rank count, as for npb-cg
