"""congestion: congestion impact by GPCNeT's method (csrc/comm/congestion.c; issue #51 item 3).
One rank a node on every node of the allocation (4 or more): `victims-percent` (GPCNeT's 20)
of them, spread evenly, measure 8 B latency, `bytes` bandwidth and an 8 B allreduce alone, then
beside the other nodes' incast and all-to-all; the ratio congested / isolated is
hpceval/analysis/congestion.py's."""
from __future__ import annotations

from typing import Any, Dict, List

from hpceval.catalog.common import (MESSAGES, harness_bytes, launch_timeout, min_nodes,
                                    repetition_args, simulated_limit)
from hpceval.catalog.options import options
from hpceval.catalog.params import Param
from hpceval.catalog.registry import Benchmark, LaunchSpec, PlanContext, register_benchmark

NEEDS = 4          # 2 victims (a pair) and 2 aggressors


def _ranks(v: Dict[str, Any], ctx: PlanContext) -> int:
    """Every node (one rank each) from NEEDS nodes up; below, left out with a note where
    min-nodes asks for nodes, else `ranks` ranks of this machine (said; --np does not apply:
    the split needs 4, where other benchmarks' --np is often 2)."""
    if ctx.nodes >= NEEDS:
        return ctx.nodes
    if v["min-nodes"] > ctx.nodes:
        ctx.note(f"congestion left out: victims and aggressors need {NEEDS} nodes or more, this "
                 f"allocation has {ctx.nodes}")
        return 0
    n = v["ranks"]
    ctx.note(f"congestion np={n}: the ranks share this machine's memory, not a network")
    return n


def _plan(b: Benchmark, v: Dict[str, Any], ctx: PlanContext) -> List[LaunchSpec]:
    n = _ranks(v, ctx)
    if not n:
        return []
    args = ["--bytes", str(v["bytes"]), "--aggressor-bytes", str(v["aggressor-bytes"]),
            "--victims-percent", str(v["victims-percent"])]
    args += b.param("buffer-pages").to_arg(v["buffer-pages"]) + repetition_args(b, v)
    return [simulated_limit(LaunchSpec(
        b.name, f"congestion np={n}", "congestion", args, n, "core", expected_results=9,
        timeout_s=launch_timeout(v, 9), ppn=1 if ctx.nodes >= 2 else None), ctx)]


register_benchmark(Benchmark(
    "congestion", "communication",
    "congestion impact (GPCNeT): victims' 8 B latency, bandwidth and 8 B allreduce alone and "
    "beside aggressors' incast and all-to-all, one rank a node; the ratio congested / isolated",
    options("congestion", "bytes aggressor-bytes victims-percent buffer-pages", bytes=MESSAGES)
    + (Param("ranks", "int", NEEDS, "ranks on one machine, below 4 nodes (2 victims and 2 "
             "aggressors at least)", NEEDS, 1 << 16),
       min_nodes("congestion", NEEDS, "on fewer nodes, --np ranks of this machine")),
    _plan, ranks="one a node on every node (>=4; on one machine `ranks`, 4)",
    memory=lambda spec, v: 2 * v["bytes"] + 2 * v["aggressor-bytes"] * spec.nranks
    + harness_bytes(v),
    tiny=("bytes=16K", "aggressor-bytes=16K"),
    # simulated: every rank busy: 0.4 s for 9 results at 8 nodes, 64 KiB and 16 KiB aggressors
    sim_per_result_s={"": 0.003},
    headline="us, MB/s (median), ratio", doc="docs/acceptance.md"))
