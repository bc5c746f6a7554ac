"""nodecheck: every node at once (csrc/mem/nodecheck.c; issue #51 item 1). One rank a node on
every node of the allocation, each on all its cores (OpenMP threads, bound close): STREAM's
triad (GB/s), a compute-bound multiply-add rate (GFLOP/s) and the memory latency of a random
cycle over chase-bytes (ns a load), one record per node with its name, judged against the other nodes by the outlier rule (hpceval/analysis/outliers.py)."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (fits_host, harness_bytes, launch_timeout, repetition_args,
                                    simulated_limit)
from hpceval.catalog.options import options
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark
from hpceval.errors import UsageError


def _threads(v: Dict[str, Any], ctx: PlanContext) -> int:
    return v["threads"] or ctx.per_node


def _bytes(v: Dict[str, Any], threads: int) -> int:
    """A rank's arrays: the triad's of every thread, the chase's."""
    return threads * v["bytes"] + v["chase-bytes"] + harness_bytes(v)


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    nodes, threads = max(ctx.nodes, 1), _threads(v, ctx)
    if not fits_host(_bytes(v, threads), nodes, ctx):
        raise UsageError(f"nodecheck: {nodes} simulated nodes x {_bytes(v, threads) >> 20} MiB "
                         "do not fit this host's memory (--set nodecheck.bytes=... "
                         "nodecheck.chase-bytes=... make them smaller)")
    args = ["--bytes", str(v["bytes"]), "--chase-bytes", str(v["chase-bytes"]),
            "--threads", str(threads)] + repetition_args(b, v)
    env = {"OMP_NUM_THREADS": str(threads), "OMP_PROC_BIND": "close", "OMP_PLACES": "cores"}
    spec = LaunchSpec(b.name, f"nodecheck nodes={nodes} threads={threads}", "nodecheck", args,
                      nodes, "none", env, expected_results=3 * nodes,
                      timeout_s=launch_timeout(v, 3), ppn=1 if nodes > 1 else None)
    return [simulated_limit(spec, ctx)]


register_benchmark(Benchmark(
    "nodecheck", "memory",
    "every node at once, one rank a node on all its cores: STREAM triad, a multiply-add rate "
    "and memory latency, one record per node (the nodes judged against each other)",
    options("nodecheck", "bytes chase-bytes threads"),
    _plan, ranks="one a node on every node",
    memory=lambda spec, v: _bytes(v, int(spec.env["OMP_NUM_THREADS"])),
    tiny=("bytes=1M", "chase-bytes=1M"),
    # simulated: 0.054 s a result at 8 nodes, flat N x 1; each rank's kernels run on this host in
    # turn, a result its one rank's
    sim_per_result_s={"": 0.05},
    sim_busy_ranks={"": 1},
    headline="GB/s, GFLOP/s, ns (median)", doc="docs/acceptance.md"))
