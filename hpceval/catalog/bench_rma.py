"""rma: one-sided communication by synchronisation mode (csrc/comm/rma.c, as osu_put_latency/-bw,
osu_get_latency/-bw, osu_acc_latency, osu_fop_latency, osu_cas_latency; issue #48 item 3). Rank 0
is the origin, rank 1 the target: one launch of 2 ranks measures every operation under every
mode asked for."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import MESSAGES, harness_bytes, launch_timeout, repetition_args
from hpceval.catalog.options import options
from hpceval.catalog.registry import (Benchmark, LaunchSpec, PlanContext, join_suite,
                                      register_benchmark, register_study)
from hpceval.errors import UsageError

ACC_ELEMENT = 4          # acc sums 4-byte integers: sizes of whole elements only (docs/rma.md)


def results_per_mode(ops: List[str], sizes: List[int]) -> int:
    """Records one synchronisation mode gives: latency and bandwidth a size for put and get,
    latency a size of whole elements for acc, one 8-byte latency for fop and cas."""
    whole = sum(1 for s in sizes if s % ACC_ELEMENT == 0)
    return sum({"put": 2 * len(sizes), "get": 2 * len(sizes), "acc": whole}.get(op, 1)
               for op in ops)


def _slots(v: Dict[str, Any]) -> int:
    """Message-size slots of each buffer: the bandwidth window for put and get, else one."""
    return v["window"] if {"put", "get"} & set(v["ops"]) else 1


def _check(v: Dict[str, Any]) -> None:
    if v["ops"] == ["acc"] and not any(s % ACC_ELEMENT == 0 for s in v["sizes"]):
        raise UsageError(f"--set rma.sizes: acc sums {ACC_ELEMENT}-byte integers, and no size "
                         f"is a multiple of {ACC_ELEMENT}")


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    _check(v)
    args = [a for name in ("ops", "sync", "sizes", "window", "win")
            for a in b.param(name).to_arg(v[name])]
    points = len(v["sync"]) * results_per_mode(v["ops"], v["sizes"])
    return [LaunchSpec(b.name, f"rma {','.join(v['sync'])} win={v['win']}", "rma",
                       args + repetition_args(b, v), 2, "core", expected_results=points,
                       timeout_s=launch_timeout(v, points))]


register_benchmark(Benchmark(
    "rma", "communication",
    "one-sided put, get, accumulate (latency; put and get bandwidth too), fetch-and-op and "
    "compare-and-swap latency, rank 0 to rank 1, under fence, lock, lock_all+flush and "
    "post-start-complete-wait (osu_put_latency -s ...)",
    options("rma", "ops sync sizes window win buffer-pages", sizes=MESSAGES),
    _plan, ranks="2 (rank 0 origin, rank 1 target)",
    # the origin's source, result and expected-data buffers and the window, each of the
    # largest size times the window when put or get runs: a bandwidth epoch's operations go
    # to window different slots (csrc/comm/rma.c), 4 x 32 MiB at the defaults
    memory=lambda spec, v: 4 * max(v["sizes"]) * _slots(v) + harness_bytes(v),
    tiny=("sizes=8,1K",),
    # simulated: 88 results, every op and mode at 8 B .. 1 MiB, study settings, fat tree 32 x 2:
    # 30 s, two ranks (0.17 s a result); 0.37 in the studies of 2026-12-07 (study_run.py's costs)
    sim_per_result_s={"": 0.37},
    headline="us, MB/s (median)", doc="docs/rma.md"))


# The study: every op under one passive-target mode (flush, the card's row) and one active
# (fence), at 8 B to 1 MiB in steps of 64x: 44 points. Every mode at six sizes (128 points) took
# 6.7-9.3 s of the two-node study's 30 s on the virtual cluster (a point's epochs cross the
# network; 52-73 ms a point against 15 ms on one node) and left hydro out. Simulated, a point
# costs SMPI 0.34 s of wall time (hpceval/simulate/cost.py). The comm suite has every mode.
register_study("rma", budget=0.05, ci_target=0.03, max_reps=200, sync="flush,fence",
               sizes="8,512,32K,1M")

# The comm suite: every op by every synchronisation mode, at six sizes.
join_suite("comm", "rma", budget=0.05, ci_target=0.03, max_reps=200, sizes="8,64,1K,8K,64K,1M")
