"""npb-cg: the NAS Parallel Benchmarks kernel CG (docs/nas_cg.md): the smallest eigenvalue of
NPB's random sparse matrix by inverse power iteration with conjugate gradients, verified against
NPB's zeta for the class; Mop/s as NPB counts them, against the number of ranks."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (check_memory, expected_seconds, harness_bytes, launch_timeout,
                                    parallel_seconds, rank_counts, repetition_args)
from hpceval.catalog.nas_common import POWER_OF_TWO, ranks_param
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, register_benchmark,
                                      register_study)

METRICS = 3                       # mops, run_time, iteration_time
# Per class: na, nonzer, niter (NPB 3.4 CG/cg.f); the rest follows (sizes, operation count).
CLASSES = {"S": (1400, 7, 15), "W": (7000, 8, 15), "A": (14000, 11, 15), "B": (75000, 13, 75)}
TYPICAL_MOPS = 1500.0             # this machine's: 3,300-3,900 Mop/s on one rank
SLOW_MOPS = 60.0                  # a pessimistic rate (time limit): 30x below this machine's
BYTES_PER_ELEMENT = 12 * 2        # generated elements (column, value), doubled for slack


def flops(cls: str) -> float:
    """NPB's operation count of one timed run (CG/cg.f, the mflops expression)."""
    na, nonzer, niter = CLASSES[cls]
    nz = nonzer * (nonzer + 1)
    return 2.0 * niter * na * (3 + nz + 25 * (5 + nz) + 3)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    cls = v["class"]
    na, nonzer, _ = CLASSES[cls]
    fixed = ["--class", cls] + repetition_args(b, v)
    # every sample is one timed run; the harness keeps at least min-reps after the warm-ups,
    # and NPB's untimed first iteration comes on top
    run_s = flops(cls) / (SLOW_MOPS * 1e6)
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        POWER_OF_TWO.check("npb-cg", n)
        check_memory(na * (nonzer + 1) ** 2 * BYTES_PER_ELEMENT + n * na * 8 * 2, ctx,
                     f"npb-cg class {cls} np={n}")
        reps = int(v["warmup"]) + int(v["min-reps"]) + 1
        specs.append(LaunchSpec(
            b.name, f"npb-cg np={n} class {cls}", "npb-cg", fixed, n, "core",
            expected_results=METRICS, estimate_s=expected_seconds(
                v, 1, parallel_seconds(run_s * SLOW_MOPS / TYPICAL_MOPS, n, ctx)),
            timeout_s=launch_timeout(v, 1) + 3.0 * reps * parallel_seconds(run_s, n, ctx)))
    return specs


def _matrix_bytes(cls: str) -> int:
    """A rank's: the generated elements (every rank makes them all) and two vectors."""
    na, nonzer, _ = CLASSES[cls]
    return na * (nonzer + 1) ** 2 * BYTES_PER_ELEMENT + na * 8 * 2


register_benchmark(Benchmark(
    "npb-cg", "nas",
    "NAS Parallel Benchmarks CG: inverse power iteration with 25 conjugate-gradient steps per "
    "iteration on NPB's random sparse matrix (makea), rows in blocks per rank (allgatherv, "
    "allreduce); zeta verified against NPB's value for the class; Mop/s as NPB counts them",
    options("npb-cg", "class") + (ranks_param(),),
    _plan, ranks="--np or the ranks sweep (powers of two)", rank_rule=POWER_OF_TWO,
    memory=lambda spec, v: _matrix_bytes(v["class"]) + harness_bytes(v),
    tiny=("class=S",),
    # simulated: the 256- and 1,024-rank studies of 2026-12-07 here, SMPI 3.32 (benchmarks/
    # study_run.py's costs)
    sim_per_result_s={"": 0.23},
    headline="Mop/s as NPB counts them, time", doc="docs/nas_cg.md"))


# The study: NAS classes chosen by rank count (A up to 64 ranks, B from 16 on; the classes the
# binary has); NPB's power-of-two rule and the class's size leave other rungs out, said.
for _cls, _ranks in (("A", "ladder<=64"), ("B", "ladder>=16")):
    register_study("npb-cg", **{"class": _cls}, ranks=_ranks, min_reps=2, max_reps=5, warmup=0)
