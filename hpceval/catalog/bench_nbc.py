"""nbc: non-blocking collectives and their overlap with computation (csrc/comm/nbc.c, as IMB-NBC
and osu_iallreduce; issue #48 item 2). Per collective and size: the pure time (post, wait), a
computation calibrated to it, the time with the computation between post and wait, and the
overlap by IMB-NBC's definition. One launch per rank count (docs/nbc.md)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (RANKS_SWEEP, harness_bytes, launch_timeout, rank_counts,
                                    repetition_args)
from hpceval.catalog.options import options
from hpceval.catalog.params import format_size
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

METRICS = 4     # time_pure, time_cpu, time_overlapped, overlap
PHASES = 3      # each a sampled point of its own (its budget)


def _check(v: Dict[str, Any]) -> None:
    """What the binary refuses too: iallreduce sums int32 elements."""
    odd = [s for s in v["sizes"] if s % 4]
    if "iallreduce" in v["ops"] and odd:
        raise UsageError(f"--set nbc.sizes: iallreduce needs multiples of 4 bytes (int32 "
                         f"elements), {odd[0]} given")


def _points(v: Dict[str, Any]) -> int:
    ops = v["ops"]
    return ("ibarrier" in ops) + (len(ops) - ("ibarrier" in ops)) * len(v["sizes"])


def _label(b: Benchmark, v: Dict[str, Any]) -> str:
    """'nbc', or 'nbc 4,1K' with other sizes than the default: a launch's cost is known by its
    label's words (simulate/cost.py), and a simulated point of 1 MiB costs 50 of 1 KiB."""
    sizes = v["sizes"]
    return "nbc" if sizes == b.param("sizes").initial else \
        "nbc " + ",".join(format_size(s) for s in sizes)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    args = ["--ops", ",".join(v["ops"])] + [a for name in ("sizes", "tests")
                                            for a in b.param(name).to_arg(v[name])]
    points, label = _points(v), _label(b, v)
    specs = []
    for n in rank_counts(v["ranks"], ctx):
        if n < 2:
            raise UsageError(f"nbc needs 2 ranks or more, {n} given")
        specs.append(LaunchSpec(b.name, f"{label} np={n}", "nbc", args + repetition_args(b, v), n,
                                "core", expected_results=METRICS * points,
                                timeout_s=launch_timeout(v, PHASES * points)))
    return specs


register_benchmark(Benchmark(
    "nbc", "communication",
    "non-blocking collectives (ibarrier, ibcast, iallreduce, iallgather, ialltoall): pure time, "
    "time with a calibrated computation between post and wait, overlap % (IMB-NBC)",
    options("nbc", "ops sizes tests buffer-pages") + (RANKS_SWEEP,),
    _plan, ranks=">=2 (--np or the ranks sweep)", check=_check,
    # iallgather, ialltoall: a send and a receive buffer of ranks x size
    memory=lambda spec, v: 2 * spec.nranks * max(v["sizes"]) + harness_bytes(v),
    tiny=("sizes=8,1K",),
    # a budget's top rung: one variant of each choice (budget.py's tops)
    at_scale=("sizes=4,1K",),
    # simulated, the study's settings on 64 x 16 (flat): a result a rank cost 0.004 s at 2 ranks,
    # 0.009 at 4, 0.075 at 8 and 0.29 at 16 and 32 (stopped at 3x the default's estimate); the
    # top rungs cost the most, so theirs. At its at_scale sizes, 2 samples a point (SMPI 3.32;
    # 4.1 in brackets): 0.002 (0.002) at 2 ranks, 0.012 (0.0055) at 16, 0.022 (0.0057) at 32,
    # over 0.08 (0.016) at 64, (0.063) at 128: SMPI's iallreduce alone took 1.3 s at 64 ranks
    # and 45 s at 128. The cost of 64 to 128 ranks, not of the cheap rungs below: a rung not
    # learned yet is planned from a declared cost, and one too low put 128 ranks in the hour
    sim_per_result_s={"": 0.3, "nbc 4,1K": 0.05},
    # ... and from rung to rung as P^2 (4.1: x2.8 from 32 to 64 ranks, x3.9 from 64 to 128),
    # where cost.TREND's slow fall planned 128 ranks at a sixth of what they took
    sim_trend=-2.0,
    headline="us (median), overlap %", doc="docs/nbc.md"))


# The study: against rank count, every rung of the allocation's ladder from 2 ranks.
register_study("nbc", budget=0.05, ci_target=0.03, max_reps=200, ranks="ladder>=2")

# The comm suite: pure time and overlap with computation at 2 and 4 ranks (IMB-NBC).
join_suite("comm", "nbc", budget=0.05, ci_target=0.03, max_reps=200, ranks="2,4")
