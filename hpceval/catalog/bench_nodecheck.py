"""nodecheck: every node at once (csrc/mem/nodecheck.c; issue #51 item 1). One rank a node on
every node of the allocation, each on all its cores (OpenMP threads, bound close): STREAM's
triad (GB/s) and a compute-bound multiply-add rate (GFLOP/s), one record per node with its
name, judged against the other nodes by the outlier rule (hpceval/analysis/outliers.py)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (REPETITION, harness_bytes, launch_timeout, repetition_args,
                                    simulated_limit)
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark


def _threads(v: Dict[str, Any], ctx: PlanContext) -> int:
    return v["threads"] or ctx.per_node


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nodes, threads = max(ctx.nodes, 1), _threads(v, ctx)
    args = ["--bytes", str(v["bytes"]), "--threads", str(threads)] + repetition_args(b, v)
    env = {"OMP_NUM_THREADS": str(threads), "OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    return [simulated_limit(LaunchSpec(b.name, f"nodecheck nodes={nodes} threads={threads}", "nodecheck", args,
                       nodes, "none", env, expected_results=2 * nodes,
                       timeout_s=launch_timeout(v, 2), ppn=1 if nodes > 1 else None), ctx)]


register_benchmark(Benchmark(
    "nodecheck", "memory",
    "every node at once, one rank a node on all its cores: STREAM triad and a multiply-add "
    "rate, one record per node (the nodes judged against each other)",
    (Param("bytes", "size", 32 << 20, "triad working set a thread (three arrays)", 64 << 10,
           1 << 36),
     Param("threads", "int", 0, "OpenMP threads a node (0: every core of a node)", 0, 4096))
    + REPETITION,
    _plan, ranks="one a node on every node",
    memory=lambda spec, v: int(spec.env["OMP_NUM_THREADS"]) * v["bytes"] + harness_bytes(v),
    tiny=("bytes=1M",)))
